#include "host/backends/accel/cmdstream.h"

#include <algorithm>

#include "isa/decoder.h"

namespace ethosu::accel {

std::optional<ValidatedStream> validate_cmdstream(const uint8_t* data, size_t size_bytes, isa::Variant variant,
                                                  std::string& reason) {
  ValidatedStream v;
  v.bytes.assign(data, data + size_bytes / 4 * 4);
  const isa::Stream stream = isa::decode(v.bytes);
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
  for (unsigned r = 0; r < isa::kRegionCount; ++r) {
    const isa::Extent e = report.region_extent(r);
    if (e.used && e.end > 0) v.region_size_bytes[r] = static_cast<uint64_t>(e.end);
    v.output_region[r] = report.writes(r).used;
  }
  return v;
}

}  // namespace ethosu::accel
