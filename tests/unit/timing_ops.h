// Hand-built kernel operations for the timing models' unit tests.
#pragma once

#include <cstdint>

#include "isa/operation.h"

namespace ethosu::npu::test {

inline isa::FeatureMap fm(uint32_t w, uint32_t h, uint32_t d, unsigned bits = 8, bool nhcwb16 = false) {
  namespace enums = isa::enums;
  isa::FeatureMap f;
  f.width = w;
  f.height = h;
  f.depth = d;
  f.element.type = enums::activation_type::SIGNED;
  f.element.precision = bits == 16 ? enums::activation_precision::B16 : enums::activation_precision::B8;
  f.element.format = nhcwb16 ? enums::activation_format::NHCWB16 : enums::activation_format::NHWC;
  const int64_t es = bits / 8;
  f.stride_x = nhcwb16 ? 16 * es : d * es;
  f.stride_c = nhcwb16 ? int64_t{w} * 16 * es : 0;
  f.stride_y = nhcwb16 ? int64_t{w} * ((d + 15) / 16) * 16 * es : int64_t{w} * d * es;
  return f;
}

// A kernel op with OFM w x h x d, IFM depth `in_d`, kernel k x k, stride s, padding p on every side.
inline isa::Operation kernel_op(isa::OpKind kind, uint32_t w, uint32_t h, uint32_t d, uint32_t in_d, uint32_t k,
                                uint32_t s, uint32_t p, isa::BlockConfig blk, unsigned bits = 8) {
  isa::Operation op;
  op.kind = kind;
  op.ofm = fm(w, h, d);
  op.kernel.width = op.kernel.height = op.kernel.dilated_width = op.kernel.dilated_height = k;
  op.kernel.stride_x = op.kernel.stride_y = s;
  op.padding = {p, p, p, p};
  op.ifm_upscaled_width = int64_t{w - 1} * s + k - 2 * p;
  op.ifm_upscaled_height = int64_t{h - 1} * s + k - 2 * p;
  op.ifm = fm(static_cast<uint32_t>(op.ifm_upscaled_width), static_cast<uint32_t>(op.ifm_upscaled_height), in_d, bits);
  op.block = blk;
  op.activation.min = -128;
  op.activation.max = 127;
  return op;
}

inline isa::Operation elementwise_add(uint32_t w, uint32_t h, uint32_t d) {
  isa::Operation op;
  op.kind = isa::OpKind::ELEMENTWISE;
  op.elementwise_mode = isa::enums::elementwise_mode::ADD;
  op.ofm = op.ifm = op.ifm2 = fm(w, h, d);
  op.ifm_upscaled_width = w;
  op.ifm_upscaled_height = h;
  op.block = {w, h, d};
  op.activation.min = -128;
  op.activation.max = 127;
  return op;
}

// The block at traversal index 0 of an op whose block config covers the whole OFM.
inline npu::OfmBox whole(const isa::Operation& op) { return {0, 0, 0, op.ofm.width, op.ofm.height, op.ofm.depth}; }

}  // namespace ethosu::npu::test
