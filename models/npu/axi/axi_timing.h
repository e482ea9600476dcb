// Timing of one NPU AXI master port (M0 or M1) and the memory behind it, as plain C++ (no SystemC).
//
// Contract: read()/write() book one transfer on the port at an absolute request cycle and return
// when it starts, when its last data beat moves and when it completes. Bookkeeping is "free-at"
// (gem5 SimpleMemory style): nothing ticks; each call advances the channel's free-at time, so
// contention between callers falls out of the order of the calls. Calls may come in any order of
// request cycles (temporal decoupling); a call is served after every call booked before it.
//
// Timing rules (all times exact; internally in ticks of 1/num cycle where bytes_per_cycle = num/den,
// so fractional bandwidth never accumulates rounding; results are rounded up to whole cycles):
// * A transfer is `bytes` made of contiguous runs of `run_bytes` (0 = one run). Each run is cut
//   into AXI transactions at the limiter's burst split (AXI_LIMITn.max_beats: 64/128/256 B).
// * Burst efficiency: each run occupies the data channel for round_up(run, burst_bytes) bytes, the
//   padding charged to the run's last transaction. A short run costs a whole memory burst as in
//   Vela's `bytes * burst_len / eff_burst`, so simulation and Vela agree for short NHWC rows; it is
//   charged per contiguous run, not per AXI transaction, because the memory sees one sequential
//   stream however the master splits it. burst_bytes is a multiple of bus_bytes, so a partial data
//   beat always costs a whole beat.
// * Reads: a transaction issues at max(request, its outstanding slot free); its data starts at
//   max(issue + read_latency, channel free-at) and occupies occ_bytes / bytes_per_cycle cycles;
//   the slot frees at its last beat. Latency thus overlaps across up to max_outstanding transactions.
// * Writes: data is posted (starts at max(issue, channel free-at)); the response comes
//   write_latency after the last beat, which frees the slot and completes the transaction.
// * Latency added by the platform (a bus, a slow memory: the caller says how much) lengthens read_latency
//   or write_latency for the transactions of that transfer alone.
// * AXI has independent read and write data channels, each the port's width, so by default reads
//   and writes do not contend. shared_data_bus = true makes them share one data path, for a memory
//   whose bandwidth figure is the total of both directions (a DRAM's one data bus; Vela divides
//   read+write bytes by one bandwidth for every memory).
// * Outstanding limits are per limiter (2 per port, selected by REGIONCFG); the data channel is per
//   port. Transactions complete in booking order, so a slot frees when the transaction
//   max_outstanding places earlier completes.
// * A traffic class with a read buffer (read_buffer_bytes, the U85's per-channel read buffers) issues a read only
//   when the buffer has room for its data (in whole bus beats): at most read_buffer_bytes of the class's read data
//   are in flight, each transaction holding its room until its last beat is in. Those reads are booked
//   transaction by transaction.
// * The address channel (one request per cycle) is not modelled: at >= 64 B per transaction it never
//   limits a 16 B/cycle data channel.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "isa/access.h"
#include "sim/int_math.h"

namespace ethosu::axi {

constexpr unsigned kLimitersPerPort = 2;
constexpr uint32_t kMaxOutstandingReads = 64;
constexpr uint32_t kMaxOutstandingWrites = 32;

// One AXI_LIMITn register, decoded.
struct LimiterParams {
  uint32_t burst_split_bytes = 64;                         // max_beats: 64, 128 or 256
  uint32_t max_outstanding_reads = kMaxOutstandingReads;   // 1..64
  uint32_t max_outstanding_writes = kMaxOutstandingWrites; // 1..32
};

struct AxiPortParams {
  double bytes_per_cycle = 16.0;  // per data channel, or both with shared_data_bus; 16 x clock scale on U65
  uint32_t read_latency_cycles = 32;
  uint32_t write_latency_cycles = 32;
  uint32_t burst_bytes = 32;  // the memory's efficient burst (vela.ini burst_length)
  uint32_t bus_bytes = 16;    // data width: 16 on U65 (128-bit), 8 on U55
  bool shared_data_bus = false;
  // As a configuration (mem.axiN.*), both limiters hold the port's capability; at job start the driver's
  // AXI_LIMITn narrow each within it (AxiPort::apply_limits).
  std::array<LimiterParams, kLimitersPerPort> limiters{};
  // Read data each traffic class may have in flight (bytes, by isa::Access; 0: only the limiter's outstanding
  // reads): the NPU's read buffer for that client. Set by the configuration's architecture, not a parameter.
  std::array<uint32_t, isa::kAccessCount> read_buffer_bytes{};

  template <typename Fields>
  void fields(Fields& f) {
    f.field("bytes_per_cycle", bytes_per_cycle, "bytes/cycle",
            "peak bandwidth in NPU cycles: of reads and writes together with shared_data_bus (DRAM), else of "
            "each direction (Vela: the AXI width x the memory's clock scale)",
            {1.0 / 4096, 256.0});
    // Whole beats of the U65's 16-byte data bus (validate() checks it against bus_bytes), declared as the
    // range's step so that --set names a bad value and calibrate searches only values that run.
    f.field("burst_bytes", burst_bytes, "bytes", "memory burst length (Vela burst_length)", {16, 4096, 16});
    f.field("read_latency_cycles", read_latency_cycles, "cycles", "read latency", {0, 1000000});
    f.field("write_latency_cycles", write_latency_cycles, "cycles", "write latency", {0, 1000000});
    f.field("shared_data_bus", shared_data_bus,
            "reads and writes share bytes_per_cycle (one DRAM data bus); off: AXI's independent read and write "
            "channels, each at bytes_per_cycle");
    f.field("max_outstanding_reads", limiters[0].max_outstanding_reads, "transactions", "outstanding read limit",
            {1, kMaxOutstandingReads});
    f.field("max_outstanding_writes", limiters[0].max_outstanding_writes, "transactions", "outstanding write limit",
            {1, kMaxOutstandingWrites});
    limiters[1] = limiters[0];
  }
};

struct Completion {
  uint64_t start_cycle = 0;      // first transaction issued
  uint64_t data_done_cycle = 0;  // last data beat moved
  uint64_t complete_cycle = 0;   // reads: = data_done; writes: response of the last transaction
  uint64_t first_data_done_cycle = 0;  // last data beat of the first transaction moved (a reader can start)
};

struct ClientStats {
  uint64_t bytes_read = 0, bytes_written = 0;
  uint64_t beats = 0, transactions = 0;
  uint64_t port_wait_cycles = 0;   // first data delayed by other traffic on the data channel
  uint64_t limit_wait_cycles = 0;  // completion delayed by the outstanding limit
};

struct ChannelStats {
  uint64_t transactions = 0, beats = 0, bytes = 0;
  uint64_t busy_cycles = 0;         // data channel occupied (burst padding included)
  uint64_t limit_stall_cycles = 0;  // cycles with requests held back by the limit (AXIn_*_STALL_LIMIT)
};

// Bytes per traffic class, cheap to read between two bookings.
struct ClassBytes {
  std::array<uint64_t, isa::kAccessCount> read{}, written{};
};

struct AxiPortStats {
  ChannelStats read, write;
  std::array<ClientStats, isa::kAccessCount> clients{};  // per traffic class
};

// Transaction mode: a transfer's bytes at their bus addresses, and the bus its transactions go on. A run with a
// strobe period writes only [strobe_lo, strobe_hi) of every strobe_period bytes (AXI write strobes); its
// transactions still move, and count, all of it.
struct AddressRun {
  uint64_t address = 0;
  uint64_t bytes = 0;
  uint32_t strobe_period = 0, strobe_lo = 0, strobe_hi = 0;
};
class TransactionBus {
 public:
  virtual ~TransactionBus() = default;
  // One AXI transaction of `bytes` at `address` (a piece of `run`), issued at `issue_cycle`, asked in booking
  // order. Returns the cycle the bus says it completed (a read's last data in, a write acknowledged); a cycle
  // before the port's own (0 for a bus that adds nothing) leaves the port's time.
  virtual uint64_t transaction(bool read, const AddressRun& run, uint64_t address, uint64_t bytes,
                               uint64_t issue_cycle) = 0;
};

class AxiPortTiming {
 public:
  // Throws ethosu::InputError on invalid parameters (see validate rules in the .cpp).
  explicit AxiPortTiming(const AxiPortParams& p = {});

  // New parameters between jobs; pending busy-until times are kept (rounded up to whole cycles).
  void configure(const AxiPortParams& p);
  // Idle port and zero statistics.
  void reset();
  void reset_stats() { counters_ = {}; }

  // `added_latency_cycles`: what the platform between the port and the memory adds to every transaction of
  // this transfer, on top of the port's read or write latency. `open_run`: the transfer's last run goes on at the
  // next address in the next read (one sequential stream read in pieces, as the command fetch reads it), so it
  // is not padded to the memory's burst.
  Completion read(uint64_t request_cycle, uint64_t bytes, uint32_t run_bytes, isa::Access client,
                  unsigned limiter = 0, uint32_t added_latency_cycles = 0, bool open_run = false);
  Completion write(uint64_t request_cycle, uint64_t bytes, uint32_t run_bytes, isa::Access client,
                   unsigned limiter = 0, uint32_t added_latency_cycles = 0);

  // Writes the data of `read` (booked on this or another port) as it arrives, as a DMA does: the writes
  // start when the read's first transaction is in, and the last burst, which holds the last read data,
  // moves after it; complete_cycle is that burst's response.
  Completion write_behind(const Completion& read, uint64_t bytes, uint32_t run_bytes, isa::Access client,
                          unsigned limiter = 0, uint32_t added_latency_cycles = 0);
  // When that last burst's response comes, for `bytes` written behind `read`.
  uint64_t write_behind_done(const Completion& read, uint64_t bytes, unsigned limiter,
                             uint32_t added_latency_cycles = 0) const;

  // Transaction mode: the same rules, transaction by transaction over the given runs (contiguous runs one stretch
  // for the burst padding), each transaction asked of `bus` at its issue cycle; a transaction completes no earlier than the bus says, which
  // holds its outstanding slot (and, for a read, the data channel) that much longer. With a bus that adds nothing
  // and runs of one length, the times are those of read()/write().
  Completion read(uint64_t request_cycle, const AddressRun* runs, size_t count, isa::Access client, unsigned limiter,
                  TransactionBus& bus, bool open_run = false);
  Completion write(uint64_t request_cycle, const AddressRun* runs, size_t count, isa::Access client, unsigned limiter,
                   TransactionBus& bus);

  AxiPortStats stats() const;  // converted to cycles when read
  ClassBytes class_bytes() const;
  const AxiPortParams& params() const { return params_; }

 private:
  enum class Dir : uint8_t { READ, WRITE };
  // Completion (read) or response (write) ticks of the last max_outstanding transactions.
  struct SlotRing {
    std::array<uint64_t, kMaxOutstandingReads> hold_until{};
    uint64_t latest_hold = 0;  // >= every hold_until[0, size): when the whole ring is free
    uint32_t size = 1, head = 0;
  };
  struct TickChannel {
    uint64_t transactions = 0, beats = 0, bytes = 0, busy_ticks = 0, limit_stall_ticks = 0;
    uint64_t limit_cursor = 0;  // end of the last counted stall interval: overlaps count once
  };
  struct TickClient {
    uint64_t bytes_read = 0, bytes_written = 0, beats = 0, transactions = 0;
    uint64_t port_wait_ticks = 0, limit_wait_ticks = 0;
  };
  struct Counters {
    std::array<TickChannel, 2> channel{};
    std::array<TickClient, isa::kAccessCount> clients{};
  };

  Completion transfer(Dir dir, uint64_t request_cycle, uint64_t bytes, uint32_t run_bytes,
                      isa::Access client, unsigned limiter, uint32_t added_latency_cycles, bool open_run = false);
  // Bus: TransactionBus, or the port alone (NoBus: its answers compile away).
  template <class Bus>
  Completion transfer_each(Dir dir, uint64_t request_cycle, const AddressRun* runs, size_t count, isa::Access client,
                           unsigned limiter, Bus& bus, bool open_run, uint32_t added_latency_cycles = 0);
  // One traffic class's read buffer: the room its transactions in flight hold, oldest first (they complete in
  // booking order), until when (ticks).
  struct ReadBuffer {
    std::deque<std::pair<uint64_t, uint64_t>> held;  // (until, bytes)
    uint64_t bytes = 0;
  };
  // The earliest tick from `issue` at which `bytes` fit in the buffer of capacity `capacity`, releasing the room
  // of the transactions done by then.
  static uint64_t make_room(ReadBuffer& b, uint64_t issue, uint64_t bytes, uint64_t capacity);
  uint64_t to_cycles_ceil(uint64_t ticks) const { return num_div_.div(ticks + num_ - 1); }
  void set_divisors();  // from params_ and num_

  AxiPortParams params_;
  uint64_t num_ = 16, den_ = 1;  // bytes_per_cycle = num_ / den_; one tick = 1 / num_ cycle
  // The divisions of every transfer: by num_, the bus and burst sizes, each limiter's burst split.
  sim::Divisor num_div_{16}, bus_div_, burst_div_;
  std::array<sim::Divisor, kLimitersPerPort> split_div_{};
  std::array<uint64_t, 2> data_free_ticks_{};  // [READ], [WRITE]; [READ] only when shared
  std::array<std::array<SlotRing, 2>, kLimitersPerPort> rings_{};
  std::array<ReadBuffer, isa::kAccessCount> read_buffers_{};  // by client
  std::vector<AddressRun> runs_;  // transfer()'s runs for transfer_each(), reused
  Counters counters_;
};

}  // namespace ethosu::axi
