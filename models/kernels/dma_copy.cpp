#include "models/kernels/dma_copy.h"

#include <cstring>
#include <vector>

namespace ethosu::kernels {

int64_t dma_row_offset(const isa::Dma& d, const isa::DmaEndpoint& e, uint64_t p, uint64_t r) {
  using Mode = isa::enums::dma_stride_mode;
  if (e.stride_mode == Mode::D1) return static_cast<int64_t>((p * d.rows() + r) * d.length_bytes);
  const int64_t row_pitch = static_cast<int64_t>(d.length_bytes) + d.skip0;
  const int64_t plane_pitch = e.stride_mode == Mode::D3 ? row_pitch * static_cast<int64_t>(d.size0) + d.skip1
                                                        : row_pitch * static_cast<int64_t>(d.rows());
  return static_cast<int64_t>(p) * plane_pitch + static_cast<int64_t>(r) * row_pitch;
}

void copy_dma(const isa::Dma& d, const uint8_t* src_base, uint8_t* dst_base) {
  const isa::Span src = isa::dma_span(d, d.src);
  if (src.empty() || d.length_bytes == 0) return;
  // Snapshot the source span (absolute offsets) so overlapping source and destination behave like a
  // read-ahead DMA.
  const std::vector<uint8_t> snapshot(src_base + src.lo, src_base + src.hi);
  const auto src_address = static_cast<int64_t>(d.src.address);
  uint8_t* dst_origin = dst_base + d.dst.address;
  for (uint64_t p = 0; p < d.planes(); ++p)
    for (uint64_t r = 0; r < d.rows(); ++r)
      std::memcpy(dst_origin + dma_row_offset(d, d.dst, p, r),
                  snapshot.data() + (src_address + dma_row_offset(d, d.src, p, r) - src.lo), d.length_bytes);
}

}  // namespace ethosu::kernels
