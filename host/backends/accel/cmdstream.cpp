#include "host/backends/accel/cmdstream.h"

#include <algorithm>

#include "isa/decoder.h"

namespace ethosu::accel {

std::optional<ValidatedStream> validate_cmdstream(const uint8_t* data, size_t size_bytes, isa::Variant variant,
                                                  std::string& reason) {
  ValidatedStream v;
  v.bytes.assign(data, data + size_bytes / 4 * 4);
  const isa::Stream stream = isa::decode(v.bytes, isa::architecture(variant).isa);
  isa::ValidatorOptions options;
  options.variant = variant;
  const isa::Report report = isa::validate(stream, options);
  for (const isa::Finding& f : report.findings) {
    // The hardened kernel rejects registers read before being written; the validator marks those as
    // warnings (the NPU itself reads 0), every other Linux rejection as an error.
    if (f.category == isa::Category::LINUX) {
      reason = f.message;
      return std::nullopt;
    }
  }
  // A U65 stream may run on either core of a U65-512: what both cores reach is copied.
  isa::ValidatorOptions both_cores;
  both_cores.variant = isa::most_cores(variant);
  const isa::Report reach = variant == both_cores.variant ? report : isa::validate(stream, both_cores);
  const auto end = [](const isa::Extent& e) { return e.used && e.end > 0 ? static_cast<uint64_t>(e.end) : 0; };
  for (unsigned r = 0; r < isa::kRegionCount; ++r) {
    v.region_size_bytes[r] = end(report.region_extent(r));
    v.copy_bytes[r] = std::max(v.region_size_bytes[r], end(reach.region_extent(r)));
    const isa::Extent w = reach.writes(r);
    if (end(w)) v.written[r] = {static_cast<uint64_t>(std::max<int64_t>(w.lowest, 0)), end(w)};
  }
  return v;
}

}  // namespace ethosu::accel
