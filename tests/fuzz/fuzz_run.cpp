// libFuzzer target: any command stream through the command controller's engine on the functional model's
// timeline (no time), which must neither touch memory
// outside the region buffers (ASan sees each region as its own exactly sized allocation) nor hang.
//
// Input: the bytes are the stream, run with all eight regions 64 KiB on the U65-256, so the corpus
// streams are seeds as they are. An input that starts with "FZRN" carries a header instead:
//   byte 4         the configuration, as an index into isa::variants() (modulo their number: U55, U65, U85)
//   bytes 5..7     eight 3-bit region-size codes, region r in bits 3r..3r+2: 0 = unmapped, k = 2^(9+k)
//                  bytes (1 KiB .. 64 KiB)
// and the stream follows. Regions are filled with a fixed pattern, so every run is reproducible.
//
// Work bound: the engine's own Limits, set low here, refuse operations before they run (a LIMIT fault),
// rather than the fuzzer skipping inputs: the cost estimate the engine uses is then exercised too, and
// an estimate that undercounts shows up as a slow input (-timeout) instead of being hidden.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "isa/decoder.h"
#include "isa/architecture.h"
#include "models/npu/cc/engine.h"
#include "tests/fuzz/fuzz_defaults.h"

namespace cc = ethosu::cc;

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  ethosu::fuzz::default_max_len(argc, argv, 4096);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto variant = ethosu::isa::Variant::U65_256;
  uint32_t size_codes = 07777777;  // every region 64 KiB
  if (size >= 8 && std::memcmp(data, "FZRN", 4) == 0) {
    const auto& variants = ethosu::isa::variants();
    variant = variants[data[4] % variants.size()];
    size_codes = uint32_t{data[5]} | (uint32_t{data[6]} << 8) | (uint32_t{data[7]} << 16);
    data += 8;
    size -= 8;
  }
  // Region r holds pattern bytes from r * 17 on; built once, copied into exactly sized buffers per run.
  static const std::vector<uint8_t> pattern = [] {
    std::vector<uint8_t> p((size_t{1} << 16) + 8 * 17);
    for (size_t i = 0; i < p.size(); ++i) p[i] = static_cast<uint8_t>(i * 31 + 7);
    return p;
  }();
  std::vector<std::vector<uint8_t>> buffers(8);
  cc::Regions regions{};
  for (unsigned r = 0; r < 8; ++r) {
    const unsigned code = (size_codes >> (3 * r)) & 7;
    if (code == 0) continue;
    const auto from = pattern.begin() + 17 * r;
    buffers[r].assign(from, from + (std::ptrdiff_t{1} << (9 + code)));
    regions[r] = {buffers[r].data(), buffers[r].size()};
  }
  // A few million element steps per input keep each run in milliseconds, even under ASan.
  cc::EngineConfig config;
  config.variant = variant;
  config.limits.work = uint64_t{1} << 22;
  config.limits.buffer_elements = uint64_t{1} << 18;
  const auto vi = ethosu::isa::architecture(variant);
  cc::ShramBanks shram(vi.cores, std::vector<uint8_t>(vi.internal_memory_bytes()));
  cc::NoTime no_time;
  (void)cc::Engine::run(ethosu::isa::decode(data, size, vi), regions, shram, config, no_time);
  return 0;
}
