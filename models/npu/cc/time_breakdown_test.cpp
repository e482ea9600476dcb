// TimeBreakdown by hand: operations overlapping, the controller's own time, kernels settled tile by tile, a DMA
// cut at the job's end.
#include "models/npu/cc/time_breakdown.h"

#include <gtest/gtest.h>

#include <numeric>

namespace ethosu::npu {
namespace {

size_t at(OpTime t) { return static_cast<size_t>(t); }

uint64_t sum(const TimeBreakdown::OpTimes& t) { return std::accumulate(t.begin(), t.end(), uint64_t{0}); }

// A tile whose stages follow one another: IFM, MAC, AO, OFM write, from `from` in steps of `step`.
TileStages serial_tile(uint64_t from, uint64_t step) {
  TileStages s{};
  s.ifm_start = s.weights_start = s.weights_done = s.scales_done = s.wd_start = s.wd_end = s.wd_busy_end = from;
  s.ifm_done = s.mac_start = from + step;
  s.mac_busy_end = s.mac_end = s.ao_start = from + 2 * step;
  s.ao_end = from + 3 * step;
  s.ofm_done = from + 4 * step;
  return s;
}

TEST(TimeBreakdown, ControllerAloneAddsUp) {
  TimeBreakdown t;
  t.begin_job(1000);
  t.waiting(1000, 1100, Stall::CMD_FETCH);
  t.parsing(1100, 1110);
  t.waiting(1110, 1140, Stall::WRITE_RESPONSE);
  std::vector<OpRecord> ops;
  t.end_job(1140, ops);
  EXPECT_EQ(t.controller_waits()[static_cast<size_t>(Stall::CMD_FETCH)], 100u);
  EXPECT_EQ(t.controller_parse(), 10u);
  EXPECT_EQ(t.controller_waits()[static_cast<size_t>(Stall::WRITE_RESPONSE)], 30u);
  EXPECT_EQ(sum(t.op_totals()), 0u);
}

TEST(TimeBreakdown, TheOldestOperationTakesOverlapsAndTheControllerTheRest) {
  TimeBreakdown t;
  t.begin_job(0);
  t.parsing(0, 10);
  // A kernel from 10 to 50 (two serial tiles of 4 x 5 cycles), issued at 10.
  t.begin_kernel(10);
  t.tile(serial_tile(10, 5));
  t.tile(serial_tile(30, 5));
  const auto k = t.end_kernel(50, 0);
  EXPECT_EQ(k[at(OpTime::IFM_READ)], 10u);
  EXPECT_EQ(k[at(OpTime::MAC)], 10u);
  EXPECT_EQ(k[at(OpTime::AO)], 10u);
  EXPECT_EQ(k[at(OpTime::OFM_WRITE)], 10u);
  EXPECT_EQ(sum(k), 40u);
  // The CC parses on while the kernel runs: those cycles are the kernel's.
  t.parsing(10, 20);
  // A DMA issued at 20 runs from 20 to 70: only 50-70 is its own.
  const auto d = t.dma(20, 70, 1);
  EXPECT_EQ(d[at(OpTime::DMA)], 20u);
  EXPECT_EQ(sum(d), 20u);
  // The CC waits for the DMA to 70, then parses alone to 75.
  t.waiting(20, 70, Stall::DMA_WAIT);
  t.parsing(70, 75);
  std::vector<OpRecord> ops(2);
  t.end_job(75, ops);
  EXPECT_EQ(t.controller_waits()[static_cast<size_t>(Stall::DMA_WAIT)], 0u);
  EXPECT_EQ(t.controller_parse(), 15u);
  EXPECT_EQ(sum(t.op_totals()) + t.controller_parse(), 75u);
}

TEST(TimeBreakdown, StagesRankMacFirstAndGapsAreIdle) {
  TimeBreakdown t;
  t.begin_job(0);
  t.begin_kernel(0);
  TileStages s{};
  s.ifm_start = 0;
  s.ifm_done = 30;
  s.weights_start = 0;
  s.weights_done = 50;  // weights arrive while the IFM does and after it, to 50
  s.scales_done = 0;
  s.wd_start = 20;
  s.wd_busy_end = 45;  // the WD decodes 20-45: it ranks above both reads, so 20-40 is its (the MAC from 40)
  s.wd_end = 50;
  s.mac_start = 40;
  s.mac_busy_end = 60;
  s.mac_end = 60;
  s.ao_start = 70;  // 60-70: nothing busy
  s.ao_end = 80;
  s.ofm_done = 80;
  t.tile(s);
  const auto k = t.end_kernel(80, 0);
  EXPECT_EQ(k[at(OpTime::IFM_READ)], 20u);
  EXPECT_EQ(k[at(OpTime::WD)], 20u);
  EXPECT_EQ(k[at(OpTime::WEIGHT_READ)], 0u);
  EXPECT_EQ(k[at(OpTime::MAC)], 20u);
  EXPECT_EQ(k[at(OpTime::IDLE)], 10u);
  EXPECT_EQ(k[at(OpTime::AO)], 10u);
  EXPECT_EQ(sum(k), 80u);
}

TEST(TimeBreakdown, ADmaPastAFaultKeepsOnlyItsCyclesBeforeIt) {
  TimeBreakdown t;
  t.begin_job(0);
  t.parsing(0, 10);
  std::vector<OpRecord> ops(1);
  ops[0].exclusive_cycles = t.dma(10, 500, 0);
  EXPECT_EQ(ops[0].exclusive_cycles[at(OpTime::DMA)], 490u);
  t.parsing(10, 20);  // the DMA's
  t.end_job(20, ops);  // a fault at 20
  EXPECT_EQ(ops[0].exclusive_cycles[at(OpTime::DMA)], 10u);
  EXPECT_EQ(t.op_totals()[at(OpTime::DMA)], 10u);
  EXPECT_EQ(sum(t.op_totals()) + t.controller_parse(), 20u);
}

}  // namespace
}  // namespace ethosu::npu
