// Vela's per-operation performance estimate (spec 05 section 7), for comparison tables next to the
// block-level model. It is an estimator with Vela's own simplifications (whole configured blocks, a flat
// 4-cycle step per 32 IFM channels, memory latency folded into a per-block command overhead), kept
// separate from the block models so that neither constrains the other; it uses Vela's own constants for
// the U65 (the block models' defaults), whatever the simulated blocks are set to.
//
// Contract: vela_estimate(op, sys) takes one kernel operation as decoded from a stream and returns
// Vela's NPU cycles for it (spec 05 sections 7.1-7.3) plus the access cycles per AXI port and the
// whole-op total of section 7.4 (max of NPU and memory access cycles; weight/LUT DMA slack is not
// modelled). Vela estimates an operator before striping: to compare with its printed per-operator
// figures, pass the operator's full shapes (see the corpus test, which merges stripes).
#pragma once

#include <array>
#include <cstdint>

#include "isa/operation.h"
#include "isa/validator.h"
#include "models/npu/ao/ao_timing.h"
#include "models/npu/mac/mac_timing.h"

namespace ethosu::estimate {

struct MemoryTiming {
  double bytes_per_cycle = 16;
  uint32_t read_latency_cycles = 32;
  uint32_t write_latency_cycles = 32;
  uint32_t burst_bytes = 32;
};

// The memory behind each AXI port and which port each region is on (REGIONCFG).
struct VelaSystem {
  std::array<MemoryTiming, 2> axi{};
  std::array<uint8_t, isa::kRegionCount> region_port{};
  const MemoryTiming& memory_of_region(unsigned region) const { return axi[region_port[region % isa::kRegionCount] & 1]; }
};

// Vela 3.10 (NXP fork) `internal-default` for the U65 as its printout shows it: 1 GHz; AXI0 on-chip SRAM
// 16 B/cycle, latency 32/32, burst 32 B; AXI1 DRAM 3.75 B/cycle ("Design peak DRAM bandwidth 3.75 GB/s",
// clock scale 0.234375), latency 500/250, burst 128 B; regions 0 and 1 on AXI1, region 2 (cache) on AXI0.
VelaSystem vela_internal_default_u65();

struct VelaEstimate {
  uint64_t npu_cycles = 0;                    // Vela's "NPU" column
  std::array<uint64_t, 2> access_cycles{};    // per AXI port: bytes scaled by burst efficiency / bandwidth
  uint64_t total_cycles = 0;                  // max(npu, access cycles)
  uint64_t macs = 0;
  // Intermediate terms, for explaining differences.
  uint64_t blocks = 0;
  double mac_cycles_per_block = 0;
  double output_cycles_per_block = 0;
  double ifm_block_memory_cycles = 0;
  double ofm_block_memory_cycles = 0;
  uint32_t ifm_block_w = 0, ifm_block_h = 0, ifm_block_d = 0;
};

VelaEstimate vela_estimate(const isa::Operation& op, const VelaSystem& sys);

}  // namespace ethosu::estimate
