// The job's exclusive time breakdown as the CC builds it (JobReport::op_time_cycles and the controller's): every
// cycle from the job's start to its end charged once, to the oldest operation in flight then (kernel or DMA, in
// stream order) by what that operation was doing, or, when none is in flight, to the command controller by what
// it was doing. Oldest first, as a CPU's cycle accounting charges the oldest instruction not yet retired: cycles in
// which several operations overlap belong to the one the later ones follow. Plain C++ (no SystemC).
//
// Contract: the CC reports, in stream order, every move of its own cycle (parsing(), waiting()), every DMA
// (dma()) and every kernel operation (begin_kernel(), then its tiles' stages through tile() as the pipeline books
// them, then end_kernel()). Operations start no earlier than the CC's cycle when they are issued and the CC's cycle
// never goes back, so whenever cycles are charged the operations in flight over them are known. A kernel's cycle
// goes to the first of MAC, AO, WD, IFM read, weight or scale read, OFM write that is busy for it then, else to
// IDLE; its tiles are settled as the pipeline moves on (TileSink's promise: no tile's stages begin before the
// earliest stage of the tile before it), so memory does not grow with the tiles. A DMA's cycles are all DMA.
// end_job() takes from the DMAs still in flight at the job's end (after a fault) the cycles past it; kernels are
// always waited for.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/npu/job_report.h"
#include "models/npu/pipeline.h"
#include "sim/exclusive_cycles.h"

namespace ethosu::npu {

class TimeBreakdown : public TileSink {
 public:
  using OpTimes = std::array<uint64_t, kOpTimeKinds>;
  // An operation that is not in the report's list (JobReport::kMaxListedOps).
  static constexpr size_t kUnlisted = SIZE_MAX;

  TimeBreakdown();

  void begin_job(uint64_t cycle);
  // The CC read commands from `from` to `to`, or waited for `why`.
  void parsing(uint64_t from, uint64_t to);
  void waiting(uint64_t from, uint64_t to, Stall why);

  // A DMA from `start` to `end`, `record` its index in the report's list: its exclusive cycles.
  OpTimes dma(uint64_t start, uint64_t end, size_t record);
  void begin_kernel(uint64_t start);
  void tile(const TileStages& s) override;
  OpTimes end_kernel(uint64_t end, size_t record);

  // The job ends at `end`; `ops` is the report's list, whose DMAs past `end` lose the cycles beyond it.
  void end_job(uint64_t end, std::vector<OpRecord>& ops);

  const OpTimes& op_totals() const { return op_totals_; }
  uint64_t controller_parse() const { return controller_parse_; }
  const std::array<uint64_t, kStallKinds>& controller_waits() const { return controller_waits_; }

 private:
  struct InFlight {
    uint64_t start, end;
    size_t record;
    bool dma;
  };
  // The lanes of a kernel's sweep: other operations' cycles first (not this one's), then its own by OpTime.
  static constexpr size_t kOthers = 0;
  static size_t lane(OpTime t) { return 1 + static_cast<size_t>(t); }

  void forget_ended(uint64_t cc_cycle);
  // Cycles of [from, to) that no operation in flight covers; `from` is the CC's cycle.
  uint64_t uncovered(uint64_t from, uint64_t to);
  // Starts sweep_ at `start` with the operations in flight as others' cycles.
  void begin_op(uint64_t start);
  void finish_op(uint64_t start, uint64_t end, size_t record, bool dma, const OpTimes& times);

  std::vector<InFlight> in_flight_;  // in stream order; those ended before the CC's cycle are dropped
  sim::ExclusiveCycles sweep_;
  sim::ExclusiveCycles own_;  // the controller's cycles: one lane, the operations in flight
  uint64_t kernel_start_ = 0;
  OpTimes op_totals_{};
  uint64_t controller_parse_ = 0;
  std::array<uint64_t, kStallKinds> controller_waits_{};
};

}  // namespace ethosu::npu
