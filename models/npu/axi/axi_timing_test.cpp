// AxiPortTiming: exact completion cycles for bandwidth, latency, burst rounding, contention,
// outstanding limits, read/write channels and fractional bandwidth.
#include "models/npu/axi/axi_timing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "sim/error.h"

namespace ethosu::axi {
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

TEST(AxiTiming, ReadBufferLimitsOneClientsReadsInFlight) {
  // Ethos_U85_SYS_DRAM_Mid's DRAM (12 B/cycle, 500 cycles, 128-B bursts) with 128-B transactions. Alone, 8 KiB of
  // IFM arrives at 500 + 8192 / 12 = 1183. With U85-128's IFM read buffer of 104 16-byte words, 13 transactions are
  // in flight: each round of 13 (138 2/3 cycles of data) waits for the first of the previous round + 500, so the
  // 64 transactions take 4 rounds of 510 2/3 cycles and 12 more: 500 + 4 x 510 2/3 + 12 x 128 / 12 = 2670 2/3.
  AxiPortParams p;
  p.bytes_per_cycle = 12;
  p.read_latency_cycles = 500;
  p.write_latency_cycles = 250;
  p.burst_bytes = 128;
  for (LimiterParams& l : p.limiters) l.burst_split_bytes = 128;
  EXPECT_EQ(AxiPortTiming(p).read(0, 8192, 0, Access::IFM).complete_cycle, 1183u);
  p.read_buffer_bytes[static_cast<size_t>(Access::IFM)] = 104 * 16;
  AxiPortTiming port(p);
  EXPECT_EQ(port.read(0, 8192, 0, Access::IFM).complete_cycle, 2671u);
  // Another client's read is not held by the IFM's buffer: it follows on the data channel (64 B padded to a 128-B
  // burst, 10 2/3 cycles).
  EXPECT_EQ(port.read(0, 64, 0, Access::WEIGHTS).complete_cycle, 2682u);
  // The IFM's own next read waits for room: its slot is the one round 3's last transaction held until its data was
  // in, 500 + 3 x 510 2/3 + 13 x 10 2/3 = 2170 2/3.
  AxiPortTiming again(p);
  again.read(0, 8192, 0, Access::IFM);
  EXPECT_EQ(again.read(0, 128, 0, Access::IFM).start_cycle, 2171u);
}

TEST(AxiTiming, ReadBufferHoldsTheDataNotTheBurst) {
  // 64 rows of 16 bytes (each costing a 128-B burst of the channel, 10 2/3 cycles) through a 256-byte buffer: 16 rows
  // in flight, not 2 bursts' worth. Rounds of 16 every 510 2/3 cycles: 500 + 3 x 510 2/3 + 16 x 10 2/3 = 2202 2/3.
  AxiPortParams p;
  p.bytes_per_cycle = 12;
  p.read_latency_cycles = 500;
  p.burst_bytes = 128;
  EXPECT_EQ(AxiPortTiming(p).read(0, 1024, 16, Access::IFM).complete_cycle, 1183u);
  p.read_buffer_bytes[static_cast<size_t>(Access::IFM)] = 256;
  EXPECT_EQ(AxiPortTiming(p).read(0, 1024, 16, Access::IFM).complete_cycle, 2203u);
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

// The timing rules of axi_timing.h followed literally, one AXI transaction at a time, in ticks of
// 1/num cycle (bytes_per_cycle = num/den, given exactly by the test).
class ReferencePort {
 public:
  ReferencePort(const AxiPortParams& p, uint64_t num, uint64_t den) : p_(p), num_(num), den_(den) {
    for (unsigned l = 0; l < kLimitersPerPort; ++l) {
      rings_[l][0].assign(p.limiters[l].max_outstanding_reads, 0);
      rings_[l][1].assign(p.limiters[l].max_outstanding_writes, 0);
    }
  }

  Completion transfer(bool write, uint64_t request_cycle, uint64_t bytes, uint32_t run_bytes, Access client,
                      unsigned limiter, uint32_t added) {
    const unsigned d = write ? 1 : 0;
    const uint64_t t = request_cycle * num_;
    const uint64_t pre = write ? 0 : (uint64_t{p_.read_latency_cycles} + added) * num_;
    const uint64_t post = write ? (uint64_t{p_.write_latency_cycles} + added) * num_ : 0;
    uint64_t& free_at = free_[p_.shared_data_bus ? 0 : d];
    std::vector<uint64_t>& ring = rings_[limiter][d];
    size_t& head = heads_[limiter][d];
    const uint64_t split = p_.limiters[limiter].burst_split_bytes;
    const uint64_t run = run_bytes == 0 ? bytes : run_bytes;
    uint64_t c = 0, first_issue = 0, first_data = 0, first_done = 0, issue_last = 0, occ_ticks = 0;
    uint64_t beats = 0, txns = 0;
    for (uint64_t off = 0; off < bytes; off += run) {
      const uint64_t len = std::min(run, bytes - off);
      for (uint64_t k = 0; k < len; k += split) {
        const bool last = k + split >= len;
        const uint64_t occ = last ? (len + p_.burst_bytes - 1) / p_.burst_bytes * p_.burst_bytes - k : split;
        const uint64_t issue = std::max(t, ring[head]);
        const uint64_t start = std::max(issue + pre, free_at);
        c = start + occ * den_;
        free_at = c;
        ring[head] = c + post;
        head = (head + 1) % ring.size();
        if (txns == 0) {
          first_issue = issue;
          first_data = start;
          first_done = c;
        }
        issue_last = issue;
        occ_ticks += occ * den_;
        beats += (std::min(split, len - k) + p_.bus_bytes - 1) / p_.bus_bytes;
        ++txns;
      }
    }
    Channel& ch = channel_[d];
    ch.transactions += txns;
    ch.beats += beats;
    ch.bytes += bytes;
    ch.busy += occ_ticks;
    if (issue_last > t) {
      const uint64_t from = std::max(t, ch.limit_cursor);
      if (issue_last > from) ch.limit_stall += issue_last - from;
      ch.limit_cursor = std::max(ch.limit_cursor, issue_last);
    }
    Client& cl = clients_[static_cast<unsigned>(client)];
    (write ? cl.bytes_written : cl.bytes_read) += bytes;
    cl.beats += beats;
    cl.transactions += txns;
    const uint64_t port_wait = first_data - (first_issue + pre);
    cl.port_wait += port_wait;
    cl.limit_wait += (c - t) - pre - occ_ticks - port_wait;
    const auto ceil = [&](uint64_t ticks) { return (ticks + num_ - 1) / num_; };
    return {ceil(first_issue), ceil(c), ceil(write ? c + post : c), ceil(first_done)};
  }

  // The port's statistics as AxiPortTiming::stats() reports them.
  AxiPortStats stats() const {
    const auto cycles = [&](uint64_t ticks) { return (ticks + num_ / 2) / num_; };
    AxiPortStats s;
    ChannelStats* out[2] = {&s.read, &s.write};
    for (unsigned d = 0; d < 2; ++d) {
      const Channel& c = channel_[d];
      *out[d] = {c.transactions, c.beats, c.bytes, cycles(c.busy), cycles(c.limit_stall)};
    }
    for (size_t k = 0; k < isa::kAccessCount; ++k) {
      const Client& c = clients_[k];
      s.clients[k] = {c.bytes_read, c.bytes_written, c.beats, c.transactions, cycles(c.port_wait),
                      cycles(c.limit_wait)};
    }
    return s;
  }

 private:
  struct Channel {
    uint64_t transactions = 0, beats = 0, bytes = 0, busy = 0, limit_stall = 0, limit_cursor = 0;
  };
  struct Client {
    uint64_t bytes_read = 0, bytes_written = 0, beats = 0, transactions = 0, port_wait = 0, limit_wait = 0;
  };
  AxiPortParams p_;
  uint64_t num_, den_;
  uint64_t free_[2] = {};
  std::vector<uint64_t> rings_[kLimitersPerPort][2];
  size_t heads_[kLimitersPerPort][2] = {};
  Channel channel_[2];
  Client clients_[isa::kAccessCount];
};

void expect_same_stats(const AxiPortStats& a, const AxiPortStats& b) {
  const auto same_channel = [](const ChannelStats& x, const ChannelStats& y) {
    return x.transactions == y.transactions && x.beats == y.beats && x.bytes == y.bytes &&
           x.busy_cycles == y.busy_cycles && x.limit_stall_cycles == y.limit_stall_cycles;
  };
  EXPECT_TRUE(same_channel(a.read, b.read));
  EXPECT_TRUE(same_channel(a.write, b.write));
  for (size_t k = 0; k < isa::kAccessCount; ++k) {
    const ClientStats& x = a.clients[k];
    const ClientStats& y = b.clients[k];
    EXPECT_TRUE(x.bytes_read == y.bytes_read && x.bytes_written == y.bytes_written && x.beats == y.beats &&
                x.transactions == y.transactions && x.port_wait_cycles == y.port_wait_cycles &&
                x.limit_wait_cycles == y.limit_wait_cycles)
        << "client " << k;
  }
}

// Random traffic (both directions and limiters, any order of request cycles, short and long transfers,
// runs, added latency) on random ports, bandwidth- and latency-bound: every completion and every
// statistic must equal the one-transaction-at-a-time reference.
TEST(AxiTiming, RandomTrafficMatchesPerTransactionReference) {
  std::mt19937_64 rng(11);
  const auto pick = [&](uint64_t lo, uint64_t hi) { return std::uniform_int_distribution<uint64_t>(lo, hi)(rng); };
  struct Bandwidth {
    double bytes_per_cycle;
    uint64_t num, den;
  };
  const Bandwidth bandwidths[] = {{16, 16, 1}, {3.75, 15, 4}, {8, 8, 1}, {4.5, 9, 2}, {0.5, 1, 2}};
  for (int port_case = 0; port_case < 40; ++port_case) {
    const Bandwidth& bw = bandwidths[pick(0, 4)];
    AxiPortParams p;
    p.bytes_per_cycle = bw.bytes_per_cycle;
    p.bus_bytes = pick(0, 1) ? 16 : 8;
    p.burst_bytes = p.bus_bytes << pick(1, 4);
    p.read_latency_cycles = static_cast<uint32_t>(pick(0, 600));
    p.write_latency_cycles = static_cast<uint32_t>(pick(0, 300));
    p.shared_data_bus = pick(0, 1) == 1;
    for (LimiterParams& l : p.limiters) {
      l.burst_split_bytes = 64u << pick(0, 2);
      l.max_outstanding_reads = static_cast<uint32_t>(pick(0, 1) ? pick(1, 64) : pick(1, 4));
      l.max_outstanding_writes = static_cast<uint32_t>(pick(0, 1) ? pick(1, 32) : pick(1, 4));
    }
    AxiPortTiming port(p);
    ReferencePort reference(p, bw.num, bw.den);
    uint64_t now = 0;
    for (int call = 0; call < 300; ++call) {
      // Mostly forward in time, sometimes behind the previous request (temporal decoupling).
      now = pick(0, 3) == 0 ? now - std::min<uint64_t>(now, pick(0, 2000)) : now + pick(0, 500);
      const bool write = pick(0, 1) == 1;
      const uint64_t bytes = pick(0, 3) == 0 ? pick(1, 64) : pick(0, 1) ? pick(1, 4096) : pick(4096, 40000);
      const auto run = static_cast<uint32_t>(pick(0, 2) == 0 ? 0 : pick(1, 3000));
      const auto limiter = static_cast<unsigned>(pick(0, 1));
      const auto added = static_cast<uint32_t>(pick(0, 3) == 0 ? pick(1, 400) : 0);
      const auto client = static_cast<Access>(pick(0, isa::kAccessCount - 1));
      const Completion got = write ? port.write(now, bytes, run, client, limiter, added)
                                   : port.read(now, bytes, run, client, limiter, added);
      const Completion want = reference.transfer(write, now, bytes, run, client, limiter, added);
      ASSERT_TRUE(got.start_cycle == want.start_cycle && got.data_done_cycle == want.data_done_cycle &&
                  got.complete_cycle == want.complete_cycle &&
                  got.first_data_done_cycle == want.first_data_done_cycle)
          << "port " << port_case << " call " << call << (write ? " write " : " read ") << bytes << " B, runs of "
          << run << ", limiter " << limiter << ", added " << added << ": got " << got.start_cycle << "/"
          << got.data_done_cycle << "/" << got.complete_cycle << "/" << got.first_data_done_cycle << ", want "
          << want.start_cycle << "/" << want.data_done_cycle << "/" << want.complete_cycle << "/"
          << want.first_data_done_cycle;
    }
    expect_same_stats(port.stats(), reference.stats());
  }
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

// A bus that adds nothing, or holds every transaction until `extra` cycles after its issue; it logs them.
struct LoggingBus : TransactionBus {
  uint64_t extra = 0;
  std::vector<std::pair<uint64_t, uint64_t>> issued;  // address, issue cycle
  uint64_t transaction(bool, const AddressRun&, uint64_t address, uint64_t, uint64_t issue_cycle) override {
    issued.emplace_back(address, issue_cycle);
    return extra ? issue_cycle + extra : 0;
  }
};

// Transaction by transaction over the same runs, with a bus that adds nothing, the port books exactly what its
// closed forms book (transaction mode against the fast path).
TEST(AxiTiming, TransactionByTransactionBooksAsTheTransfer) {
  std::mt19937_64 rng(5);
  const auto pick = [&](uint64_t lo, uint64_t hi) { return std::uniform_int_distribution<uint64_t>(lo, hi)(rng); };
  for (int port_case = 0; port_case < 30; ++port_case) {
    AxiPortParams p;
    p.bytes_per_cycle = pick(0, 1) ? 3.75 : 16;
    p.bus_bytes = 16;
    p.burst_bytes = 16u << pick(1, 3);
    p.read_latency_cycles = static_cast<uint32_t>(pick(0, 600));
    p.write_latency_cycles = static_cast<uint32_t>(pick(0, 300));
    p.shared_data_bus = pick(0, 1) == 1;
    for (LimiterParams& l : p.limiters) {
      l.burst_split_bytes = 64u << pick(0, 2);
      l.max_outstanding_reads = static_cast<uint32_t>(pick(1, 64));
      l.max_outstanding_writes = static_cast<uint32_t>(pick(1, 32));
    }
    AxiPortTiming closed(p), each(p);
    LoggingBus bus;
    uint64_t now = 0;
    for (int call = 0; call < 200; ++call) {
      now += pick(0, 500);
      const bool write = pick(0, 1) == 1;
      const uint64_t bytes = pick(1, 9000);
      const auto run = static_cast<uint32_t>(pick(0, 2) == 0 ? 0 : pick(1, 3000));
      std::vector<AddressRun> runs;
      for (uint64_t at = 0; at < bytes; at += run ? run : bytes)
        runs.push_back({0x1000 + 2 * at, std::min<uint64_t>(run ? run : bytes, bytes - at)});
      const Completion want = write ? closed.write(now, bytes, run, Access::OFM) : closed.read(now, bytes, run, Access::IFM);
      const Completion got = write ? each.write(now, runs.data(), runs.size(), Access::OFM, 0, bus)
                                   : each.read(now, runs.data(), runs.size(), Access::IFM, 0, bus);
      ASSERT_TRUE(got.start_cycle == want.start_cycle && got.data_done_cycle == want.data_done_cycle &&
                  got.complete_cycle == want.complete_cycle && got.first_data_done_cycle == want.first_data_done_cycle)
          << "port " << port_case << " call " << call << (write ? " write " : " read ") << bytes << " B, runs of " << run;
    }
    expect_same_stats(each.stats(), closed.stats());
  }
}

TEST(AxiTiming, TheBusAnswerHoldsATransaction) {
  AxiPortParams p = sram();
  p.limiters[0].max_outstanding_reads = 1;
  AxiPortTiming port(p);
  LoggingBus bus;
  bus.extra = 1000;  // a slow memory: each read is in 1000 cycles after it issues
  const std::vector<AddressRun> runs = {{0x100, 64}, {0x200, 64}};
  const Completion c = port.read(10, runs.data(), runs.size(), Access::IFM, 0, bus);
  ASSERT_EQ(bus.issued.size(), 2u);
  EXPECT_EQ(bus.issued[0], std::make_pair(uint64_t{0x100}, uint64_t{10}));
  // One outstanding read: the second issues when the first is in.
  EXPECT_EQ(bus.issued[1], std::make_pair(uint64_t{0x200}, uint64_t{1010}));
  EXPECT_EQ(c.first_data_done_cycle, 1010u);
  EXPECT_EQ(c.complete_cycle, 2010u);
  // A write is acknowledged when the bus says, its data leaves at the port's time.
  bus.extra = 500;
  const std::vector<AddressRun> one = {{0x300, 32}};
  const Completion w = port.write(3000, one.data(), one.size(), Access::OFM, 0, bus);
  EXPECT_EQ(w.data_done_cycle, 3000u + 2);
  EXPECT_EQ(w.complete_cycle, 3500u);
}

}  // namespace
}  // namespace ethosu::axi
