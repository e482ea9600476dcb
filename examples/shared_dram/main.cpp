// shared_dram: two Ethos-U NPUs (and, if asked, a display-like traffic generator) sharing one DRAM in a platform
// of one's own, each NPU's cycles alone and together.
//
//   shared_dram CASE_DIR [CASE_DIR_B] [--set NAME=VALUE ...] [--traffic GBPS]
//
// Each NPU runs a case (the second CASE_DIR_B, else the same case again) with its own driver (ethosu_sim::HostCpu),
// its own on-chip SRAM behind AXI0 and the shared DRAM (ethosu_sim::Dram: one data bus for reads and writes,
// mem.dram.*) behind AXI1, through an interconnect that passes every master's transactions on. The NPUs are in
// their default transaction mode, so each one waits for the DRAM's answers. The program runs NPU A alone, NPU B
// alone, then both at once (with the traffic generator taking GBPS of the DRAM when asked), and prints
//   A alone: <cycles>          B alone: <cycles>
//   A together: <cycles>       B together: <cycles>
// and `exact` when every output of every run equals its expected file (exit 0), else the differences (exit 1);
// bad arguments or a bad case exit 2. With --set regions.2.port=1 no region uses the SRAMs: both NPUs are DRAM-bound.
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <ethosu_sim/config.h>
#include <ethosu_sim/dram.h>
#include <ethosu_sim/driver.h>
#include <ethosu_sim/error.h>
#include <ethosu_sim/memory.h>
#include <ethosu_sim/npu.h>
#include <ethosu_sim/run.h>
#include <ethosu_sim/traffic_generator.h>

namespace {

constexpr uint64_t kSram = 0x2000'0000, kDram = 0x8000'0000, kPage = 4096;

uint64_t page_align(uint64_t v) { return (v + kPage - 1) / kPage * kPage; }

// Every initiator on the DRAM's one target socket; transactions pass unchanged (the DRAM times them).
SC_MODULE(Interconnect) {
  tlm_utils::multi_passthrough_target_socket<Interconnect> in;
  tlm_utils::simple_initiator_socket<Interconnect> out;
  SC_CTOR(Interconnect) : in("in"), out("out") {
    in.register_b_transport(this, &Interconnect::b_transport);
    in.register_transport_dbg(this, &Interconnect::transport_dbg);
  }
  void b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) { out->b_transport(gp, delay); }
  unsigned int transport_dbg(int, tlm::tlm_generic_payload& gp) { return out->transport_dbg(gp); }
};

// One NPU with its driver and its SRAM, and the case it runs laid out in its SRAM and its part of the DRAM.
struct Master {
  ethosu_sim::Npu npu;
  ethosu_sim::Memory sram;
  ethosu_sim::HostCpu cpu;
  sc_core::sc_signal<bool> irq, reset;
  const ethosu_sim::Job original;
  ethosu_sim::Job job;  // a fresh copy of the case for each run
  std::vector<uint8_t> stream;
  ethosu_sim::DriverJob driver;

  Master(const char* name, const std::string& case_dir, const ethosu_sim::Config& config, uint64_t dram_base)
      : npu((std::string(name) + "_npu").c_str(), config), sram((std::string(name) + "_sram").c_str()),
        cpu((std::string(name) + "_cpu").c_str()), original(ethosu_sim::Job::from_case(case_dir)), job(original) {
    npu.axi0.bind(sram.socket);
    npu.irq.bind(irq);
    npu.reset.bind(reset);
    cpu.apb.bind(npu.apb);
    cpu.irq.bind(irq);
    driver.regioncfg = config.regioncfg();
    driver.qbase = dram_base;
    stream = job.stream();
    driver.qsize = static_cast<uint32_t>(stream.size());
    uint64_t next[2] = {kSram, page_align(dram_base + stream.size() + 1)};
    for (unsigned r = 0; r < ethosu_sim::kRegionCount; ++r) {
      const unsigned port = (driver.regioncfg >> (2 * r) & 3) >> 1;
      driver.basep[r] = next[port];
      next[port] = page_align(next[port] + job.region(r).size() + 1);
    }
  }
  // Fresh inputs in its memories, ready to submit.
  void load(ethosu_sim::Dram& dram) {
    job = original;
    sram.unmap_all();
    dram.map(driver.qbase, stream.data(), stream.size());
    for (unsigned r = 0; r < ethosu_sim::kRegionCount; ++r) {
      std::vector<uint8_t>& bytes = job.region(r);
      if (bytes.empty()) continue;
      if ((driver.regioncfg >> (2 * r) & 3) >> 1)
        dram.map(driver.basep[r], bytes.data(), bytes.size());
      else
        sram.map(driver.basep[r], bytes.data(), bytes.size());
    }
  }
  bool done() const { return cpu.result().status != 0; }
  bool exact() {
    bool ok = cpu.result().completed;
    for (const ethosu_sim::Comparison& c : ethosu_sim::compare_outputs(job)) ok = ok && c.exact;
    return ok;
  }
};

struct Options {
  std::string case_a, case_b;
  ethosu_sim::MachineRequest machine;
  double traffic_gbps = 0;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--set" && i + 1 < argc) {
      o.machine.assignments.push_back(argv[++i]);
    } else if (a == "--traffic" && i + 1 < argc) {
      o.traffic_gbps = std::stod(argv[++i]);
    } else if (a.rfind("--", 0) != 0 && o.case_a.empty()) {
      o.case_a = a;
    } else if (a.rfind("--", 0) != 0 && o.case_b.empty()) {
      o.case_b = a;
    } else {
      throw ethosu_sim::InputError("unexpected argument '" + a + "'");
    }
  }
  if (o.case_a.empty())
    throw ethosu_sim::InputError("usage: shared_dram CASE_DIR [CASE_DIR_B] [--set NAME=VALUE ...] [--traffic GBPS]");
  if (o.case_b.empty()) o.case_b = o.case_a;
  return o;
}

}  // namespace

int sc_main(int argc, char** argv) {
  try {
    const Options options = parse(argc, argv);
    const ethosu_sim::Config config(options.machine, ethosu_sim::Job::from_case(options.case_a).variant());
    ethosu_sim::Dram dram("dram", config);
    Interconnect bus("bus");
    Master a("a", options.case_a, config, kDram), b("b", options.case_b, config, kDram + 0x1000'0000);
    ethosu_sim::TrafficGenerator traffic("traffic");
    std::vector<uint8_t> frame(1 << 20);  // the generator's own memory
    a.npu.axi1.bind(bus.in);
    b.npu.axi1.bind(bus.in);
    traffic.socket.bind(bus.in);
    bus.out.bind(dram.socket);

    // Runs the given masters' jobs at once, to their ends.
    const auto run = [&](std::vector<Master*> masters, bool with_traffic) {
      dram.unmap_all();
      for (Master* m : masters) m->load(dram);
      if (with_traffic) {
        dram.map(0xF000'0000, frame.data(), frame.size());
        ethosu_sim::TrafficGenerator::Pattern p;
        p.base = 0xF000'0000;
        p.size = frame.size();
        p.bytes_per_ns = options.traffic_gbps;
        p.read_share = 0.5;
        traffic.start(p);
      }
      for (Master* m : masters) m->cpu.submit(m->driver);
      for (;;) {
        bool all = true;
        for (Master* m : masters) all = all && m->done();
        if (all) break;
        sc_core::sc_start();
      }
      if (with_traffic) traffic.stop();
      bool exact = true;
      for (Master* m : masters) exact = m->exact() && exact;
      return exact;
    };

    bool exact = run({&a}, false);
    const uint64_t alone_a = a.npu.report().total_cycles;
    exact = run({&b}, false) && exact;
    const uint64_t alone_b = b.npu.report().total_cycles;
    exact = run({&a, &b}, options.traffic_gbps > 0) && exact;
    std::cout << "A alone: " << alone_a << "\tB alone: " << alone_b << "\n";
    std::cout << "A together: " << a.npu.report().total_cycles << "\tB together: " << b.npu.report().total_cycles;
    if (options.traffic_gbps > 0)
      std::cout << "\t(and " << options.traffic_gbps << " GB/s of other traffic: " << traffic.stats().bytes
                << " bytes moved)";
    std::cout << "\n";
    const ethosu_sim::Dram::Stats s = dram.stats();
    std::cout << "DRAM: " << s.bytes_read << " bytes read, " << s.bytes_written << " written, data bus busy "
              << s.busy_ns << " ns\n";
    if (exact) std::cout << "exact\n";
    return exact ? 0 : 1;
  } catch (const ethosu_sim::InputError& e) {
    std::cerr << "shared_dram: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "shared_dram: " << e.what() << "\n";
    return 2;
  }
}
