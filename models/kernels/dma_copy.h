// The data movement of one DMA (spec 03 section 10), as the command controller's engine lands it.
#pragma once

#include <cstdint>

#include "isa/operation.h"

namespace ethosu::kernels {

// Byte offset of row r of plane p on one side of d, relative to that side's address: a 1D side is
// contiguous; a 2D side places rows LEN + SKIP0 apart; a 3D side places planes (LEN + SKIP0) * SIZE0 +
// SKIP1 apart.
int64_t dma_row_offset(const isa::Dma& d, const isa::DmaEndpoint& side, uint64_t plane, uint64_t row);

// Copies every row of d from src_base + d.src.address to dst_base + d.dst.address. The caller has
// checked both sides' spans (isa::dma_span) against its buffers. Source and destination may overlap:
// the whole source span is read before anything is written, as a DMA reading ahead of its writes
// would see it.
void copy_dma(const isa::Dma& d, const uint8_t* src_base, uint8_t* dst_base);

}  // namespace ethosu::kernels
