#include "models/npu/npu_config.h"

#include <cmath>

#include "sim/error.h"
#include "sim/params.h"

namespace ethosu::npu {

NpuConfig npu_config(isa::Variant v) {
  NpuConfig c;
  c.variant = v;
  const isa::VariantInfo vi = isa::variant_info(v);
  c.cores = vi.cores;
  c.shram.bytes_per_core = vi.shram_bytes();
  return c;
}

void declare_parameters(sim::Config& config, const NpuConfig& defaults) {
  config.declare_string("npu.variant", isa::variant_name(defaults.variant),
                        "NPU configuration (the i.MX 93 has the 256-MAC U65)",
                        {isa::variant_name(isa::Variant::U65_256), isa::variant_name(isa::Variant::U65_512)});
  config.declare_int("system.clock_hz", std::llround(defaults.clock_hz), "Hz", "NPU core clock", 1, 100000000000);
  sim::declare_fields(config, "", defaults);
}

NpuConfig read_config(const sim::Config& config) {
  NpuConfig c;
  const auto variant = isa::parse_variant(config.param("npu.variant").as_string());
  if (!variant) throw InputError("unknown NPU variant '" + config.param("npu.variant").as_string() + "'");
  c.variant = *variant;
  c.clock_hz = config.param("system.clock_hz").as_double();
  sim::read_fields(config, "", c);
  c.mac.ublock();  // a width the array has no micro-block for is refused here, not mid-job
  return c;
}

}  // namespace ethosu::npu
