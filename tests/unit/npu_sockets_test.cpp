// The public NPU module (include/ethosu_sim/npu.h) in a platform built the way a user builds one: its AXI
// sockets through buses of the user's own to the memories, the driver-like host on its APB socket, the IRQ
// and reset on plain signals. With buses that add nothing it must time exactly as the ready platform
// (host::run_job), through DMI and without it (regions staged through b_transport), its 32-bit sockets bound to
// 128-bit buses through width adapters; what the buses add must act as that much more latency on the NPU's
// ports; the reset input must reset the registers.
//
// SystemC elaborates once per process: the user platform is built before the first run_job builds the
// simulator's, and both run in the same kernel.
#include <algorithm>
#include <array>
#include <functional>
#include <random>
#include <utility>

#include <gtest/gtest.h>

#include "ethosu_sim/driver.h"
#include "ethosu_sim/memory.h"
#include "ethosu_sim/npu.h"
#include "ethosu_sim/width_adapter.h"
#include "host/run/run_job.h"
#include "host/config/config.h"
#include "isa/assembler.h"
#include "isa/registers.h"
#include "tests/unit/delay_bus.h"
#include "tests/unit/npu_streams.h"

namespace ethosu_sim {
namespace {

using sc_core::SC_NS;
using sc_core::sc_time;

using Bus = ethosu::test::DelayBusOf<128>;  // a bus of the user's, as wide as the U65's AXI ports

// Addresses of the user's own memory map (not the ready platform's).
constexpr uint64_t kSram = 0x3000'0000, kDram = 0x1'4000'0000, kStream = kDram + 0x10'0000;

// Moves a memory's storage at a set time, as a platform that remaps its DRAM does: the new buffer gets the old
// contents, the memory is remapped (which invalidates every DMI grant), the old buffer is overwritten with 0xFF.
SC_MODULE(StorageMover) {
  Memory* memory = nullptr;
  std::vector<uint8_t>* old_storage = nullptr;
  std::vector<uint8_t> new_storage;
  uint64_t address = 0;
  std::vector<std::pair<uint64_t, std::vector<uint8_t>*>> also_mapped;  // kept where they are
  sc_core::sc_event due;
  SC_CTOR(StorageMover) { SC_THREAD(move); }
  void move() {
    for (;;) {
      wait(due);
      new_storage = *old_storage;
      memory->unmap_all();
      memory->map(address, new_storage.data(), new_storage.size());
      for (auto& [a, buffer] : also_mapped) memory->map(a, buffer->data(), buffer->size());
      std::fill(old_storage->begin(), old_storage->end(), uint8_t{0xFF});
    }
  }
};

// Looks at 16 bytes of a memory's host buffer every `every` from `start` on, and notes when they first differ
// from what they were at the start.
SC_MODULE(MemoryProbe) {
  const uint8_t* watch = nullptr;
  sc_core::sc_time every{20, sc_core::SC_NS}, changed_at;
  bool stop = false;
  sc_core::sc_event start;
  SC_CTOR(MemoryProbe) { SC_THREAD(poll); }
  std::array<uint8_t, 16> read() const {
    std::array<uint8_t, 16> v{};
    std::copy(watch, watch + 16, v.begin());
    return v;
  }
  void poll() {
    for (;;) {
      wait(start);
      const auto before = read();
      while (!stop && changed_at == sc_core::SC_ZERO_TIME) {
        wait(every);
        if (read() != before) changed_at = sc_core::sc_time_stamp();
      }
    }
  }
};

// The buses are 128 bits wide: width adapters take the NPU's 32-bit sockets onto them and the memories' off them.
struct UserPlatform {
  Npu npu{"npu"};
  WidthAdapter<32, 128> m0{"m0"}, m1{"m1"};
  Bus bus0{"bus0"}, bus1{"bus1"};
  WidthAdapter<128, 32> sram_port{"sram_port"}, dram_port{"dram_port"};
  Memory sram{"sram"}, dram{"dram"};
  HostCpu cpu{"cpu"};
  StorageMover mover{"mover"};
  MemoryProbe probe{"probe"};
  sc_core::sc_signal<bool> irq{"irq"}, reset{"reset"};

  UserPlatform() {
    npu.axi0.bind(m0.in);
    m0.out.bind(bus0.in);
    bus0.out.bind(sram_port.in);
    sram_port.out.bind(sram.socket);
    npu.axi1.bind(m1.in);
    m1.out.bind(bus1.in);
    bus1.out.bind(dram_port.in);
    dram_port.out.bind(dram.socket);
    npu.irq.bind(irq);
    npu.reset.bind(reset);
    cpu.apb.bind(npu.apb);
    cpu.irq.bind(irq);
  }
};

UserPlatform& user() {
  static UserPlatform p;
  return p;
}

// Region 1 (DRAM, AXI1) holds a 4x4x16 IFM; a DMA copies it to region 2 (SRAM, AXI0), a 1x1 MAX pool copies
// it back to region 1 at 0x400: traffic on both ports, reads and writes, a DMA's write-behind.
ethosu::host::Job job() {
  ethosu::host::Job j;
  j.name = "sockets";
  j.stream = ethosu::isa::assemble("NPU_SET_DMA0_SRC_REGION region=1\nNPU_SET_DMA0_DST_REGION region=2\n"
                                   "NPU_SET_DMA0_SRC addr=0\nNPU_SET_DMA0_DST addr=0\nNPU_SET_DMA0_LEN length=256\n"
                                   "NPU_OP_DMA_START\nNPU_OP_DMA_WAIT k=0\n" +
                                   ethosu::npu::test::pool(4, 4, 4, 2, 0, 1, 0x400) + "NPU_OP_POOL pooling_mode=MAX\n" +
                                   ethosu::npu::test::kStop);
  j.regions[1].resize(0x800);
  j.regions[2].resize(0x100);
  std::mt19937 rng(7);
  for (size_t i = 0; i < 256; ++i) j.regions[1][i] = static_cast<uint8_t>(rng());
  return j;
}

struct UserRun {
  DriverResult driver;
  JobReport report;
  std::vector<uint8_t> region1;
};

using Mode = Npu::BusMode;

// One job on the user platform: region 1 in DRAM, region 2 in SRAM, the stream in DRAM.
UserRun run_on_user_platform(const Config& config, Mode mode = Mode::FAST,
                             const std::function<void(ethosu::host::Job&)>& before_run = {}) {
  UserPlatform& p = user();
  ethosu::host::Job j = job();
  if (before_run) before_run(j);
  p.npu.configure(config);
  p.npu.set_bus_mode(mode);
  p.sram.unmap_all();
  p.dram.unmap_all();
  p.dram.map(kStream, j.stream.data(), j.stream.size());
  p.dram.map(kDram, j.regions[1].data(), j.regions[1].size());
  p.sram.map(kSram, j.regions[2].data(), j.regions[2].size());
  DriverJob dj;
  dj.qbase = kStream;
  dj.qsize = static_cast<uint32_t>(j.stream.size());
  dj.regioncfg = config.regioncfg();
  dj.basep[1] = kDram;
  dj.basep[2] = kSram;
  p.cpu.submit(dj);
  sc_core::sc_start();
  UserRun out{p.cpu.result(), p.npu.report(), j.regions[1]};
  p.sram.unmap_all();
  p.dram.unmap_all();
  return out;
}

// The same job on the ready platform, driven by host::run_job.
uint64_t ready_platform_cycles(const Config& config, std::vector<uint8_t>& region1) {
  user();  // elaborated first: modules cannot be added once the simulator has started SystemC
  ethosu::host::Job j = job();
  const ethosu::host::RunOptions o = ethosu::host::run_options(config.impl().params);
  const ethosu::host::RunOutcome r = ethosu::host::run_job(j, o);
  EXPECT_FALSE(r.fault) << *r.fault;
  region1 = j.regions[1];
  return r.report->total_cycles;
}

void expect_copied(const std::vector<uint8_t>& region1) {
  EXPECT_TRUE(std::equal(region1.begin(), region1.begin() + 256, region1.begin() + 0x400));
}

TEST(NpuSockets, UserPlatformWithoutDelayTimesAsTheReadyPlatform) {
  const Config config;
  std::vector<uint8_t> ready_region1;
  const uint64_t ready = ready_platform_cycles(config, ready_region1);
  expect_copied(ready_region1);
  for (const auto& [mode, dmi] : {std::pair{Mode::FAST, true}, {Mode::FAST, false}, {Mode::TRANSACTIONS, true}}) {
    SCOPED_TRACE(mode == Mode::TRANSACTIONS ? "transactions" : dmi ? "DMI" : "b_transport, regions staged");
    user().bus0.set(sc_core::SC_ZERO_TIME, dmi);
    user().bus1.set(sc_core::SC_ZERO_TIME, dmi);
    const UserRun u = run_on_user_platform(config, mode);
    EXPECT_TRUE(u.driver.completed) << u.driver.error;
    EXPECT_EQ(u.report.total_cycles, ready);
    EXPECT_EQ(u.region1, ready_region1);
    EXPECT_TRUE(u.report.hazards.empty());
  }
}

// 6.5 ns on each bus at 1 GHz is 7 cycles more latency on every read and write of both ports: exactly the
// timing of the ready platform with mem.axiN.read/write_latency_cycles 7 higher.
TEST(NpuSockets, WhatTheBusAddsIsLatencyOnTheNpusPorts) {
  Config slower;
  for (const char* p : {"mem.axi0.", "mem.axi1."})
    for (const char* d : {"read_latency_cycles", "write_latency_cycles"}) {
      const std::string name = std::string(p) + d;
      slower.set(name, std::to_string(std::stoll(slower.get(name)) + 7));
    }
  std::vector<uint8_t> region1;
  const uint64_t expected = ready_platform_cycles(slower, region1);
  EXPECT_GT(expected, ready_platform_cycles(Config(), region1));
  for (bool dmi : {true, false}) {
    SCOPED_TRACE(dmi ? "DMI" : "b_transport, regions staged");
    user().bus0.set(sc_time(6.5, SC_NS), dmi);
    user().bus1.set(sc_time(6.5, SC_NS), dmi);
    const UserRun u = run_on_user_platform(Config());
    EXPECT_TRUE(u.driver.completed) << u.driver.error;
    EXPECT_EQ(u.report.total_cycles, expected);
    expect_copied(u.region1);
  }
}

// In transaction mode a target's answer is when the transaction completed: a bus that answers within the port
// model's own latency (32 cycles on SRAM, 500 on DRAM) changes nothing, one that takes longer makes the NPU wait.
TEST(NpuSockets, TransactionsWaitForASlowerBus) {
  std::vector<uint8_t> region1;
  const uint64_t ready = ready_platform_cycles(Config(), region1);
  user().bus0.set(sc_time(6.5, SC_NS), false);
  user().bus1.set(sc_time(6.5, SC_NS), false);
  const UserRun hidden = run_on_user_platform(Config(), Mode::TRANSACTIONS);
  EXPECT_TRUE(hidden.driver.completed) << hidden.driver.error;
  EXPECT_EQ(hidden.report.total_cycles, ready);
  user().bus0.set(sc_time(2000, SC_NS), false);
  user().bus1.set(sc_time(2000, SC_NS), false);
  const UserRun slow = run_on_user_platform(Config(), Mode::TRANSACTIONS);
  EXPECT_TRUE(slow.driver.completed) << slow.driver.error;
  // The stream's fetch, the DMA's read and write, the pool's read and write: each at least 2000 cycles.
  EXPECT_GT(slow.report.total_cycles, ready + 4 * 2000);
  expect_copied(slow.region1);
  user().bus0.set(sc_core::SC_ZERO_TIME, true);
  user().bus1.set(sc_core::SC_ZERO_TIME, true);
}

// A region the memory does not back faults as with DMI: staging reads what exists, the stream faults beyond; a
// refused transaction faults too.
TEST(NpuSockets, StagedRegionBeyondTheMemoryIsABusError) {
  UserPlatform& p = user();
  for (const auto& [mode, dmi] : {std::pair{Mode::FAST, true}, {Mode::FAST, false}, {Mode::TRANSACTIONS, false}}) {
    SCOPED_TRACE(mode == Mode::TRANSACTIONS ? "transactions" : dmi ? "DMI" : "b_transport, regions staged");
    p.bus0.set(sc_core::SC_ZERO_TIME, dmi);
    p.bus1.set(sc_core::SC_ZERO_TIME, dmi);
    ethosu::host::Job j = job();
    std::vector<uint8_t> sram(0x80);  // the DMA writes 256 bytes into region 2
    p.npu.configure(Config());
    p.npu.set_bus_mode(mode);
    p.dram.map(kStream, j.stream.data(), j.stream.size());
    p.dram.map(kDram, j.regions[1].data(), j.regions[1].size());
    p.sram.map(kSram, sram.data(), sram.size());
    DriverJob dj;
    dj.qbase = kStream;
    dj.qsize = static_cast<uint32_t>(j.stream.size());
    dj.basep[1] = kDram;
    dj.basep[2] = kSram;
    p.cpu.submit(dj);
    sc_core::sc_start();
    EXPECT_FALSE(p.cpu.result().completed);
    EXPECT_TRUE(ethosu::isa::get(p.cpu.result().status, ethosu::isa::RegField::STATUS_bus_status));
    EXPECT_NE(p.npu.report().status.find("bus error"), std::string::npos) << p.npu.report().status;
    p.sram.unmap_all();
    p.dram.unmap_all();
  }
}

uint32_t debug_read(uint16_t offset) {
  uint32_t v = 0xDEADBEEF;
  tlm::tlm_generic_payload gp;
  gp.set_read();
  gp.set_address(offset);
  gp.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
  gp.set_data_length(4);
  EXPECT_EQ(user().cpu.apb->transport_dbg(gp), 4u);
  return v;
}

// A bus monitor on M0 and M1 sees the NPU's reads and writes in transaction mode: at addresses inside the stream
// and the regions, at times inside the job, each one AXI transaction (the Linux driver's AXI_LIMITn split at 64
// bytes on M0, 256 on M1), the bytes the report counts; the pool's OFM writes come once the pool has started.
TEST(NpuSockets, BusMonitorSeesTheTrafficInsideRegionsAndJob) {
  UserPlatform& p = user();
  p.bus0.set(sc_core::SC_ZERO_TIME, true);
  p.bus1.set(sc_core::SC_ZERO_TIME, true);
  p.bus0.seen.clear();
  p.bus1.seen.clear();
  p.bus0.monitor = p.bus1.monitor = true;
  const sc_time start = sc_core::sc_time_stamp();
  const UserRun u = run_on_user_platform(Config(), Mode::TRANSACTIONS);
  const sc_time end = sc_core::sc_time_stamp();
  p.bus0.monitor = p.bus1.monitor = false;
  ASSERT_TRUE(u.driver.completed) << u.driver.error;
  expect_copied(u.region1);
  ASSERT_EQ(u.report.ops.size(), 2u);
  const JobReport& r = u.report;
  // The job starts with the command fetch's first read, issued at its first cycle.
  ASSERT_FALSE(p.bus1.seen.empty());
  const sc_time job_start = p.bus1.seen.front().time;
  EXPECT_EQ(p.bus1.seen.front().address, kStream);
  const sc_time job_end = job_start + sc_time(static_cast<double>(r.total_cycles), SC_NS);
  EXPECT_LE(job_end, end);
  uint64_t read_bytes[2] = {}, written[2] = {};
  for (unsigned port = 0; port < 2; ++port)
    for (const auto& t : (port ? p.bus1 : p.bus0).seen) {
      SCOPED_TRACE("M" + std::to_string(port) + (t.write ? " write at " : " read at ") + std::to_string(t.address));
      EXPECT_GE(t.time, start);
      EXPECT_GE(t.time, job_start);
      EXPECT_LT(t.time, job_end);
      EXPECT_LE(t.bytes, port ? 256u : 64u);
      const bool in_stream = t.address >= kStream && t.address + t.bytes <= kStream + 0x1000;
      const bool in_region1 = t.address >= kDram && t.address + t.bytes <= kDram + 0x800;
      const bool in_region2 = t.address >= kSram && t.address + t.bytes <= kSram + 0x100;
      EXPECT_TRUE(port ? in_stream || in_region1 : in_region2);
      (t.write ? written : read_bytes)[port] += t.bytes;
    }
  // The report's traffic is what went over the buses.
  for (unsigned port = 0; port < 2; ++port) {
    uint64_t rd = 0, wr = 0;
    for (size_t k = 0; k < ethosu::isa::kAccessCount; ++k) {
      rd += r.ports[port].read_bytes[k];
      wr += r.ports[port].write_bytes[k];
    }
    EXPECT_EQ(read_bytes[port], rd) << "port " << port;
    EXPECT_EQ(written[port], wr) << "port " << port;
  }
  // The pool's OFM writes (region 1 at 0x400) come at or after the pool's start, in the job's time.
  const OpRecord& pool = r.ops[1];
  const sc_time pool_start = job_start + sc_time(static_cast<double>(pool.start_cycle), SC_NS);
  uint64_t ofm_bytes = 0;
  for (const auto& t : p.bus1.seen)
    if (t.write && t.address >= kDram + 0x400 && t.address < kDram + 0x500) {
      ofm_bytes += t.bytes;
      EXPECT_GE(t.time, pool_start);
    }
  EXPECT_EQ(ofm_bytes, 256u);
}

// In transaction mode no byte an operation writes is in memory before the operation starts: a probe reading the
// OFM while the job runs sees the old bytes until the pool's start.
TEST(NpuSockets, OfmBytesAppearNoEarlierThanTheOperationWritingThem) {
  UserPlatform& p = user();
  p.bus0.set(sc_core::SC_ZERO_TIME, true);
  p.bus1.set(sc_core::SC_ZERO_TIME, true);
  p.probe.every = sc_time(1, SC_NS);
  p.probe.changed_at = sc_core::SC_ZERO_TIME;
  p.bus1.seen.clear();
  p.bus1.monitor = true;
  const UserRun u = run_on_user_platform(Config(), Mode::TRANSACTIONS, [&](ethosu::host::Job& j) {
    p.probe.watch = j.regions[1].data() + 0x400;
    // Timed, not delta: a delta notification made before the first sc_start() is gone before the probe waits.
    p.probe.start.notify(sc_time(1, SC_NS));
  });
  p.probe.stop = true;
  p.bus1.monitor = false;
  ASSERT_TRUE(u.driver.completed) << u.driver.error;
  expect_copied(u.region1);
  ASSERT_GT(p.probe.changed_at, sc_core::SC_ZERO_TIME) << "the probe saw the OFM arrive";
  // The job starts with its command fetch; the pool start_cycle cycles later.
  ASSERT_FALSE(p.bus1.seen.empty());
  const sc_time pool_start =
      p.bus1.seen.front().time + sc_time(static_cast<double>(u.report.ops[1].start_cycle), SC_NS);
  EXPECT_GE(p.probe.changed_at, pool_start);
  EXPECT_LE(p.probe.changed_at, pool_start + sc_time(static_cast<double>(u.report.ops[1].cycles()), SC_NS));
  p.probe.stop = false;
}

TEST(NpuSockets, ResetInputResetsTheRegisters) {
  using ethosu::isa::Reg;
  user().bus0.set(sc_core::SC_ZERO_TIME, true);
  user().bus1.set(sc_core::SC_ZERO_TIME, true);
  ASSERT_TRUE(run_on_user_platform(Config()).driver.completed);
  EXPECT_EQ(debug_read(ethosu::isa::reg_at(Reg::QBASE)), static_cast<uint32_t>(kStream));
  EXPECT_NE(debug_read(ethosu::isa::reg_at(Reg::REGIONCFG)), 0u);
  EXPECT_EQ(debug_read(ethosu::isa::reg_at(Reg::PROT)), 2u);  // the driver's soft reset into non-secure user
  user().reset.write(true);
  sc_core::sc_start(sc_time(10, SC_NS));
  user().reset.write(false);
  sc_core::sc_start(sc_time(10, SC_NS));
  EXPECT_EQ(debug_read(ethosu::isa::reg_at(Reg::QBASE)), 0u);
  EXPECT_EQ(debug_read(ethosu::isa::reg_at(Reg::REGIONCFG)), 0u);
  EXPECT_EQ(debug_read(ethosu::isa::reg_at(Reg::PROT)), 0u);
  EXPECT_EQ(debug_read(ethosu::isa::reg_at(Reg::STATUS)),
            ethosu::isa::register_info(Reg::STATUS).in(ethosu::isa::RegisterMap::U65).reset &
                ~ethosu::isa::reg_field_mask(ethosu::isa::RegField::STATUS_reset_status));
  // And the NPU runs the next job.
  EXPECT_TRUE(run_on_user_platform(Config()).driver.completed);
}

// The NPU asks for DMI only where its stream goes: the stream and regions 1 and 2, never the unused regions'
// base pointers (0).
TEST(NpuSockets, DmiOnlyForTheRegionsInUse) {
  user().bus0.set(sc_core::SC_ZERO_TIME, true);
  user().bus1.set(sc_core::SC_ZERO_TIME, true);
  user().bus0.dmi_requests.clear();
  user().bus1.dmi_requests.clear();
  ASSERT_TRUE(run_on_user_platform(Config(), Mode::TRANSACTIONS).driver.completed);
  EXPECT_TRUE(user().bus0.dmi_requests.empty()) << "transaction mode asks for no DMI";
  EXPECT_TRUE(user().bus1.dmi_requests.empty());
  ASSERT_TRUE(run_on_user_platform(Config()).driver.completed);
  EXPECT_FALSE(user().bus1.dmi_requests.empty());
  for (uint64_t a : user().bus0.dmi_requests) EXPECT_TRUE(a >= kSram && a < kSram + 0x100) << std::hex << a;
  for (uint64_t a : user().bus1.dmi_requests)
    EXPECT_TRUE((a >= kDram && a < kDram + 0x800) || (a >= kStream && a < kStream + 0x1000)) << std::hex << a;
}

// The DRAM's storage moves in the middle of a job (invalidate_direct_mem_ptr, then the old buffer is scribbled
// on): the NPU asks for DMI again and finishes on the new storage, its output exact, the old buffer untouched.
TEST(NpuSockets, DmiInvalidationMidJobIsHonoured) {
  UserPlatform& p = user();
  p.bus0.set(sc_core::SC_ZERO_TIME, true);
  p.bus1.set(sc_core::SC_ZERO_TIME, true);
  // Region 1 in DRAM: 256 bytes of IFM copied to 0x800 by 30 DMAs in turn (about 25000 cycles), then pooled to
  // 0x400; the CC synchronises every 1000 cycles, so most of the job runs after the move at cycle 5000.
  std::string text = "NPU_SET_DMA0_SRC_REGION region=1\nNPU_SET_DMA0_DST_REGION region=1\nNPU_SET_DMA0_SRC addr=0\n"
                     "NPU_SET_DMA0_DST addr=0x800\nNPU_SET_DMA0_LEN length=256\n";
  for (int i = 0; i < 30; ++i) text += "NPU_OP_DMA_START\nNPU_OP_DMA_WAIT k=0\n";
  std::vector<uint8_t> stream = ethosu::isa::assemble(text + ethosu::npu::test::pool(4, 4, 4, 1, 0x800, 1, 0x400) +
                                                       "NPU_OP_POOL pooling_mode=MAX\n" + ethosu::npu::test::kStop);
  std::vector<uint8_t> region1(0x1000), sram(0x100);
  std::mt19937 rng(11);
  for (size_t i = 0; i < 256; ++i) region1[i] = static_cast<uint8_t>(rng());
  Config config;
  config.set("npu.cc.quantum_cycles", "1000");
  p.npu.configure(config);
  p.npu.set_bus_mode(Mode::FAST);
  p.dram.map(kStream, stream.data(), stream.size());
  p.dram.map(kDram, region1.data(), region1.size());
  p.sram.map(kSram, sram.data(), sram.size());
  p.mover.memory = &p.dram;
  p.mover.old_storage = &region1;
  p.mover.address = kDram;
  p.mover.also_mapped = {{kStream, &stream}};
  p.mover.due.notify(sc_time(5000, SC_NS));
  DriverJob dj;
  dj.qbase = kStream;
  dj.qsize = static_cast<uint32_t>(stream.size());
  dj.regioncfg = config.regioncfg();
  dj.basep[1] = kDram;
  dj.basep[2] = kSram;
  p.cpu.submit(dj);
  sc_core::sc_start();
  EXPECT_TRUE(p.cpu.result().completed) << p.npu.report().status;
  EXPECT_GT(p.npu.report().total_cycles, 20000u);
  const std::vector<uint8_t>& moved = p.mover.new_storage;
  ASSERT_EQ(moved.size(), region1.size());
  EXPECT_TRUE(std::equal(moved.begin(), moved.begin() + 256, moved.begin() + 0x400)) << "output on the new storage";
  EXPECT_TRUE(std::all_of(region1.begin(), region1.end(), [](uint8_t b) { return b == 0xFF; }))
      << "the NPU wrote through a withdrawn DMI pointer";
  p.sram.unmap_all();
  p.dram.unmap_all();
}

}  // namespace
}  // namespace ethosu_sim
