// AxiPortTiming: exact completion cycles for bandwidth, latency, burst rounding, contention,
// outstanding limits, read/write channels and fractional bandwidth.
#include "models/mem/axi_timing.h"

#include <gtest/gtest.h>

#include "sim/error.h"

namespace ethosu::mem {
namespace {

using isa::Access;

// SRAM-like port: 16 B/cycle, 32-cycle latencies, 32 B bursts, 64 B split, 64/32 outstanding.
AxiPortParams sram() { return AxiPortParams{}; }

// Vela's High_End DRAM: 3.75 B/cycle, 500/250 cycles, 128 B bursts, 256 B split (Linux AXI_LIMIT2).
AxiPortParams dram() {
  AxiPortParams p;
  p.bytes_per_cycle = 3.75;
  p.read_latency_cycles = 500;
  p.write_latency_cycles = 250;
  p.burst_bytes = 128;
  for (LimiterParams& l : p.limiters) l.burst_split_bytes = 256;
  return p;
}

const ClientStats& client(const AxiPortStats& s, Access c) { return s.clients[static_cast<unsigned>(c)]; }

TEST(AxiTiming, ReadCompletesAfterLatencyPlusTransfer) {
  AxiPortTiming port(sram());
  const Completion c = port.read(100, 4096, 0, Access::IFM);
  EXPECT_EQ(c.start_cycle, 100u);
  EXPECT_EQ(c.data_done_cycle, 100u + 32 + 4096 / 16);
  EXPECT_EQ(c.complete_cycle, c.data_done_cycle);
  const AxiPortStats s = port.stats();
  EXPECT_EQ(s.read.transactions, 4096u / 64);
  EXPECT_EQ(s.read.beats, 4096u / 16);
  EXPECT_EQ(s.read.busy_cycles, 256u);
  EXPECT_EQ(client(s, Access::IFM).bytes_read, 4096u);
  EXPECT_EQ(client(s, Access::IFM).port_wait_cycles, 0u);
  EXPECT_EQ(client(s, Access::IFM).limit_wait_cycles, 0u);
}

// Latency the platform adds is the port's latency made longer for that transfer alone: the same completions
// as a port with that much more latency, under contention and the outstanding limit (2 of them here) too.
TEST(AxiTiming, AddedLatencyIsLongerLatencyForThatTransfer) {
  AxiPortParams slower = dram();
  slower.read_latency_cycles += 37;
  slower.write_latency_cycles += 37;
  for (LimiterParams& l : slower.limiters) l.max_outstanding_reads = l.max_outstanding_writes = 2;
  AxiPortParams base = slower;
  base.read_latency_cycles -= 37;
  base.write_latency_cycles -= 37;
  AxiPortTiming added(base), longer(slower);
  const Completion a1 = added.read(10, 3000, 96, Access::IFM, 0, 37), b1 = longer.read(10, 3000, 96, Access::IFM);
  const Completion a2 = added.write(20, 2000, 0, Access::OFM, 0, 37), b2 = longer.write(20, 2000, 0, Access::OFM);
  const Completion a3 = added.write_behind(a1, 3000, 96, Access::DMA_DST, 1, 37),
                   b3 = longer.write_behind(b1, 3000, 96, Access::DMA_DST, 1);
  for (const auto& [a, b] : {std::pair{a1, b1}, std::pair{a2, b2}, std::pair{a3, b3}}) {
    EXPECT_EQ(a.start_cycle, b.start_cycle);
    EXPECT_EQ(a.data_done_cycle, b.data_done_cycle);
    EXPECT_EQ(a.complete_cycle, b.complete_cycle);
    EXPECT_EQ(a.first_data_done_cycle, b.first_data_done_cycle);
  }
  // It does not stay: a later transfer without it takes the base latency.
  EXPECT_EQ(added.read(50000, 64, 0, Access::IFM).data_done_cycle, 50000u + 500 + 35);  // a 128 B burst at 3.75 B/cycle
}

TEST(AxiTiming, DramReadRoundsToBurstsAtFractionalBandwidth) {
  AxiPortTiming port(dram());
  // 1000 B = 256+256+256+232 B transactions, 63 beats; the run occupies 1024 B (8 bursts of 128 B):
  // 500 + 1024 / 3.75 = 773.07 -> 774.
  const Completion c = port.read(0, 1000, 0, Access::WEIGHTS);
  EXPECT_EQ(c.data_done_cycle, 774u);
  const AxiPortStats s = port.stats();
  EXPECT_EQ(s.read.transactions, 4u);
  EXPECT_EQ(s.read.beats, 63u);
  EXPECT_EQ(s.read.bytes, 1000u);
}

TEST(AxiTiming, ShortRunsCostAWholeBurstEach) {
  AxiPortParams p = sram();
  p.burst_bytes = 128;
  AxiPortTiming port(p);
  // 16 rows of 16 B (an NHWC block of depth 16): each row occupies a 128 B burst -> 8x the time.
  const Completion c = port.read(0, 256, 16, Access::IFM);
  EXPECT_EQ(c.data_done_cycle, 32u + 16 * 128 / 16);
  const AxiPortStats s = port.stats();
  EXPECT_EQ(s.read.transactions, 16u);
  EXPECT_EQ(s.read.beats, 16u);
  EXPECT_EQ(s.read.busy_cycles, 128u);
}

TEST(AxiTiming, SecondStreamFinishesAfterTheFirstsDataPhase) {
  AxiPortTiming port(sram());
  const Completion a = port.read(0, 1024, 0, Access::IFM);
  const Completion b = port.read(0, 512, 0, Access::WEIGHTS);
  EXPECT_EQ(a.data_done_cycle, 32u + 64);
  EXPECT_EQ(b.data_done_cycle, 32u + 64 + 32);
  const AxiPortStats s = port.stats();
  EXPECT_EQ(client(s, Access::WEIGHTS).port_wait_cycles, 64u);
  EXPECT_EQ(client(s, Access::IFM).port_wait_cycles, 0u);
  // A later request on an idle port does not wait (16 B still occupy a 32 B burst).
  EXPECT_EQ(port.read(1000, 16, 0, Access::CMD).data_done_cycle, 1000u + 32 + 2);
}

TEST(AxiTiming, OutstandingLimitSerialisesLatency) {
  AxiPortParams p = sram();
  p.limiters[0].max_outstanding_reads = 1;
  p.limiters[1].max_outstanding_reads = 2;
  AxiPortTiming port(p);
  // One outstanding: 4 x (32 latency + 4 data) back to back.
  const Completion one = port.read(0, 256, 0, Access::IFM, 0);
  EXPECT_EQ(one.data_done_cycle, 4u * 36);
  AxiPortStats s = port.stats();
  EXPECT_EQ(client(s, Access::IFM).limit_wait_cycles, 144u - 32 - 16);
  EXPECT_EQ(s.read.limit_stall_cycles, 108u);  // the last transaction issues at 3 x 36
  // Two outstanding on limiter 1: data 32-36, 36-40, then 68-72, 72-76.
  port.reset();
  EXPECT_EQ(port.read(0, 256, 0, Access::IFM, 1).data_done_cycle, 76u);
}

TEST(AxiTiming, LimitersAreIndependentButShareTheDataChannel) {
  AxiPortParams p = sram();
  p.limiters[0].max_outstanding_reads = 1;
  AxiPortTiming port(p);
  port.read(0, 64, 0, Access::IFM, 0);                                    // data 32-36, slot held to 36
  EXPECT_EQ(port.read(0, 64, 0, Access::IFM, 1).data_done_cycle, 40u);   // own slot, shared data
  EXPECT_EQ(port.read(0, 64, 0, Access::IFM, 0).data_done_cycle, 72u);   // waits for limiter 0's slot
}

TEST(AxiTiming, WritesArePostedAndRespondAfterLatency) {
  AxiPortTiming port(sram());
  const Completion w = port.write(10, 1024, 0, Access::OFM);
  EXPECT_EQ(w.start_cycle, 10u);
  EXPECT_EQ(w.data_done_cycle, 10u + 64);
  EXPECT_EQ(w.complete_cycle, 10u + 64 + 32);
  EXPECT_EQ(client(port.stats(), Access::OFM).bytes_written, 1024u);
}

TEST(AxiTiming, ReadAndWriteChannelsAreIndependent) {
  AxiPortTiming port(sram());
  const Completion r = port.read(0, 1024, 0, Access::IFM);
  const Completion w = port.write(0, 1024, 0, Access::OFM);
  EXPECT_EQ(r.data_done_cycle, 32u + 64);
  EXPECT_EQ(w.data_done_cycle, 64u);
  EXPECT_EQ(client(port.stats(), Access::OFM).port_wait_cycles, 0u);
}

TEST(AxiTiming, SharedDataBusSerialisesReadsAndWrites) {
  AxiPortParams p = sram();
  p.shared_data_bus = true;
  AxiPortTiming port(p);
  port.read(0, 1024, 0, Access::IFM);  // data 32-96
  const Completion w = port.write(0, 1024, 0, Access::OFM);
  EXPECT_EQ(w.data_done_cycle, 96u + 64);
  EXPECT_EQ(w.complete_cycle, 96u + 64 + 32);
  EXPECT_EQ(client(port.stats(), Access::OFM).port_wait_cycles, 96u);
}

TEST(AxiTiming, WriteResponsesHoldOutstandingSlots) {
  AxiPortParams p = sram();
  p.limiters[0].max_outstanding_writes = 1;
  AxiPortTiming port(p);
  // 2 transactions: data 0-4, response 36; data 36-40, response 72.
  const Completion w = port.write(0, 128, 0, Access::OFM);
  EXPECT_EQ(w.data_done_cycle, 40u);
  EXPECT_EQ(w.complete_cycle, 72u);
}

TEST(AxiTiming, FractionalBandwidthDoesNotDrift) {
  AxiPortParams p = sram();
  p.bytes_per_cycle = 3.75;  // 15/4: one 16 B beat every 64/15 cycles
  p.read_latency_cycles = 7;
  AxiPortTiming port(p);
  for (uint64_t i = 1; i <= 3000; ++i) {
    const Completion c = port.read(0, 32, 0, Access::DMA_SRC);
    ASSERT_EQ(c.data_done_cycle, 7 + (i * 32 * 4 + 14) / 15) << "read " << i;
  }
  p.bytes_per_cycle = 12.8;  // 64/5, not a binary fraction
  port.configure(p);
  port.reset();
  for (uint64_t i = 1; i <= 3000; ++i) {
    ASSERT_EQ(port.write(0, 32, 0, Access::DMA_DST).data_done_cycle, (i * 32 * 5 + 63) / 64) << "write " << i;
  }
}

// Long transfers are booked in closed form after the first max_outstanding transactions: the result
// must equal booking every transaction as its own call at the same request cycle.
void expect_same_as_per_transaction(const AxiPortParams& p, bool write, uint64_t bytes, uint32_t run) {
  AxiPortTiming whole(p), pieces(p);
  const uint32_t split = p.limiters[0].burst_split_bytes;
  // Busy the port first so that the ring and the channel start from a non-trivial state.
  whole.read(0, 3000, 0, Access::CMD);
  pieces.read(0, 3000, 0, Access::CMD);
  whole.write(0, 3000, 0, Access::CMD);
  pieces.write(0, 3000, 0, Access::CMD);
  const uint64_t t = 40;
  const Completion c = write ? whole.write(t, bytes, run, Access::IFM) : whole.read(t, bytes, run, Access::IFM);
  Completion last{};
  const uint64_t step = run == 0 ? bytes : run;
  for (uint64_t off = 0; off < bytes; off += step) {
    const uint64_t len = std::min<uint64_t>(step, bytes - off);
    for (uint64_t k = 0; k < len; k += split) {
      // Splits are multiples of the burst, so a run's padding lands on its last piece either way.
      const uint64_t piece = std::min<uint64_t>(split, len - k);
      const Completion pc = write ? pieces.write(t, piece, 0, Access::IFM) : pieces.read(t, piece, 0, Access::IFM);
      last.data_done_cycle = pc.data_done_cycle;
      last.complete_cycle = pc.complete_cycle;
    }
  }
  EXPECT_EQ(c.data_done_cycle, last.data_done_cycle);
  EXPECT_EQ(c.complete_cycle, last.complete_cycle);
  // The slot state left behind must match too: the next call sees the same port.
  const Completion next_w = write ? whole.write(t, 4096, 0, Access::OFM) : whole.read(t, 4096, 0, Access::OFM);
  const Completion next_p = write ? pieces.write(t, 4096, 0, Access::OFM) : pieces.read(t, 4096, 0, Access::OFM);
  EXPECT_EQ(next_w.start_cycle, next_p.start_cycle);
  EXPECT_EQ(next_w.complete_cycle, next_p.complete_cycle);
  EXPECT_EQ(whole.stats().read.beats, pieces.stats().read.beats);
  EXPECT_EQ(whole.stats().write.beats, pieces.stats().write.beats);
}

TEST(AxiTiming, ClosedFormMatchesPerTransactionBooking) {
  // 9 slots x 4 cycles cover the 32-cycle latency exactly: the closed form applies.
  AxiPortParams p = sram();
  for (LimiterParams& l : p.limiters) l.max_outstanding_reads = l.max_outstanding_writes = 9;
  expect_same_as_per_transaction(p, false, 64 * 1024, 0);
  expect_same_as_per_transaction(p, true, 64 * 1024, 0);
  // Runs that split into several transactions with a padded tail, at fractional bandwidth
  // (256 B = 68.3 cycles: 15 of them cover 500 read cycles, 7 cover 250 write cycles).
  AxiPortParams d = dram();
  for (LimiterParams& l : d.limiters) {
    l.max_outstanding_reads = 16;
    l.max_outstanding_writes = 8;
  }
  expect_same_as_per_transaction(d, false, 100 * 1000 + 17, 1000);
  expect_same_as_per_transaction(d, true, 100 * 1000 + 17, 1000);
  // Latency-bound: too few slots to cover the latency, every transaction waits for its slot.
  d.limiters[0].max_outstanding_reads = 2;
  expect_same_as_per_transaction(d, false, 50 * 1000, 1000);
}

TEST(AxiTiming, ConfigureKeepsPendingWorkAndRejectsBadParameters) {
  AxiPortTiming port(sram());
  port.read(0, 1600, 0, Access::IFM);  // data channel busy until 32 + 100
  AxiPortParams p = sram();
  p.bytes_per_cycle = 8;
  port.configure(p);
  EXPECT_EQ(port.read(0, 32, 0, Access::IFM).data_done_cycle, 132u + 4);
  AxiPortParams bad = sram();
  bad.burst_bytes = 24;
  EXPECT_THROW(port.configure(bad), InputError);
  bad = sram();
  bad.limiters[1].max_outstanding_writes = 33;
  EXPECT_THROW(AxiPortTiming{bad}, InputError);
  bad = sram();
  bad.bytes_per_cycle = 0;
  EXPECT_THROW(port.configure(bad), InputError);
  EXPECT_THROW(port.read(0, 16, 0, Access::IFM, 2), InputError);
}

TEST(AxiTiming, ZeroBytesTakeNoTime) {
  AxiPortTiming port(sram());
  const Completion c = port.read(5, 0, 0, Access::IFM);
  EXPECT_EQ(c.complete_cycle, 5u);
  EXPECT_EQ(port.stats().read.transactions, 0u);
}

}  // namespace
}  // namespace ethosu::mem
