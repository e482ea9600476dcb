// The shared DRAM (include/ethosu_sim/dram.h): its timing rules alone (one data bus for reads and writes, first come
// first served, out-of-order bookings into earlier gaps), then as the memory of a platform with two NPUs in
// transaction mode and a traffic generator: each NPU takes longer with the other one or the generator on the DRAM
// than alone.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "ethosu_sim/config.h"
#include "ethosu_sim/dram.h"
#include "ethosu_sim/driver.h"
#include "ethosu_sim/memory.h"
#include "ethosu_sim/npu.h"
#include "ethosu_sim/traffic_generator.h"
#include "isa/assembler.h"
#include "models/mem/dram_timing.h"

namespace ethosu_sim {
namespace {

using ethosu::mem::DramParams;
using ethosu::mem::DramTiming;

constexpr uint64_t kNs = 1000;  // ps

DramParams one_byte_per_ns() {
  DramParams p;
  p.bytes_per_ns = 1;
  p.read_latency_ns = 100;
  p.write_latency_ns = 50;
  p.burst_bytes = 32;
  return p;
}

TEST(DramTiming, ReadsAndWritesShareOneDataBus) {
  DramTiming d(one_byte_per_ns());
  // A read: 100 ns latency, then 64 bytes at 1 B/ns.
  EXPECT_EQ(d.access(true, 0, 64), 164 * kNs);
  // A posted write asked at 0 fits on the bus before the read's data: [0, 64), then 50 ns to complete.
  EXPECT_EQ(d.access(false, 0, 64), 114 * kNs);
  // Asked at 120 it waits for the read's data to leave the bus: [164, 228).
  EXPECT_EQ(d.access(false, 120 * kNs, 64), 278 * kNs);
  // A short access moves a whole burst.
  EXPECT_EQ(d.access(false, 1000 * kNs, 1), (1000 + 32 + 50) * kNs);
  EXPECT_EQ(d.stats().bytes_read, 64u);
  EXPECT_EQ(d.stats().bytes_written, 129u);
  EXPECT_EQ(d.stats().busy_ps, (64 + 64 + 64 + 32) * kNs);
}

TEST(DramTiming, ALateBookingTakesAnEarlierGap) {
  DramTiming d(one_byte_per_ns());
  // A master running ahead books the bus at [1100, 1164) before another books [100, 164) (asked at 0).
  EXPECT_EQ(d.access(true, 1000 * kNs, 64), 1164 * kNs);
  EXPECT_EQ(d.access(true, 0, 64), 164 * kNs);
  // A third that does not fit before [1100, 1164) goes after it.
  EXPECT_EQ(d.access(true, 1000 * kNs - 100 * kNs, 1024), 2188 * kNs);
  d.forget_before(5000 * kNs);
  EXPECT_EQ(d.access(true, 0, 32), 132 * kNs);
  EXPECT_THROW(DramTiming(DramParams{0, 1, 1, 32}), std::exception);
}

// Every initiator onto one target (the DRAM), everything passed through.
SC_MODULE(Interconnect) {
  tlm_utils::multi_passthrough_target_socket<Interconnect> in;
  tlm_utils::simple_initiator_socket<Interconnect> out;
  SC_CTOR(Interconnect) : in("in"), out("out") {
    in.register_b_transport(this, &Interconnect::b_transport);
    in.register_transport_dbg(this, &Interconnect::transport_dbg);
    in.register_get_direct_mem_ptr(this, &Interconnect::get_direct_mem_ptr);
  }
  void b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) { out->b_transport(gp, delay); }
  unsigned int transport_dbg(int, tlm::tlm_generic_payload& gp) { return out->transport_dbg(gp); }
  bool get_direct_mem_ptr(int, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& d) { return out->get_direct_mem_ptr(gp, d); }
};

// Two NPUs, each with its SRAM on M0 and the shared DRAM on M1, a driver each, and a traffic generator on the DRAM.
struct Board {
  Dram dram{"dram"};
  Interconnect bus{"bus"};
  Npu npu_a{"npu_a"}, npu_b{"npu_b"};
  Memory sram_a{"sram_a"}, sram_b{"sram_b"};
  HostCpu cpu_a{"cpu_a"}, cpu_b{"cpu_b"};
  TrafficGenerator traffic{"traffic"};
  sc_core::sc_signal<bool> irq_a{"irq_a"}, irq_b{"irq_b"}, reset_a{"reset_a"}, reset_b{"reset_b"};
  Board() {
    npu_a.axi0.bind(sram_a.socket);
    npu_b.axi0.bind(sram_b.socket);
    npu_a.axi1.bind(bus.in);
    npu_b.axi1.bind(bus.in);
    traffic.socket.bind(bus.in);
    bus.out.bind(dram.socket);
    npu_a.irq.bind(irq_a);
    npu_b.irq.bind(irq_b);
    npu_a.reset.bind(reset_a);
    npu_b.reset.bind(reset_b);
    cpu_a.apb.bind(npu_a.apb);
    cpu_b.apb.bind(npu_b.apb);
    cpu_a.irq.bind(irq_a);
    cpu_b.irq.bind(irq_b);
  }
};
Board& board() {
  static Board b;
  return b;
}

// A DRAM-bound job: 16 KiB copied inside region 1 (DRAM) by four DMAs, then the stream stops.
struct DmaJob {
  std::vector<uint8_t> stream, region1 = std::vector<uint8_t>(0x10000);
  uint64_t base;
  explicit DmaJob(uint64_t at) : base(at) {
    std::string text = "NPU_SET_DMA0_SRC_REGION region=1\nNPU_SET_DMA0_DST_REGION region=1\nNPU_SET_DMA0_LEN length=4096\n";
    for (int i = 0; i < 4; ++i)
      text += "NPU_SET_DMA0_SRC addr=" + std::to_string(i * 4096) + "\nNPU_SET_DMA0_DST addr=" +
              std::to_string(0x8000 + i * 4096) + "\nNPU_OP_DMA_START\n";
    stream = ethosu::isa::assemble(text + "NPU_OP_DMA_WAIT k=0\nNPU_OP_STOP mask=0xffff\n");
    for (size_t i = 0; i < 0x4000; ++i) region1[i] = static_cast<uint8_t>(i * 7 + at);
  }
  void map(Dram& dram) {
    dram.map(base, stream.data(), stream.size());
    dram.map(base + 0x100000, region1.data(), region1.size());
  }
  DriverJob driver() const {
    DriverJob j;
    j.qbase = base;
    j.qsize = static_cast<uint32_t>(stream.size());
    j.basep[1] = base + 0x100000;
    return j;
  }
  bool copied() const { return std::equal(region1.begin(), region1.begin() + 0x4000, region1.begin() + 0x8000); }
};

// Runs the given drivers' jobs to their ends; each one's cycles.
std::vector<uint64_t> run(const std::vector<std::pair<HostCpu*, Npu*>>& who, std::vector<DmaJob*> jobs) {
  Board& b = board();
  b.dram.unmap_all();
  for (DmaJob* j : jobs) j->map(b.dram);
  for (size_t i = 0; i < who.size(); ++i) who[i].first->submit(jobs[i]->driver());
  const auto done = [&] {
    for (const auto& w : who)
      if (w.first->result().status == 0) return false;
    return true;
  };
  while (!done()) sc_core::sc_start();
  std::vector<uint64_t> cycles;
  for (const auto& w : who) {
    EXPECT_TRUE(w.first->result().completed) << w.second->report().status;
    cycles.push_back(w.second->report().total_cycles);
  }
  for (DmaJob* j : jobs) EXPECT_TRUE(j->copied());
  b.dram.unmap_all();
  return cycles;
}

TEST(SharedDram, TwoNpusEachTakeLongerThanAlone) {
  Board& b = board();
  DmaJob a(0x8000'0000), c(0x9000'0000);
  const uint64_t alone_a = run({{&b.cpu_a, &b.npu_a}}, {&a})[0];
  const uint64_t alone_b = run({{&b.cpu_b, &b.npu_b}}, {&c})[0];
  DmaJob a2(0x8000'0000), c2(0x9000'0000);
  const std::vector<uint64_t> together = run({{&b.cpu_a, &b.npu_a}, {&b.cpu_b, &b.npu_b}}, {&a2, &c2});
  std::cout << "[ shared   ] alone " << alone_a << " and " << alone_b << " cycles, together " << together[0]
            << " and " << together[1] << "\n";
  // Both are DRAM-bound: sharing its one bus, each takes longer than alone (the one whose DMAs book the bus first
  // less so: first come, first served), and together they take no less than the bytes both move need at
  // 3.75 GB/s (2 x 2 x 16 KiB).
  EXPECT_GT(together[0], alone_a * 23 / 20);
  EXPECT_GT(together[1], alone_b * 23 / 20);
  EXPECT_GE(std::max(together[0], together[1]), uint64_t{4 * 16384 * 100 / 375});
}

TEST(SharedDram, ATrafficGeneratorSlowsTheNpuDown) {
  Board& b = board();
  DmaJob a(0x8000'0000);
  const uint64_t alone = run({{&b.cpu_a, &b.npu_a}}, {&a})[0];
  std::vector<uint8_t> frame(0x10000);
  b.dram.unmap_all();
  TrafficGenerator::Pattern p;
  p.base = 0xA000'0000;
  p.size = frame.size();
  p.bytes_per_ns = 2.0;  // a display refill taking 2 of the DRAM's 3.75 GB/s
  p.quantum = sc_core::sc_time(10, sc_core::SC_US);  // booked well ahead: served before the NPU's later DMAs
  b.traffic.start(p);
  DmaJob a2(0x8000'0000);
  // run() maps only the jobs: the frame goes in after it unmapped everything, before SystemC runs.
  b.dram.map(p.base, frame.data(), frame.size());
  a2.map(b.dram);
  b.cpu_a.submit(a2.driver());
  while (b.cpu_a.result().status == 0) sc_core::sc_start();
  b.traffic.stop();
  sc_core::sc_start(sc_core::sc_time(2, sc_core::SC_US));
  b.dram.unmap_all();
  const uint64_t shared = b.npu_a.report().total_cycles;
  std::cout << "[ shared   ] alone " << alone << " cycles, with 2 GB/s of other traffic " << shared << "; the generator moved "
            << b.traffic.stats().bytes << " bytes\n";
  EXPECT_TRUE(b.cpu_a.result().completed);
  EXPECT_TRUE(a2.copied());
  EXPECT_FALSE(b.traffic.stats().error);
  EXPECT_GT(b.traffic.stats().bytes, 0u);
  EXPECT_GT(shared, alone * 13 / 10);
}

}  // namespace
}  // namespace ethosu_sim
