// The command controller's engine on hand-built streams. With the functional model's timeline (no time):
// DMA ordering and queueing, 2D/3D DMA placement, SHRAM LUTs, each fault kind with where it happened, and
// the sticky/stale register rules. With a scripted timeline: DMA landing by time, the queue depth, the TSU,
// BLOCKDEP and SHRAM gates and what NPU_OP_STOP waits for.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "isa/assembler.h"
#include "isa/decoder.h"
#include "models/npu/cc/engine.h"
#include "tests/unit/npu_streams.h"

namespace ethosu::cc {
namespace {

using isa::Cmd;

// Region buffers; region r byte i starts as (i + 16 r) & 0x7F so that every byte is a distinct,
// non-negative int8 within a region.
struct Memory {
  std::array<std::vector<uint8_t>, 8> bytes;
  explicit Memory(size_t size = 4096) {
    for (unsigned r = 0; r < 8; ++r) {
      bytes[r].resize(size);
      for (size_t i = 0; i < size; ++i) bytes[r][i] = static_cast<uint8_t>((i + 16 * r) & 0x7F);
    }
  }
  Regions regions() {
    Regions out{};
    for (unsigned r = 0; r < 8; ++r) out[r] = {bytes[r].data(), bytes[r].size()};
    return out;
  }
  std::vector<uint8_t> at(unsigned region, size_t offset, size_t n) const {
    return {bytes[region].begin() + static_cast<std::ptrdiff_t>(offset),
            bytes[region].begin() + static_cast<std::ptrdiff_t>(offset + n)};
  }
};

// The NPU's SHRAM (one 48 KiB core) and the engine's settings, kept across runs as on the hardware.
struct Npu {
  ShramBanks shram = ShramBanks(1, std::vector<uint8_t>(48 * 1024));
  EngineConfig config;
};

RunResult run(const std::string& text, Memory& m, Npu* npu = nullptr, Timeline* timeline = nullptr) {
  Npu local;
  NoTime no_time;
  Npu& n = npu ? *npu : local;
  return Engine::run(isa::decode(isa::assemble(text)), m.regions(), n.shram, n.config, timeline ? *timeline : no_time);
}

// Stream offset of the n-th command `c` in the assembled text.
uint32_t offset_of(const std::string& text, Cmd c, int n = 0) {
  for (const auto& cmd : isa::decode(isa::assemble(text)).commands)
    if (cmd.info && cmd.cmd() == c && n-- == 0) return cmd.offset;
  ADD_FAILURE() << "command not found";
  return 0;
}

// A 1x1 MAX pool over W x 1 x 16 int8 NHWC pixels in region 1: copies the IFM bytes to the OFM.
std::string pool_copy(uint32_t ifm, uint32_t ofm, int width = 1) {
  const std::string w = std::to_string(width - 1);
  return "NPU_SET_IFM_REGION region=1\n"
         "NPU_SET_IFM_BASE0 addr=" + std::to_string(ifm) + "\n"
         "NPU_SET_IFM_PRECISION activation_type=SIGNED\n"
         "NPU_SET_IFM_DEPTH_M1 depth_m1=15\n"
         "NPU_SET_IFM_WIDTH0_M1 width_m1=" + w + "\n"
         "NPU_SET_IFM_STRIDE_X stride=16\n"
         "NPU_SET_IFM_STRIDE_Y stride=256\n"
         "NPU_SET_IFM_STRIDE_C stride=1\n"
         "NPU_SET_OFM_REGION region=1\n"
         "NPU_SET_OFM_BASE0 addr=" + std::to_string(ofm) + "\n"
         "NPU_SET_OFM_PRECISION activation_type=SIGNED\n"
         "NPU_SET_OFM_DEPTH_M1 depth_m1=15\n"
         "NPU_SET_OFM_WIDTH_M1 width_m1=" + w + "\n"
         "NPU_SET_OFM_WIDTH0_M1 width_m1=" + w + "\n"
         "NPU_SET_OFM_STRIDE_X stride=16\n"
         "NPU_SET_OFM_STRIDE_Y stride=256\n"
         "NPU_SET_OFM_STRIDE_C stride=1\n"
         "NPU_SET_ACTIVATION_MIN clip_boundary=-128\n"
         "NPU_SET_ACTIVATION_MAX clip_boundary=127\n"
         "NPU_OP_POOL pooling_mode=MAX\n";
}

// A 1D DMA of `len` bytes from region `src_region` to region `dst_region`.
std::string dma(unsigned src_region, uint32_t src, unsigned dst_region, uint32_t dst, uint32_t len) {
  return "NPU_SET_DMA0_SRC_REGION region=" + std::to_string(src_region) + "\n"
         "NPU_SET_DMA0_DST_REGION region=" + std::to_string(dst_region) + "\n"
         "NPU_SET_DMA0_SRC addr=" + std::to_string(src) + "\n"
         "NPU_SET_DMA0_DST addr=" + std::to_string(dst) + "\n"
         "NPU_SET_DMA0_LEN length=" + std::to_string(len) + "\n"
         "NPU_OP_DMA_START\n";
}

const std::string kStop = "NPU_OP_STOP mask=0xffff\n";

// `text` with its first `from` replaced by `to`.
std::string with(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

TEST(CcEngine, DmaDataIsVisibleOnlyAfterTheWait) {
  // The DMA puts region 2's bytes 0..15 at region 1 offset 0, which the pool then copies to 0x200.
  Memory without;
  const auto old_bytes = without.at(1, 0, 16), new_bytes = without.at(2, 0, 16);
  const RunResult r1 = run(dma(2, 0, 1, 0, 16) + pool_copy(0, 0x200) + kStop, without);
  ASSERT_FALSE(r1.fault) << r1.fault->message;
  EXPECT_EQ(without.at(1, 0x200, 16), old_bytes);
  EXPECT_EQ(without.at(1, 0, 16), new_bytes);  // delivered at the stop
  ASSERT_EQ(r1.hazards.size(), 1u);
  const std::string dma_at = isa::hex_offset(offset_of(dma(2, 0, 1, 0, 16), Cmd::NPU_OP_DMA_START));
  EXPECT_NE(r1.hazards[0].find("IFM overlaps the destination of the DMA at " + dma_at), std::string::npos)
      << r1.hazards[0];

  Memory with;
  const RunResult r2 = run(dma(2, 0, 1, 0, 16) + "NPU_OP_DMA_WAIT k=0\n" + pool_copy(0, 0x200) + kStop, with);
  ASSERT_FALSE(r2.fault) << r2.fault->message;
  EXPECT_EQ(with.at(1, 0x200, 16), new_bytes);
  EXPECT_TRUE(r2.hazards.empty());
  EXPECT_EQ(r2.stats.dma_ops, 1u);
  EXPECT_EQ(r2.stats.kernel_ops, 1u);
}

TEST(CcEngine, DmaQueueHoldsTwoAndWaitKLeavesK) {
  // Three DMAs: starting the third completes the first, so the pool sees the first one's bytes only.
  Memory m;
  const auto a = m.at(2, 0, 16), c_old = m.at(1, 0x40, 16);
  const RunResult r = run(dma(2, 0, 1, 0, 16) + dma(2, 16, 1, 0x20, 16) + dma(2, 32, 1, 0x40, 16) +
                              pool_copy(0, 0x200) + pool_copy(0x40, 0x300) + kStop,
                          m);
  ASSERT_FALSE(r.fault) << r.fault->message;
  EXPECT_EQ(m.at(1, 0x200, 16), a);
  EXPECT_EQ(m.at(1, 0x300, 16), c_old);
  ASSERT_EQ(r.hazards.size(), 1u);  // only the second pool reads an undelivered destination
  EXPECT_NE(r.hazards[0].find(isa::hex_offset(offset_of(dma(2, 0, 1, 0, 16) + dma(2, 16, 1, 0x20, 16) +
                                                             dma(2, 32, 1, 0x40, 16),
                                                         Cmd::NPU_OP_DMA_START, 2))),
            std::string::npos)
      << r.hazards[0];

  // NPU_OP_DMA_WAIT k=1 waits for all but the newest.
  Memory w;
  const auto first = w.at(2, 0, 16), second_old = w.at(1, 0x20, 16);
  const RunResult r2 = run(dma(2, 0, 1, 0, 16) + dma(2, 16, 1, 0x20, 16) + "NPU_OP_DMA_WAIT k=1\n" +
                               pool_copy(0, 0x200) + pool_copy(0x20, 0x300) + kStop,
                           w);
  ASSERT_FALSE(r2.fault) << r2.fault->message;
  EXPECT_EQ(w.at(1, 0x200, 16), first);
  EXPECT_EQ(w.at(1, 0x300, 16), second_old);
  EXPECT_EQ(r2.hazards.size(), 1u);
}

std::string dma_nd(const std::string& src_mode, uint32_t src, const std::string& dst_mode, uint32_t dst,
                   uint32_t len, uint32_t size0, int64_t skip0, uint32_t size1 = 0, int64_t skip1 = 0) {
  return "NPU_SET_DMA0_SRC_REGION region=2 stride_mode=" + src_mode + "\n" +
         "NPU_SET_DMA0_DST_REGION region=1 stride_mode=" + dst_mode + "\n" +
         "NPU_SET_DMA0_SRC addr=" + std::to_string(src) + "\n" + "NPU_SET_DMA0_DST addr=" + std::to_string(dst) +
         "\n" + "NPU_SET_DMA0_LEN length=" + std::to_string(len) + "\n" +
         "NPU_SET_DMA0_SIZE0 size=" + std::to_string(size0) + "\n" + "NPU_SET_DMA0_SKIP0 skip=" +
         std::to_string(skip0) + "\n" + "NPU_SET_DMA0_SIZE1 size=" + std::to_string(size1) + "\n" +
         "NPU_SET_DMA0_SKIP1 skip=" + std::to_string(skip1) + "\n" + "NPU_OP_DMA_START\n" + kStop;
}

std::vector<uint8_t> cat(const std::vector<std::vector<uint8_t>>& parts) {
  std::vector<uint8_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

TEST(CcEngine, Dma2DAnd3DPlaceRowsAtTheirSkips) {
  Memory m2;
  const Memory ref;
  // 2D source: 3 rows of 4 bytes, 4 bytes skipped after each, gathered into 12 contiguous bytes.
  ASSERT_FALSE(run(dma_nd("D2", 0x100, "D1", 0x800, 4, 3, 4), m2).fault);
  EXPECT_EQ(m2.at(1, 0x800, 12), cat({ref.at(2, 0x100, 4), ref.at(2, 0x108, 4), ref.at(2, 0x110, 4)}));

  // 3D source: 2 planes of 2 rows of 2 bytes; row pitch 2 + 2, plane pitch 2 * 4 + 8.
  Memory m3;
  ASSERT_FALSE(run(dma_nd("D3", 0x100, "D1", 0x800, 2, 2, 2, 2, 8), m3).fault);
  EXPECT_EQ(m3.at(1, 0x800, 8),
            cat({ref.at(2, 0x100, 2), ref.at(2, 0x104, 2), ref.at(2, 0x110, 2), ref.at(2, 0x114, 2)}));

  // 2D destination with a negative skip: rows go downwards from the destination address.
  Memory mn;
  ASSERT_FALSE(run(dma_nd("D1", 0x100, "D2", 0x840, 4, 3, -8), mn).fault);
  EXPECT_EQ(mn.at(1, 0x840, 4), ref.at(2, 0x100, 4));
  EXPECT_EQ(mn.at(1, 0x83C, 4), ref.at(2, 0x104, 4));
  EXPECT_EQ(mn.at(1, 0x838, 4), ref.at(2, 0x108, 4));
  EXPECT_EQ(mn.at(1, 0x844, 4), ref.at(1, 0x844, 4));  // untouched above
}

TEST(CcEngine, OverlappingDmaCopiesLikeMemmove) {
  // Eight 4-byte rows moved up by one row: copied row by row, each row would read the one before it.
  Memory m;
  const auto src = m.at(1, 0x100, 32);
  ASSERT_FALSE(run("NPU_SET_DMA0_SRC_REGION region=1\nNPU_SET_DMA0_DST_REGION region=1 stride_mode=D2\n"
                   "NPU_SET_DMA0_SRC addr=0x100\nNPU_SET_DMA0_DST addr=0x104\nNPU_SET_DMA0_LEN length=4\n"
                   "NPU_SET_DMA0_SIZE0 size=8\nNPU_OP_DMA_START\n" + kStop,
                   m)
                   .fault);
  EXPECT_EQ(m.at(1, 0x104, 32), src);
}

TEST(CcEngine, DmaWithinOneRegionCopiesLikeMemmoveAtTheSpansEdges) {
  // One 32-byte row to just past its source, to one byte short of that (overlapping by one byte, in either
  // direction), and to just before its source: the source as it was before the DMA, every time.
  for (const uint32_t dst : {0x120u, 0x11Fu, 0x0E1u, 0x0E0u}) {
    Memory m;
    const auto src = m.at(1, 0x100, 32);
    ASSERT_FALSE(run("NPU_SET_DMA0_SRC_REGION region=1\nNPU_SET_DMA0_DST_REGION region=1\nNPU_SET_DMA0_SRC addr=0x100\n"
                     "NPU_SET_DMA0_DST addr=" + std::to_string(dst) + "\nNPU_SET_DMA0_LEN length=32\nNPU_OP_DMA_START\n" +
                         kStop,
                     m)
                     .fault);
    EXPECT_EQ(m.at(1, dst, 32), src) << "destination " << dst;
  }
}

TEST(CcEngine, InternalDmaLoadsTheLutThatTableActivationsUse) {
  // Table slot 2 of a 48 KiB SHRAM sits at 0xB800 + 2 * 256; lut[i] = 255 - i, indexed by v + 128.
  Memory m;
  for (int i = 0; i < 256; ++i) m.bytes[3][0x400 + static_cast<size_t>(i)] = static_cast<uint8_t>(255 - i);
  const std::string load = "NPU_SET_DMA0_SRC_REGION region=3\n"
                           "NPU_SET_DMA0_DST_REGION region=1 region_mode=INTERNAL\n"
                           "NPU_SET_DMA0_SRC addr=0x400\n"
                           "NPU_SET_DMA0_DST addr=0xBA00\n"
                           "NPU_SET_DMA0_LEN length=256\n"
                           "NPU_OP_DMA_START\n"
                           "NPU_OP_DMA_WAIT k=0\n"
                           "NPU_SET_ACTIVATION activation_function=TABLE_2\n";
  Npu npu;
  const RunResult r = run(load + pool_copy(0, 0x200) + kStop, m, &npu);
  ASSERT_FALSE(r.fault) << r.fault->message;
  EXPECT_EQ(npu.shram[0][0xBA00], 255);
  for (size_t i = 0; i < 16; ++i) {
    const int v = static_cast<int8_t>(m.bytes[1][i]);
    EXPECT_EQ(m.bytes[1][0x200 + i], static_cast<uint8_t>(255 - (v + 128))) << i;
  }
}

TEST(CcEngine, OfmOutsideItsRegionIsABusError) {
  Memory m(256);
  const std::string text = pool_copy(0, 0x1000) + kStop;
  const auto before = m.bytes[1];
  const RunResult r = run(text, m);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->kind, FaultKind::BUS_ERROR);
  EXPECT_EQ(r.fault->offset, offset_of(text, Cmd::NPU_OP_POOL));
  EXPECT_EQ(r.fault->message,
            isa::hex_offset(r.fault->offset) + ": NPU_OP_POOL: OFM bytes [0x1000, 0x1010) outside region 1 (256 bytes)");
  EXPECT_EQ(m.bytes[1], before);
  EXPECT_EQ(r.stats.kernel_ops, 0u);
}

TEST(CcEngine, DmaOutsideItsRegionIsABusError) {
  Memory m(256);
  const std::string text = pool_copy(0, 0x20) + dma(1, 0, 2, 0xF8, 16) + kStop;
  const RunResult r = run(text, m);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->kind, FaultKind::BUS_ERROR);
  EXPECT_EQ(r.fault->offset, offset_of(text, Cmd::NPU_OP_DMA_START));
  EXPECT_NE(r.fault->message.find("NPU_OP_DMA_START: destination bytes [0xf8, 0x108) outside region 2 (256 bytes)"),
            std::string::npos)
      << r.fault->message;
  EXPECT_EQ(r.stats.kernel_ops, 1u);
  EXPECT_EQ(r.stats.dma_ops, 0u);
}

TEST(CcEngine, LutSlotBeyondTheShramIsABusError) {
  // A 16-bit table takes 2 KiB: from slot 7 it would run past the end of the SHRAM.
  Memory m;
  const RunResult r = run("NPU_SET_ACTIVATION activation_function=TABLE_7\n" + pool_copy(0, 0x200) +
                              "NPU_SET_OFM_PRECISION activation_type=SIGNED activation_precision=B16\n"
                              "NPU_OP_POOL pooling_mode=MAX\n" + kStop,
                          m);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->kind, FaultKind::BUS_ERROR);
  EXPECT_NE(r.fault->message.find("LUT SHRAM bytes [0xbf00, 0xc700) outside the 49152-byte SHRAM"), std::string::npos)
      << r.fault->message;
  EXPECT_EQ(r.stats.kernel_ops, 1u);  // the 8-bit table of the first pool fits
}

// Weight stream of a 1x1 conv with one IFM and one OFM channel (8-bit, depth-first, block depth 1): 256
// zero weights (8 OFM x 32 IFM after padding, spec 04).
std::vector<uint8_t> zero_weight_stream() { return npu::test::zero_weights(256); }

// A 1x1 conv of one int8 channel at region 1 offset 0 into offset 0x200, weights at region 4 offset 0,
// scale/bias (bias 5, scale 1.0) at region 5 offset 0.
std::string conv(size_t weight_bytes, size_t scale_bytes) {
  return "NPU_SET_IFM_REGION region=1\n"
         "NPU_SET_IFM_PRECISION activation_type=SIGNED\n"
         "NPU_SET_IFM_STRIDE_X stride=1\n"
         "NPU_SET_IFM_STRIDE_Y stride=1\n"
         "NPU_SET_IFM_STRIDE_C stride=1\n"
         "NPU_SET_OFM_REGION region=1\n"
         "NPU_SET_OFM_BASE0 addr=0x200\n"
         "NPU_SET_OFM_PRECISION activation_type=SIGNED\n"
         "NPU_SET_OFM_STRIDE_X stride=1\n"
         "NPU_SET_OFM_STRIDE_Y stride=1\n"
         "NPU_SET_OFM_STRIDE_C stride=1\n"
         "NPU_SET_ACTIVATION_MIN clip_boundary=-128\n"
         "NPU_SET_ACTIVATION_MAX clip_boundary=127\n"
         "NPU_SET_WEIGHT_REGION region=4\n"
         "NPU_SET_WEIGHT_LENGTH length=" + std::to_string(weight_bytes) + "\n"
         "NPU_SET_SCALE_REGION region=5\n"
         "NPU_SET_SCALE_LENGTH length=" + std::to_string(scale_bytes) + "\n"
         "NPU_OP_CONV\n" + kStop;
}

Memory conv_memory(const std::vector<uint8_t>& weights) {
  Memory m;
  std::copy(weights.begin(), weights.end(), m.bytes[4].begin());
  const uint8_t entry[10] = {5, 0, 0, 0, 0, 0, 0, 0, 0x40, 30};  // bias 5, multiplier 2^30, shift 30
  std::copy(entry, entry + 10, m.bytes[5].begin());
  return m;
}

TEST(CcEngine, ConvWithAValidStreamRuns) {
  const auto w = zero_weight_stream();
  Memory m = conv_memory(w);
  const RunResult r = run(conv(w.size(), 16), m);
  ASSERT_FALSE(r.fault) << r.fault->message;
  EXPECT_EQ(m.bytes[1][0x200], 5);  // zero weights: the bias alone
}

TEST(CcEngine, CorruptWeightStreamIsAWeightDecoderFault) {
  auto w = zero_weight_stream();
  w[0] = 0x05;  // ZDIV 5 is reserved
  Memory m = conv_memory(w);
  const std::string text = conv(w.size(), 16);
  const RunResult r = run(text, m);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->kind, FaultKind::WD_FAULT);
  EXPECT_EQ(r.fault->offset, offset_of(text, Cmd::NPU_OP_CONV));
  EXPECT_NE(r.fault->message.find("NPU_OP_CONV: weight stream: byte 0 bit 0: reserved ZDIV value 5"), std::string::npos)
      << r.fault->message;
}

TEST(CcEngine, ShortScaleStreamIsAWeightDecoderFault) {
  const auto w = zero_weight_stream();
  Memory m = conv_memory(w);
  const RunResult r = run(conv(w.size(), 8), m);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->kind, FaultKind::WD_FAULT);
  EXPECT_NE(r.fault->message.find("scale stream of core 0 holds 8 bytes, 10 needed for 1 channels"), std::string::npos)
      << r.fault->message;
}

TEST(CcEngine, UnknownOpcodeStopsTheRunAfterTheOperationsBeforeIt) {
  Memory m;
  const std::string text = pool_copy(0, 0x200) + ".word 0x00000004\n" + pool_copy(0, 0x300) + kStop;
  const auto untouched = m.at(1, 0x300, 16);
  const RunResult r = run(text, m);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->kind, FaultKind::CMD_PARSE_ERROR);
  EXPECT_EQ(r.fault->offset, offset_of(text, Cmd::NPU_OP_POOL) + 4);
  EXPECT_NE(r.fault->message.find("unknown cmd0 opcode 0x4"), std::string::npos) << r.fault->message;
  EXPECT_EQ(m.at(1, 0x200, 16), m.at(1, 0, 16));
  EXPECT_EQ(m.at(1, 0x300, 16), untouched);
  EXPECT_EQ(r.stats.kernel_ops, 1u);
}

TEST(CcEngine, MissingStopIsAParseErrorAfterEverythingRan) {
  Memory m;
  const auto delivered = m.at(2, 0, 16);
  const RunResult r = run(pool_copy(0, 0x200) + dma(2, 0, 1, 0x400, 16), m);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->kind, FaultKind::CMD_PARSE_ERROR);
  EXPECT_NE(r.fault->message.find("no NPU_OP_STOP"), std::string::npos) << r.fault->message;
  EXPECT_EQ(m.at(1, 0x200, 16), m.at(1, 0, 16));
  EXPECT_EQ(m.at(1, 0x400, 16), delivered);  // a started DMA still lands
}

TEST(CcEngine, ElementwiseIgnoresStaleKernelState) {
  // Kernel, stride, padding and upscale registers as a previous conv would leave them: ADD ignores them
  // and adds the 2x1x16 IFM and IFM2 element by element.
  Memory m;
  const std::string text =
      "NPU_SET_KERNEL_WIDTH_M1 width_m1=2\nNPU_SET_KERNEL_HEIGHT_M1 height_m1=2\n"
      "NPU_SET_KERNEL_STRIDE stride_x_lsb=1 stride_y_lsb=1\n"
      "NPU_SET_IFM_PAD_TOP pad=1\nNPU_SET_IFM_PAD_LEFT pad=1\nNPU_SET_IFM_UPSCALE mode=NEAREST\n" +
      with(pool_copy(0, 0x200, 2), "NPU_OP_POOL pooling_mode=MAX\n", "") +
      "NPU_SET_IFM2_REGION region=1\nNPU_SET_IFM2_BASE0 addr=0x100\n"
      "NPU_SET_IFM2_PRECISION activation_type=SIGNED\nNPU_SET_IFM2_WIDTH0_M1 width_m1=1\n"
      "NPU_SET_IFM2_STRIDE_X stride=16\nNPU_SET_IFM2_STRIDE_Y stride=256\nNPU_SET_IFM2_STRIDE_C stride=1\n"
      "NPU_SET_OPA_SCALE scale=1\nNPU_SET_OPB_SCALE scale=1\nNPU_SET_OFM_SCALE scale=1\n"
      "NPU_OP_ELEMENTWISE elementwise_mode=ADD\n" + kStop;
  const RunResult r = run(text, m);
  ASSERT_FALSE(r.fault) << r.fault->message;
  for (size_t i = 0; i < 32; ++i) {
    const int sum = static_cast<int8_t>(m.bytes[1][i]) + static_cast<int8_t>(m.bytes[1][0x100 + i]);
    EXPECT_EQ(static_cast<int8_t>(m.bytes[1][0x200 + i]), std::min(sum, 127)) << i;
  }
}

TEST(CcEngine, StickyStateCarriesIntoTheNextOperation) {
  // The second pool only moves the OFM: everything else is the first pool's state.
  Memory m;
  const RunResult r = run(pool_copy(0x10, 0x200, 3) + "NPU_SET_OFM_BASE0 addr=0x300\nNPU_OP_POOL pooling_mode=MAX\n" + kStop, m);
  ASSERT_FALSE(r.fault) << r.fault->message;
  EXPECT_EQ(r.stats.kernel_ops, 2u);
  EXPECT_EQ(m.at(1, 0x200, 48), m.at(1, 0x10, 48));
  EXPECT_EQ(m.at(1, 0x300, 48), m.at(1, 0x10, 48));
}

TEST(CcEngine, Nhcwb16StepsXByTheProgrammedStrideX) {
  // Bricks programmed 32 bytes apart in x: the pool reads pixel 1 at IFM offset 32, not 16.
  Memory m;
  const std::string text = with(with(pool_copy(0, 0x200, 2), "NPU_SET_IFM_PRECISION activation_type=SIGNED",
                                     "NPU_SET_IFM_PRECISION activation_type=SIGNED activation_format=NHCWB16"),
                                "NPU_SET_IFM_STRIDE_X stride=16", "NPU_SET_IFM_STRIDE_X stride=32");
  const RunResult r = run(text + kStop, m);
  ASSERT_FALSE(r.fault) << r.fault->message;
  EXPECT_EQ(m.at(1, 0x200, 16), m.at(1, 0, 16));
  EXPECT_EQ(m.at(1, 0x210, 16), m.at(1, 32, 16));
}

TEST(CcEngine, PoolReadsIfmChannelsUpToTheOfmDepth) {
  // IFM_DEPTH says 1 channel, but MAX pooling reads channel c for each of the 16 OFM channels: the IFM
  // span covers them, so an IFM at the end of its region is a bus error rather than an overread.
  Memory m(256);
  const std::string text = with(pool_copy(0xF8, 0x20), "NPU_SET_IFM_DEPTH_M1 depth_m1=15", "NPU_SET_IFM_DEPTH_M1 depth_m1=0");
  const RunResult r = run(text + kStop, m);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->kind, FaultKind::BUS_ERROR);
  EXPECT_NE(r.fault->message.find("IFM bytes [0xf8, 0x108) outside region 1"), std::string::npos) << r.fault->message;
}

TEST(CcEngine, OperationsOverTheWorkLimitAreRefusedBeforeRunning) {
  // 256 x 256 x 16 elements read at stride 0 fit any region but exceed a 2^16-step budget.
  Npu npu;
  npu.config.limits.work = uint64_t{1} << 16;
  Memory m;
  const std::string text =
      with(pool_copy(0, 0x200), "NPU_OP_POOL",
               "NPU_SET_OFM_WIDTH_M1 width_m1=255\nNPU_SET_OFM_HEIGHT_M1 height_m1=255\n"
               "NPU_SET_OFM_WIDTH0_M1 width_m1=255\nNPU_SET_OFM_HEIGHT0_M1 height_m1=255\n"
               "NPU_SET_OFM_STRIDE_X stride=0\nNPU_SET_OFM_STRIDE_Y stride=0\n"
               "NPU_SET_IFM_STRIDE_X stride=0\nNPU_SET_IFM_STRIDE_Y stride=0\nNPU_OP_POOL");
  const auto before = m.bytes[1];
  const RunResult r = run(text + kStop, m, &npu);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->kind, FaultKind::LIMIT);
  EXPECT_NE(r.fault->message.find("NPU_OP_POOL: needs up to"), std::string::npos) << r.fault->message;
  EXPECT_EQ(m.bytes[1], before);
}

TEST(CcEngine, Ifm2ScalarIsExtendedByTheIfm2Type) {
  // IFM2_SCALAR 0xFFFF: -1 for a signed IFM2, 65535 for an unsigned one. MAX of the int8 IFM (-5 .. 10)
  // with it gives max(x, -1), or 65535 saturated to 127.
  Memory m;
  for (size_t i = 0; i < 16; ++i) m.bytes[1][i] = static_cast<uint8_t>(static_cast<int>(i) - 5);
  const auto scalar = [](const char* type) {
    return with(pool_copy(0, 0x200), "NPU_OP_POOL pooling_mode=MAX\n",
                std::string("NPU_SET_IFM2_BROADCAST broadcast_constant=ENABLE\nNPU_SET_IFM2_SCALAR scalar=-1\n"
                            "NPU_SET_IFM2_PRECISION activation_type=") + type +
                    "\nNPU_SET_OFM_SCALE scale=1\nNPU_OP_ELEMENTWISE elementwise_mode=MAX\n") + kStop;
  };
  ASSERT_FALSE(run(scalar("SIGNED"), m).fault);
  for (size_t i = 0; i < 16; ++i) EXPECT_EQ(static_cast<int8_t>(m.bytes[1][0x200 + i]), std::max(static_cast<int>(i) - 5, -1));
  ASSERT_FALSE(run(scalar("UNSIGNED"), m).fault);
  for (size_t i = 0; i < 16; ++i) EXPECT_EQ(static_cast<int8_t>(m.bytes[1][0x200 + i]), 127);
}

TEST(CcEngine, OperationsOfUnknownBehaviourAreRefusedNamingTheFields) {
  // isa::unknown_behaviour: the model faults rather than guess, before the operation writes anything.
  Memory m;
  const std::string text = with(pool_copy(0, 0x200), "NPU_OP_POOL", "NPU_SET_ACC_FORMAT acc_format=F16\nNPU_OP_POOL");
  const auto before = m.bytes[1];
  const RunResult r = run(text + kStop, m);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->kind, FaultKind::LIMIT);
  EXPECT_NE(r.fault->message.find("NPU_OP_POOL: not modelled: ACC_FORMAT F16"), std::string::npos) << r.fault->message;
  EXPECT_EQ(m.bytes[1], before);
}

// ---- With a scripted timeline -------------------------------------------------------------------------

// A timeline whose answers the test sets: each DMA is done `dma_cycles` after it is issued, each kernel
// operation's tiles finish at the cycles in `tiles` (relative to its start, oldest first) and its
// last write response `ack_cycles` after its end. It records every wait and event as text.
class Script : public Timeline {
 public:
  uint64_t dma_cycles = 100;
  std::vector<uint64_t> tiles{10, 20, 30, 40};
  uint64_t ack_cycles = 5;
  std::vector<std::string> log;
  std::vector<KernelIssue> kernels;

  uint64_t now() const override { return now_; }
  void wait_until(uint64_t cycle, npu::Stall why) override {
    if (cycle <= now_) return;
    log.push_back(std::string("wait ") + npu::stall_name(why) + " to " + std::to_string(cycle));
    now_ = cycle;
  }
  void command(uint32_t, uint32_t, const isa::StreamState&) override {}
  uint64_t dma(uint32_t, const isa::Operation&) override {
    log.push_back("dma at " + std::to_string(now_));
    return now_ + dma_cycles;
  }
  KernelTimes kernel(uint32_t, const isa::Operation& op, const KernelIssue& issue) override {
    log.push_back(std::string(isa::op_kind_name(op.kind)) + " at " + std::to_string(now_));
    kernels.push_back(issue);
    KernelTimes t;
    t.tiles = tiles.size();
    for (size_t i = 0; i < tiles.size() && i <= kMaxBlockdep; ++i)
      t.last_tiles_done[kMaxBlockdep - i] = now_ + tiles[tiles.size() - 1 - i];
    t.end_cycle = now_ + tiles.back();
    t.writes_acknowledged_cycle = t.end_cycle + ack_cycles;
    return t;
  }
  std::optional<Fault> prepare(uint32_t, const isa::Operation&) override { return std::nullopt; }
  std::optional<Fault> bus_fault() override { return std::nullopt; }
  void pmu_mask(bool) override {}
  void irq(uint16_t) override {}
  void stop(uint16_t mask) override { log.push_back("stop " + std::to_string(mask) + " at " + std::to_string(now_)); }
  void fault(const Fault& f) override {
    log.push_back(std::string("fault ") + fault_name(f.kind) + " port " + std::to_string(f.port) + " channel " +
                  std::to_string(static_cast<unsigned>(f.channel)));
  }

 private:
  uint64_t now_ = 0;
};

std::string lines(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + "\n";
  return out;
}

TEST(CcEngineTimed, DmaDataLandsWhenItIsDoneByTheOperationsIssue) {
  // The DMA is done at 100. The first pool is issued at 0 and reads the old bytes; the second, issued after
  // NPU_OP_KERNEL_WAIT at 150, reads the new ones although the stream never waited for the DMA.
  Memory m;
  const auto old_bytes = m.at(1, 0, 16), new_bytes = m.at(2, 0, 16);
  Script t;
  t.tiles = {150};
  const RunResult r = run(dma(2, 0, 1, 0, 16) + pool_copy(0, 0x200) + "NPU_OP_KERNEL_WAIT n=0\n" + pool_copy(0, 0x300) +
                              kStop,
                          m, nullptr, &t);
  ASSERT_FALSE(r.fault) << r.fault->message;
  EXPECT_EQ(m.at(1, 0x200, 16), old_bytes);
  EXPECT_EQ(m.at(1, 0x300, 16), new_bytes);
  EXPECT_EQ(r.hazards.size(), 1u);
  EXPECT_EQ(lines(t.log), "dma at 0\npool at 0\nwait kernel_wait to 150\npool at 150\nwait kernel_wait to 300\n"
                          "wait write_response to 305\nstop 65535 at 305\n");
}

TEST(CcEngineTimed, AFullDmaQueueStallsTheStart) {
  Memory m;
  Npu npu;
  npu.config.dma_queue_depth = 1;
  Script t;
  const RunResult r = run(dma(2, 0, 1, 0, 16) + dma(2, 16, 1, 16, 16) + kStop, m, &npu, &t);
  ASSERT_FALSE(r.fault) << r.fault->message;
  EXPECT_EQ(lines(t.log), "dma at 0\nwait dma_queue to 100\ndma at 100\nwait dma_wait to 200\nstop 65535 at 200\n");
}

TEST(CcEngineTimed, TheTsuHoldsTsuBanksOperations) {
  Memory m;
  Npu npu;
  npu.config.tsu_banks = 1;
  Script t;
  // BLOCKDEP 3 lets the second pool start at the first one's block 1 (done at 10), but the one TSU bank
  // holds the first until its end at 40.
  const RunResult r =
      run(pool_copy(0, 0x200) + "NPU_SET_BLOCKDEP blockdep=3\n" + pool_copy(0x400, 0x600) + kStop, m, &npu, &t);
  ASSERT_FALSE(r.fault) << r.fault->message;
  EXPECT_EQ(lines(t.log), "pool at 0\nwait kernel_wait to 40\npool at 40\nwait kernel_wait to 80\n"
                          "wait write_response to 85\nstop 65535 at 85\n");
}

TEST(CcEngineTimed, BlockdepGatesOnThePredecessorsLastTiles) {
  for (uint32_t dep = 0; dep <= 3; ++dep) {
    SCOPED_TRACE(dep);
    Memory m;
    Script t;
    const RunResult r = run(pool_copy(0, 0x200) + "NPU_SET_BLOCKDEP blockdep=" + std::to_string(dep) + "\n" +
                                pool_copy(0x400, 0x600) + kStop,
                            m, nullptr, &t);
    ASSERT_FALSE(r.fault) << r.fault->message;
    // Blocks done at 10, 20, 30, 40: at most `dep` may be unfinished when the next op starts.
    const uint64_t gate = 40 - 10 * dep;
    ASSERT_GE(t.log.size(), 3u);
    EXPECT_EQ(t.log[1], "wait blockdep to " + std::to_string(gate));
    EXPECT_EQ(t.log[2], "pool at " + std::to_string(gate));
  }
}

TEST(CcEngineTimed, ANewShramLayoutWaitsForThePredecessorToDrain) {
  Memory m;
  Script t;
  const RunResult r = run(pool_copy(0, 0x200) + "NPU_SET_BLOCKDEP blockdep=3\nNPU_SET_AB_START ab_start=8\n" +
                              pool_copy(0x400, 0x600) + kStop,
                          m, nullptr, &t);
  ASSERT_FALSE(r.fault) << r.fault->message;
  ASSERT_EQ(t.kernels.size(), 2u);
  EXPECT_TRUE(t.kernels[0].shram_layout_changed);  // the first op lays the SHRAM out
  EXPECT_TRUE(t.kernels[1].shram_layout_changed);
  EXPECT_EQ(lines(t.log), "pool at 0\nwait blockdep to 10\nwait shram_reconfig to 40\npool at 40\n"
                          "wait kernel_wait to 80\nwait write_response to 85\nstop 65535 at 85\n");
}

TEST(CcEngineTimed, BusErrorsNameTheRegionsPortAndTheChannel) {
  Memory m(256);
  Npu npu;
  npu.config.region_port[2] = 1;
  Script t;
  const RunResult r = run(dma(1, 0, 2, 0xF8, 16) + kStop, m, &npu, &t);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->port, 1u);
  EXPECT_EQ(r.fault->channel, Channel::WR_MEM2MEM);
  EXPECT_EQ(lines(t.log), "fault bus error port 1 channel 9\n");  // nothing issued
}

}  // namespace
}  // namespace ethosu::cc
