#include "models/npu/npu_config.h"

#include <algorithm>
#include <cmath>

#include "sim/error.h"
#include "sim/params.h"

namespace ethosu::npu {
namespace {

// What the configuration fixes that no parameter changes: the AXI data width and the AXI_LIMITn ranges, the read
// buffers per traffic class, the output unit's rates.
void apply_fixed(NpuConfig& c) {
  const isa::Architecture& a = isa::architecture(c.variant);
  const isa::Architecture::ReadBuffers& rb = a.read_buffer_words;
  for (axi::AxiPortParams& port : c.axi) {
    port.bus_bytes = a.axi_bytes_per_beat;
    // Vela's channels by traffic class: an IFM2 (elementwise, MatMul's matrix) streams, DMA reads are Mem2Mem.
    const auto bytes = [](unsigned words) { return words * 16; };
    port.read_buffer_bytes = {};
    port.read_buffer_bytes[static_cast<size_t>(isa::Access::IFM)] = bytes(rb.ifm);
    port.read_buffer_bytes[static_cast<size_t>(isa::Access::IFM2)] = bytes(rb.ifm_stream);
    port.read_buffer_bytes[static_cast<size_t>(isa::Access::WEIGHTS)] = bytes(rb.weights);
    port.read_buffer_bytes[static_cast<size_t>(isa::Access::SCALES)] = bytes(rb.scales);
    port.read_buffer_bytes[static_cast<size_t>(isa::Access::DMA_SRC)] = bytes(rb.mem2mem);
    for (axi::LimiterParams& l : port.limiters) {
      l.max_outstanding_reads = std::min(l.max_outstanding_reads, a.max_outstanding_reads);
      l.max_outstanding_writes = std::min(l.max_outstanding_writes, a.max_outstanding_writes);
    }
  }
  c.ao.output_cycles_per_element = a.output_cycles_per_element;
  c.ao.activation_cycles_per_element = a.activation_cycles_per_element;
  if (a.product == isa::Product::U85) {
    c.mac.u85 = MacTimingU85::of(a);
    c.ao.u85 = AoTimingU85::of(a);
    c.wd.u85 = WdTimingU85::of(a);
  }
}

}  // namespace

NpuConfig npu_config(isa::Variant v) {
  const isa::Architecture& a = isa::architecture(v);
  NpuConfig c;
  c.variant = v;
  c.cores = a.cores;
  c.mac = c.mac.with_macs_per_core(a.macs_per_core);
  c.shram.bytes_per_core = a.internal_memory_bytes();
  c.dma.queue_depth = a.dma_queue_depth;
  apply_fixed(c);
  return c;
}

NpuConfig with_variant(const NpuConfig& c, isa::Variant v) {
  if (c.variant == v) return c;
  const NpuConfig machine = npu_config(v);
  NpuConfig out = c;
  out.variant = v;
  out.cores = machine.cores;
  out.mac.macs_per_core = machine.mac.macs_per_core;
  out.shram = machine.shram;
  out.dma.queue_depth = machine.dma.queue_depth;
  apply_fixed(out);
  return out;
}

void declare_parameters(sim::Config& config, const NpuConfig& defaults) {
  std::vector<std::string> names;
  for (isa::Variant v : isa::variants()) names.emplace_back(isa::variant_name(v));
  config.declare_string("npu.variant", isa::variant_name(defaults.variant),
                        "NPU configuration (the i.MX 93 has the ethos-u65-256): sets the parameters that describe the "
                        "machine (cores, MACs, SHRAM, DMA queue) unless they are set as high up",
                        names);
  config.declare_int("system.clock_hz", std::llround(defaults.clock_hz), "Hz", "NPU core clock", 1, 100000000000);
  sim::declare_fields(config, "", defaults);
}

void apply_variant(sim::Config& config, isa::Variant v, sim::Source source, std::string_view origin) {
  config.set_value("npu.variant", std::string(isa::variant_name(v)), source, origin);
  const NpuConfig machine = npu_config(v);
  // The parameters that describe the machine, unless set at this layer or above on their own.
  const auto set = [&](const char* name, int64_t value) {
    if (config.param(name).source() < source) config.set_value(name, value, source, origin);
  };
  set("npu.cores", machine.cores);
  set("npu.mac.per_core", machine.mac.macs_per_core);
  set("npu.shram.bytes_per_core", static_cast<int64_t>(machine.shram.bytes_per_core));
  set("npu.dma.queue_depth", machine.dma.queue_depth);
}

NpuConfig read_config(const sim::Config& config) {
  NpuConfig c;
  const auto variant = isa::parse_variant(config.param("npu.variant").as_string());
  if (!variant) throw InputError("unknown NPU variant '" + config.param("npu.variant").as_string() + "'");
  c.variant = *variant;
  c.clock_hz = config.param("system.clock_hz").as_double();
  sim::read_fields(config, "", c);
  c.mac.ublock();  // a width the array has no micro-block for is refused here, not mid-job
  apply_fixed(c);
  return c;
}

}  // namespace ethosu::npu
