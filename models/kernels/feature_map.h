// Feature-map element types and the byte-address rule of the spec (03-data-semantics.md §2).
//
// Contract: a FeatureMap is a view of region memory: `region` is the host pointer of the region's byte
// 0 (the caller resolves BASEP), `layout` places logical (x, y, c) inside it. Bounds are the caller's
// job. Values are little-endian, as the NPU stores them. byte_offset() is the rule of
// isa::element_offset() (isa/operation.h), which the validator's spans use, so the bytes a kernel
// touches are the bytes the caller checked.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "models/kernels/simd_loops.h"

namespace ethosu::kernels {

enum class DataType : uint8_t { UInt8, Int8, UInt16, Int16, Int32 };

constexpr int element_size_bytes(DataType t) {
  switch (t) {
    case DataType::UInt8:
    case DataType::Int8: return 1;
    case DataType::UInt16:
    case DataType::Int16: return 2;
    case DataType::Int32: return 4;
  }
  return 1;
}

constexpr int64_t type_min(DataType t) {
  switch (t) {
    case DataType::UInt8:
    case DataType::UInt16: return 0;
    case DataType::Int8: return -128;
    case DataType::Int16: return -32768;
    case DataType::Int32: return std::numeric_limits<int32_t>::min();
  }
  return 0;
}

constexpr int64_t type_max(DataType t) {
  switch (t) {
    case DataType::UInt8: return 255;
    case DataType::Int8: return 127;
    case DataType::UInt16: return 65535;
    case DataType::Int16: return 32767;
    case DataType::Int32: return std::numeric_limits<int32_t>::max();
  }
  return 0;
}

enum class Layout : uint8_t { NHWC, NHCWB16 };

// The IFM/IFM2/OFM addressing registers, in bytes and elements (not the *_M1 encodings).
struct FeatureMapLayout {
  std::array<uint64_t, 4> base{};  // BASE0..3: tile origins, bytes from the region start
  int32_t width0 = 1;              // tiles 0/2 are width0 wide; x >= width0 is in tile 1/3
  int32_t height0 = 1;             // tile 0 height; y >= height0 (x < width0) is in tile 2
  int32_t height1 = 1;             // tile 1 height; y >= height1 (x >= width0) is in tile 3
  int64_t stride_x = 0, stride_y = 0, stride_c = 0;  // bytes
  Layout layout = Layout::NHWC;
  DataType type = DataType::Int8;

  // Byte offset of (x, y, c = 0). Split from channel_offset() so loops over channels pay the tile
  // selection once per pixel.
  int64_t pixel_offset(int x, int y) const {
    int t = 0;
    if (x >= width0) {
      x -= width0;
      t = 1;
      if (y >= height1) {
        y -= height1;
        t = 3;
      }
    } else if (y >= height0) {
      y -= height0;
      t = 2;
    }
    // Both layouts step x by the programmed STRIDE_X: for NHCWB16 Vela programs one brick
    // (16 * esize), and custom strides are honoured as in every other register [I].
    return static_cast<int64_t>(base[t]) + int64_t{y} * stride_y + int64_t{x} * stride_x;
  }
  // NHWC steps channels by the element size; STRIDE_C is not used there (Vela always programs
  // esize, the hardware's use of it is unknown) [I].
  int64_t channel_offset(int c) const {
    const int es = element_size_bytes(type);
    if (layout == Layout::NHWC) return int64_t{c} * es;
    return int64_t{c / 16} * stride_c + int64_t{c % 16} * es;
  }
  int64_t byte_offset(int x, int y, int c) const { return pixel_offset(x, y) + channel_offset(c); }
};

struct FeatureMap {
  uint8_t* region = nullptr;  // host pointer of the region's byte 0
  FeatureMapLayout layout;
};

// Reads one element (little-endian), sign- or zero-extended.
inline int32_t load_element(const uint8_t* p, DataType t) {
  switch (t) {
    case DataType::UInt8: return p[0];
    case DataType::Int8: return static_cast<int8_t>(p[0]);
    case DataType::UInt16: return static_cast<int32_t>(p[0] | (p[1] << 8));
    case DataType::Int16: return static_cast<int16_t>(static_cast<uint16_t>(p[0] | (p[1] << 8)));
    case DataType::Int32:
      return static_cast<int32_t>(uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) |
                                  (uint32_t{p[3]} << 24));
  }
  return 0;
}

// Writes the low element_size bytes of v (v is already saturated to the type).
inline void store_element(uint8_t* p, DataType t, int32_t v) {
  const auto u = static_cast<uint32_t>(v);
  p[0] = static_cast<uint8_t>(u);
  if (t == DataType::UInt8 || t == DataType::Int8) return;
  p[1] = static_cast<uint8_t>(u >> 8);
  if (t != DataType::Int32) return;
  p[2] = static_cast<uint8_t>(u >> 16);
  p[3] = static_cast<uint8_t>(u >> 24);
}

// Writes channels [c0, c0 + n) of pixels [x, x + count) of row y, pixel k from v + k * v_stride (already
// saturated to the type), in SIMD by runs contiguous in memory: whole pixels (NHWC) or up to the end of a
// 16-channel brick.
inline void store_pixels(const FeatureMap& f, int x, int y, int count, int c0, int n, const int32_t* v,
                         ptrdiff_t v_stride) {
  const FeatureMapLayout& l = f.layout;
  const int es = element_size_bytes(l.type);
  while (count > 0) {
    // Pixels of one tile: the tiles change at x = width0.
    const int here = x < l.width0 ? std::min(count, l.width0 - x) : count;
    uint8_t* pix = f.region + l.pixel_offset(x, y);
    for (int c = 0; c < n;) {
      const int cc = c0 + c;
      const int run = l.layout == Layout::NHWC ? n - c : std::min(n - c, 16 - cc % 16);
      uint8_t* dst = pix + l.channel_offset(cc);
      if (l.stride_x == int64_t{run} * es && v_stride == run)  // the pixels follow each other on both sides
        narrow_store(v + c, 0, es, dst, 0, 1, here * run);
      else
        narrow_store(v + c, v_stride, es, dst, l.stride_x, here, run);
      c += run;
    }
    x += here;
    count -= here;
    v += here * v_stride;
  }
}

// Writes channels [c0, c0 + n) of pixel (x, y) from v (already saturated to the type).
inline void store_channels(const FeatureMap& f, int x, int y, int c0, int n, const int32_t* v) {
  store_pixels(f, x, y, 1, c0, n, v, n);
}

// An OFM tile: half-open ranges in OFM coordinates.
struct OfmTile {
  int x0 = 0, x1 = 0, y0 = 0, y1 = 0, c0 = 0, c1 = 0;
};

}  // namespace ethosu::kernels
