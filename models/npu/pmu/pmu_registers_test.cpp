#include <gtest/gtest.h>

#include "isa/registers.h"
#include "models/npu/pmu/pmu_registers.h"

using namespace ethosu;
using ethosu::isa::PmuEvent;
using ethosu::isa::Reg;

namespace {
uint16_t off(Reg r, unsigned i = 0) { return isa::reg_at(r, i); }
uint32_t rd(const npu::PmuRegisters& p, uint16_t o) {
  uint32_t v = 0;
  EXPECT_TRUE(p.read(o, v));
  return v;
}
npu::EventCounts cycles(uint64_t n, std::initializer_list<std::pair<PmuEvent, uint64_t>> more = {}) {
  npu::EventCounts e;
  e.add(static_cast<uint16_t>(PmuEvent::CYCLE), n);
  for (auto [ev, k] : more) e.add(static_cast<uint16_t>(ev), k);
  return e;
}
}  // namespace

TEST(PmuRegisters, ResetValuesAndCounterCount) {
  npu::PmuRegisters p;
  EXPECT_EQ(rd(p, off(Reg::PMCR)), 0x2000u);  // num_event_cnt = 4
  EXPECT_EQ(rd(p, off(Reg::PMCCNTR)), 0u);
  uint32_t v;
  EXPECT_FALSE(p.read(0x100, v));
}

TEST(PmuRegisters, CountsOnlyWhenEnabled) {
  npu::PmuRegisters p;
  p.write(off(Reg::PMEVTYPER, 0), static_cast<uint16_t>(PmuEvent::MAC_ACTIVE));
  p.add(cycles(100, {{PmuEvent::MAC_ACTIVE, 40}}));
  EXPECT_EQ(p.cycle_counter(), 0u);  // PMCR.cnt_en is 0
  p.write(off(Reg::PMCR), 1);
  p.add(cycles(100, {{PmuEvent::MAC_ACTIVE, 40}}));
  EXPECT_EQ(p.cycle_counter(), 0u);  // counters not enabled in PMCNTENSET
  p.write(off(Reg::PMCNTENSET), 0x80000001);
  p.add(cycles(100, {{PmuEvent::MAC_ACTIVE, 40}}));
  EXPECT_EQ(p.cycle_counter(), 100u);
  EXPECT_EQ(p.event_counter(0), 40u);
  p.write(off(Reg::PMCNTENCLR), 1);
  p.add(cycles(10, {{PmuEvent::MAC_ACTIVE, 5}}));
  EXPECT_EQ(p.event_counter(0), 40u);
  EXPECT_EQ(p.cycle_counter(), 110u);
  EXPECT_EQ(rd(p, off(Reg::PMCNTENSET)), 0x80000000u);
}

TEST(PmuRegisters, ResetBitsZeroTheCounters) {
  npu::PmuRegisters p;
  p.write(off(Reg::PMCR), 1);
  p.write(off(Reg::PMCNTENSET), 0x80000003);
  p.write(off(Reg::PMEVTYPER, 1), static_cast<uint16_t>(PmuEvent::CYCLE));
  p.add(cycles(7));
  EXPECT_EQ(p.event_counter(1), 7u);
  p.write(off(Reg::PMCR), 1 | 2);  // event_cnt_rst
  EXPECT_EQ(p.event_counter(1), 0u);
  EXPECT_EQ(p.cycle_counter(), 7u);
  p.write(off(Reg::PMCR), 1 | 4);  // cycle_cnt_rst
  EXPECT_EQ(p.cycle_counter(), 0u);
  EXPECT_EQ(rd(p, off(Reg::PMCR)) & 7u, 1u);  // reset bits read back as 0
}

TEST(PmuRegisters, EventCounterWrapsAndRaisesInterrupt) {
  npu::PmuRegisters p;
  p.write(off(Reg::PMCR), 1);
  p.write(off(Reg::PMCNTENSET), 1);
  p.write(off(Reg::PMEVTYPER, 0), static_cast<uint16_t>(PmuEvent::CYCLE));
  p.write(off(Reg::PMEVCNTR, 0), 0xFFFFFFF0u);
  p.add(cycles(0x20));
  EXPECT_EQ(p.event_counter(0), 0x10u);
  EXPECT_EQ(p.overflow(), 1u);
  EXPECT_FALSE(p.irq());
  p.write(off(Reg::PMINTSET), 1);
  EXPECT_TRUE(p.irq());
  p.write(off(Reg::PMOVSCLR), 1);
  EXPECT_FALSE(p.irq());
}

TEST(PmuRegisters, CycleCounterIs48Bit) {
  npu::PmuRegisters p;
  p.write(off(Reg::PMCR), 1);
  p.write(off(Reg::PMCNTENSET), 0x80000000);
  p.write(off(Reg::PMCCNTR), 0xFFFFFFFEu);
  p.write(off(Reg::PMCCNTR) + 4, 0x0001FFFFu);  // only 16 high bits exist
  EXPECT_EQ(rd(p, off(Reg::PMCCNTR) + 4), 0xFFFFu);
  p.add(cycles(3));
  EXPECT_EQ(p.cycle_counter(), 1u);
  EXPECT_EQ(p.overflow(), 0x80000000u);
}

TEST(PmuRegisters, CycleCounterStartAndStopEvents) {
  npu::PmuRegisters p;
  p.write(off(Reg::PMCR), 1);
  p.write(off(Reg::PMCNTENSET), 0x80000000);
  const uint32_t start = static_cast<uint16_t>(PmuEvent::NPU_ACTIVE);
  const uint32_t stop = static_cast<uint16_t>(PmuEvent::NPU_IDLE);
  p.write(off(Reg::PMCCNTR_CFG), start | (stop << 16));
  p.add(cycles(50));  // no start event yet
  EXPECT_EQ(p.cycle_counter(), 0u);
  p.add(cycles(30, {{PmuEvent::NPU_ACTIVE, 30}}));
  EXPECT_EQ(p.cycle_counter(), 30u);
  p.add(cycles(20, {{PmuEvent::NPU_IDLE, 20}}));  // the interval with the stop event still counts
  p.add(cycles(20, {{PmuEvent::NPU_IDLE, 20}}));
  EXPECT_EQ(p.cycle_counter(), 50u);
}

TEST(PmuRegisters, MaskGatesCountingOnlyWithMaskEnable) {
  npu::PmuRegisters p;
  p.write(off(Reg::PMCR), 1);
  p.write(off(Reg::PMCNTENSET), 0x80000000);
  p.set_mask(false);
  p.add(cycles(5));
  EXPECT_EQ(p.cycle_counter(), 5u);  // mask_en clear: NPU_OP_PMU_MASK has no effect
  p.write(off(Reg::PMCR), 1 | 8);
  p.add(cycles(5));
  EXPECT_EQ(p.cycle_counter(), 5u);
  p.set_mask(true);
  p.add(cycles(5));
  EXPECT_EQ(p.cycle_counter(), 10u);
}
