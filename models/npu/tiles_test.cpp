// The OFM tiles of an operation and the bytes each moves (models/npu/tiles.h), worked out by
// hand: traversal order, IFM windows with halos, sub-kernels, padding, upscaling and bricks, IFM2
// broadcasts, and the weight stream's share per block; an Ethos-U85 operation's weight streams, chaining buffer and
// blocks' own mechanisms.
#include "models/npu/tiles.h"

#include <gtest/gtest.h>

#include "models/npu/npu_config.h"
#include "tests/unit/timing_ops.h"

namespace ethosu::npu {
namespace {

using isa::OpKind;
using test::fm;
using test::kernel_op;
namespace enums = isa::enums;

// The op's blocks with the U65's MAC and WD.
struct Blocks {
  MacWork mac;
  OfmTiles blocks;
  explicit Blocks(const isa::Operation& op) : mac(op, MacTiming{}), blocks(op, mac, WdTiming{}) {}
  TileTraffic operator[](size_t i) const { return blocks.traffic(i); }
};

TEST(OfmTiles, Conv1x1ReadsAndWritesTheBlock) {
  const auto op = kernel_op(OpKind::CONV, 8, 8, 16, 16, 1, 1, 0, {8, 8, 16});
  const Blocks b(op);
  ASSERT_EQ(b.blocks.count(), 1u);
  EXPECT_EQ(b[0].ifm_bytes, 8u * 8 * 16);
  EXPECT_EQ(b[0].ifm_run_bytes, 8u * 8 * 16);  // whole rows of a full-depth NHWC map are contiguous
  EXPECT_EQ(b[0].ofm_bytes, 8u * 8 * 16);
}

TEST(OfmTiles, PaddingIsNotRead) {
  // 3x3 depthwise with padding 1: the 10x10 window clips to the 8x8 map.
  const auto op = kernel_op(OpKind::DEPTHWISE, 8, 8, 16, 16, 3, 1, 1, {8, 8, 16});
  EXPECT_EQ(Blocks(op)[0].ifm_bytes, 8u * 8 * 16);
  auto pool = kernel_op(OpKind::POOL, 8, 8, 16, 16, 2, 2, 0, {8, 8, 16});
  const Blocks p(pool);
  EXPECT_EQ(p[0].ifm_bytes, 16u * 16 * 16);
  EXPECT_EQ(p[0].total_weight_bytes(), 0u);
}

TEST(OfmTiles, SixteenBitIfmDoublesItsBytes) {
  const auto dw8 = kernel_op(OpKind::DEPTHWISE, 8, 8, 8, 8, 3, 1, 1, {8, 8, 8}, 8);
  const auto dw16 = kernel_op(OpKind::DEPTHWISE, 8, 8, 8, 8, 3, 1, 1, {8, 8, 8}, 16);
  EXPECT_EQ(Blocks(dw16)[0].ifm_bytes, 2 * Blocks(dw8)[0].ifm_bytes);
}

TEST(OfmTiles, ElementwiseOperandsAndBroadcasts) {
  auto op = test::elementwise_add(8, 8, 16);
  EXPECT_EQ(Blocks(op)[0].ifm_bytes, 1024u);
  EXPECT_EQ(Blocks(op)[0].ifm2_bytes, 1024u);
  op.broadcast.h = op.broadcast.w = true;  // IFM2 is one pixel
  op.ifm2 = fm(1, 1, 16);
  EXPECT_EQ(Blocks(op)[0].ifm2_bytes, 16u);
  op.broadcast.scalar = true;
  EXPECT_EQ(Blocks(op)[0].ifm2_bytes, 0u);
}

TEST(OfmTiles, EdgeTilesAndTraversalOrder) {
  // OFM 10x10x24 in 8x8x16 blocks: 2 x 2 x 2 blocks, depth fastest, then x, then y.
  const auto op = kernel_op(OpKind::CONV, 10, 10, 24, 16, 1, 1, 0, {8, 8, 16});
  const Blocks b(op);
  ASSERT_EQ(b.blocks.count(), 8u);
  const uint32_t expect[8][3] = {{0, 0, 0}, {0, 0, 16}, {8, 0, 0}, {8, 0, 16},
                                 {0, 8, 0}, {0, 8, 16}, {8, 8, 0}, {8, 8, 16}};
  for (size_t i = 0; i < 8; ++i) {
    const OfmBox box = b.blocks.box(i);
    EXPECT_EQ(box.x0, expect[i][0]) << i;
    EXPECT_EQ(box.y0, expect[i][1]) << i;
    EXPECT_EQ(box.c0, expect[i][2]) << i;
    EXPECT_EQ(b.blocks.depth_slice(i), i % 2) << i;
  }
  const OfmBox last = b.blocks.box(7);
  EXPECT_EQ(last.width(), 2u);
  EXPECT_EQ(last.c1, 24u);
  EXPECT_EQ(b[7].ofm_bytes, 2u * 2 * 8);
}

TEST(OfmTiles, IfmHaloStride1And2) {
  // 3x3 stride 1 pad 1 on 16x16: the block at (8, 8) reads rows/cols 7..15 (halo 1, bottom padding unread).
  const auto s1 = kernel_op(OpKind::DEPTHWISE, 16, 16, 8, 8, 3, 1, 1, {8, 8, 8});
  EXPECT_EQ(Blocks(s1)[0].ifm_bytes, 9u * 9 * 8);
  EXPECT_EQ(Blocks(s1)[3].ifm_bytes, 9u * 9 * 8);
  // Stride 2, pad 0, OFM 8x8 from IFM 17x17: a 4x4 block reads (4-1)*2+3 = 9 rows and columns.
  const auto s2 = kernel_op(OpKind::DEPTHWISE, 8, 8, 8, 8, 3, 2, 0, {4, 4, 8});
  EXPECT_EQ(s2.ifm.width, 17u);
  EXPECT_EQ(Blocks(s2)[0].ifm_bytes, 9u * 9 * 8);
  EXPECT_EQ(Blocks(s2)[3].ifm_bytes, 9u * 9 * 8);  // starts at 8, ends at 17
}

TEST(OfmTiles, SubKernelsReReadTheIfm) {
  // 9x9 kernel: 2x2 sub-kernels (8+1 taps per axis), each re-reading its own window: 8+7 = 15 wide for the
  // 8-tap part, 8 wide for the 1-tap part.
  const auto op = kernel_op(OpKind::POOL, 8, 8, 8, 8, 9, 1, 0, {8, 8, 8});
  EXPECT_EQ(Blocks(op)[0].ifm_bytes, (15u * 15 + 15 * 8 + 8 * 15 + 8 * 8) * 8);
}

TEST(OfmTiles, Nhcwb16BrickRounding) {
  // Depthwise over 24 channels in blocks of depth 8: the slice [8, 16) still reads the whole first brick,
  // and [16, 24) the whole second one.
  auto op = kernel_op(OpKind::DEPTHWISE, 4, 4, 24, 24, 1, 1, 0, {4, 4, 8});
  op.ifm = fm(4, 4, 24, 8, true);
  const Blocks b(op);
  EXPECT_EQ(b[1].ifm_bytes, 4u * 4 * 16);
  EXPECT_EQ(b[1].ifm_run_bytes, 16u);  // a partial brick is one 16-byte run per pixel
  EXPECT_EQ(b[2].ifm_bytes, 4u * 4 * 16);
  EXPECT_EQ(b[1].ofm_bytes, 4u * 4 * 8);  // NHWC writes exactly the block
  op.ofm = fm(4, 4, 24, 8, true);
  EXPECT_EQ(Blocks(op)[1].ofm_bytes, 4u * 4 * 16);  // an NHCWB16 write strobes inside the whole brick
}

TEST(OfmTiles, UpscaledIfm) {
  // Nearest 2x upscale, 1x1 pooling: an 8x8 OFM tile reads a 4x4 IFM window.
  auto op = kernel_op(OpKind::POOL, 16, 16, 8, 8, 1, 1, 0, {8, 8, 8});
  op.upscale = enums::ifm_upscale_mode::NEAREST;
  op.ifm = fm(8, 8, 8);
  op.ifm_upscaled_width = op.ifm_upscaled_height = 16;
  EXPECT_EQ(Blocks(op)[0].ifm_bytes, 4u * 4 * 8);
  EXPECT_EQ(Blocks(op)[3].ifm_bytes, 4u * 4 * 8);
}

TEST(OfmTiles, WeightBytesShareTheStreamAndRepeatPerXyTile) {
  auto op = kernel_op(OpKind::CONV, 16, 8, 40, 16, 1, 1, 0, {8, 8, 16});
  op.weights[0].length_bytes = 1000;
  op.ofm_scale_mode = enums::ofm_scale_mode::PER_CHANNEL;
  const Blocks b(op);
  ASSERT_EQ(b.blocks.count(), 6u);  // 2 x-blocks x 3 depth slices (16, 16, 8 channels)
  // Decoded weights per slice: 16, 16 and 8 OFM channels x 32 IFM -> shares 2/5, 2/5, 1/5.
  EXPECT_EQ(b[0].weight_bytes[0], 400u);
  EXPECT_EQ(b[1].weight_bytes[0], 400u);
  EXPECT_EQ(b[2].weight_bytes[0], 200u);
  uint64_t total = 0, scales = 0;
  for (size_t i = 0; i < b.blocks.count(); ++i) {
    total += b[i].total_weight_bytes();
    scales += b[i].total_scale_bytes();
  }
  EXPECT_EQ(total, 2u * 1000);  // the whole stream once per (x, y) block
  EXPECT_EQ(scales, 2u * 40 * 10);
}

TEST(OfmTiles, DualCoreFetchesEachCoresStreamAndTheIfmOnce) {
  auto op = kernel_op(OpKind::CONV, 8, 8, 32, 32, 1, 1, 0, {8, 8, 32});
  op.weights[0].length_bytes = 512;
  op.weights[1].length_bytes = 256;
  const TileTraffic one = Blocks(op)[0];
  op.parallel_mode = enums::parallel_mode::DUAL_CORE_DEPTH;
  const TileTraffic two = Blocks(op)[0];
  EXPECT_EQ(two.weight_bytes[0], 512u);
  EXPECT_EQ(two.weight_bytes[1], 256u);
  EXPECT_EQ(two.ifm_bytes, one.ifm_bytes);
}

TEST(OfmTiles, DmaHasNoTiles) {
  isa::Operation op;
  op.kind = OpKind::DMA;
  EXPECT_EQ(Blocks(op).blocks.count(), 0u);
}

// The runs the bus moves (transaction mode) are the bytes the model counts, tile by tile, and lie where the
// operation's feature maps and streams are.
TEST(OfmTiles, RunsAreTheCountedBytes) {
  auto partial_bricks = kernel_op(OpKind::DEPTHWISE, 4, 4, 24, 24, 3, 1, 1, {2, 4, 8});
  partial_bricks.ifm = fm(4, 4, 24, 8, true);
  partial_bricks.ofm = fm(4, 4, 24, 8, true);
  auto conv = kernel_op(OpKind::CONV, 16, 8, 40, 16, 3, 1, 1, {8, 8, 16});
  conv.weights[0].length_bytes = 1000;
  conv.weights[0].base = 0x100;
  conv.ofm_scale_mode = enums::ofm_scale_mode::PER_CHANNEL;
  conv.scales[0].base = 0x2000;
  auto large_kernel = kernel_op(OpKind::POOL, 8, 8, 16, 16, 10, 1, 4, {4, 4, 16});
  auto broadcast = test::elementwise_add(8, 8, 16);
  broadcast.broadcast.h = true;
  broadcast.ifm2 = fm(8, 1, 16);
  auto dual = kernel_op(OpKind::CONV, 8, 8, 32, 32, 1, 1, 0, {8, 8, 16});
  dual.weights[0].length_bytes = 512;
  dual.weights[1] = {0x4000, 256};
  dual.scales[1].base = 0x800;
  dual.ofm_scale_mode = enums::ofm_scale_mode::PER_CHANNEL;
  dual.parallel_mode = enums::parallel_mode::DUAL_CORE_DEPTH;
  for (const isa::Operation& op : {partial_bricks, conv, large_kernel, broadcast, dual}) {
    SCOPED_TRACE(isa::op_kind_name(op.kind));
    MacTiming mac_timing;
    const MacWork mac(op, mac_timing);
    const OfmTiles tiles(op, mac, WdTiming{});
    std::vector<ByteRun> runs;
    const auto sum = [&] {
      uint64_t n = 0;
      for (const ByteRun& r : runs) n += r.bytes;
      return n;
    };
    for (size_t i = 0; i < tiles.count(); ++i) {
      const TileTraffic t = tiles.traffic(i);
      tiles.ifm_runs(i, runs);
      EXPECT_EQ(sum(), t.ifm_bytes) << "tile " << i;
      tiles.ifm2_runs(i, runs);
      EXPECT_EQ(sum(), t.ifm2_bytes) << "tile " << i;
      tiles.ofm_runs(i, runs);
      EXPECT_EQ(sum(), t.ofm_bytes) << "tile " << i;
      for (unsigned c = 0; c < kMaxCores; ++c) {
        const ByteRun w = tiles.weight_run(i, c), sc = tiles.scale_run(i, c);
        EXPECT_EQ(w.bytes, t.weight_bytes[c]) << "tile " << i << " core " << c;
        EXPECT_EQ(sc.bytes, t.scale_bytes[c]) << "tile " << i << " core " << c;
        if (w.bytes) {
          EXPECT_LE(w.offset + w.bytes, op.weights[c].base + op.weights[c].length_bytes);
        }
      }
    }
  }
}

TEST(OfmTiles, RunsOfPartialBricksAreWholeBrickRows) {
  auto op = kernel_op(OpKind::DEPTHWISE, 4, 4, 24, 24, 1, 1, 0, {4, 4, 8});
  op.ifm = fm(4, 4, 24, 8, true);
  op.ofm = fm(4, 4, 24, 8, true);
  for (isa::FeatureMap* f : {&op.ifm, &op.ofm}) f->width0 = f->height0 = f->height1 = 4;  // one FM tile
  MacTiming mac_timing;
  const MacWork mac(op, mac_timing);
  const OfmTiles tiles(op, mac, WdTiming{});
  std::vector<ByteRun> runs;
  // Channels [8, 16) read the whole first brick: a row of 4 x 16 bytes per IFM row (the rows interleave with the
  // second brick's, 128 bytes apart).
  tiles.ifm_runs(1, runs);
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[0].offset, 0u);
  EXPECT_EQ(runs[0].bytes, 64u);
  EXPECT_EQ(runs[1].offset, 128u);
  // And write the first brick's rows with channels [8, 16) strobed: 4 runs of 64 bytes, the other channels off.
  tiles.ofm_runs(1, runs);
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[0].offset, 0u);
  EXPECT_EQ(runs[1].offset, 128u);
  EXPECT_EQ(runs[0].bytes, 64u);
  EXPECT_EQ(runs[0].strobe_period, 16u);
  EXPECT_EQ(runs[0].strobe_lo, 8u);
  EXPECT_EQ(runs[0].strobe_hi, 16u);
}

// An Ethos-U85 (command set 2) operation on the given configuration's blocks.
isa::Operation u85_op(isa::Operation op, enums::microblock ublock) {
  op.version = isa::IsaVersion::V2;
  op.microblock = ublock;
  return op;
}

TEST(OfmTilesU85, EveryDecodersStreamGivesItsShareOfEachSlice) {
  // U85-1024's four decoders: a 1x1 conv of 64 channels in two 32-deep slices reads each stream half per slice.
  const NpuConfig c = npu_config(isa::Variant::U85_1024);
  auto op = u85_op(kernel_op(OpKind::CONV, 8, 8, 64, 16, 1, 1, 0, {8, 8, 32}), enums::microblock::U2X2);
  const uint32_t lengths[4] = {400, 402, 398, 404};
  for (unsigned s = 0; s < 4; ++s) op.weights[s] = {uint64_t{0x1000} * s, lengths[s]};
  const MacWork mac(op, c.mac);
  const OfmTiles tiles(op, mac, c.wd);
  ASSERT_EQ(tiles.count(), 2u);
  for (unsigned s = 0; s < 4; ++s) {
    EXPECT_EQ(tiles.traffic(0).weight_bytes[s], lengths[s] / 2) << s;
    EXPECT_EQ(tiles.traffic(0).weight_bytes[s] + tiles.traffic(1).weight_bytes[s], lengths[s]) << s;
    EXPECT_EQ(tiles.weight_run(1, s).offset, uint64_t{0x1000} * s + lengths[s] / 2) << s;
  }
  // The MAC's cycles are the U85 array's: 8x8x32 in 2x2x32 micro-blocks, 16 positions x 2 lane groups = 32 cycles,
  // as long as the weight-load floor 32 x 32 / (8 x 4).
  EXPECT_EQ(mac.cycles(tiles.box(0)), 32u);
}

TEST(OfmTilesU85, ChainedFeatureMapsMoveNoBytes) {
  auto op = u85_op(test::elementwise_add(8, 8, 16), enums::microblock::U1X2);
  const NpuConfig c = npu_config(isa::Variant::U85_128);
  op.ofm.storage = enums::activation_storage::CHAINED;
  {
    const MacWork mac(op, c.mac);
    const OfmTiles tiles(op, mac, c.wd);
    EXPECT_EQ(tiles.traffic(0).ofm_bytes, 0u);
    EXPECT_EQ(tiles.traffic(0).ifm_bytes, 8u * 8 * 16);
  }
  op.ofm.storage = enums::activation_storage::TILE2X2;
  op.ifm.storage = enums::activation_storage::CHAINED;
  const MacWork mac(op, c.mac);
  const OfmTiles tiles(op, mac, c.wd);
  EXPECT_EQ(tiles.traffic(0).ifm_bytes, 0u);
  EXPECT_EQ(tiles.traffic(0).ofm_bytes, 8u * 8 * 16);
  // The AO at U85-128's 8-bit rate: 1024 elements x 0.5.
  EXPECT_EQ(c.ao.cycles(op, mac.ublock_elements(tiles.box(0))), 512u);
}

TEST(OfmTilesU85, MaxPoolOnU85_128) {
  // notes/u85/timing.md 3.2: 8x8x32 in 1x1x16 micro-blocks, MAC 2048 and AO 1024 cycles.
  auto op = u85_op(kernel_op(OpKind::POOL, 8, 8, 32, 32, 2, 2, 0, {8, 8, 32}), enums::microblock::U1X1);
  op.pooling_mode = enums::pooling_mode::MAX;
  const NpuConfig c = npu_config(isa::Variant::U85_128);
  const MacWork mac(op, c.mac);
  EXPECT_EQ(mac.cycles(test::whole(op)), 2048u);
  EXPECT_EQ(c.ao.cycles(op, mac.ublock_elements(test::whole(op))), 1024u);
}

}  // namespace
}  // namespace ethosu::npu
