// The DMA block on its own: a stimulus issues transfers on two AXI ports and checks, by hand arithmetic,
// when they start and finish, that the engine runs one at a time, the bytes each port moves by class, and
// the block's statistics. Checking, queueing and landing DMAs is the command controller's engine's
// (engine_test).
//
// Ports: AXI0 16 B/cycle, read latency 20, write latency 30; AXI1 8 B/cycle, 100 and 50; memory bursts
// 32 B, AXI bursts split at 64 B, limiters open. A read of B contiguous bytes on an idle port is in at
// request + latency + round_up(B, 32) / bytes_per_cycle.
#include <cstdint>

#include <gtest/gtest.h>

#include "models/npu/axi/axi_timing.h"
#include "models/npu/dma/dma.h"

namespace ethosu::npu {
namespace {

using isa::Access;

constexpr uint64_t kL0 = 20, kW0 = 30, kL1 = 100, kW1 = 50;

axi::AxiPortParams port(double bpc, uint32_t read_latency, uint32_t write_latency) {
  axi::AxiPortParams p;
  p.bytes_per_cycle = bpc;
  p.read_latency_cycles = read_latency;
  p.write_latency_cycles = write_latency;
  return p;
}

struct Bench {
  sim::Stats stats;
  Dma dma{"dma", stats};
  axi::AxiPortTiming axi0{port(16, kL0, kW0)}, axi1{port(8, kL1, kW1)};
  AxiMap map;
  Bench() {
    map.ports = {&axi0, &axi1};
    map.region_port[2] = 1;  // region 2 on AXI1, region 1 on AXI0
  }
  // A fresh stream at `cycle`: idle ports and engine, zero statistics.
  void begin(uint64_t cycle) {
    axi0.reset();
    axi1.reset();
    stats.reset();
    dma.begin_stream(cycle);
  }
  uint64_t counter(const char* name) const { return stats.find(std::string("npu.dma.") + name)->value(); }
};

Bench& bench() {
  static Bench b;
  return b;
}

isa::Operation copy(uint8_t src_region, uint64_t src, uint8_t dst_region, uint64_t dst, uint64_t bytes,
                    bool to_shram = false) {
  isa::Operation op;
  op.cmd = isa::Cmd::NPU_OP_DMA_START;
  op.kind = isa::OpKind::DMA;
  op.dma.src = {isa::enums::dma_region_mode::EXTERNAL, src_region, isa::enums::dma_stride_mode::D1, src};
  op.dma.dst = {to_shram ? isa::enums::dma_region_mode::INTERNAL : isa::enums::dma_region_mode::EXTERNAL, dst_region,
                isa::enums::dma_stride_mode::D1, dst};
  op.dma.length_bytes = bytes;
  return op;
}

TEST(NpuDma, DramToSramWritesOneBurstBehindTheReads) {
  Bench& b = bench();
  b.begin(1000);
  const Dma::Times t = b.dma.issue(0x40, copy(2, 0x100, 1, 0x200, 1000), 1000, b.map);
  EXPECT_EQ(t.start_cycle, 1000u);
  // Reads: 1000 B (1024 with burst padding) at 8 B/cycle after 100 cycles -> 1228. The last 64-byte write
  // burst leaves once that data is in (64 / 16 = 4 cycles) and its response comes 30 cycles later.
  EXPECT_EQ(t.done_cycle, 1000 + kL1 + 1024 / 8 + 64 / 16 + kW0);
  EXPECT_EQ(b.axi1.class_bytes().read[static_cast<size_t>(Access::DMA_SRC)], 1000u);
  EXPECT_EQ(b.axi0.class_bytes().written[static_cast<size_t>(Access::DMA_DST)], 1000u);
  EXPECT_EQ(b.counter("transfers"), 1u);
  EXPECT_EQ(b.counter("bytes"), 1000u);
  EXPECT_EQ(b.counter("active_cycles"), t.done_cycle - t.start_cycle);
}

TEST(NpuDma, SramToDramIsBoundByTheSlowWriteSide) {
  Bench& b = bench();
  b.begin(0);
  const Dma::Times t = b.dma.issue(0, copy(1, 0, 2, 0, 2048), 0, b.map);
  // Reads 2048 B at 16 B/cycle: in at 20 + 128 = 148; the first 64 B are in at 20 + 4 = 24, when the
  // writes start: 2048 B at 8 B/cycle -> data out at 24 + 256 = 280, last response at 330.
  EXPECT_EQ(t.done_cycle, 24 + 2048 / 8 + kW1);
}

TEST(NpuDma, EngineRunsOneTransferAtATime) {
  Bench& b = bench();
  b.begin(0);
  const isa::Operation op = copy(2, 0, 1, 0, 256);
  // One transfer alone: 100 + 32 reads, + 4 + 30 for the last write burst's response = 166.
  constexpr uint64_t kOne = kL1 + 256 / 8 + 64 / 16 + kW0;
  const Dma::Times first = b.dma.issue(0, op, 0, b.map);
  const Dma::Times second = b.dma.issue(4, op, 0, b.map);
  EXPECT_EQ(first.done_cycle, kOne);
  EXPECT_EQ(second.start_cycle, kOne);  // the engine is busy until the first is done
  EXPECT_EQ(second.done_cycle, 2 * kOne);
  // Issued after the engine went idle, a transfer starts at once.
  const Dma::Times third = b.dma.issue(8, op, 5 * kOne, b.map);
  EXPECT_EQ(third.start_cycle, 5 * kOne);
  EXPECT_EQ(b.counter("active_cycles"), 3 * kOne);
}

TEST(NpuDma, InternalDestinationIsDoneWhenTheReadsAreIn) {
  Bench& b = bench();
  b.begin(0);
  const Dma::Times t = b.dma.issue(0, copy(2, 0, 1, 0x400, 256, true), 0, b.map);  // core mask 1
  EXPECT_EQ(t.done_cycle, kL1 + 256 / 8);
  EXPECT_EQ(b.axi0.class_bytes().written[static_cast<size_t>(Access::DMA_DST)], 0u);  // nothing on AXI
}

}  // namespace
}  // namespace ethosu::npu

// libsystemc's main() is unused (GoogleTest's runs the tests) but the library needs the symbol.
extern "C" int sc_main(int, char**) { return 0; }
