// Helpers shared by the kernel unit tests: feature maps in a byte vector, random data, and a
// straightforward reading of IFM values in upscaled space (spec 03 §2, §3).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "models/kernels/feature_map.h"
#include "models/kernels/gather.h"

namespace ethosu::kernels::test {

// A feature map of W x H x C in its own region, default (Vela) strides. `tiled` splits it into the
// four tiles of §2.1, each tile stored as a separate full-size array at a distinct base.
struct TestMap {
  std::vector<uint8_t> bytes;
  FeatureMapLayout layout;
  int w = 0, h = 0, c = 0;

  TestMap(int width, int height, int depth, DataType t, Layout l, bool tiled = false, uint64_t first_base = 32)
      : w(width), h(height), c(depth) {
    layout.type = t;
    layout.layout = l;
    const int es = element_size_bytes(t);
    const int cpad = (depth + 15) / 16 * 16;
    if (l == Layout::NHWC) {
      layout.stride_c = es, layout.stride_x = int64_t{depth} * es, layout.stride_y = int64_t{width} * depth * es;
    } else {
      layout.stride_c = int64_t{16} * es * width, layout.stride_x = 16 * es, layout.stride_y = int64_t{width} * cpad * es;
    }
    const uint64_t size = static_cast<uint64_t>(height) * layout.stride_y + 64;
    layout.width0 = tiled ? std::max(1, width / 2) : width;
    layout.height0 = tiled ? std::max(1, height / 2) : height;
    layout.height1 = tiled ? std::max(1, (height + 1) / 2) : height;
    for (int i = 0; i < 4; ++i) layout.base[i] = tiled ? first_base + i * size : (i == 0 ? first_base : 0);
    bytes.assign(first_base + 4 * size + 64, 0xA5);
  }
  FeatureMap view() { return FeatureMap{bytes.data(), layout}; }
  int32_t get(int x, int y, int ch) const { return load_element(bytes.data() + layout.byte_offset(x, y, ch), layout.type); }
  void set(int x, int y, int ch, int32_t v) { store_element(bytes.data() + layout.byte_offset(x, y, ch), layout.type, v); }
  void randomize(std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> d(type_min(layout.type), type_max(layout.type));
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int ch = 0; ch < c; ++ch) set(x, y, ch, static_cast<int32_t>(d(rng)));
  }
};

// IFM value at upscaled position (ux, uy) minus the zero point; `inside` tells padding apart.
inline int64_t upscaled_value(const TestMap& m, Upscale up, int up_w, int up_h, int ux, int uy, int ch, int32_t zp,
                              bool& inside) {
  inside = ux >= 0 && uy >= 0 && ux < up_w && uy < up_h;
  if (!inside) return 0;
  if (up == Upscale::None) return int64_t{m.get(ux, uy, ch)} - zp;
  if (up == Upscale::Zeros && (ux % 2 || uy % 2)) return 0;
  return int64_t{m.get(ux / 2, uy / 2, ch)} - zp;
}

}  // namespace ethosu::kernels::test
