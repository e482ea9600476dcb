#include "models/npu/cc/time_breakdown.h"

#include <algorithm>

namespace ethosu::npu {

TimeBreakdown::TimeBreakdown() : sweep_(1 + kOpTimeKinds), own_(1) {}

void TimeBreakdown::begin_job(uint64_t) {
  in_flight_.clear();
  op_totals_ = {};
  controller_parse_ = 0;
  controller_waits_ = {};
}

void TimeBreakdown::forget_ended(uint64_t cc_cycle) {
  // What ended by the CC's cycle covers nothing from now on: later cycles charged are no earlier.
  in_flight_.erase(
      std::remove_if(in_flight_.begin(), in_flight_.end(), [&](const InFlight& f) { return f.end <= cc_cycle; }),
      in_flight_.end());
}

uint64_t TimeBreakdown::uncovered(uint64_t from, uint64_t to) {
  forget_ended(from);
  // The common cases, once per command parsed: nothing in flight, or one operation over the whole span.
  if (in_flight_.empty()) return to - from;
  for (const InFlight& f : in_flight_)
    if (f.start <= from && f.end >= to) return 0;
  own_.start(from);
  for (const InFlight& f : in_flight_) own_.add(0, f.start, f.end);
  own_.settle(to);
  return own_.uncovered();
}

void TimeBreakdown::parsing(uint64_t from, uint64_t to) {
  if (to > from) controller_parse_ += uncovered(from, to);
}

void TimeBreakdown::waiting(uint64_t from, uint64_t to, Stall why) {
  if (to > from) controller_waits_[static_cast<size_t>(why)] += uncovered(from, to);
}

void TimeBreakdown::begin_op(uint64_t start) {
  sweep_.start(start);
  for (const InFlight& f : in_flight_) sweep_.add(kOthers, f.start, f.end);
}

void TimeBreakdown::finish_op(uint64_t start, uint64_t end, size_t record, bool dma, const OpTimes& times) {
  for (size_t k = 0; k < kOpTimeKinds; ++k) op_totals_[k] += times[k];
  in_flight_.push_back({start, end, record, dma});
}

TimeBreakdown::OpTimes TimeBreakdown::dma(uint64_t start, uint64_t end, size_t record) {
  begin_op(start);
  sweep_.add(lane(OpTime::DMA), start, end);
  sweep_.settle(end);
  OpTimes times{};
  times[static_cast<size_t>(OpTime::DMA)] = sweep_.charged(lane(OpTime::DMA));
  finish_op(start, end, record, true, times);
  return times;
}

void TimeBreakdown::begin_kernel(uint64_t start) {
  forget_ended(start);  // a kernel starts at the CC's cycle (a DMA may start later, when the DMA engine is free)
  kernel_start_ = start;
  begin_op(start);
}

void TimeBreakdown::tile(const TileStages& s) {
  sweep_.add(lane(OpTime::MAC), s.mac_start, s.mac_busy_end);
  sweep_.add(lane(OpTime::AO), s.ao_start, s.ao_end);
  sweep_.add(lane(OpTime::WD), s.wd_start, s.wd_busy_end);
  sweep_.add(lane(OpTime::IFM_READ), s.ifm_start, s.ifm_done);
  sweep_.add(lane(OpTime::WEIGHT_READ), s.weights_start, s.weights_done);
  sweep_.add(lane(OpTime::WEIGHT_READ), s.ifm_start, s.scales_done);
  sweep_.add(lane(OpTime::OFM_WRITE), s.ao_end, s.ofm_done);
  // No later tile's stages begin before this tile's earliest.
  sweep_.settle(std::min({s.ifm_start, s.weights_start, s.wd_start, s.mac_start, s.ao_start}));
}

TimeBreakdown::OpTimes TimeBreakdown::end_kernel(uint64_t end, size_t record) {
  sweep_.settle(end);
  OpTimes times{};
  for (size_t k = 0; k < kOpTimeKinds; ++k) times[k] = sweep_.charged(lane(static_cast<OpTime>(k)));
  times[static_cast<size_t>(OpTime::IDLE)] = sweep_.uncovered();
  finish_op(kernel_start_, end, record, false, times);
  return times;
}

void TimeBreakdown::end_job(uint64_t end, std::vector<OpRecord>& ops) {
  // The cycles past `end` each in-flight operation was charged: oldest first, as they were charged.
  sim::ExclusiveCycles past(in_flight_.size());
  past.start(end);
  uint64_t last = end;
  for (size_t k = 0; k < in_flight_.size(); ++k) {
    past.add(k, in_flight_[k].start, in_flight_[k].end);
    last = std::max(last, in_flight_[k].end);
  }
  past.settle(last);
  for (size_t k = 0; k < in_flight_.size(); ++k) {
    const InFlight& f = in_flight_[k];
    const uint64_t beyond = past.charged(k);
    if (!f.dma || !beyond) continue;
    op_totals_[static_cast<size_t>(OpTime::DMA)] -= beyond;
    if (f.record != kUnlisted) ops[f.record].exclusive_cycles[static_cast<size_t>(OpTime::DMA)] -= beyond;
  }
  in_flight_.clear();
}

}  // namespace ethosu::npu
