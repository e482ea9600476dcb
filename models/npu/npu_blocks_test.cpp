// The WD, MAC, AO and SHRAM modules on their own: a stimulus books one hand-built operation through the
// pipeline on the modules' own units with their own timing, and checks, by hand arithmetic, each unit's
// busy cycles, the statistics each block keeps, and that the PMU counts those same statistics. A block's
// configure() is what its work uses.
//
// The operation: a 1x1 CONV, 8x8x16 -> 8x8x16 int8 in one 8x8x16 block (mac_timing_test's first case):
// MAC 16 micro-blocks x 2 depth slices x max(32-cycle refill, 4 cycles per tap) = 128 cycles, 16384 MACs;
// WD 16 OFM x 32 (padded) IFM = 512 weights at 8 per cycle = 64 cycles; AO 1024 elements x 0.25 = 256.
#include <gtest/gtest.h>

#include "isa/registers.h"
#include "models/npu/axi/axi_port.h"
#include "models/npu/ao/ao.h"
#include "models/npu/mac/mac.h"
#include "models/npu/shram/shram.h"
#include "models/npu/wd/wd.h"
#include "tests/unit/timing_ops.h"

namespace ethosu::npu {
namespace {

using isa::PmuEvent;
using isa::Reg;

struct Blocks {
  axi::AxiPort axi0{"axi0", {}, sc_core::sc_time(1, sc_core::SC_NS)};
  axi::AxiPort axi1{"axi1", {}, sc_core::sc_time(1, sc_core::SC_NS)};
  sim::Stats stats;
  Pmu pmu{"pmu", axi0, axi1};
  Wd wd{"wd", stats, pmu};
  Mac mac{"mac", stats, pmu};
  Ao ao{"ao", stats, pmu};
  Shram shram{"shram", stats};
  PipelineBlocks pipe;

  Blocks() {
    pipe.mac_timing = &mac.timing();
    pipe.wd_timing = &wd.timing();
    pipe.ao_timing = &ao.timing();
    pipe.wd = &wd.unit();
    pipe.mac = &mac.unit();
    pipe.ao = &ao.unit();
    pipe.axi.ports = {&axi0.timing(), &axi1.timing()};
  }
  // A fresh job: idle units and ports, zero statistics, the PMU counting `events` from now on.
  void begin(std::array<PmuEvent, 4> events) {
    axi0.timing().reset();
    axi1.timing().reset();
    wd.begin_stream(0);
    mac.begin_stream(0);
    ao.begin_stream(0);
    pmu.reset(0);
    stats.reset();
    pmu.forget_block_statistics();
    PmuRegisters& r = pmu.registers();
    r.write(isa::reg_at(Reg::PMCR, 0), 1);
    r.write(isa::reg_at(Reg::PMCNTENSET, 0), 0xF);
    for (unsigned n = 0; n < 4; ++n) r.write(isa::reg_at(Reg::PMEVTYPER, n), static_cast<uint32_t>(events[n]));
  }
  OpTiming run(const isa::Operation& op) {
    const OpTiming t = schedule(op, 0, pipe);
    wd.account(t);
    mac.account(op, t);
    ao.account(op, t);
    pmu.account_until(t.times.end_cycle);
    return t;
  }
  uint64_t stat(const std::string& path) const { return stats.find(path)->value(); }
  uint32_t pmu_count(unsigned n) const { return pmu.registers().event_counter(n); }
};

Blocks& blocks() {
  static Blocks b;
  return b;
}

isa::Operation conv() {
  auto op = npu::test::kernel_op(isa::OpKind::CONV, 8, 8, 16, 16, 1, 1, 0, {8, 8, 16});
  op.weights[0].length_bytes = 144;
  return op;
}

TEST(NpuBlocks, MacCountsItsWorkAndThePmuCountsTheMac) {
  Blocks& b = blocks();
  b.begin({PmuEvent::MAC_ACTIVE, PmuEvent::MAC_ACTIVE_8BIT, PmuEvent::MAC_DPU_ACTIVE, PmuEvent::MAC_ACTIVE_16BIT});
  const OpTiming t = b.run(conv());
  EXPECT_EQ(t.mac_busy, 128u);
  EXPECT_EQ(b.mac.unit().busy_cycles, 128u);
  EXPECT_EQ(b.stat("npu.mac.active_cycles"), 128u);
  EXPECT_EQ(b.stat("npu.mac.macs"), 8u * 8 * 16 * 16);
  EXPECT_EQ(b.stat("npu.mac.dpu_active_cycles"), 8u * 8 * 16 * 16 / 256);
  EXPECT_EQ(b.pmu_count(0), 128u);
  EXPECT_EQ(b.pmu_count(1), 128u);
  EXPECT_EQ(b.pmu_count(2), 64u);
  EXPECT_EQ(b.pmu_count(3), 0u);
}

TEST(NpuBlocks, WdDecodesTheSlicesWeightsAtItsRate) {
  Blocks& b = blocks();
  b.begin({PmuEvent::WD_ACTIVE, PmuEvent::NO_EVENT, PmuEvent::NO_EVENT, PmuEvent::NO_EVENT});
  b.run(conv());
  EXPECT_EQ(b.wd.unit().busy_cycles, 64u);
  EXPECT_EQ(b.stat("npu.wd.active_cycles"), 64u);
  EXPECT_EQ(b.stat("npu.wd.decoded_weights"), 512u);
  EXPECT_EQ(b.pmu_count(0), 64u);
}

TEST(NpuBlocks, AoDrainsTheAccumulators) {
  Blocks& b = blocks();
  b.begin({PmuEvent::AO_ACTIVE, PmuEvent::AO_ACTIVE_8BIT, PmuEvent::AO_ACTIVE_16BIT, PmuEvent::NO_EVENT});
  const OpTiming t = b.run(conv());
  EXPECT_EQ(b.ao.unit().busy_cycles, 256u);
  EXPECT_EQ(b.stat("npu.ao.active_cycles"), 256u);
  EXPECT_EQ(b.pmu_count(0), 256u);
  EXPECT_EQ(b.pmu_count(1), 256u);
  EXPECT_EQ(b.pmu_count(2), 0u);
  // The output stage is the op's last stage before its OFM write.
  EXPECT_GE(t.times.end_cycle, 256u);
}

TEST(NpuBlocks, EachBlockWorksWithItsOwnConfiguration) {
  Blocks& b = blocks();
  npu::MacTiming narrow = npu::MacTiming{}.with_macs_per_core(128);
  b.mac.configure(narrow, 1);
  npu::WdTiming slow_wd;
  slow_wd.weights_per_cycle = 4;
  b.wd.configure(slow_wd);
  npu::AoTiming slow_ao;
  slow_ao.output_cycles_per_element[static_cast<size_t>(npu::OutputRate::OTHER)] = 0.5;
  b.ao.configure(slow_ao);
  b.begin({PmuEvent::MAC_DPU_ACTIVE, PmuEvent::NO_EVENT, PmuEvent::NO_EVENT, PmuEvent::NO_EVENT});
  b.run(conv());
  EXPECT_EQ(b.mac.unit().busy_cycles, 256u);  // 2x1x8 micro-blocks: twice as many
  EXPECT_EQ(b.wd.unit().busy_cycles, 128u);
  EXPECT_EQ(b.ao.unit().busy_cycles, 512u);
  EXPECT_EQ(b.pmu_count(0), 8u * 8 * 16 * 16 / 128);  // the array is half as wide
  b.mac.configure(npu::MacTiming{}, 1);
  b.wd.configure({});
  b.ao.configure({});
}

TEST(NpuBlocks, ShramSizeAndLayouts) {
  Blocks& b = blocks();
  b.shram.configure(2, 32 * 1024);
  ASSERT_EQ(b.shram.banks().size(), 2u);
  EXPECT_EQ(b.shram.bytes_per_core(), 32u * 1024);
  b.shram.banks()[1][0x100] = 0x5A;
  EXPECT_EQ(b.shram.debug_read(1, 0x100), 0x5Au);
  b.shram.configure(2, 32 * 1024);  // the same size keeps the contents
  EXPECT_EQ(b.shram.debug_read(1, 0x100), 0x5Au);
  b.stats.reset();
  b.shram.occupy(conv(), 0, 0, 10, true);
  b.shram.occupy(conv(), 4, 10, 20, false);
  EXPECT_EQ(b.stat("npu.shram.layout_changes"), 1u);
}

}  // namespace
}  // namespace ethosu::npu

// libsystemc's main() is unused (GoogleTest's runs the tests) but the library needs the symbol.
extern "C" int sc_main(int, char**) { return 0; }
