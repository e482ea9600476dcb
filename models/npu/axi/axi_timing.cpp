#include "models/npu/axi/axi_timing.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "sim/error.h"
#include "sim/int_math.h"

namespace ethosu::axi {
namespace {

// Denominator bound of the bandwidth fraction: exact for every vela.ini clock scale (k/64) and for
// GB/s over MHz ratios such as 3.75 GB/s / 800 MHz = 75/16; keeps cycles * num below 2^64 for
// 2^44 cycles.
constexpr uint64_t kMaxDenominator = 4096;
constexpr double kMaxBytesPerCycle = 256.0;

// Best rational approximation of x with denominator <= max_den (continued-fraction convergents).
void to_fraction(double x, uint64_t max_den, uint64_t& num, uint64_t& den) {
  uint64_t h_prev = 0, h = 1, k_prev = 1, k = 0;
  double r = x;
  for (int i = 0; i < 64; ++i) {
    const double a = std::floor(r + 1e-9);  // tolerance: 2.9999999 is 3
    const auto ai = static_cast<uint64_t>(a);
    const uint64_t k_next = ai * k + k_prev;
    if (k_next > max_den) break;
    const uint64_t h_next = ai * h + h_prev;
    h_prev = h;
    h = h_next;
    k_prev = k;
    k = k_next;
    const double frac = r - a;
    if (frac < 1e-9) break;
    r = 1.0 / frac;
  }
  num = h;
  den = k;
}

void check(bool ok, const char* what) {
  if (!ok) throw InputError(std::string("AXI port parameters: ") + what);
}

void validate(const AxiPortParams& p) {
  // Below 1/kMaxDenominator the bandwidth fraction would have a zero numerator.
  check(std::isfinite(p.bytes_per_cycle) && p.bytes_per_cycle >= 1.0 / kMaxDenominator &&
            p.bytes_per_cycle <= kMaxBytesPerCycle,
        "bytes_per_cycle must be in [1/4096, 256]");
  check(p.bus_bytes > 0 && (p.bus_bytes & (p.bus_bytes - 1)) == 0, "bus_bytes must be a power of two");
  check(p.burst_bytes > 0 && p.burst_bytes % p.bus_bytes == 0, "burst_bytes must be a multiple of bus_bytes");
  for (const LimiterParams& l : p.limiters) {
    check(l.burst_split_bytes > 0 && l.burst_split_bytes % p.bus_bytes == 0,
          "burst_split_bytes must be a multiple of bus_bytes");
    check(l.max_outstanding_reads >= 1 && l.max_outstanding_reads <= kMaxOutstandingReads,
          "max_outstanding_reads must be 1..64");
    check(l.max_outstanding_writes >= 1 && l.max_outstanding_writes <= kMaxOutstandingWrites,
          "max_outstanding_writes must be 1..32");
  }
}

}  // namespace

AxiPortTiming::AxiPortTiming(const AxiPortParams& p) {
  validate(p);
  params_ = p;
  to_fraction(p.bytes_per_cycle, kMaxDenominator, num_, den_);
  set_divisors();
  reset();
}

void AxiPortTiming::set_divisors() {
  num_div_ = sim::Divisor(num_);
  bus_div_ = sim::Divisor(params_.bus_bytes);
  burst_div_ = sim::Divisor(params_.burst_bytes);
  for (unsigned l = 0; l < kLimitersPerPort; ++l) split_div_[l] = sim::Divisor(params_.limiters[l].burst_split_bytes);
}

void AxiPortTiming::configure(const AxiPortParams& p) {
  validate(p);
  uint64_t num = 0, den = 0;
  to_fraction(p.bytes_per_cycle, kMaxDenominator, num, den);
  // Time points move to the new tick unit rounded up (never earlier); counters to the nearest tick.
  const auto point = [&](uint64_t& ticks) {
    ticks = static_cast<uint64_t>((static_cast<sim::u128>(ticks) * num + num_ - 1) / num_);
  };
  const auto count = [&](uint64_t& ticks) {
    ticks = static_cast<uint64_t>((static_cast<sim::u128>(ticks) * num + num_ / 2) / num_);
  };
  for (uint64_t& f : data_free_ticks_) point(f);
  for (unsigned l = 0; l < kLimitersPerPort; ++l) {
    const uint32_t sizes[2] = {p.limiters[l].max_outstanding_reads, p.limiters[l].max_outstanding_writes};
    for (unsigned d = 0; d < 2; ++d) {
      SlotRing& ring = rings_[l][d];
      uint64_t latest = *std::max_element(ring.hold_until.begin(), ring.hold_until.begin() + ring.size);
      point(latest);
      // A resized ring conservatively holds every slot until the latest booked transaction.
      if (sizes[d] != ring.size) {
        ring.hold_until.fill(latest);
        ring.size = sizes[d];
        ring.head = 0;
      } else {
        for (uint32_t i = 0; i < ring.size; ++i) point(ring.hold_until[i]);
      }
      ring.latest_hold = latest;
    }
  }
  for (ReadBuffer& b : read_buffers_)
    for (auto& [until, bytes] : b.held) point(until);
  for (TickChannel& c : counters_.channel) {
    count(c.busy_ticks);
    count(c.limit_stall_ticks);
    point(c.limit_cursor);
  }
  for (TickClient& c : counters_.clients) {
    count(c.port_wait_ticks);
    count(c.limit_wait_ticks);
  }
  params_ = p;
  num_ = num;
  den_ = den;
  set_divisors();
}

void AxiPortTiming::reset() {
  data_free_ticks_ = {};
  for (unsigned l = 0; l < kLimitersPerPort; ++l) {
    rings_[l][0] = SlotRing{};
    rings_[l][0].size = params_.limiters[l].max_outstanding_reads;
    rings_[l][1] = SlotRing{};
    rings_[l][1].size = params_.limiters[l].max_outstanding_writes;
  }
  read_buffers_ = {};
  counters_ = {};
}

uint64_t AxiPortTiming::make_room(ReadBuffer& b, uint64_t issue, uint64_t bytes, uint64_t capacity) {
  while (!b.held.empty() && (b.bytes + bytes > capacity || b.held.front().first <= issue)) {
    issue = std::max(issue, b.held.front().first);
    b.bytes -= b.held.front().second;
    b.held.pop_front();
  }
  return issue;
}

namespace {

// The port's own times: a bus that adds nothing (final: transfer_each() inlines it).
struct NoBus final : TransactionBus {
  uint64_t transaction(bool, const AddressRun&, uint64_t, uint64_t, uint64_t) override { return 0; }
};

}  // namespace

Completion AxiPortTiming::read(uint64_t request_cycle, uint64_t bytes, uint32_t run_bytes, isa::Access client,
                               unsigned limiter, uint32_t added_latency_cycles, bool open_run) {
  return transfer(Dir::READ, request_cycle, bytes, run_bytes, client, limiter, added_latency_cycles, open_run);
}

Completion AxiPortTiming::write(uint64_t request_cycle, uint64_t bytes, uint32_t run_bytes, isa::Access client,
                                unsigned limiter, uint32_t added_latency_cycles) {
  return transfer(Dir::WRITE, request_cycle, bytes, run_bytes, client, limiter, added_latency_cycles);
}

Completion AxiPortTiming::transfer(Dir dir, uint64_t request_cycle, uint64_t bytes, uint32_t run_bytes,
                                   isa::Access client, unsigned limiter, uint32_t added_latency_cycles, bool open_run) {
  if (bytes == 0) return {request_cycle, request_cycle, request_cycle, request_cycle};
  if (limiter >= kLimitersPerPort) throw InputError("AXI port: limiter must be 0 or 1");
  const auto d = static_cast<unsigned>(dir);
  const bool is_read = dir == Dir::READ;
  if (is_read && params_.read_buffer_bytes[static_cast<size_t>(client)]) {
    // Two slot limits at once have no closed form here: the runs one by one, apart so that each is padded.
    const uint64_t run = (run_bytes == 0 || run_bytes >= bytes) ? bytes : run_bytes;
    runs_.clear();
    for (uint64_t at = 0; at < bytes; at += run) runs_.push_back({2 * at, std::min(run, bytes - at)});
    NoBus port_alone;
    return transfer_each(dir, request_cycle, runs_.data(), runs_.size(), client, limiter, port_alone, open_run,
                         added_latency_cycles);
  }
  const uint64_t t = request_cycle * num_;
  const uint64_t pre = is_read ? (uint64_t{params_.read_latency_cycles} + added_latency_cycles) * num_ : 0;
  const uint64_t post = is_read ? 0 : (uint64_t{params_.write_latency_cycles} + added_latency_cycles) * num_;
  uint64_t& free_at = data_free_ticks_[params_.shared_data_bus ? 0 : d];
  SlotRing& ring = rings_[limiter][d];
  const uint64_t split = params_.limiters[limiter].burst_split_bytes;
  const sim::Divisor& split_div = split_div_[limiter];
  const uint64_t split_beats = bus_div_.div(split);

  // Shape of the transfer: `runs` runs, all `run` bytes long except possibly the last.
  const uint64_t run = (run_bytes == 0 || run_bytes >= bytes) ? bytes : run_bytes;
  const uint64_t runs = run == bytes ? 1 : (bytes + run - 1) / run;  // divisions dominate a small call
  struct RunShape {
    uint64_t txns, last_occ, occ, beats;
  };
  const auto shape = [&](uint64_t len, bool open) {
    RunShape s{};
    s.txns = split_div.div(len + split - 1);
    s.occ = open ? bus_div_.round_up(len) : burst_div_.round_up(len);
    s.last_occ = s.occ - (s.txns - 1) * split;
    const uint64_t last_len = len - (s.txns - 1) * split;
    s.beats = (s.txns - 1) * split_beats + bus_div_.div(last_len + params_.bus_bytes - 1);
    return s;
  };
  const RunShape tail = shape(bytes - (runs - 1) * run, open_run);
  const RunShape full = runs == 1 ? tail : shape(run, false);
  const uint64_t full_txns = (runs - 1) * full.txns;
  const uint64_t total_txns = full_txns + tail.txns;
  const uint64_t total_occ_ticks = ((runs - 1) * full.occ + tail.occ) * den_;
  // Occupancy bytes of the first x transactions (x < total_txns).
  const auto occ_prefix = [&](uint64_t x) {
    if (x < full_txns) return x / full.txns * full.occ + x % full.txns * split;
    return (runs - 1) * full.occ + (x - full_txns) * split;
  };

  // Once N = max_outstanding transactions of this call are booked and N-1 of the shortest cover the
  // latency, each later transaction's data follows the previous one back to back whatever its
  // slot's issue time, so the middle of a long transfer is booked in closed form.
  uint64_t min_occ = tail.last_occ;
  if (runs > 1) min_occ = std::min(min_occ, full.last_occ);
  if (full.txns > 1 || tail.txns > 1) min_occ = std::min(min_occ, split);
  const uint64_t n = ring.size;
  const bool streams = (n - 1) * min_occ * den_ >= pre + post;

  // Members go to locals so that the ring stores cannot alias them in the booking loop.
  uint64_t* const hold = ring.hold_until.data();
  const uint64_t size = ring.size;
  uint64_t pos = ring.head;
  // The first transaction: issued when both the request and its slot are in.
  const uint64_t first_issue = std::max(t, hold[pos]);
  const uint64_t first_data = std::max(first_issue + pre, free_at);
  const RunShape& first_run = runs == 1 ? tail : full;
  const uint64_t first_done = first_data + (first_run.txns == 1 ? first_run.last_occ : split) * den_;
  hold[pos] = first_done + post;
  if (++pos == size) pos = 0;
  // From here on the channel is busy until after request + latency, so a transaction waits only for its
  // slot: its data starts at max(slot hold + latency, channel free).
  uint64_t c = first_done, last_hold = 0;
  const uint64_t split_ticks = split * den_;
  // Books transactions [from, to), `from` being transaction i of run r. Without `Waits`, each one's data is
  // known to follow the previous one's back to back: its slot's hold is not read. The one empty range below (the
  // first waits call with a ring of one slot) ends before the last transaction.
  const auto book = [&](auto waits, uint64_t from, uint64_t to, uint64_t r, uint64_t i) {
    constexpr bool kWaits = decltype(waits)::value;
    const auto one = [&](uint64_t occ_ticks) {
      if constexpr (kWaits) {
        last_hold = hold[pos];
        c = std::max(last_hold + pre, c);
      }
      c += occ_ticks;
      hold[pos] = c + post;
      if (++pos == size) pos = 0;
    };
    if (full.txns == 1 && tail.txns == 1) {  // short runs, one transaction each: transaction j is run j
      const uint64_t full_ticks = full.last_occ * den_, full_end = std::min(to, runs - 1);
      for (uint64_t j = from; j < full_end; ++j) one(full_ticks);
      // The last run. (Also testing from < to, which no call needs, made this function's code 20 % more
      // instructions per call with GCC 12.)
      if (to == runs) one(tail.last_occ * den_);
      return;
    }
    for (uint64_t j = from; j < to; ++r, i = 0) {
      const RunShape& s = (r + 1 == runs) ? tail : full;
      const uint64_t splits_end = std::min(s.txns - 1, i + (to - j));
      for (; i < splits_end; ++i, ++j) one(split_ticks);
      if (j == to) break;
      one(s.last_occ * den_);
      ++j;
    }
  };
  const std::true_type waits;
  const std::false_type back_to_back;
  const auto run_of = [&](uint64_t x) { return x < full_txns ? x / full.txns : runs - 1; };
  const auto index_in_run = [&](uint64_t x) { return x < full_txns ? x % full.txns : x - full_txns; };
  const uint64_t second_run = first_run.txns == 1 ? 1 : 0, second_index = first_run.txns == 1 ? 0 : 1;
  uint64_t issue_last = first_issue;
  if (streams && total_txns > 1 && ring.latest_hold + pre <= first_done) {
    // Every slot was free before the first transaction's data was done, so the first N follow it back to back,
    // and the later ones too (streams). Only the last N holds are booked: earlier ones would be overwritten.
    const uint64_t last = total_txns - 1;
    // The last transaction issues when its slot frees: transaction last - N of this call, or a slot booked before.
    issue_last =
        std::max(t, last >= n ? first_data + occ_prefix(last - n + 1) * den_ + post : hold[(pos + last - 1) % size]);
    const uint64_t from = total_txns > n ? total_txns - n : 1;
    c = first_data + occ_prefix(from) * den_;
    pos = (ring.head + from) % size;
    book(back_to_back, from, total_txns, run_of(from), index_in_run(from));
  } else if (streams && total_txns > 2 * n) {
    book(waits, 1, n, second_run, second_index);
    const uint64_t to = total_txns - n;
    c += (occ_prefix(to) - occ_prefix(n)) * den_;
    const uint64_t skip_end = c;
    book(waits, to, total_txns, run_of(to), index_in_run(to));
    // Skipped slots' issue times were not tracked; the last issue waits for transaction T-1-N.
    issue_last = std::max(t, skip_end + post);
  } else if (total_txns > 1) {
    book(waits, 1, total_txns, second_run, second_index);
    issue_last = std::max(t, last_hold);
  }
  free_at = c;
  ring.head = static_cast<uint32_t>(pos);
  // Holds are booked in increasing order within a call: its last is its latest.
  ring.latest_hold = std::max(ring.latest_hold, c + post);

  TickChannel& ch = counters_.channel[d];
  const uint64_t beats = (runs - 1) * full.beats + tail.beats;
  ch.transactions += total_txns;
  ch.beats += beats;
  ch.bytes += bytes;
  ch.busy_ticks += total_occ_ticks;
  if (issue_last > t) {
    const uint64_t from = std::max(t, ch.limit_cursor);
    if (issue_last > from) ch.limit_stall_ticks += issue_last - from;
    ch.limit_cursor = std::max(ch.limit_cursor, issue_last);
  }
  TickClient& cl = counters_.clients[static_cast<unsigned>(client)];
  (is_read ? cl.bytes_read : cl.bytes_written) += bytes;
  cl.beats += beats;
  cl.transactions += total_txns;
  // Delay beyond latency + occupancy: the first beat waiting for other traffic is port contention,
  // the rest (first issue held, gaps between own transactions) is the outstanding limit.
  const uint64_t port_wait = first_data - (first_issue + pre);
  cl.port_wait_ticks += port_wait;
  cl.limit_wait_ticks += (c - t) - pre - total_occ_ticks - port_wait;

  const uint64_t data_done = to_cycles_ceil(c);
  return {to_cycles_ceil(first_issue), data_done, is_read ? data_done : to_cycles_ceil(c + post),
          to_cycles_ceil(first_done)};
}

Completion AxiPortTiming::write_behind(const Completion& read, uint64_t bytes, uint32_t run_bytes, isa::Access client,
                                       unsigned limiter, uint32_t added_latency_cycles) {
  if (bytes == 0) return read;
  const Completion w =
      transfer(Dir::WRITE, read.first_data_done_cycle, bytes, run_bytes, client, limiter, added_latency_cycles);
  Completion c = w;
  c.complete_cycle = std::max(w.complete_cycle, write_behind_done(read, bytes, limiter, added_latency_cycles));
  return c;
}

uint64_t AxiPortTiming::write_behind_done(const Completion& read, uint64_t bytes, unsigned limiter,
                                          uint32_t added_latency_cycles) const {
  // The last burst holds the last read data: it moves after it, and the transfer is done at its response.
  const uint64_t last_burst = std::min<uint64_t>(bytes, params_.limiters[limiter & 1].burst_split_bytes);
  return read.complete_cycle + static_cast<uint64_t>(std::ceil(double(last_burst) / params_.bytes_per_cycle)) +
         params_.write_latency_cycles + added_latency_cycles;
}

Completion AxiPortTiming::read(uint64_t request_cycle, const AddressRun* runs, size_t count, isa::Access client,
                               unsigned limiter, TransactionBus& bus, bool open_run) {
  return transfer_each(Dir::READ, request_cycle, runs, count, client, limiter, bus, open_run);
}

Completion AxiPortTiming::write(uint64_t request_cycle, const AddressRun* runs, size_t count, isa::Access client,
                                unsigned limiter, TransactionBus& bus) {
  return transfer_each(Dir::WRITE, request_cycle, runs, count, client, limiter, bus, false);
}

// transfer()'s rules without its closed forms: every transaction is booked, asked of the bus and held until the
// later of the port's time and the bus's answer.
template <class Bus>
Completion AxiPortTiming::transfer_each(Dir dir, uint64_t request_cycle, const AddressRun* runs, size_t count,
                                        isa::Access client, unsigned limiter, Bus& bus, bool open_run,
                                        uint32_t added_latency_cycles) {
  size_t last = count;  // the last run with bytes
  uint64_t bytes = 0;
  for (size_t i = 0; i < count; ++i)
    if (runs[i].bytes) {
      bytes += runs[i].bytes;
      last = i;
    }
  if (bytes == 0) return {request_cycle, request_cycle, request_cycle, request_cycle};
  if (limiter >= kLimitersPerPort) throw InputError("AXI port: limiter must be 0 or 1");
  const auto d = static_cast<unsigned>(dir);
  const bool is_read = dir == Dir::READ;
  const uint64_t t = request_cycle * num_;
  const uint64_t pre = is_read ? (uint64_t{params_.read_latency_cycles} + added_latency_cycles) * num_ : 0;
  const uint64_t post = is_read ? 0 : (uint64_t{params_.write_latency_cycles} + added_latency_cycles) * num_;
  uint64_t& free_at = data_free_ticks_[params_.shared_data_bus ? 0 : d];
  SlotRing& ring = rings_[limiter][d];
  const uint64_t split = params_.limiters[limiter].burst_split_bytes;
  const sim::Divisor& split_div = split_div_[limiter];
  const uint64_t buffer_bytes = is_read ? params_.read_buffer_bytes[static_cast<size_t>(client)] : 0;
  ReadBuffer& buffer = read_buffers_[static_cast<size_t>(client)];

  bool first = true;
  uint64_t first_issue = 0, first_data = 0, first_done = 0, issue_last = t, c = 0, response = 0;
  uint64_t txns = 0, beats = 0, occ_ticks = 0, bus_wait = 0;
  for (size_t i = 0; i <= last; ++i) {
    const uint64_t len = runs[i].bytes;
    if (len == 0) continue;
    // A run the next one continues is one sequential stream with it for the memory: only the stretch's end is
    // padded to the burst (runs split by their strobes, or by the order the tile reads them).
    const bool open = i == last ? open_run : runs[i + 1].address == runs[i].address + len;
    const uint64_t run_occ = open ? bus_div_.round_up(len) : burst_div_.round_up(len);
    const uint64_t run_txns = split_div.div(len + split - 1);
    for (uint64_t k = 0; k < run_txns; ++k) {
      const uint64_t n = std::min(split, len - k * split);
      const uint64_t occ = (k + 1 < run_txns ? split : run_occ - (run_txns - 1) * split) * den_;
      uint64_t issue = std::max(t, ring.hold_until[ring.head]);
      const uint64_t room = bus_div_.round_up(n);
      if (buffer_bytes) issue = make_room(buffer, issue, room, buffer_bytes);
      const uint64_t start = std::max(issue + pre, free_at);
      uint64_t done = start + occ;
      const uint64_t answer = bus.transaction(is_read, runs[i], runs[i].address + k * split, n, to_cycles_ceil(issue)) * num_;
      uint64_t hold;
      if (is_read) {
        bus_wait += answer > done ? answer - done : 0;
        done = std::max(done, answer);
        hold = done;
      } else {
        hold = std::max(done + post, answer);
        response = std::max(response, hold);
      }
      if (first) {
        first = false;
        first_issue = issue;
        first_data = start;
        first_done = done;
      }
      ring.hold_until[ring.head] = hold;
      ring.latest_hold = std::max(ring.latest_hold, hold);
      if (++ring.head == ring.size) ring.head = 0;
      if (buffer_bytes) {
        buffer.held.emplace_back(hold, room);
        buffer.bytes += room;
      }
      free_at = c = done;
      issue_last = issue;
      ++txns;
      beats += bus_div_.div(n + params_.bus_bytes - 1);
      occ_ticks += occ;
    }
  }

  TickChannel& ch = counters_.channel[d];
  ch.transactions += txns;
  ch.beats += beats;
  ch.bytes += bytes;
  ch.busy_ticks += occ_ticks;
  if (issue_last > t) {
    const uint64_t from = std::max(t, ch.limit_cursor);
    if (issue_last > from) ch.limit_stall_ticks += issue_last - from;
    ch.limit_cursor = std::max(ch.limit_cursor, issue_last);
  }
  TickClient& cl = counters_.clients[static_cast<unsigned>(client)];
  (is_read ? cl.bytes_read : cl.bytes_written) += bytes;
  cl.beats += beats;
  cl.transactions += txns;
  // What the bus added counts as port contention, as other traffic on the data path does.
  const uint64_t port_wait = first_data - (first_issue + pre) + bus_wait;
  cl.port_wait_ticks += port_wait;
  const uint64_t accounted = pre + occ_ticks + port_wait;
  cl.limit_wait_ticks += c - t > accounted ? c - t - accounted : 0;

  const uint64_t data_done = to_cycles_ceil(c);
  return {to_cycles_ceil(first_issue), data_done, is_read ? data_done : to_cycles_ceil(response),
          to_cycles_ceil(first_done)};
}

ClassBytes AxiPortTiming::class_bytes() const {
  ClassBytes b;
  for (size_t k = 0; k < isa::kAccessCount; ++k) {
    b.read[k] = counters_.clients[k].bytes_read;
    b.written[k] = counters_.clients[k].bytes_written;
  }
  return b;
}

AxiPortStats AxiPortTiming::stats() const {
  const auto cycles = [&](uint64_t ticks) { return (ticks + num_ / 2) / num_; };
  AxiPortStats s;
  ChannelStats* out[2] = {&s.read, &s.write};
  for (unsigned d = 0; d < 2; ++d) {
    const TickChannel& c = counters_.channel[d];
    *out[d] = {c.transactions, c.beats, c.bytes, cycles(c.busy_ticks), cycles(c.limit_stall_ticks)};
  }
  for (size_t k = 0; k < isa::kAccessCount; ++k) {
    const TickClient& c = counters_.clients[k];
    s.clients[k] = {c.bytes_read, c.bytes_written, c.beats, c.transactions, cycles(c.port_wait_ticks),
                    cycles(c.limit_wait_ticks)};
  }
  return s;
}

}  // namespace ethosu::axi
