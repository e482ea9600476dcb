// What goes wrong inside a job stays inside it: a memory model that throws from b_transport (a user's bus, an
// exhausted host) ends that job with the simulator's own fault, STATUS and the IRQ as for any fault, and the
// same NPU runs the next job. A QSIZE of 4 GiB costs no 4 GiB of host memory and fetches nothing. A configure()
// while a job runs is refused and leaves the job as it started.
#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <functional>
#include <stdexcept>

#include "ethosu_sim/config.h"
#include "isa/assembler.h"
#include "isa/registers.h"
#include "models/mem/memory.h"
#include "models/npu/npu.h"
#include "sim/error.h"
#include "tests/unit/apb_stimulus.h"

namespace ethosu::npu {
namespace {

using isa::Reg;
using isa::RegField;

// A target that grants no DMI and throws on every access.
SC_MODULE(ThrowingMemory) {
  tlm_utils::simple_target_socket<ThrowingMemory> socket;
  SC_CTOR(ThrowingMemory) : socket("socket") { socket.register_b_transport(this, &ThrowingMemory::b_transport); }
  void b_transport(tlm::tlm_generic_payload&, sc_core::sc_time&) { throw std::runtime_error("the bus model failed"); }
};

using Stimulus = ethosu::testing::ApbStimulus;

constexpr uint32_t kStopStream = 0x1000;
constexpr uint32_t kLongStream = 0x100000;

// 1000 DMAs of 16 bytes in region 0 (the SRAM from address 0), then the stop.
std::vector<uint8_t> long_stream() {
  std::string text = "NPU_SET_DMA0_SRC_REGION region=0\nNPU_SET_DMA0_DST_REGION region=0\n";
  for (int i = 0; i < 1000; ++i)
    text += "NPU_SET_DMA0_SRC addr=0\nNPU_SET_DMA0_DST addr=0x100\nNPU_SET_DMA0_LEN length=16\nNPU_OP_DMA_START\n";
  return isa::assemble(text + "NPU_OP_STOP mask=0x1\n");
}

// One platform per process: SystemC elaborates once, so every test shares it.
struct Bench {
  mem::Memory sram{"sram"};
  ThrowingMemory bad{"bad"};
  ethosu_sim::Npu npu{"npu"};
  Stimulus stim{"stim"};
  sc_core::sc_signal<bool> irq{"irq"}, reset{"reset"};
  std::vector<uint8_t> stream = isa::assemble("NPU_OP_STOP mask=0x1\n");
  std::vector<uint8_t> long_job = long_stream();
  std::vector<uint8_t> dma_data = std::vector<uint8_t>(4096, 1);
  uint32_t status = 0;

  Bench() {
    npu.axi0.bind(sram.socket);
    npu.axi1.bind(bad.socket);
    stim.apb.bind(npu.apb);
    npu.irq.bind(irq);
    npu.reset.bind(reset);
    stim.irq.bind(irq);
    sram.map(kStopStream, stream.data(), stream.size());
    sram.map(kLongStream, long_job.data(), long_job.size());
    sram.map(0, dma_data.data(), dma_data.size());
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
  static Bench& instance() {
    static Bench b;
    return b;
  }
  // Runs the stream at `qbase` through AXI port `port` and returns STATUS after the IRQ; `during` runs in the
  // driver's thread right after CMD.
  uint32_t run(unsigned port, uint32_t qbase, uint32_t qsize, const std::function<void(Stimulus&)>& during = {}) {
    stim.script = [&](Stimulus& s) {
      s.wr(isa::reg_at(Reg::RESET, 0), 2);
      s.wr(isa::reg_at(Reg::QCONFIG, 0), port ? 2 : 0);
      s.wr(isa::reg_at(Reg::QBASE, 0), qbase);
      s.wr(isa::reg_at(Reg::QSIZE, 0), qsize);
      s.wr(isa::reg_at(Reg::CMD, 0), 1);
      if (during) during(s);
      if (!s.irq.read()) wait(s.irq.posedge_event());
      status = s.rd(isa::reg_at(Reg::STATUS, 0));
    };
    stim.go.notify(sc_core::SC_ZERO_TIME);
    sc_core::sc_start();
    return status;
  }
  uint32_t run(unsigned port, uint32_t qsize) { return run(port, kStopStream, qsize); }
};

bool has(uint32_t status, RegField f) { return isa::get(status, f) != 0; }

TEST(NpuContainment, AThrowingMemoryEndsTheJobNotTheSimulator) {
  Bench& b = Bench::instance();
  const uint32_t failed = b.run(1, static_cast<uint32_t>(b.stream.size()));
  EXPECT_TRUE(has(failed, RegField::STATUS_cmd_parse_error));
  EXPECT_TRUE(has(failed, RegField::STATUS_irq_raised));
  EXPECT_NE(b.npu.report().status.find("simulation limit at 0x000000: the simulator could not run the job: the bus "
                                       "model failed"),
            std::string::npos)
      << b.npu.report().status;
  // The same NPU, the next job: a clean stop.
  const uint32_t ok = b.run(0, static_cast<uint32_t>(b.stream.size()));
  EXPECT_TRUE(has(ok, RegField::STATUS_cmd_end_reached)) << std::hex << ok;
  EXPECT_FALSE(has(ok, RegField::STATUS_cmd_parse_error));
  EXPECT_EQ(b.npu.report().status, "ok");
}

TEST(NpuContainment, AStreamOverTheQsizeLimitIsRefusedWithoutFetchingIt) {
  // QSIZE of 4 GiB - 4: over the 16 MiB limit, so the NPU parses nothing, and fetches nothing either (it once
  // reported 16 MiB of command fetch in a job of 70 cycles).
  Bench& b = Bench::instance();
  const uint32_t huge = b.run(0, 0xFFFFFFFC);
  EXPECT_TRUE(has(huge, RegField::STATUS_cmd_parse_error)) << std::hex << huge;
  EXPECT_FALSE(has(huge, RegField::STATUS_bus_status)) << std::hex << huge;
  const ethosu_sim::JobReport& r = b.npu.report();
  EXPECT_NE(r.status.find("over the 16 MiB QSIZE limit"), std::string::npos) << r.status;
  for (unsigned port = 0; port < 2; ++port)
    for (uint64_t bytes : r.ports[port].read_bytes) EXPECT_EQ(bytes, 0u) << "AXI" << port;
  EXPECT_EQ(r.stat("npu.cc.command_bytes"), 0u);
}

TEST(NpuContainment, ConfigureDuringAJobIsRefusedAndTheJobRunsAsItStarted) {
  Bench& b = Bench::instance();
  // A short quantum, so that the CC synchronises with SystemC between the DMAs and a mid-job change would reach
  // the later ones (it once did: 83,768 cycles became 3,042,864).
  ethosu_sim::Config quick;
  quick.set("npu.cc.quantum_cycles", "100");
  ethosu_sim::Config slow = quick;
  slow.set("mem.axi0.read_latency_cycles", "3000");
  b.npu.configure(quick);
  const auto qsize = static_cast<uint32_t>(b.long_job.size());
  ASSERT_TRUE(has(b.run(0, kLongStream, qsize), RegField::STATUS_cmd_end_reached));
  const uint64_t undisturbed = b.npu.report().total_cycles;
  ASSERT_GT(undisturbed, 10000u);

  std::string refusal;
  const uint32_t status = b.run(0, kLongStream, qsize, [&](Stimulus& s) {
    s.idle(1000);
    try {
      b.npu.configure(slow);
    } catch (const InputError& e) {
      refusal = e.what();
    }
  });
  EXPECT_TRUE(has(status, RegField::STATUS_cmd_end_reached)) << std::hex << status;
  EXPECT_NE(refusal.find("the NPU is running a job"), std::string::npos) << refusal;
  EXPECT_EQ(b.npu.report().total_cycles, undisturbed);

  // Between jobs the change applies: 3000 cycles for each DMA's read.
  b.npu.configure(slow);
  b.run(0, kLongStream, qsize);
  EXPECT_GT(b.npu.report().total_cycles, 10 * undisturbed);
  b.npu.configure(ethosu_sim::Config());
}

}  // namespace
}  // namespace ethosu::npu

extern "C" int sc_main(int, char**) { return 0; }
