// Exact cycle counts of the NPU model, worked out by hand from the mechanism (command fetch, CC parse
// rate, AXI port timing, each block's work per OFM tile, the pipeline's double buffering), through the
// platform with a stimulus module, plus a plain-C++ check of npu::schedule()'s buffer rules.
//
// Hand arithmetic, used throughout (axi_timing.h): a read of B bytes in one run on an idle port with
// 64 free outstanding slots completes at request + read_latency + round_up(B, burst) / bytes_per_cycle;
// a write's data is done at request + round_up(B, burst) / bytes_per_cycle and its response comes
// write_latency later. The stream is fetched in 64-byte requests and the CC parses one word per cycle once
// its request is in; parsing (4 B/cycle) is slower than either port here, so it only waits for the first.
// NPU_OP_STOP waits for the last OFM write response.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "isa/assembler.h"
#include "isa/decoder.h"
#include "isa/operation.h"
#include "isa/registers.h"
#include "models/kernels/weights/weight_decoder.h"
#include "models/npu/pipeline.h"
#include "models/platform/platform.h"
#include "tests/unit/npu_streams.h"
#include "tests/unit/apb_stimulus.h"

namespace ethosu::npu {
namespace {

using test::conv_1x1;
using test::pool;
using test::zero_weights;

using npu::JobReport;
using npu::OpRecord;
using npu::OpTime;
using npu::Stall;

using isa::Reg;
using sc_core::SC_NS;
using sc_core::sc_time;

constexpr uint64_t kSramBase = 0x2000'0000;  // behind AXI0
constexpr uint64_t kDramBase = 0x8000'0000;  // behind AXI1
constexpr uint32_t kLimits = 0x1F3F0000;     // AXI_LIMITn: 64 B split, 64 reads, 32 writes outstanding

// AXI0 (SRAM) and AXI1 (DRAM) timing for every test here.
constexpr uint64_t kL0 = 20, kW0 = 30;   // AXI0 read/write latency; 16 B/cycle
constexpr uint64_t kL1 = 100, kW1 = 50;  // AXI1 read/write latency; 8 B/cycle

npu::NpuConfig config() {
  npu::NpuConfig c;
  c.axi[0].bytes_per_cycle = 16;
  c.axi[0].read_latency_cycles = kL0;
  c.axi[0].write_latency_cycles = kW0;
  c.axi[1].bytes_per_cycle = 8;
  c.axi[1].read_latency_cycles = kL1;
  c.axi[1].write_latency_cycles = kW1;
  return c;  // burst 32 B, bus 16 B, clock 1 GHz: the defaults
}

uint16_t off(Reg r, unsigned i = 0) { return isa::reg_at(r, i); }

using Stimulus = ethosu::testing::ApbStimulus;

struct Env {
  platform::Platform platform{"platform"};
  Stimulus stim{"stim"};
  Env() {
    stim.apb.bind(platform.npu.apb);
    stim.irq.bind(platform.irq);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
};
Env& env() {
  static Env e;
  return e;
}

// Runs `text` once: the stream at the start of SRAM (qconfig 0) or DRAM (qconfig 2), region 1 in SRAM
// after it, region 2 in DRAM after it. Returns the cycle of the CMD write that starts it.
struct JobRun {
  std::vector<uint8_t> stream, sram = std::vector<uint8_t>(0x4000), dram = std::vector<uint8_t>(0x4000);
  uint64_t start = 0;
  uint32_t status = 0;
  JobReport report;

  void go(const std::string& text, uint32_t qconfig = 2) {
    stream = isa::assemble(text);
    auto& p = env().platform;
    platform::configure(p, config());
    p.sram.unmap_all();
    p.dram.unmap_all();
    const bool in_sram = qconfig < 2;
    const uint64_t stream_at = in_sram ? kSramBase : kDramBase;
    (in_sram ? p.sram : p.dram).map(stream_at, stream.data(), stream.size());
    p.sram.map(kSramBase + 0x10000, sram.data(), sram.size());
    p.dram.map(kDramBase + 0x10000, dram.data(), dram.size());
    env().stim.script = [&](Stimulus& s) {
      s.wr(off(Reg::RESET), 2);
      s.wr(off(Reg::QCONFIG), qconfig);
      s.wr(off(Reg::REGIONCFG), 2u << 4);  // region 1 -> AXI0, region 2 -> AXI1
      for (unsigned i = 0; i < 4; ++i) s.wr(static_cast<uint16_t>(off(Reg::AXI_LIMIT0) + 4 * i), kLimits);
      s.wr(off(Reg::BASEP, 1), static_cast<uint32_t>(kSramBase + 0x10000));
      s.wr(off(Reg::BASEP, 2), static_cast<uint32_t>(kDramBase + 0x10000));
      s.wr(off(Reg::QBASE), static_cast<uint32_t>(stream_at));
      s.wr(off(Reg::QSIZE), static_cast<uint32_t>(stream.size()));
      sc_core::wait(sc_time(777, SC_NS));  // away from time 0 and from the previous run
      start = s.now();
      s.wr(off(Reg::CMD), 0xD);
      if (!s.irq.read()) sc_core::wait(s.irq.posedge_event());
      status = p.npu.report().status == "ok" ? 0 : 1;
    };
    env().stim.go.notify(sc_core::SC_ZERO_TIME);
    sc_core::sc_start();
    report = p.npu.report();
    // The report counts from the job's start; the hand arithmetic here uses absolute cycles.
    for (auto& op : report.ops) {
      op.start_cycle += start;
      op.end_cycle += start;
    }
    p.sram.unmap_all();
    p.dram.unmap_all();
  }
};

// Byte offset of the command that follows `prefix`.
uint64_t at(const std::string& prefix) { return isa::assemble(prefix).size(); }

// The CC's cycle after parsing the command at byte `offset`, counted from the run start, when the
// stream's first 64 bytes come over a port with `latency` and `bpc` bytes per cycle.
uint64_t parsed(uint64_t offset, uint64_t latency, uint64_t bpc) { return latency + 64 / bpc + offset / 4 + 1; }

TEST(NpuCycles, OneBlockConv1x1) {
  const std::vector<uint8_t> weights = zero_weights(16 * 32);  // 16 OFM x IFM padded to IBD 32
  ASSERT_EQ(weights.size(), 144u);
  ASSERT_EQ(weights::decode_stream(weights).size(), 512u);
  const std::string setup = conv_1x1(static_cast<uint32_t>(weights.size()));
  JobRun r;
  std::copy(weights.begin(), weights.end(), r.sram.begin() + 0x1100);
  r.go(setup + "NPU_OP_CONV\nNPU_OP_STOP mask=0x1\n");
  ASSERT_EQ(r.report.status, "ok");
  ASSERT_EQ(r.report.ops.size(), 1u);
  const OpRecord& op = r.report.ops[0];

  // The CC reaches NPU_OP_CONV after the first 64 stream bytes (AXI1: 100 + 64/8) and one cycle per word.
  const uint64_t ready = r.start + parsed(at(setup), kL1, 8);
  // Block work (npu::MacWork, AoTiming, WdTiming): MAC 16 micro-blocks (2x2) x 2 depth slices x max(32 refill, 4 x 16) = 128;
  // AO 1024 elements x 0.25 = 256; WD 512 decoded weights / 8 = 64.
  EXPECT_EQ(op.mac_busy_cycles, 128u);
  EXPECT_EQ(op.ao_busy_cycles, 256u);
  EXPECT_EQ(op.wd_busy_cycles, 64u);
  // AXI0 read channel: IFM 1024 B -> ready+20 .. +84; weights 144 B (160 with burst padding) queue behind:
  // +84 .. +94, decoded by +158 (before the MAC needs them); scales 160 B +94 .. +104.
  // MAC +84 .. +212; AO +212 .. +468; OFM 1024 B written +468 .. +532.
  EXPECT_EQ(op.start_cycle, ready);
  EXPECT_EQ(op.end_cycle, ready + kL0 + 64 + 128 + 256 + 64);
  // The stop is the next word; it waits for the op and then for the OFM write response (AXI0 latency).
  EXPECT_EQ(r.report.total_cycles, op.end_cycle + kW0 - r.start);
  EXPECT_EQ(r.report.cc_stall_cycles[static_cast<size_t>(Stall::WRITE_RESPONSE)], kW0);
  EXPECT_EQ(op.stall_cycles[static_cast<size_t>(Stall::MAC_WAIT_WEIGHTS)], 0u);

  // The breakdown: the IFM read alone, then the MAC, the AO and the OFM write (weights and scales arrive and are
  // decoded while the MAC works, which comes first); the controller's own time is the stream's fetch and parsing
  // before the operation and the write response after it (NPU_OP_STOP is parsed while the operation runs).
  EXPECT_EQ(op.exclusive_cycles[static_cast<size_t>(OpTime::IFM_READ)], kL0 + 64);
  EXPECT_EQ(op.exclusive_cycles[static_cast<size_t>(OpTime::MAC)], 128u);
  EXPECT_EQ(op.exclusive_cycles[static_cast<size_t>(OpTime::AO)], 256u);
  EXPECT_EQ(op.exclusive_cycles[static_cast<size_t>(OpTime::OFM_WRITE)], 64u);
  EXPECT_EQ(op.exclusive(), op.cycles());
  EXPECT_EQ(r.report.op_time_cycles, op.exclusive_cycles);
  EXPECT_EQ(r.report.controller_wait_cycles[static_cast<size_t>(Stall::CMD_FETCH)], kL1 + 64 / 8);
  EXPECT_EQ(r.report.controller_parse_cycles, at(setup) / 4 + 1);
  EXPECT_EQ(r.report.controller_wait_cycles[static_cast<size_t>(Stall::WRITE_RESPONSE)], kW0);
}

TEST(NpuCycles, OneTileConvWaitsForSlowWeights) {
  // The same conv with its weight stream padded to 4096 bytes: the weight fetch (4096/16 = 256 cycles
  // behind the IFM) ends at +340. The WD decodes as the bytes arrive (+88 .. +152) but cannot be done
  // before the last of them, so the MAC (ending +212 on its own) waits 128 cycles.
  std::vector<uint8_t> weights = zero_weights(16 * 32);
  weights.resize(4096, 0xFF);  // further end markers
  const std::string setup = conv_1x1(4096);
  JobRun r;
  std::copy(weights.begin(), weights.end(), r.sram.begin() + 0x1100);
  r.go(setup + "NPU_OP_CONV\nNPU_OP_STOP mask=0x1\n");
  ASSERT_EQ(r.report.status, "ok");
  const OpRecord& op = r.report.ops.at(0);
  const uint64_t ready = r.start + parsed(at(setup), kL1, 8);
  EXPECT_EQ(op.wd_busy_cycles, 64u);
  EXPECT_EQ(op.stall_cycles[static_cast<size_t>(Stall::MAC_WAIT_WEIGHTS)], 128u);
  // Scales queue behind the weights: +340 .. +350, so the AO runs +350 .. +606; OFM written +606 .. +670.
  EXPECT_EQ(op.end_cycle, ready + kL0 + 64 + 256 + 10 + 256 + 64);
}

TEST(NpuCycles, DmaDramToSram) {
  // 1000 bytes from region 2 (AXI1: latency 100, 8 B/cycle) to region 1 (AXI0). The 40-byte stream
  // comes in one burst, so nothing else uses AXI1.
  const std::string setup =
      "NPU_SET_DMA0_SRC_REGION region=2 region_mode=EXTERNAL stride_mode=D1\n"
      "NPU_SET_DMA0_DST_REGION region=1 region_mode=EXTERNAL stride_mode=D1\n"
      "NPU_SET_DMA0_SRC addr=0x100\nNPU_SET_DMA0_DST addr=0x200\nNPU_SET_DMA0_LEN length=1000\n";
  JobRun r;
  for (size_t i = 0; i < 1000; ++i) r.dram[0x100 + i] = static_cast<uint8_t>(i * 7);
  r.go(setup + "NPU_OP_DMA_START\nNPU_OP_STOP mask=0x1\n");
  ASSERT_EQ(r.stream.size(), 40u);
  ASSERT_EQ(r.report.status, "ok");
  const OpRecord& dma = r.report.ops.at(0);
  const uint64_t issue = r.start + parsed(at(setup), kL1, 8);
  EXPECT_EQ(dma.start_cycle, issue);
  // Reads: 1000 B padded to 1024 at 8 B/cycle after the latency. The SRAM writes follow one burst behind:
  // the last 64-byte burst goes out once the last read data is in (64/16 cycles), and the DMA is done at
  // its write response.
  EXPECT_EQ(dma.end_cycle, issue + kL1 + 1024 / 8 + 64 / 16 + kW0);
  EXPECT_EQ(r.report.total_cycles, dma.end_cycle - r.start);
  EXPECT_TRUE(std::equal(r.dram.begin() + 0x100, r.dram.begin() + 0x100 + 1000, r.sram.begin() + 0x200));
}

TEST(NpuCycles, AJobAfterAFaultedOneTakesTheSameTime) {
  // A job that faults on its first command while most of its 16 KB stream is still being fetched: the
  // soft reset before the next job ends that traffic, so the next job's timing does not depend on it.
  const std::string copy =
      "NPU_SET_DMA0_SRC_REGION region=2 region_mode=EXTERNAL stride_mode=D1\n"
      "NPU_SET_DMA0_DST_REGION region=1 region_mode=EXTERNAL stride_mode=D1\n"
      "NPU_SET_DMA0_SRC addr=0x100\nNPU_SET_DMA0_DST addr=0x200\nNPU_SET_DMA0_LEN length=1000\n"
      "NPU_OP_DMA_START\nNPU_OP_STOP mask=0x1\n";
  std::string faulting = "NPU_SET_DMA0_SRC_REGION region=2 region_mode=EXTERNAL stride_mode=D1\n"
                         "NPU_SET_DMA0_DST_REGION region=1 region_mode=EXTERNAL stride_mode=D1\n"
                         "NPU_SET_DMA0_SRC addr=0x3F00\nNPU_SET_DMA0_LEN length=1000\nNPU_OP_DMA_START\n";
  for (int i = 0; i < 2000; ++i) faulting += "NPU_SET_DMA0_LEN length=16\n";
  faulting += "NPU_OP_STOP mask=0x1\n";
  JobRun alone, bad, after;
  alone.go(copy);
  ASSERT_EQ(alone.report.status, "ok");
  bad.go(faulting);
  ASSERT_NE(bad.report.status.find("bus error"), std::string::npos) << bad.report.status;
  after.go(copy);
  EXPECT_EQ(after.report.total_cycles, alone.report.total_cycles);
}

TEST(NpuCycles, DmaAndIfmContendOnAxi1) {
  // A DMA reads 1000 B from region 2 (AXI1) and, without waiting for it, a 4x4x16 pool reads its 256 B IFM
  // from region 2 too: the IFM data queues behind the DMA's on AXI1's read channel. The stream is in SRAM
  // (AXI0) so that its fetch stays off AXI1; the pool's OFM goes to region 2 (AXI1 write channel).
  const std::string dma =
      "NPU_SET_DMA0_SRC_REGION region=2 region_mode=EXTERNAL stride_mode=D1\n"
      "NPU_SET_DMA0_DST_REGION region=1 region_mode=EXTERNAL stride_mode=D1\n"
      "NPU_SET_DMA0_SRC addr=0x1000\nNPU_SET_DMA0_DST addr=0x0\nNPU_SET_DMA0_LEN length=1000\n";
  const std::string p = pool(4, 4, 4, 2, 0x0, 2, 0x800);
  const std::string text = dma + "NPU_OP_DMA_START\n" + p + "NPU_OP_POOL pooling_mode=MAX\nNPU_OP_STOP mask=0x1\n";
  JobRun r;
  r.go(text, 0);
  ASSERT_EQ(r.report.status, "ok");
  ASSERT_EQ(r.report.ops.size(), 2u);
  const uint64_t d = r.start + parsed(at(dma), kL0, 16);
  const uint64_t pool_ready = r.start + parsed(at(dma + "NPU_OP_DMA_START\n" + p), kL0, 16);
  EXPECT_EQ(r.report.ops[0].start_cycle, d);
  EXPECT_EQ(r.report.ops[0].end_cycle, d + kL1 + 128 + 64 / 16 + kW0);  // as in DmaDramToSram
  // Alone, the IFM would be in at pool_ready + 100 + 32; here its data starts when the DMA's ends.
  ASSERT_LT(pool_ready + kL1, d + kL1 + 128);
  const uint64_t ifm_in = d + kL1 + 128 + 256 / 8;
  // Pool work: MAC 4 micro-blocks x max(4, 1 tap) x 2 depth slices = 32; AO 256 x 0.125 = 32;
  // OFM 256 B at 8 B/cycle = 32.
  EXPECT_EQ(r.report.ops[1].start_cycle, pool_ready);
  EXPECT_EQ(r.report.ops[1].mac_busy_cycles, 32u);
  EXPECT_EQ(r.report.ops[1].ao_busy_cycles, 32u);
  EXPECT_EQ(r.report.ops[1].end_cycle, ifm_in + 32 + 32 + 32);
  // The stop waits for the pool's OFM write response on AXI1.
  EXPECT_EQ(r.report.total_cycles, r.report.ops[1].end_cycle + kW1 - r.start);
}

// A 4x16x16 pool in four 4x4x16 blocks, all in SRAM (AXI0: latency 20, 16 B/cycle), each block reading and
// writing 4 rows of 64 B (16 cycles), MAC 32, AO 32. From its ready cycle R, by the double-buffer rules:
//   block 0: IFM R+20..36, MAC 36..68, AO 68..100, OFM 100..116
//   block 1: IFM 36..52, MAC 68..100, AO 100..132, OFM 132..148
//   block 2: IFM buffer 0 free at 68 (MAC of block 0): IFM 88..104, MAC 104..136, AO 136..168, OFM 168..184
//   block 3: IFM buffer 1 free at 100: IFM 120..136, MAC 136..168, AO 168..200, OFM 200..216
constexpr uint64_t kFourTileDone[4] = {116, 148, 184, 216};

TEST(NpuCycles, BlockdepOverlapsConsecutiveOps) {
  const std::string first = pool(4, 16, 4, 1, 0x0, 1, 0x1000);
  const std::string second = pool(1, 1, 1, 1, 0x2000, 1, 0x2100);
  for (unsigned blockdep = 0; blockdep <= 3; ++blockdep) {
    SCOPED_TRACE("BLOCKDEP " + std::to_string(blockdep));
    const std::string text = first + "NPU_SET_BLOCKDEP blockdep=0\nNPU_OP_POOL pooling_mode=MAX\n" + second +
                             "NPU_SET_BLOCKDEP blockdep=" + std::to_string(blockdep) +
                             "\nNPU_OP_POOL pooling_mode=MAX\nNPU_OP_STOP mask=0x1\n";
    JobRun r;
    r.go(text);
    ASSERT_EQ(r.report.status, "ok");
    ASSERT_EQ(r.report.ops.size(), 2u);
    const OpRecord& a = r.report.ops[0];
    EXPECT_EQ(a.tiles, 4u);
    const uint64_t ready = r.start + parsed(at(first + "NPU_SET_BLOCKDEP blockdep=0\n"), kL1, 8);
    EXPECT_EQ(a.start_cycle, ready);
    EXPECT_EQ(a.end_cycle, ready + kFourTileDone[3]);
    // The second op starts when at most BLOCKDEP blocks of the first are unfinished.
    EXPECT_EQ(r.report.ops[1].start_cycle, ready + kFourTileDone[3 - blockdep]);
    EXPECT_EQ(r.report.ops[1].held_cycles[static_cast<size_t>(Stall::BLOCKDEP)],
              r.report.ops[1].start_cycle - (ready + at(text.substr(0, text.rfind("NPU_OP_POOL"))) / 4 -
                                             at(first + "NPU_SET_BLOCKDEP blockdep=0\n") / 4));
  }
}

// --- npu::schedule() without SystemC -------------------------------------------------------------

isa::Operation operation_of(const std::string& text) {
  const isa::Stream s = isa::decode(isa::assemble(text));
  isa::Operation op{};
  bool found = false;
  isa::walk(s, [&](const isa::Event& e, const isa::StreamState&) {
    if (e.kind == isa::EventKind::OPERATION && !found) {
      op = *e.operation;
      found = true;
    }
  });
  EXPECT_TRUE(found);
  return op;
}

struct Ports {
  axi::AxiPortTiming axi0, axi1;
  Unit wd, mac, ao;
  npu::MacTiming mac_timing;
  npu::WdTiming wd_timing;
  npu::AoTiming ao_timing;
  PipelineBlocks units;
  Ports() : axi0(config().axi[0]), axi1(config().axi[1]) {
    units.mac_timing = &mac_timing;
    units.wd_timing = &wd_timing;
    units.ao_timing = &ao_timing;
    units.wd = &wd;
    units.mac = &mac;
    units.ao = &ao;
    units.axi.ports = {&axi0, &axi1};
    units.axi.region_port[2] = 1;  // region 1 on AXI0, region 2 on AXI1
  }
};

TEST(NpuSchedule, FourTilePoolByHand) {
  const isa::Operation op = operation_of(pool(4, 16, 4, 1, 0, 1, 0x1000) + "NPU_OP_POOL pooling_mode=MAX\n");
  Ports p;
  constexpr uint64_t R = 1000;
  p.wd = p.mac = p.ao = Unit{R, 0};
  TileRecorder recorder;
  const OpTiming t = schedule(op, R, p.units, &recorder);
  const std::vector<TileStages>& st = recorder.stages;
  ASSERT_EQ(st.size(), 4u);
  const uint64_t ifm_start[4] = {0, 0, 68, 100}, mac_start[4] = {36, 68, 104, 136}, ao_start[4] = {68, 100, 136, 168};
  for (size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE("tile " + std::to_string(i));
    EXPECT_EQ(st[i].ifm_start, R + ifm_start[i]);
    EXPECT_EQ(st[i].mac_start, R + mac_start[i]);
    EXPECT_EQ(st[i].ao_start, R + ao_start[i]);
    EXPECT_EQ(st[i].ofm_done, R + kFourTileDone[i]);
    EXPECT_EQ(t.times.last_tiles_done[i], R + kFourTileDone[i]);  // the last four blocks, oldest first
  }
  EXPECT_EQ(t.times.tiles, 4u);
  EXPECT_EQ(t.times.end_cycle, R + kFourTileDone[3]);
  EXPECT_EQ(t.mac_busy, 4u * 32);
  EXPECT_EQ(t.ao_busy, 4u * 32);
}

// The rules pipeline.h states, checked block by block on a conv whose OFM goes to a slow port, so
// that the output buffers and then the accumulators and input buffers become the bottleneck in turn.
TEST(NpuSchedule, DoubleBufferRules) {
  // 8x8x16 -> 8x8x16 1x1 conv in 2x2x16 blocks (16 blocks); OFM in region 2 (AXI1, made slow below).
  std::string text = conv_1x1(144);
  text += "NPU_SET_OFM_REGION region=2\nNPU_SET_OFM_BLK_HEIGHT_M1 height_m1=1\nNPU_SET_OFM_BLK_WIDTH_M1 width_m1=1\n"
          "NPU_OP_CONV\n";
  const isa::Operation op = operation_of(text);
  Ports p;
  axi::AxiPortParams slow = config().axi[1];
  slow.bytes_per_cycle = 0.25;  // 64 B of OFM per block take 256 cycles; MAC and WD 64, AO 16
  p.axi1.configure(slow);
  TileRecorder recorder;
  const OpTiming t = schedule(op, 0, p.units, &recorder);
  const std::vector<TileStages>& st = recorder.stages;
  ASSERT_EQ(st.size(), 16u);
  ASSERT_EQ(t.times.tiles, 16u);
  bool ob_bound = false;
  for (size_t i = 0; i < st.size(); ++i) {
    SCOPED_TRACE("tile " + std::to_string(i));
    const TileStages& b = st[i];
    EXPECT_LE(b.ifm_start, b.ifm_done);
    EXPECT_LE(b.ifm_done, b.mac_start);   // the MAC needs its IFM
    EXPECT_LE(b.wd_end, b.mac_end);       // and its decoded weights
    EXPECT_LE(b.mac_end, b.ao_start);     // the AO drains its accumulators
    EXPECT_LE(b.ao_end, b.ofm_done);
    EXPECT_LE(b.mac_busy_end, b.mac_end);  // waiting for weights follows the MAC's own work
    EXPECT_LE(b.wd_busy_end, b.wd_end);
    if (i >= 1) {
      // TileSink's promise, on which the time breakdown settles tiles: no stage begins before the previous
      // tile's earliest.
      const TileStages& prev = st[i - 1];
      const uint64_t earliest =
          std::min({prev.ifm_start, prev.weights_start, prev.wd_start, prev.mac_start, prev.ao_start});
      EXPECT_GE(std::min({b.ifm_start, b.weights_start, b.wd_start, b.mac_start, b.ao_start}), earliest);
      EXPECT_GE(b.mac_start, st[i - 1].mac_end);  // one MAC
      EXPECT_GE(b.ao_start, st[i - 1].ao_end);    // one AO
      // The weight buffer is refilled for block i while the MAC works on block i-1, not earlier.
      EXPECT_GE(b.wd_start, st[i - 1].mac_start);
    }
    if (i >= 2) {
      const TileStages& a = st[i - 2];
      EXPECT_GE(b.ifm_start, a.mac_end);  // IB of block i-2 consumed
      EXPECT_GE(b.mac_start, a.ao_end);   // ACC of block i-2 drained
      EXPECT_GE(b.ao_start, a.ofm_done);  // OB of block i-2 written
      if (b.ao_start == a.ofm_done && b.ao_start > b.mac_end) ob_bound = true;
    }
    if (i >= 12) {
      EXPECT_EQ(t.times.last_tiles_done[i - 12], b.ofm_done);
    }
  }
  // The slow OFM port makes the output buffers bind: the rule is exercised, not just satisfied.
  EXPECT_TRUE(ob_bound);
}

}  // namespace
}  // namespace ethosu::npu

// libsystemc's main() is unused (GoogleTest's runs the tests) but the library needs the symbol.
extern "C" int sc_main(int, char**) { return 0; }
