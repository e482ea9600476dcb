// The classes of memory traffic the NPU makes, one classification for the whole simulator: the validator's
// access extents, the fault channel, the AXI ports' traffic per client and the report's bytes per class.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ethosu::isa {

// The stream's own data accesses first (what the validator measures per region), then the command fetch.
enum class Access : uint8_t { IFM, IFM2, OFM, WEIGHTS, SCALES, DMA_SRC, DMA_DST, CMD };
inline constexpr size_t kAccessCount = 8;

const char* access_name(Access a);  // for people: "IFM", "weights", "DMA-src", "command"
const char* access_key(Access a);   // for reports and Python: "ifm", "weights", "dma_src", "cmd"
bool is_write(Access a);            // OFM, DMA_DST

}  // namespace ethosu::isa
