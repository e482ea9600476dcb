// The DMA block on its own: a stimulus drives npu::Dma over two AXI ports and checks, by hand arithmetic,
// when transfers start and finish, when their data lands, the queue's back-pressure on the CC, and the
// bus errors of transfers outside their region.
//
// Ports: AXI0 16 B/cycle, read latency 20, write latency 30; AXI1 8 B/cycle, 100 and 50; memory bursts
// 32 B, AXI bursts split at 64 B, limiters open. A read of B contiguous bytes on an idle port is in at
// request + latency + round_up(B, 32) / bytes_per_cycle.
#include <array>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "isa/registers.h"
#include "models/mem/axi_port.h"
#include "models/mem/memory.h"
#include "models/npu/control.h"
#include "models/npu/dma.h"
#include "models/npu/shram.h"

namespace ethosu::npu {
namespace {

constexpr uint64_t kL0 = 20, kW0 = 30, kL1 = 100, kW1 = 50;

mem::AxiPortParams port(double bpc, uint32_t read_latency, uint32_t write_latency) {
  mem::AxiPortParams p;
  p.bytes_per_cycle = bpc;
  p.read_latency_cycles = read_latency;
  p.write_latency_cycles = write_latency;
  return p;
}

struct Bench {
  mem::Memory sram{"sram"}, dram{"dram"};
  mem::AxiPort axi0{"axi0", port(16, kL0, kW0), sc_core::sc_time(1, sc_core::SC_NS)};
  mem::AxiPort axi1{"axi1", port(8, kL1, kW1), sc_core::sc_time(1, sc_core::SC_NS)};
  ControlRegisters ctrl{isa::Variant::U65_256};
  Shram shram{"shram"};
  Dma dma{"dma", axi0, axi1, ctrl, shram};
  std::vector<uint8_t> region1 = std::vector<uint8_t>(4096), region2 = std::vector<uint8_t>(4096);

  Bench() {
    axi0.socket.bind(sram.socket);
    axi1.socket.bind(dram.socket);
    shram.configure(isa::Variant::U65_256);
    HostAction action;
    ctrl.write(static_cast<uint16_t>(isa::Reg::REGIONCFG), 2u << 4, action);  // region 2 on AXI1, 1 on AXI0
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
  // A fresh stream at `cycle`: idle ports and engine, queue depth `depth`.
  void begin(uint64_t cycle, uint32_t depth = 2) {
    axi0.timing().reset();
    axi1.timing().reset();
    dma.configure(DmaTiming{depth});
    functional::Regions regions{};
    regions[1] = {region1.data(), region1.size()};
    regions[2] = {region2.data(), region2.size()};
    dma.begin_stream(cycle, regions);
  }
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
  for (size_t i = 0; i < 1000; ++i) b.region2[0x100 + i] = static_cast<uint8_t>(i * 7 + 1);
  const isa::Operation op = copy(2, 0x100, 1, 0x200, 1000);
  ASSERT_FALSE(b.dma.check(0x40, op));
  uint64_t cc = 1000;
  const OpRecord rec = b.dma.start(0x40, op, cc);
  EXPECT_EQ(cc, 1000u);  // a free queue slot: the CC goes on at once
  EXPECT_EQ(rec.start_cycle, 1000u);
  // Reads: 1000 B (1024 with burst padding) at 8 B/cycle after 100 cycles -> 1228. The last 64-byte write
  // burst leaves once that data is in (64 / 16 = 4 cycles) and its response comes 30 cycles later.
  EXPECT_EQ(rec.end_cycle, 1000 + kL1 + 1024 / 8 + 64 / 16 + kW0);
  EXPECT_EQ(rec.ports[1].read_bytes[static_cast<size_t>(Traffic::DMA_SRC)], 1000u);
  EXPECT_EQ(rec.ports[0].write_bytes[static_cast<size_t>(Traffic::DMA_DST)], 1000u);
  // The data lands when the DMA is done, not before.
  b.dma.land_until(rec.end_cycle - 1);
  EXPECT_EQ(b.region1[0x200], 0);
  b.dma.land_until(rec.end_cycle);
  EXPECT_EQ(b.dma.outstanding(), 0u);
  EXPECT_TRUE(std::equal(b.region2.begin() + 0x100, b.region2.begin() + 0x100 + 1000, b.region1.begin() + 0x200));
}

TEST(NpuDma, SramToDramIsBoundByTheSlowWriteSide) {
  Bench& b = bench();
  b.begin(0);
  const isa::Operation op = copy(1, 0, 2, 0, 2048);
  uint64_t cc = 0;
  const OpRecord rec = b.dma.start(0, op, cc);
  // Reads 2048 B at 16 B/cycle: in at 20 + 128 = 148; the first 64 B are in at 20 + 4 = 24, when the
  // writes start: 2048 B at 8 B/cycle -> data out at 24 + 256 = 280, last response at 330.
  EXPECT_EQ(rec.end_cycle, 24 + 2048 / 8 + kW1);
}

TEST(NpuDma, EngineRunsOneTransferAtATimeAndAFullQueueStallsTheCc) {
  Bench& b = bench();
  b.begin(0, 2);
  const isa::Operation op = copy(2, 0, 1, 0, 256);
  // One transfer alone: 100 + 32 reads, + 4 + 30 for the last write burst's response = 166.
  constexpr uint64_t kOne = kL1 + 256 / 8 + 64 / 16 + kW0;
  uint64_t cc = 0;
  const OpRecord first = b.dma.start(0, op, cc);
  const OpRecord second = b.dma.start(4, op, cc);
  EXPECT_EQ(first.end_cycle, kOne);
  EXPECT_EQ(second.start_cycle, kOne);  // the engine is busy until the first is done
  EXPECT_EQ(second.end_cycle, 2 * kOne);
  EXPECT_EQ(cc, 0u);
  // A third finds both queue slots taken: the CC waits until the oldest is done.
  const OpRecord third = b.dma.start(8, op, cc);
  EXPECT_EQ(cc, kOne);
  EXPECT_EQ(third.start_cycle, 2 * kOne);
  EXPECT_EQ(b.dma.outstanding(), 2u);
  // NPU_OP_DMA_WAIT 0 waits for the last.
  b.dma.wait(0, cc);
  EXPECT_EQ(cc, 3 * kOne);
  EXPECT_EQ(b.dma.outstanding(), 0u);
}

TEST(NpuDma, InternalDestinationIsDoneWhenTheReadsAreIn) {
  Bench& b = bench();
  b.begin(0);
  for (size_t i = 0; i < 256; ++i) b.region2[i] = static_cast<uint8_t>(255 - i);
  const isa::Operation op = copy(2, 0, 1, 0x400, 256, true);  // core mask 1
  ASSERT_FALSE(b.dma.check(0, op));
  uint64_t cc = 0;
  const OpRecord rec = b.dma.start(0, op, cc);
  EXPECT_EQ(rec.end_cycle, kL1 + 256 / 8);
  b.dma.land_all();
  const auto& bank = b.shram.banks().front();
  EXPECT_TRUE(std::equal(b.region2.begin(), b.region2.begin() + 256, bank.begin() + 0x400));
}

TEST(NpuDma, OutsideItsRegionIsABusErrorOnThatPortAndChannel) {
  Bench& b = bench();
  b.begin(0);
  const auto src = b.dma.check(0x10, copy(2, 4000, 1, 0, 200));  // region 2 is 4096 bytes
  ASSERT_TRUE(src);
  EXPECT_EQ(src->kind, Fault::BUS_ERROR);
  EXPECT_EQ(src->port, 1u);
  EXPECT_EQ(src->channel, Channel::RD_MEM2MEM);
  EXPECT_NE(src->what.find("source outside region 2"), std::string::npos) << src->what;
  const auto dst = b.dma.check(0x10, copy(2, 0, 1, 4000, 200));
  ASSERT_TRUE(dst);
  EXPECT_EQ(dst->port, 0u);
  EXPECT_EQ(dst->channel, Channel::WR_MEM2MEM);
  const auto shram = b.dma.check(0x10, copy(2, 0, 1, b.shram.bytes_per_core() - 16, 64, true));
  ASSERT_TRUE(shram);
  EXPECT_EQ(shram->channel, Channel::WR_MEM2MEM);
}

}  // namespace
}  // namespace ethosu::npu

// libsystemc's main() is unused (GoogleTest's runs the tests) but the library needs the symbol.
extern "C" int sc_main(int, char**) { return 0; }
