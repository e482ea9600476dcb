// The bytes of an OFM tile of 8-bit feature maps moved between the maps and a dense buffer by spans of
// contiguous pixels: for the 1x1 pooling windows and elementwise operations that are byte tables or copies.
#pragma once

#include <algorithm>
#include <cstddef>

#include "models/kernels/feature_map.h"

namespace ethosu::kernels {

// The block's bytes in a buffer laid out [row][channel run][pixel][channel in the run], the runs those contiguous in
// both maps (16-channel bricks if either is NHCWB16): for each row and run, spans of pixels in one tile of `f`
// are moved whole where the map's pixels follow each other, else pixel by pixel. OFM pixel (x, y) is the map's
// pixel ((x * step_x) >> shift, (y * step_y) >> shift).
class TileBytes {
 public:
  TileBytes(const OfmTile& b, bool bricks) : b_(b), bricks_(bricks), width_(b.x1 - b.x0), depth_(b.c1 - b.c0) {}
  size_t size() const { return static_cast<size_t>(width_) * static_cast<size_t>(b_.y1 - b_.y0) * depth_; }

  // move(map bytes, buffer bytes, length) for every span.
  template <typename F>
  void spans(const FeatureMap& f, int step_x, int step_y, int shift, F&& move) const {
    const FeatureMapLayout& l = f.layout;
    for (int y = b_.y0; y < b_.y1; ++y) {
      const size_t row = static_cast<size_t>(y - b_.y0) * width_ * depth_;
      const int my = (y * step_y) >> shift;
      for (int c = b_.c0; c < b_.c1;) {
        const int run = bricks_ ? std::min(b_.c1 - c, 16 - c % 16) : b_.c1 - c;
        const size_t at = row + static_cast<size_t>(width_) * (c - b_.c0);
        const bool whole = step_x == 1 && shift == 0 && l.stride_x == run;
        for (int x = b_.x0; x < b_.x1;) {
          const int mx = (x * step_x) >> shift;
          // A span ends where the map's tile does (x = width0).
          const int end = whole ? (mx < l.width0 ? std::min(b_.x1, l.width0) : b_.x1) : x + 1;
          move(f.region + l.pixel_offset(mx, my) + l.channel_offset(c), at + static_cast<size_t>(x - b_.x0) * run,
               static_cast<size_t>(end - x) * run);
          x = end;
        }
        c += run;
      }
    }
  }

 private:
  OfmTile b_;
  bool bricks_;
  int width_, depth_;
};

}  // namespace ethosu::kernels
