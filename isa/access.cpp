#include "isa/access.h"

namespace ethosu::isa {

bool is_write(Access a) { return a == Access::OFM || a == Access::DMA_DST; }

}  // namespace ethosu::isa

namespace ethosu_sim {

namespace {

struct AccessNames {
  const char* name;
  const char* key;
};

constexpr AccessNames kNames[kAccessCount] = {
    {"IFM", "ifm"},         {"IFM2", "ifm2"},       {"OFM", "ofm"},         {"weights", "weights"},
    {"scales", "scales"},   {"DMA-src", "dma_src"}, {"DMA-dst", "dma_dst"}, {"command", "cmd"},
};

}  // namespace

const char* access_name(Access a) { return static_cast<size_t>(a) < kAccessCount ? kNames[static_cast<size_t>(a)].name : "?"; }
const char* access_key(Access a) { return static_cast<size_t>(a) < kAccessCount ? kNames[static_cast<size_t>(a)].key : "?"; }

}  // namespace ethosu_sim
