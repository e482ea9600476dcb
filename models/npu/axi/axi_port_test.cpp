// AxiPort + Memory under SystemC: stimulus threads issue reads and writes and assert exact completion
// times and the data moved, through DMI and through b_transport, plus address errors.
//
// SystemC elaborates once per process: the platform is built once (Platform::get()) and every test
// runs a job on it with sc_start(), as the simulator runs many jobs in one elaboration.
#include <cmath>
#include <ctime>
#include <cstdio>
#include <functional>
#include <memory>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "models/npu/axi/axi_port.h"
#include "models/mem/memory.h"
#include "sim/error.h"
#include "tests/unit/delay_bus.h"

// libsystemc's own main() is unused (GoogleTest's runs the tests) but the library needs the symbol.
int sc_main(int, char**) { return 0; }

namespace ethosu::axi {
namespace {

using isa::Access;
using sc_core::SC_NS;
using sc_core::sc_time;

constexpr uint64_t kBase = 0x1'0000'0000;  // above 32 bits: the U65 has 40-bit addresses
const sc_time kPeriod(1, SC_NS);           // 1 GHz

// Runs jobs in SC_THREADs: each job gets its thread's index and the local time offset.
SC_MODULE(Stimulus) {
  static constexpr int kThreads = 2;
  std::function<void(int, sc_time&)> job[kThreads];
  sc_core::sc_event go;
  tlm_utils::simple_initiator_socket<Stimulus> raw;  // direct TLM access to a memory

  SC_CTOR(Stimulus) : raw("raw") {
    SC_THREAD(thread0);
    SC_THREAD(thread1);
  }
  void thread0() { body(0); }
  void thread1() { body(1); }
  void body(int i) {
    for (;;) {
      sc_core::wait(go);
      if (!job[i]) continue;
      sc_time offset = sc_core::SC_ZERO_TIME;
      job[i](i, offset);
    }
  }
};

using Bus = test::DelayBus;

struct Platform {
  mem::Memory mem{"mem"};
  AxiPort port{"axi0", AxiPortParams{}, kPeriod};
  Bus bus{"bus"};
  mem::Memory host_mem{"host_mem"};
  Stimulus stim{"stim"};

  Platform() {
    port.socket.bind(bus.in);
    bus.out.bind(mem.socket);
    stim.raw.bind(host_mem.socket);
  }
  static Platform& get() {
    static Platform p;
    return p;
  }

  // Runs one job per thread (empty = idle) to completion; returns the start time.
  sc_time run(std::function<void(int, sc_time&)> a, std::function<void(int, sc_time&)> b = {}) {
    stim.job[0] = std::move(a);
    stim.job[1] = std::move(b);
    // Jobs start on the next cycle boundary (a target that waited may have left the time between two).
    const sc_time start = kPeriod * std::floor(sc_core::sc_time_stamp() / kPeriod + 1);
    stim.go.notify(start - sc_core::sc_time_stamp());
    sc_core::sc_start();
    return start;
  }
};

class AxiPortTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Platform& p = Platform::get();
    p.mem.unmap_all();
    p.mem.set_dmi_enabled(true);
    p.bus.set(sc_core::SC_ZERO_TIME, true);
    p.port.configure(AxiPortParams{}, kPeriod);
    p.port.timing().reset();
    buf.resize(64 * 1024);
    std::iota(buf.begin(), buf.end(), uint8_t{1});
    p.mem.map(kBase, buf.data(), buf.size());
  }
  std::vector<uint8_t> buf;
};

// The thread's time once its local offset is synchronised.
sc_time sync(sc_time& offset) {
  sc_core::wait(offset);
  offset = sc_core::SC_ZERO_TIME;
  return sc_core::sc_time_stamp();
}

TEST_F(AxiPortTest, ReadMovesDataAfterLatencyPlusTransferViaDmiAndBTransport) {
  Platform& p = Platform::get();
  for (bool dmi : {true, false}) {
    p.mem.set_dmi_enabled(dmi);
    std::vector<uint8_t> dst(4096);
    sc_time done, offset_after;
    AxiAccess r;
    const sc_time t0 = p.run([&](int, sc_time& offset) {
      r = p.port.read(kBase + 100, dst.data(), dst.size(), 0, Access::IFM, offset);
      offset_after = offset;
      done = sync(offset);
    });
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(offset_after, (32 + 256) * kPeriod) << "dmi " << dmi;
    EXPECT_EQ(done, t0 + (32 + 256) * kPeriod) << "dmi " << dmi;
    EXPECT_TRUE(std::equal(dst.begin(), dst.end(), buf.begin() + 100)) << "dmi " << dmi;
  }
  EXPECT_EQ(p.port.timing().stats().clients[static_cast<unsigned>(Access::IFM)].bytes_read, 2u * 4096);
}

// What the bus adds (5.5 ns: 6 cycles, rounded up) lengthens the latency, whether it comes as a DMI grant's
// latency, as annotated time or as time the bus waited.
TEST_F(AxiPortTest, LatencyTheTargetAddsLengthensTheAccess) {
  Platform& p = Platform::get();
  const struct {
    bool dmi, waits;
  } paths[] = {{true, false}, {false, false}, {false, true}};
  for (const auto& path : paths) {
    SCOPED_TRACE("dmi " + std::to_string(path.dmi) + " waits " + std::to_string(path.waits));
    p.mem.set_dmi_enabled(path.dmi);
    p.bus.set(sc_time(5.5, SC_NS), true, path.waits);
    p.port.timing().reset();
    std::vector<uint8_t> dst(4096);
    sc_time read_done, write_response;
    AxiAccess r, w;
    const sc_time t0 = p.run([&](int, sc_time& offset) {
      r = p.port.read(kBase + 100, dst.data(), dst.size(), 0, Access::IFM, offset);
      read_done = sync(offset);
      w = p.port.write(kBase, dst.data(), 64, 0, Access::OFM, offset);
      write_response = sc_core::sc_time_stamp() + offset;
    });
    EXPECT_TRUE(r.ok());
    EXPECT_TRUE(w.ok());
    EXPECT_EQ(read_done, t0 + (32 + 6 + 256) * kPeriod);
    EXPECT_TRUE(std::equal(dst.begin(), dst.end(), buf.begin() + 100));
    // The write's data goes at once (posted), its response the write latency and the bus's 6 after; a bus
    // that waits holds the caller until it lets go.
    EXPECT_EQ(write_response, read_done + (path.waits ? p.bus.latency : 4 * kPeriod));
    EXPECT_EQ(w.completion.complete_cycle - w.completion.data_done_cycle, 32u + 6);
  }
  p.mem.set_dmi_enabled(true);
  const AxiPort::Direct d = p.port.direct(kBase);
  EXPECT_EQ(d.read_latency_cycles, 6u);
  EXPECT_EQ(d.write_latency_cycles, 6u);
  EXPECT_EQ(d.bytes, buf.size());
}

TEST_F(AxiPortTest, PostedWriteLandsAndReportsItsResponse) {
  Platform& p = Platform::get();
  for (bool dmi : {true, false}) {
    p.mem.set_dmi_enabled(dmi);
    std::vector<uint8_t> src(1024, static_cast<uint8_t>(dmi ? 0xAB : 0xCD));
    AxiAccess w;
    sc_time done;
    const sc_time t0 = p.run([&](int, sc_time& offset) {
      w = p.port.write(kBase + 16, src.data(), src.size(), 0, Access::OFM, offset);
      done = sync(offset);
    });
    EXPECT_TRUE(w.ok());
    EXPECT_EQ(done, t0 + 64 * kPeriod);  // data beats only: writes are posted
    EXPECT_EQ(w.completion.complete_cycle - w.completion.data_done_cycle, 32u);
    EXPECT_TRUE(std::equal(src.begin(), src.end(), buf.begin() + 16));
    EXPECT_EQ(buf[15], 16);  // neighbours untouched
    EXPECT_EQ(buf[16 + 1024], static_cast<uint8_t>(16 + 1024 + 1));
  }
}

TEST_F(AxiPortTest, TwoThreadsContendOnThePort) {
  Platform& p = Platform::get();
  std::vector<uint8_t> a(1024), b(512);
  sc_time done[2];
  const sc_time t0 = p.run(
      [&](int, sc_time& offset) {
        p.port.read(kBase, a.data(), a.size(), 0, Access::IFM, offset);
        done[0] = sync(offset);
      },
      [&](int, sc_time& offset) {
        sc_core::wait(kPeriod);  // one cycle later, so booked after thread 0 whatever the thread order
        p.port.read(kBase + 4096, b.data(), b.size(), 0, Access::WEIGHTS, offset);
        done[1] = sync(offset);
      });
  EXPECT_EQ(done[0], t0 + (32 + 64) * kPeriod);
  EXPECT_EQ(done[1], t0 + (32 + 64 + 32) * kPeriod);  // waits for the first's data phase
  EXPECT_TRUE(std::equal(b.begin(), b.end(), buf.begin() + 4096));
}

TEST_F(AxiPortTest, DecoupledCallerChainsWithoutSyncAndRunsInSeveralStarts) {
  Platform& p = Platform::get();
  std::vector<uint8_t> dst(64);
  sc_time done;
  p.stim.job[0] = [&](int, sc_time& offset) {
    // Three dependent reads (each needs the previous data) without synchronising in between.
    for (int i = 0; i < 3; ++i) p.port.read(kBase + 64 * i, dst.data(), dst.size(), 0, Access::CMD, offset);
    EXPECT_EQ(offset, 3 * 36 * kPeriod);
    done = sync(offset);
  };
  p.stim.job[1] = {};
  const sc_time start = sc_core::sc_time_stamp();
  const sc_time t0 = start + kPeriod;
  // A timed notification: in a fresh process the threads reach wait(go) only in the first delta.
  p.stim.go.notify(kPeriod);
  // sc_start(time) may be called repeatedly; the job spans both calls.
  sc_core::sc_start(50 * kPeriod);
  EXPECT_EQ(sc_core::sc_time_stamp(), start + 50 * kPeriod);
  EXPECT_EQ(done, sc_core::SC_ZERO_TIME);
  sc_core::sc_start(100 * kPeriod);
  EXPECT_EQ(done, t0 + 108 * kPeriod);
  EXPECT_TRUE(std::equal(dst.begin(), dst.end(), buf.begin() + 128));
}

TEST_F(AxiPortTest, StridedAccessGathersAndScatters) {
  Platform& p = Platform::get();
  AxiPortParams params;
  params.burst_bytes = 128;
  p.port.configure(params, kPeriod);
  std::vector<uint8_t> rows(8 * 16);
  std::vector<uint8_t> out(8 * 16, 0xEE);
  sc_time read_done, write_done;
  const sc_time t0 = p.run([&](int, sc_time& offset) {
    p.port.read_strided(kBase, 64, 16, 8, rows.data(), Access::IFM, offset);
    read_done = sync(offset);
    p.port.write_strided(kBase + 8192, 64, 16, 8, out.data(), Access::OFM, offset);
    write_done = sync(offset);
  });
  for (int r = 0; r < 8; ++r) {
    EXPECT_TRUE(std::equal(rows.begin() + 16 * r, rows.begin() + 16 * (r + 1), buf.begin() + 64 * r)) << r;
    EXPECT_EQ(buf[8192 + 64 * r], 0xEE) << r;
    EXPECT_EQ(buf[8192 + 64 * r + 16], static_cast<uint8_t>(8192 + 64 * r + 16 + 1)) << r;
  }
  // 8 runs of 16 B each occupy a 128 B burst: 8 x 8 cycles of data.
  EXPECT_EQ(read_done, t0 + (32 + 64) * kPeriod);
  EXPECT_EQ(write_done, read_done + 64 * kPeriod);
}

TEST_F(AxiPortTest, AccessOutsideTheMappedMemoryIsAnAddressError) {
  Platform& p = Platform::get();
  // Map only the middle of a guarded buffer: the port must never touch the guards.
  std::vector<uint8_t> guarded(3 * 256, 0x55);
  p.mem.unmap_all();
  p.mem.map(kBase, guarded.data() + 256, 256);
  for (bool dmi : {true, false}) {
    p.mem.set_dmi_enabled(dmi);
    std::vector<uint8_t> data(64, 0x11);
    AxiAccess unmapped, crossing, below;
    p.run([&](int, sc_time& offset) {
      unmapped = p.port.read(kBase + 4096, data.data(), data.size(), 0, Access::IFM, offset);
      crossing = p.port.write(kBase + 224, data.data(), data.size(), 0, Access::OFM, offset);
      below = p.port.write(kBase - 16, data.data(), data.size(), 0, Access::OFM, offset);
    });
    EXPECT_EQ(unmapped.status, tlm::TLM_ADDRESS_ERROR_RESPONSE) << "dmi " << dmi;
    EXPECT_EQ(unmapped.fault_address, kBase + 4096);
    EXPECT_EQ(crossing.status, tlm::TLM_ADDRESS_ERROR_RESPONSE) << "dmi " << dmi;
    EXPECT_EQ(below.status, tlm::TLM_ADDRESS_ERROR_RESPONSE) << "dmi " << dmi;
    EXPECT_GT(crossing.completion.data_done_cycle, crossing.completion.start_cycle);  // bus time is spent
    for (size_t i = 0; i < 256; ++i) {
      ASSERT_EQ(guarded[i], 0x55) << i;
      ASSERT_EQ(guarded[512 + i], 0x55) << i;
    }
  }
}

TEST_F(AxiPortTest, AdjacentBuffersAreOneRangeAndRemappingDropsDmi) {
  Platform& p = Platform::get();
  std::vector<uint8_t> second(256, 0x77);
  p.mem.map(kBase + buf.size(), second.data(), second.size());
  std::vector<uint8_t> dst(64);
  AxiAccess r;
  p.run([&](int, sc_time& offset) {
    r = p.port.read(kBase + buf.size() - 32, dst.data(), dst.size(), 0, Access::DMA_SRC, offset);
  });
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(dst[31], buf.back());
  EXPECT_EQ(dst[32], 0x77);
  // A new buffer at the same address: a stale DMI pointer would still read the old one.
  std::vector<uint8_t> other(64 * 1024, 0x42);
  p.mem.unmap_all();
  p.mem.map(kBase, other.data(), other.size());
  p.run([&](int, sc_time& offset) { r = p.port.read(kBase, dst.data(), dst.size(), 0, Access::DMA_SRC, offset); });
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(dst[0], 0x42);
}

TEST_F(AxiPortTest, MemoryAddsNoTimeAndDescribesDmiGrantsAndRefusals) {
  Platform& p = Platform::get();
  std::vector<uint8_t> host(128, 9);
  p.host_mem.unmap_all();
  p.host_mem.map(0x1000, host.data(), host.size());
  tlm::tlm_generic_payload gp;
  uint8_t word[4] = {};
  gp.set_command(tlm::TLM_READ_COMMAND);
  gp.set_address(0x1010);
  gp.set_data_ptr(word);
  gp.set_data_length(4);
  gp.set_streaming_width(4);
  sc_time delay = sc_core::SC_ZERO_TIME;
  p.stim.raw->b_transport(gp, delay);
  EXPECT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(delay, sc_core::SC_ZERO_TIME);  // time is the AXI port model's, not the memory's
  EXPECT_EQ(word[3], 9);
  gp.set_address(0x1000 + 126);  // runs 2 bytes past the end
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  p.stim.raw->b_transport(gp, delay);
  EXPECT_EQ(gp.get_response_status(), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  tlm::tlm_dmi dmi;
  gp.set_address(0x1004);
  ASSERT_TRUE(p.stim.raw->get_direct_mem_ptr(gp, dmi));
  EXPECT_EQ(dmi.get_start_address(), 0x1000u);
  EXPECT_EQ(dmi.get_end_address(), 0x107Fu);
  EXPECT_EQ(dmi.get_dmi_ptr(), host.data());
  EXPECT_EQ(dmi.get_read_latency(), sc_core::SC_ZERO_TIME);
  gp.set_address(0x2000);
  tlm::tlm_dmi refused;
  EXPECT_FALSE(p.stim.raw->get_direct_mem_ptr(gp, refused));
  EXPECT_EQ(refused.get_start_address(), 0x1080u);
  EXPECT_EQ(refused.get_end_address(), ~uint64_t{0});
  EXPECT_THROW(p.host_mem.map(0x1040, host.data(), 16), InputError);  // overlaps
}

// Per-call cost of a 64 B read through the port with DMI (printed; the timing is asserted exactly).
TEST_F(AxiPortTest, PerCallCostWithDmi) {
  Platform& p = Platform::get();
  constexpr int kCalls = 1'000'000;
  std::vector<uint8_t> dst(64);
  double ns_per_call = 0;
  sc_time offset_after;
  p.run([&](int, sc_time& offset) {
    // CPU time of this thread: the machine is shared, wall time would count other processes.
    timespec t0{}, t1{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    for (int i = 0; i < kCalls; ++i) {
      sc_time local = offset;  // independent requests at the same time: bandwidth-bound
      p.port.read(kBase + 64 * (i % 1000), dst.data(), dst.size(), 0, Access::IFM, local);
      offset_after = local;
    }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    ns_per_call = (static_cast<double>(t1.tv_sec - t0.tv_sec) * 1e9 + static_cast<double>(t1.tv_nsec - t0.tv_nsec)) / kCalls;
  });
  EXPECT_EQ(offset_after, (32.0 + 4.0 * kCalls) * kPeriod);
  std::printf("AxiPort::read 64 B with DMI: %.1f ns per call\n", ns_per_call);
  RecordProperty("ns_per_call", std::to_string(ns_per_call));
}

}  // namespace
}  // namespace ethosu::axi
