// The functional model of the NPU, without SystemC or time: the same command-controller engine as the timed
// NPU (the same checks, faults, DMA queue, BLOCKDEP and SHRAM rules, the same bit-exact kernels) on a
// timeline that costs nothing. Part of the public API (include/ethosu_sim), library EthosuSim::functional.
//
// Contract: run() executes a command stream (bare, as the NPU fetches it) on the caller's region buffers,
// which hold the results afterwards; nothing outside them is touched (an access outside a region is the
// NPU's bus error). The SHRAM persists from one run to the next, as the hardware's does (a LUT loaded by one
// job stays). A fault is a result, never an exception. Only a stream that reads a DMA's destination without
// waiting for it can differ from the timed NPU: the functional model then gives the old bytes and a hazard.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ethosu_sim/isa.h"

namespace ethosu_sim {

struct RegionBuffer {
  uint8_t* data = nullptr;
  uint64_t size_bytes = 0;
};

struct FunctionalResult {
  bool completed = false;             // NPU_OP_STOP reached without a fault
  std::optional<std::string> fault;   // as a driver reports it: "bus error at 0x000150: ..."
  uint32_t status = 0;                // STATUS as the NPU shows it at the end (irq_raised, the error bits)
  std::vector<std::string> hazards;   // reads of DMA destinations the stream had not waited for
  uint64_t kernel_operations = 0, dma_operations = 0, macs = 0;
};

class FunctionalNpu {
 public:
  explicit FunctionalNpu(Variant variant = kDefaultVariant);

  // regioncfg: the AXI port of each region as a driver programs REGIONCFG (bus errors name it).
  FunctionalResult run(const std::vector<uint8_t>& stream, const std::array<RegionBuffer, kRegionCount>& regions,
                       uint32_t regioncfg = 0xAA8A);

 private:
  Variant variant_;
  std::vector<std::vector<uint8_t>> shram_;  // per core
};

}  // namespace ethosu_sim
