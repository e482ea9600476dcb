// embed_systemc: the ethosu-sim NPU inside a virtual platform of one's own.
//
//   embed_systemc CASE_DIR [--set NAME=VALUE ...] [--bus-latency-ns N] [--fast [--no-dmi]]
//
// The platform: a CPU running a driver (cpu.h), a system bus (router.h) with an on-chip SRAM, a DRAM and the
// NPU's register page on it, and the NPU, whose AXI0 and AXI1 ports are bus initiators too. The case's
// command stream goes to DRAM, each region to the memory its REGIONCFG port reaches (regions.N.port). The
// program prints `total_cycles <N>` (the NPU's cycles for the stream) and `exact` when every output equals
// its expected file (exit 0), else the differences (exit 1); bad arguments or a bad case exit 2.
//
// The NPU sends its traffic over the bus as TLM transactions (its default bus mode): every AXI transaction a
// b_transport at its time. With the bus adding nothing (the default), the cycles are those of `ethosu-sim run
// CASE_DIR` with the same --set options within 1 %: the NPU models its own AXI ports, the memories add no time,
// and a transfer's real runs can differ from the shape the CLI's fast path assumes. --bus-latency-ns makes every
// bus access slower; a transaction then completes no earlier than the bus answers. --fast selects the fast path
// (DMI, Npu::BusMode::FAST), with which the cycles equal the CLI's exactly and the bus latency adds to the NPU's
// port latency; --no-dmi then makes the bus refuse DMI, so the NPU stages its regions by b_transport.
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <systemc>

#include <ethosu_sim/config.h>
#include <ethosu_sim/error.h>
#include <ethosu_sim/npu.h>
#include <ethosu_sim/run.h>

#include "cpu.h"
#include "ram.h"
#include "router.h"

namespace {

// The memory map [i.MX 93-like: OCRAM, DDR and the NPU's registers].
constexpr uint64_t kSramBase = 0x2000'0000, kDramBase = 0x8000'0000, kNpuRegisters = 0x4A90'0000;
constexpr uint64_t kPage = 4096;

uint64_t page_align(uint64_t v) { return (v + kPage - 1) / kPage * kPage; }

struct Options {
  std::string case_dir;
  ethosu_sim::MachineRequest machine;
  double bus_latency_ns = 0;
  bool dmi = true;
  bool fast = false;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--set" && has_value) {
      o.machine.assignments.push_back(argv[++i]);
    } else if (a == "--bus-latency-ns" && has_value) {
      o.bus_latency_ns = std::stod(argv[++i]);
    } else if (a == "--no-dmi") {
      o.dmi = false;
    } else if (a == "--fast") {
      o.fast = true;
    } else if (o.case_dir.empty() && a.rfind("--", 0) != 0) {
      o.case_dir = a;
    } else {
      throw ethosu_sim::InputError("unexpected argument '" + a + "'");
    }
  }
  if (o.case_dir.empty())
    throw ethosu_sim::InputError(
        "usage: embed_systemc CASE_DIR [--set NAME=VALUE ...] [--bus-latency-ns N] [--fast [--no-dmi]]");
  if (!o.dmi && !o.fast) throw ethosu_sim::InputError("--no-dmi goes with --fast: the transaction mode asks for no DMI");
  return o;
}

}  // namespace

int sc_main(int argc, char** argv) {
  try {
    const Options options = parse(argc, argv);
    ethosu_sim::Job job = ethosu_sim::Job::from_case(options.case_dir);
    const ethosu_sim::Config config(options.machine, job.variant());

    // Lay the job out: the stream in DRAM, each region in the memory of its port, page-aligned with a gap.
    std::vector<uint8_t> stream = job.stream();
    NpuSubmission submission;
    submission.registers = kNpuRegisters;
    submission.regioncfg = config.regioncfg();
    submission.qbase = kDramBase;
    submission.qsize = static_cast<uint32_t>(stream.size());
    submission.buffers.push_back({kDramBase, &stream});
    uint64_t next[2] = {kSramBase, page_align(kDramBase + stream.size() + 1)};
    for (unsigned r = 0; r < ethosu_sim::kRegionCount; ++r) {
      const unsigned port = (submission.regioncfg >> (2 * r) & 3) >> 1;
      submission.basep[r] = next[port];
      submission.buffers.push_back({next[port], &job.region(r)});
      next[port] = page_align(next[port] + job.region(r).size() + 1);
    }

    Ram sram("sram", next[0] - kSramBase + kPage), dram("dram", next[1] - kDramBase);
    ethosu_sim::Npu npu("npu", config);
    if (options.fast) npu.set_bus_mode(ethosu_sim::Npu::BusMode::FAST);
    Router bus("bus");
    Cpu cpu("cpu", submission);
    sc_core::sc_signal<bool> npu_irq("npu_irq"), npu_reset("npu_reset");

    bus.latency = sc_core::sc_time(options.bus_latency_ns, sc_core::SC_NS);
    bus.dmi = options.dmi;
    cpu.socket.bind(bus.in);
    npu.axi0.bind(bus.in);
    npu.axi1.bind(bus.in);
    bus.map(kSramBase, next[0] - kSramBase + kPage);
    bus.out.bind(sram.socket);
    bus.map(kDramBase, next[1] - kDramBase);
    bus.out.bind(dram.socket);
    bus.map(kNpuRegisters, 0x1000);
    bus.out.bind(npu.apb);
    npu.irq.bind(npu_irq);
    npu.reset.bind(npu_reset);
    cpu.irq.bind(npu_irq);

    sc_core::sc_start();

    std::cout << "total_cycles " << npu.report().total_cycles << "\n";
    if (!cpu.completed()) {
      std::cout << "NPU fault: STATUS 0x" << std::hex << cpu.status() << std::dec << ": " << npu.report().status << "\n";
      return 1;
    }
    bool exact = true;
    const std::vector<ethosu_sim::Comparison> comparisons = ethosu_sim::compare_outputs(job);
    for (size_t k = 0; k < comparisons.size(); ++k)
      if (!comparisons[k].exact) {
        exact = false;
        std::cout << "output " << k << " (" << job.outputs()[k].name << "): " << comparisons[k].text << "\n";
      }
    if (exact) std::cout << "exact\n";
    return exact ? 0 : 1;
  } catch (const ethosu_sim::InputError& e) {
    std::cerr << "embed_systemc: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "embed_systemc: " << e.what() << "\n";
    return 2;
  }
}
