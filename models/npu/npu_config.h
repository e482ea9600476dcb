// What configures the NPU between jobs, block by block, and its named run-time parameters.
//
// Contract: each block lists its own parameters beside its model (the `fields` of CcTiming, DmaTiming,
// WdTiming, MacTiming, ShramParams, the AXI ports' AxiPortParams, the engine's Limits; sim/params.h);
// NpuConfig::fields places them in the hierarchy (`npu.<block>.*`, `mem.axiN.*`, `sim.limits.*`).
// declare_parameters() declares every NPU parameter, with `defaults` as their defaults, and read_config() reads
// a resolved configuration back. The parameters that describe the machine start from the configuration's
// architecture description (isa/architecture.h): apply_variant() writes them into a layer; what no parameter
// changes (the AXI width and AXI_LIMITn ranges, the output unit's rates) read_config() takes from it. The defaults
// of a NpuConfig are the default variant's; npu_config() gives a variant's.
#pragma once

#include <array>

#include "isa/architecture.h"
#include "models/npu/ao/ao_timing.h"
#include "models/npu/axi/axi_timing.h"
#include "models/npu/cc/cc_timing.h"
#include "models/npu/cc/fault.h"
#include "models/npu/dma/dma_timing.h"
#include "models/npu/mac/mac_timing.h"
#include "models/npu/shram/shram_params.h"
#include "models/npu/wd/wd_timing.h"
#include "sim/config.h"

namespace ethosu::npu {

struct NpuConfig {
  isa::Variant variant = isa::kDefaultVariant;  // npu.variant
  double clock_hz = 1e9;                         // system.clock_hz
  unsigned cores = 1;
  CcTiming cc;
  DmaTiming dma;
  WdTiming wd;
  MacTiming mac;
  AoTiming ao;
  ShramParams shram;
  cc::Limits limits;                          // host resources one job may take
  std::array<axi::AxiPortParams, 2> axi{};    // the AXI ports M0 and M1 and the memories behind them

  template <typename Fields>
  void fields(Fields& f) {
    f.field("npu.cores", cores, "cores", "NPU cores; the U65-512 is two 256-MAC cores", {1, 2});
    f.group("npu.cc", cc);
    f.group("npu.dma", dma);
    f.group("npu.wd", wd);
    f.group("npu.mac", mac);
    f.group("npu.shram", shram);
    f.group("sim.limits", limits);
    f.group("mem.axi0", axi[0]);
    f.group("mem.axi1", axi[1]);
  }
};
NpuConfig npu_config(isa::Variant v);
// `c` on another configuration: what describes the machine (cores, MACs, SHRAM, the DMA queue, what no parameter
// changes) becomes v's, the rest stays.
NpuConfig with_variant(const NpuConfig& c, isa::Variant v);

void declare_parameters(sim::Config& config, const NpuConfig& defaults);
// npu.variant = v in layer `source`, with the parameters it describes (cores, MACs, SHRAM, the DMA queue) where no
// layer at `source` or above has set them.
void apply_variant(sim::Config& config, isa::Variant v, sim::Source source, std::string_view origin);
// The configuration `config` resolves to; throws ethosu::InputError where values do not fit together (a MAC
// array width without a micro-block).
NpuConfig read_config(const sim::Config& config);

}  // namespace ethosu::npu
