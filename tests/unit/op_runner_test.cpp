// How an operation's kernels are split between host threads (kernel_bands).
#include "models/kernels/op_runner.h"

#include <gtest/gtest.h>

#include <vector>

#include "models/kernels/regions.h"

namespace ethosu::kernels {
namespace {

using isa::OpKind;
using isa::Operation;

// An 8-bit NHWC feature map of w x h x d at `base` in `region`.
isa::FeatureMap feature_map(uint8_t region, uint64_t base, uint32_t w, uint32_t h, uint32_t d) {
  isa::FeatureMap fm;
  fm.region = region;
  fm.base = {base, base, base, base};
  fm.width0 = w;
  fm.height0 = fm.height1 = h;
  fm.width = w;
  fm.height = h;
  fm.depth = d;
  fm.stride_x = d;
  fm.stride_y = int64_t{w} * d;
  fm.stride_c = 1;
  return fm;
}

class KernelBands : public ::testing::Test {
 protected:
  KernelBands() : memory_(2, std::vector<uint8_t>(kBytes)) {
    regions_[1] = {memory_[0].data(), kBytes};
    regions_[2] = {memory_[1].data(), kBytes};
  }
  // A 1x1 conv of 64 x 64 x 64 (16.8 M MACs) from region 1 offset 0 to `ofm_region` at `ofm_base`.
  static Operation conv(uint8_t ofm_region, uint64_t ofm_base) {
    Operation op;
    op.kind = OpKind::CONV;
    op.ifm = feature_map(1, 0, 64, 64, 64);
    op.ofm = feature_map(ofm_region, ofm_base, 64, 64, 64);
    return op;
  }
  static constexpr uint64_t kBytes = 4 << 20;
  std::vector<std::vector<uint8_t>> memory_;
  Regions regions_{};
};

TEST_F(KernelBands, OneBandPerThreadForALargeOperation) {
  const Operation op = conv(1, 512 * 1024);
  EXPECT_EQ(kernel_bands(op, regions_, 1), 1u);
  EXPECT_EQ(kernel_bands(op, regions_, 2), 2u);
  EXPECT_EQ(kernel_bands(op, regions_, 3), 3u);
}

TEST_F(KernelBands, AtMostOneBandPerOfmRow) {
  Operation op;
  op.kind = OpKind::CONV;
  op.ifm = feature_map(1, 0, 64, 2, 256);  // 8.4 M MACs in 2 rows
  op.ofm = feature_map(2, 0, 64, 2, 256);
  EXPECT_EQ(kernel_bands(op, regions_, 8), 2u);
}

TEST_F(KernelBands, SmallOperationsStayOnOneThread) {
  Operation op = conv(2, 0);
  op.ifm.depth = op.ofm.depth = 4;  // 65 K MACs
  op.ifm.stride_x = op.ofm.stride_x = 4;
  op.ifm.stride_y = op.ofm.stride_y = 256;
  EXPECT_EQ(kernel_bands(op, regions_, 4), 1u);
}

TEST_F(KernelBands, OneBandWhenTheOfmOverlapsTheIfm) {
  // The IFM takes bytes [0, 256 K) of region 1.
  EXPECT_EQ(kernel_bands(conv(1, 256 * 1024 - 1), regions_, 2), 1u);
  EXPECT_EQ(kernel_bands(conv(1, 256 * 1024), regions_, 2), 2u);
  EXPECT_EQ(kernel_bands(conv(2, 0), regions_, 2), 2u);
}

TEST_F(KernelBands, OneBandWhenTwoRegionsShareTheHostBuffer) {
  regions_[2] = regions_[1];
  EXPECT_EQ(kernel_bands(conv(2, 0), regions_, 2), 1u);
  EXPECT_EQ(kernel_bands(conv(2, 256 * 1024), regions_, 2), 2u);
}

TEST_F(KernelBands, OneBandWhenTheOfmOverlapsIfm2) {
  // An ADD of two 64 x 128 x 256 maps (2 M element steps), the OFM over IFM2.
  Operation op;
  op.kind = OpKind::ELEMENTWISE;
  op.elementwise_mode = isa::enums::elementwise_mode::ADD;
  op.ifm = feature_map(1, 0, 64, 128, 256);
  op.ifm2 = feature_map(2, 0, 64, 128, 256);
  op.ofm = feature_map(2, 0, 64, 128, 256);
  ASSERT_TRUE(op.reads_ifm2());
  EXPECT_EQ(kernel_bands(op, regions_, 2), 1u);
  op.ifm2 = feature_map(1, 2 << 20, 64, 128, 256);
  EXPECT_EQ(kernel_bands(op, regions_, 2), 2u);
}

}  // namespace
}  // namespace ethosu::kernels
