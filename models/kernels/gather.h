// Kernel geometry (§3.1, §3.4) and the gather that copies the IFM window an OFM tile needs into a
// dense local buffer, once per block.
//
// Contract of gather_ifm(): the buffer is [rows][cols][channel_stride] of T, in upscaled IFM space starting at
// (ux0, uy0), holding IFM(x, y, c0 + k) - zero_point for k < channels. Positions outside the IFM
// (padding) hold `pad_fill`; the zeros inserted by ZEROS upscaling and the channels from `channels`
// to `channel_stride` hold 0.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "models/kernels/feature_map.h"
#include "models/kernels/simd_loops.h"

namespace ethosu::kernels {

enum class Upscale : uint8_t { None, Nearest, Zeros };

struct KernelGeometry {
  int width = 1, height = 1;  // taps, undilated (KW = KERNEL_WIDTH_M1 / dilation + 1)
  int stride_x = 1, stride_y = 1;
  int dilation_x = 1, dilation_y = 1;
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  Upscale upscale = Upscale::None;
};

// The IFM extent implied by the OFM extent along one axis (§3.1), in upscaled space.
inline int implied_ifm_extent(int ofm, int stride, int taps, int dilation, int pad_before, int pad_after) {
  return (ofm - 1) * stride + (taps - 1) * dilation + 1 - pad_before - pad_after;
}

struct IfmWindow {
  int ux0 = 0, uy0 = 0, cols = 0, rows = 0;  // upscaled coordinates of the window
  int c0 = 0, channels = 0, channel_stride = 0;
  int width = 0, height = 0;  // upscaled IFM extent (§3.1)
  Upscale upscale = Upscale::None;
};

// The window of the IFM that OFM tile b reads, for channels [c0, c0 + channels).
inline IfmWindow tile_window(const KernelGeometry& k, int ofm_width, int ofm_height, const OfmTile& b, int c0,
                              int channels, int channel_stride) {
  IfmWindow w;
  w.ux0 = b.x0 * k.stride_x - k.pad_left;
  w.uy0 = b.y0 * k.stride_y - k.pad_top;
  w.cols = (b.x1 - b.x0 - 1) * k.stride_x + (k.width - 1) * k.dilation_x + 1;
  w.rows = (b.y1 - b.y0 - 1) * k.stride_y + (k.height - 1) * k.dilation_y + 1;
  w.c0 = c0, w.channels = channels, w.channel_stride = channel_stride;
  w.width = implied_ifm_extent(ofm_width, k.stride_x, k.width, k.dilation_x, k.pad_left, k.pad_right);
  w.height = implied_ifm_extent(ofm_height, k.stride_y, k.height, k.dilation_y, k.pad_top, k.pad_bottom);
  w.upscale = k.upscale;
  return w;
}

// Element offsets of each kernel tap (row-major ky, kx) inside a gathered buffer.
inline void tap_offsets(const KernelGeometry& k, int cols, int channel_stride, std::vector<int32_t>& taps) {
  taps.clear();
  for (int ky = 0; ky < k.height; ++ky)
    for (int kx = 0; kx < k.width; ++kx) taps.push_back((ky * k.dilation_y * cols + kx * k.dilation_x) * channel_stride);
}

namespace detail {

// read_channels() in int64 whatever the type.
template <DataType DT, typename T>
void read_channels_wide(const uint8_t* region, const FeatureMapLayout& l, int x, int y, int c0, int n, int32_t zp,
                        T* dst) {
  for (int c = 0; c < n; ++c)
    dst[c] = static_cast<T>(int64_t{load_element(region + l.byte_offset(x, y, c0 + c), DT)} - zp);
}

template <DataType DT, typename T>
void read_channels(const uint8_t* region, const FeatureMapLayout& l, int x, int y, int c0, int n, int32_t zp,
                   T* dst) {
  constexpr int es = element_size_bytes(DT);
  // Narrow types minus a 16-bit zero point (the register's width) fit int32: plain loops that vectorise.
  if (es < 4 && (zp < -65536 || zp > 65536)) {
    read_channels_wide<DT>(region, l, x, y, c0, n, zp, dst);
    return;
  }
  using Wide = std::conditional_t<(es < 4), int32_t, int64_t>;
  const int64_t pix = l.pixel_offset(x, y);
  int c = 0;
  while (c < n) {
    // Runs of channels that are contiguous in memory: the whole pixel (NHWC) or one brick.
    const int cc = c0 + c;
    const int run = l.layout == Layout::NHWC ? n - c : std::min(n - c, 16 - cc % 16);
    const uint8_t* p = region + pix + l.channel_offset(cc);
    T* d = dst + c;
    if constexpr (DT == DataType::UInt8) {
      for (int k = 0; k < run; ++k) d[k] = static_cast<T>(Wide{p[k]} - zp);
    } else if constexpr (DT == DataType::Int8) {
      for (int k = 0; k < run; ++k) d[k] = static_cast<T>(Wide{static_cast<int8_t>(p[k])} - zp);
    } else {
      for (int k = 0; k < run; ++k) d[k] = static_cast<T>(Wide{load_element(p + k * es, DT)} - zp);
    }
    c += run;
  }
}

// Pixels [x, x + count) of row y, which lie in one tile, channels [c0, c0 + n) minus the zero point into dst (pixel
// k at dst + k * pixel_stride): 8-bit types, by runs contiguous in memory, in SIMD. As int16, or as bytes modulo 256
// for the 8-bit micro-kernels (for an int8 map and zero point -128, the value plus 128: an unsigned byte).
template <typename T>
void read_pixels_8bit(const uint8_t* region, const FeatureMapLayout& l, int x, int y, int count, int c0, int n,
                      int32_t zp, T* dst, ptrdiff_t pixel_stride) {
  static_assert(std::is_same_v<T, int16_t> || std::is_same_v<T, uint8_t>);
  const uint8_t* pix = region + l.pixel_offset(x, y);
  // Groups of `length` elements from src into dst.
  const auto read = [&](const uint8_t* src, ptrdiff_t src_stride, T* to, ptrdiff_t to_stride, int groups, int length) {
    if constexpr (std::is_same_v<T, int16_t>)
      widen_8bit(src, src_stride, l.type == DataType::Int8, zp, to, to_stride, groups, length);
    else
      offset_bytes(src, src_stride, static_cast<uint8_t>(-zp), to, to_stride, groups, length);
  };
  for (int c = 0; c < n;) {
    const int cc = c0 + c;
    const int run = l.layout == Layout::NHWC ? n - c : std::min(n - c, 16 - cc % 16);
    const uint8_t* src = pix + l.channel_offset(cc);
    if (l.stride_x == run && pixel_stride == run)  // the pixels follow each other on both sides: one run
      read(src, 0, dst + c, 0, 1, count * run);
    else
      read(src, l.stride_x, dst + c, pixel_stride, count, run);
    c += run;
  }
}

// `count` pixels of the buffer, `cs` elements apart: the first `channels` of each hold `fill`, the rest 0.
template <typename T>
void fill_pixels(T* dst, int count, int channels, int cs, T fill) {
  if (fill == T{0} || channels == cs) {
    std::fill(dst, dst + static_cast<size_t>(count) * static_cast<size_t>(cs), fill);  // no tail, or a tail of 0
    return;
  }
  for (int k = 0; k < count; ++k, dst += cs) {
    std::fill(dst, dst + channels, fill);
    std::fill(dst + channels, dst + cs, T{0});
  }
}

template <DataType DT, typename T>
void gather_typed(const FeatureMap& ifm, int32_t zero_point, const IfmWindow& w, T pad_fill, std::vector<T>& buf) {
  const int cs = w.channel_stride;
  // Grown, never shrunk, and not filled first: every position is written below, channels past `channels` too.
  const size_t need = static_cast<size_t>(w.rows) * static_cast<size_t>(w.cols) * static_cast<size_t>(cs);
  if (buf.size() < need) buf.resize(need);
  const FeatureMapLayout& l = ifm.layout;
  // 8-bit values into int16 or bytes go by runs of pixels in SIMD; other types and upscaling pixel by pixel.
  constexpr bool kRuns = element_size_bytes(DT) == 1 && (std::is_same_v<T, int16_t> || std::is_same_v<T, uint8_t>);
  // The window's columns inside the IFM.
  const int col_lo = std::clamp(-w.ux0, 0, w.cols), col_hi = std::clamp(w.width - w.ux0, col_lo, w.cols);
  for (int r = 0; r < w.rows; ++r) {
    const int uy = w.uy0 + r;
    T* row = buf.data() + static_cast<size_t>(r) * static_cast<size_t>(w.cols) * static_cast<size_t>(cs);
    if (uy < 0 || uy >= w.height) {
      fill_pixels(row, w.cols, w.channels, cs, pad_fill);
      continue;
    }
    fill_pixels(row, col_lo, w.channels, cs, pad_fill);
    fill_pixels(row + static_cast<size_t>(col_hi) * cs, w.cols - col_hi, w.channels, cs, pad_fill);
    if (w.upscale == Upscale::Zeros && (uy & 1)) {  // a row of inserted zero points
      fill_pixels(row + static_cast<size_t>(col_lo) * cs, col_hi - col_lo, w.channels, cs, T{0});
      continue;
    }
    if constexpr (kRuns) {
      if (w.upscale == Upscale::None) {
        // Split where the columns change tile.
        for (int col = col_lo; col < col_hi;) {
          const int ux = w.ux0 + col;
          const int end = ux < l.width0 ? std::min(col_hi, l.width0 - w.ux0) : col_hi;
          T* dst = row + static_cast<size_t>(col) * cs;
          // Channels past `channels`: the run zeroed in one fill, of which the read overwrites the channels
          // (it writes exactly those), rather than one small fill per pixel.
          if (cs > w.channels) std::fill(dst, dst + static_cast<size_t>(end - col) * cs, T{0});
          read_pixels_8bit(ifm.region, l, ux, uy, end - col, w.c0, w.channels, zero_point, dst, cs);
          col = end;
        }
        continue;
      }
    }
    for (int col = col_lo; col < col_hi; ++col) {
      const int ux = w.ux0 + col;
      T* dst = row + static_cast<size_t>(col) * static_cast<size_t>(cs);
      std::fill(dst + w.channels, dst + cs, T{0});
      int x = ux, y = uy;
      if (w.upscale != Upscale::None) {
        if (w.upscale == Upscale::Zeros && (ux & 1)) {  // inserted zero point
          std::fill(dst, dst + w.channels, T{0});
          continue;
        }
        x = ux >> 1, y = uy >> 1;
      }
      read_channels<DT>(ifm.region, l, x, y, w.c0, w.channels, zero_point, dst);
    }
  }
}

}  // namespace detail

template <typename T>
void gather_ifm(const FeatureMap& ifm, int32_t zero_point, const IfmWindow& w, T pad_fill, std::vector<T>& buf) {
  switch (ifm.layout.type) {
    case DataType::UInt8: detail::gather_typed<DataType::UInt8>(ifm, zero_point, w, pad_fill, buf); break;
    case DataType::Int8: detail::gather_typed<DataType::Int8>(ifm, zero_point, w, pad_fill, buf); break;
    case DataType::UInt16: detail::gather_typed<DataType::UInt16>(ifm, zero_point, w, pad_fill, buf); break;
    case DataType::Int16: detail::gather_typed<DataType::Int16>(ifm, zero_point, w, pad_fill, buf); break;
    case DataType::Int32: detail::gather_typed<DataType::Int32>(ifm, zero_point, w, pad_fill, buf); break;
  }
}

}  // namespace ethosu::kernels
