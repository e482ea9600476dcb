// Test helper: small NPU command streams in the project's assembler text, and weight streams for them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ethosu::npu::test {

inline const std::string kStop = "NPU_OP_STOP mask=0xffff\n";

// An Ethos-U85 stream: a 2x2 stride-2 MAX pool, 4x4x16 int8 to 2x2x16, in region 1 (the IFM at 0x100, the OFM at 0),
// as Vela 5.1 writes one.
inline const std::string kU85MaxPool2x2 = R"(.isa 2
NPU_SET_IFM_PRECISION activation_type=SIGNED activation_precision=B8 activation_format=NHWC activation_storage=TILE2X2
NPU_SET_IFM_REGION region=1
NPU_SET_IFM_BASE0 addr=0x100
NPU_SET_IFM_HEIGHT0_M1 height_m1=3
NPU_SET_IFM_HEIGHT1_M1 height_m1=3
NPU_SET_IFM_WIDTH0_M1 width_m1=3
NPU_SET_IFM_DEPTH_M1 depth_m1=15
NPU_SET_IFM_STRIDE_Y stride=64
NPU_SET_IFM_STRIDE_X stride=16
NPU_SET_IFM_STRIDE_C stride=1
NPU_SET_IFM_PAD_TOP pad=0
NPU_SET_IFM_PAD_LEFT pad=0
NPU_SET_IFM_PAD_BOTTOM pad=0
NPU_SET_IFM_PAD_RIGHT pad=0
NPU_SET_OFM_PRECISION activation_type=SIGNED activation_precision=B8 activation_format=NHWC scale_mode=GLOBAL activation_storage=TILE2X2
NPU_SET_OFM_REGION region=1
NPU_SET_OFM_BASE0 addr=0x0
NPU_SET_OFM_HEIGHT_M1 height_m1=1
NPU_SET_OFM_WIDTH_M1 width_m1=1
NPU_SET_OFM_DEPTH_M1 depth_m1=15
NPU_SET_OFM_HEIGHT0_M1 height_m1=1
NPU_SET_OFM_HEIGHT1_M1 height_m1=1
NPU_SET_OFM_WIDTH0_M1 width_m1=1
NPU_SET_OFM_STRIDE_Y stride=32
NPU_SET_OFM_STRIDE_X stride=16
NPU_SET_OFM_STRIDE_C stride=1
NPU_SET_KERNEL_HEIGHT_M1 height_m1=1
NPU_SET_KERNEL_WIDTH_M1 width_m1=1
NPU_SET_KERNEL_STRIDE stride_x_lsb=1 stride_y_lsb=1
NPU_SET_ACTIVATION_MIN clip_boundary=-128
NPU_SET_ACTIVATION_MAX clip_boundary=127
NPU_SET_OFM_SCALE shift=0 scale=1
NPU_SET_OFM_BLK_HEIGHT_M1 height_m1=1
NPU_SET_OFM_BLK_WIDTH_M1 width_m1=1
NPU_SET_OFM_BLK_DEPTH_M1 depth_m1=15
NPU_SET_ACC_FORMAT acc_format=I32 acc_input=RESET acc_output=ENABLE microblock=U1X2
NPU_OP_POOL pooling_mode=MAX
NPU_OP_STOP mask=0
)";

// An uncompressed weight stream of n zero weights: one slice (ZDIV 6 = no zero runs, WDIV 7 =
// uncompressed, a new empty palette with 2-bit direct codes), then the end marker, padded with 0xFF to
// 16 bytes (spec 04 sections 2.2-2.7).
inline std::vector<uint8_t> zero_weights(unsigned n) {
  std::vector<uint8_t> out;
  uint64_t acc = 0;
  unsigned bits = 0;
  auto put = [&](uint64_t v, unsigned width) {
    for (unsigned i = 0; i < width; ++i) {
      acc |= ((v >> i) & 1) << bits;
      if (++bits == 8) {
        out.push_back(static_cast<uint8_t>(acc));
        acc = bits = 0;
      }
    }
  };
  put(6, 3);      // ZDIV: no zero runs
  put(n - 1, 15); // SLICELEN
  put(7, 3);      // WDIV: uncompressed
  put(0, 1);      // WTRUNC
  put(1, 1);      // NEWPAL
  put(0, 5);      // DIROFS
  put(0, 5);      // PALSIZE: no palette
  put(0, 3);      // PALBITS: 2-bit codes
  for (unsigned i = 0; i < n; ++i) put(0, 2);
  put(7, 3);      // end of stream
  while (bits) put(1, 1);
  while (out.size() % 16) out.push_back(0xFF);
  return out;
}

// A 1x1 CONV, 8x8x16 -> 8x8x16 int8 NHWC, one 8x8x16 OFM tile, everything in region 1 (SRAM/AXI0):
// IFM at 0, OFM at 0x800, scales (16 x 10 B) at 0x1000, weights at 0x1100.
inline std::string conv_1x1(uint32_t weight_length) {
  return "NPU_SET_IFM_REGION region=1\nNPU_SET_IFM_HEIGHT0_M1 height_m1=7\nNPU_SET_IFM_HEIGHT1_M1 height_m1=7\n"
         "NPU_SET_IFM_WIDTH0_M1 width_m1=7\nNPU_SET_IFM_DEPTH_M1 depth_m1=15\n"
         "NPU_SET_IFM_PRECISION activation_type=SIGNED\n"
         "NPU_SET_IFM_STRIDE_X stride=16\nNPU_SET_IFM_STRIDE_Y stride=128\nNPU_SET_IFM_STRIDE_C stride=1\n"
         "NPU_SET_OFM_REGION region=1\nNPU_SET_OFM_BASE0 addr=0x800\n"
         "NPU_SET_OFM_HEIGHT0_M1 height_m1=7\nNPU_SET_OFM_HEIGHT1_M1 height_m1=7\nNPU_SET_OFM_WIDTH0_M1 width_m1=7\n"
         "NPU_SET_OFM_HEIGHT_M1 height_m1=7\nNPU_SET_OFM_WIDTH_M1 width_m1=7\nNPU_SET_OFM_DEPTH_M1 depth_m1=15\n"
         "NPU_SET_OFM_PRECISION activation_type=SIGNED scale_mode=PER_CHANNEL\n"
         "NPU_SET_OFM_STRIDE_X stride=16\nNPU_SET_OFM_STRIDE_Y stride=128\nNPU_SET_OFM_STRIDE_C stride=1\n"
         "NPU_SET_OFM_BLK_HEIGHT_M1 height_m1=7\nNPU_SET_OFM_BLK_WIDTH_M1 width_m1=7\n"
         "NPU_SET_OFM_BLK_DEPTH_M1 depth_m1=15\n"
         "NPU_SET_WEIGHT_REGION region=1\nNPU_SET_WEIGHT_BASE addr=0x1100\nNPU_SET_WEIGHT_LENGTH length=" +
         std::to_string(weight_length) +
         "\nNPU_SET_SCALE_REGION region=1\nNPU_SET_SCALE_BASE addr=0x1000\nNPU_SET_SCALE_LENGTH length=160\n"
         "NPU_SET_ACTIVATION_MIN clip_boundary=-128\nNPU_SET_ACTIVATION_MAX clip_boundary=127\n";
}

// A MAX pool, 1x1 kernel, H x W x 16 int8 with W-wide rows, OFM tiles of block_w columns: IFM at
// `ifm` of region `in`, OFM at `ofm` of region `out`.
inline std::string pool(unsigned h, unsigned w, unsigned block_w, unsigned in, uint32_t ifm, unsigned out, uint32_t ofm) {
  const std::string row = std::to_string(16 * w), hm1 = std::to_string(h - 1), wm1 = std::to_string(w - 1);
  return "NPU_SET_IFM_REGION region=" + std::to_string(in) + "\nNPU_SET_IFM_BASE0 addr=" + std::to_string(ifm) +
         "\nNPU_SET_IFM_HEIGHT0_M1 height_m1=" + hm1 + "\nNPU_SET_IFM_HEIGHT1_M1 height_m1=" + hm1 +
         "\nNPU_SET_IFM_WIDTH0_M1 width_m1=" + wm1 +
         "\nNPU_SET_IFM_DEPTH_M1 depth_m1=15\nNPU_SET_IFM_PRECISION activation_type=SIGNED\n"
         "NPU_SET_IFM_STRIDE_X stride=16\nNPU_SET_IFM_STRIDE_Y stride=" + row +
         "\nNPU_SET_IFM_STRIDE_C stride=1\n"
         "NPU_SET_OFM_REGION region=" + std::to_string(out) + "\nNPU_SET_OFM_BASE0 addr=" + std::to_string(ofm) +
         "\nNPU_SET_OFM_HEIGHT0_M1 height_m1=" + hm1 + "\nNPU_SET_OFM_HEIGHT1_M1 height_m1=" + hm1 +
         "\nNPU_SET_OFM_WIDTH0_M1 width_m1=" + wm1 + "\nNPU_SET_OFM_HEIGHT_M1 height_m1=" + hm1 +
         "\nNPU_SET_OFM_WIDTH_M1 width_m1=" + wm1 +
         "\nNPU_SET_OFM_DEPTH_M1 depth_m1=15\nNPU_SET_OFM_PRECISION activation_type=SIGNED\n"
         "NPU_SET_OFM_STRIDE_X stride=16\nNPU_SET_OFM_STRIDE_Y stride=" + row +
         "\nNPU_SET_OFM_STRIDE_C stride=1\n"
         "NPU_SET_OFM_BLK_HEIGHT_M1 height_m1=" + hm1 + "\nNPU_SET_OFM_BLK_WIDTH_M1 width_m1=" +
         std::to_string(block_w - 1) +
         "\nNPU_SET_OFM_BLK_DEPTH_M1 depth_m1=15\n"
         "NPU_SET_ACTIVATION_MIN clip_boundary=-128\nNPU_SET_ACTIVATION_MAX clip_boundary=127\n";
}

}  // namespace ethosu::npu::test
