// Every parameter `ethosu-sim run --list-params` prints is live: set to another allowed value, it changes
// something a run reports (cycles, an operation's timing or utilisation, the PMU, STATUS, a fault, an output
// byte, the run's duration in seconds), or what the driver shims report; read-only labels refuse to be set;
// the CC's synchronisation quantum, by design, changes nothing. A parameter this table does not know fails
// the test, so a new one cannot be listed without being shown to act.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "host/backends/shim_env.h"
#include "host/run/run_job.h"
#include "host/config/config.h"
#include "isa/assembler.h"
#include "sim/error.h"
#include "tests/unit/npu_streams.h"

namespace ethosu::host {
namespace {

using npu::test::conv_1x1;
using npu::test::kStop;
using npu::test::pool;
using npu::test::zero_weights;

// A 256-byte DMA from region `from` offset 0 to region 2 at `dst`.
std::string dma(unsigned from, uint64_t dst) {
  return "NPU_SET_DMA0_SRC_REGION region=" + std::to_string(from) + "\nNPU_SET_DMA0_DST_REGION region=2\n"
         "NPU_SET_DMA0_SRC addr=0\nNPU_SET_DMA0_DST addr=" + std::to_string(dst) + "\nNPU_SET_DMA0_LEN length=256\n"
         "NPU_OP_DMA_START\n";
}

// Jobs that exercise every block: a MAC- and WD-bound conv with compressed weights in region 1, then
// three overlapping pools (BLOCKDEP 3) in region 2; a DMA from each region into region 2 followed by a pool
// from region 2 into region 1 (both ports read and written);
// an 8-bit LUT loaded into the SHRAM's LUT banks by an internal DMA and used by a pool.
Job make_job(const std::string& kind) {
  Job job;
  job.name = kind;
  std::string text;
  if (kind == "compute") {
    text = conv_1x1(144) + "NPU_OP_CONV\nNPU_SET_BLOCKDEP blockdep=3\n";
    for (uint32_t k = 0; k < 3; ++k) text += pool(4, 16, 1, 2, 0x1000 * k, 2, 0x400 + 0x1000 * k) + "NPU_OP_POOL\n";
  } else if (kind == "dma") {
    for (unsigned r = 0; r < 8; ++r) text += dma(r, 0x100 * r);
    text += pool(4, 16, 1, 2, 0x2000, 1, 0x3000) + "NPU_OP_POOL\nNPU_OP_DMA_WAIT k=0\n";
  } else {
    // The LUT banks are the top 2 KiB of a 48 KiB SHRAM: slot 0 at 46 KiB.
    text = "NPU_SET_DMA0_SRC_REGION region=1\nNPU_SET_DMA0_DST_REGION region=1 region_mode=INTERNAL\n"
           "NPU_SET_DMA0_SRC addr=0\nNPU_SET_DMA0_DST addr=47104\nNPU_SET_DMA0_LEN length=256\nNPU_OP_DMA_START\n"
           "NPU_OP_DMA_WAIT k=0\nNPU_SET_ACTIVATION activation_function=TABLE_0\n" +
           pool(1, 4, 4, 2, 0, 2, 0x100) + "NPU_OP_POOL\n";
  }
  job.stream = isa::assemble(text + kStop);
  for (auto& r : job.regions) {
    r.resize(0x4000);
    for (size_t i = 0; i < r.size(); ++i) r[i] = static_cast<uint8_t>(i * 7 + 3);
  }
  if (kind == "compute") {
    const auto w = zero_weights(16 * 32);
    std::copy(w.begin(), w.end(), job.regions[1].begin() + 0x1100);
  }
  return job;
}

// What a run shows, as text: every difference between two runs shows up in it.
std::string fingerprint(const std::string& kind, const std::vector<std::string>& assignments) {
  Job job = make_job(kind);
  MachineRequest request;
  request.assignments = assignments;
  const sim::Config config = resolve_config(request, job.variant);
  job.variant = config.param("npu.variant").as_string();
  RunOptions options = run_options(config);
  options.pmu_events = parse_pmu_events({"MAC_DPU_ACTIVE", "WD_ACTIVE", "AXI0_RD_DATA_BEAT_RECEIVED",
                                         "AXI1_WR_DATA_BEAT_WRITTEN"}).events;
  const RunOutcome r = run_job(job, options);
  std::string out = r.fault.value_or("ok") + " status " + std::to_string(r.status) + " cycles " +
                    std::to_string(r.report->total_cycles) + " seconds " +
                    std::to_string(double(r.report->total_cycles) / r.report->clock_hz);
  for (const auto& op : r.report->ops)
    out += "\n" + op.kind + " " + std::to_string(op.start_cycle) + "-" + std::to_string(op.end_cycle) + " util " +
           std::to_string(op.mac_utilisation);
  for (const auto& [name, value] : r.report->pmu) out += "\n" + name + " " + std::to_string(value);
  for (const auto& region : job.regions) out += "\n" + std::to_string(std::hash<std::string>{}(std::string(region.begin(), region.end())));
  return out;
}

enum class Effect { RUN, SHIM, LABEL, NONE };
struct Probe {
  std::string value;  // another allowed value
  std::string job;    // the job it shows on
  Effect effect = Effect::RUN;
};

// Per parameter: a value that must make a difference, and where.
const std::map<std::string, Probe>& probes() {
  static const std::map<std::string, Probe> p = [] {
    std::map<std::string, Probe> m = {
        {"npu.variant", {"ethos-u65-512", "compute"}},  // two cores: the array's peak doubles
        {"npu.cores", {"2", "compute"}},
        {"npu.mac.per_core", {"128", "compute"}},
        {"npu.mac.weight_buffer_refill_cycles", {"256", "compute"}},
        {"npu.wd.weights_per_cycle", {"1", "compute"}},
        {"npu.shram.bytes_per_core", {"32768", "lut"}},  // the LUT banks move: the DMA lands outside
        {"npu.cc.cycles_per_word", {"8", "compute"}},
        {"npu.cc.fetch_bytes", {"4", "compute"}},
        {"npu.cc.tsu_banks", {"1", "compute"}},
        {"npu.cc.quantum_cycles", {"7", "compute", Effect::NONE}},
        {"npu.dma.queue_depth", {"1", "dma"}},
        {"system.clock_hz", {"400000000", "compute"}},
        {"system.config", {"imx93", "compute", Effect::LABEL}},
        {"system.memory_mode", {"Shared_Sram", "compute", Effect::LABEL}},
        {"mem.sram.size_bytes", {"65536", "", Effect::SHIM}},
        {"sim.limits.work_steps", {"1000", "compute"}},  // the conv no longer fits: a simulation-limit fault
        {"sim.limits.buffer_elements", {"64", "compute"}},
        {"sim.limits.host_threads", {"4", "compute", Effect::NONE}},  // the same outputs and cycles as one thread
    };
    for (const char* port : {"mem.axi0.", "mem.axi1."}) {
      m[std::string(port) + "memory"] = {"dram", "", Effect::LABEL};
      m[std::string(port) + "bytes_per_cycle"] = {"0.5", "dma"};
      m[std::string(port) + "burst_bytes"] = {"1024", "dma"};
      m[std::string(port) + "read_latency_cycles"] = {"3000", "dma"};
      m[std::string(port) + "write_latency_cycles"] = {"3000", "dma"};
      m[std::string(port) + "max_outstanding_reads"] = {"1", "dma"};
      m[std::string(port) + "max_outstanding_writes"] = {"1", "dma"};
    }
    // A platform's Dram (include/ethosu_sim/dram.h) reads these; the ready platform's memories add no time.
    for (const char* dram : {"bytes_per_ns", "read_latency_ns", "write_latency_ns", "burst_bytes"})
      m[std::string("mem.dram.") + dram] = {"7", "dma", Effect::NONE};
    // The default's opposite: SRAM's channels shared, DRAM's split.
    m["mem.axi0.shared_data_bus"] = {"true", "dma"};
    m["mem.axi1.shared_data_bus"] = {"false", "dma"};
    for (unsigned r = 0; r < 8; ++r) m["regions." + std::to_string(r) + ".port"] = {r == 2 ? "1" : "0", "dma"};
    return m;
  }();
  return p;
}

TEST(Parameters, EveryListedParameterActsOrIsReadOnly) {
  const sim::Config declared = make_config();
  std::map<std::string, std::string> baseline;
  for (const char* job : {"compute", "dma", "lut"}) baseline[job] = fingerprint(job, {});
  EXPECT_EQ(fingerprint("lut", {}).find("bus error"), std::string::npos);  // the LUT job runs as it is
  for (const sim::Param* p : declared.params()) {
    SCOPED_TRACE(p->name());
    const auto it = probes().find(p->name());
    ASSERT_NE(it, probes().end()) << "a parameter with no probe: show what it changes in probes()";
    const Probe& probe = it->second;
    const std::string assignment = p->name() + "=" + probe.value;
    switch (probe.effect) {
      case Effect::RUN:
        EXPECT_NE(fingerprint(probe.job, {assignment}), baseline[probe.job]) << assignment << " changed nothing";
        break;
      case Effect::NONE:
        EXPECT_EQ(fingerprint(probe.job, {assignment}), baseline[probe.job]) << assignment;
        break;
      case Effect::LABEL:
        EXPECT_TRUE(p->read_only());
        EXPECT_THROW(fingerprint(probe.job, {assignment}), InputError);
        break;
      case Effect::SHIM: {
        const auto env = [&](const char* name) -> const char* {
          static const std::string set = assignment;
          return std::string(name) == "ETHOSU_SIM_SET" ? set.c_str() : nullptr;
        };
        EXPECT_EQ(read_shim_settings(env, ShimDriver::NXP).sram_size_bytes, std::stoull(probe.value));
        break;
      }
    }
  }
}

}  // namespace
}  // namespace ethosu::host
