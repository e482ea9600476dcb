// The command controller's engine: the one place that executes a command stream. It applies the
// hardware's rules once, for the functional and the timed model alike; a Timeline (timeline.h) says when
// things happen.
//
// Contract: run() walks a decoded stream (isa::walk) and, in stream order:
//  * stops at the first command the decoder rejected, or at the end of a stream without NPU_OP_STOP, with a
//    command parse error (the NPU executes everything before it);
//  * checks every operation before it runs: each access of a kernel operation or a DMA lies inside its
//    region (a bus error on the region's AXI port and channel otherwise), its LUT and internal DMA
//    endpoints inside the SHRAM, its host cost within the job's Limits (a LIMIT fault otherwise);
//  * queues DMAs (at most `dma_queue_depth` outstanding: NPU_OP_DMA_START waits for the oldest beyond
//    that) and lands a DMA's data when it is done by the time an operation is issued, or when the stream
//    waits for it (NPU_OP_DMA_WAIT, a full queue, NPU_OP_STOP). An operation that reads bytes of a DMA
//    still queued gets the old bytes and a hazard note (the stream lacks a wait);
//  * holds at most `tsu_banks` kernel operations in flight (the TSU), and gates each kernel operation on
//    BLOCKDEP (at most that many blocks of its predecessor unfinished) and on a SHRAM layout change (the
//    predecessor's banks released);
//  * runs each operation's data effect (kernels::OpRunner, DMA copies) on the region buffers and the
//    SHRAM; a weight or scale stream the weight decoder rejects is a weight-decoder fault;
//  * ends with NPU_OP_STOP once the kernels, DMAs and the last write responses are done, or at the first
//    fault once the kernels in flight are done; DMAs still queued land.
// No operation touches host memory outside the region buffers and the SHRAM. Faults are values
// (fault.h), never exceptions.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "isa/decoder.h"
#include "isa/operation.h"
#include "models/npu/cc/fault.h"
#include "models/npu/cc/timeline.h"
#include "models/kernels/op_runner.h"
#include "models/kernels/regions.h"
#include "sim/host_time.h"

namespace ethosu::cc {

using kernels::Region;
using kernels::Regions;
// One buffer per core, all of the same size.
using ShramBanks = std::vector<std::vector<uint8_t>>;

struct EngineConfig {
  isa::Variant variant = isa::kDefaultVariant;  // the configuration: its SHRAM and MAC array shape the data path
  uint32_t dma_queue_depth = 2;  // NPU_OP_DMA_START outstanding before the CC waits (npu.dma.queue_depth)
  uint32_t tsu_banks = 4;        // kernel operations in flight (npu.cc.tsu_banks)
  Limits limits;
  std::array<uint8_t, 8> region_port{};  // AXI port of each region (REGIONCFG), named by bus errors
};

struct RunStats {
  uint64_t kernel_ops = 0;
  uint64_t dma_ops = 0;
  uint64_t macs = 0;  // multiply-accumulates the kernels performed (conv, depthwise, FC)
  uint64_t hazards = 0;  // all of them; RunResult::hazards lists the first Limits::kMaxHazards
  kernels::HostSeconds host;  // host time in the weights, kernels, DMA copies and the timeline's operations and DMAs
};

struct RunResult {
  std::optional<Fault> fault;
  RunStats stats;
  std::vector<std::string> hazards;  // missing waits the run observed (the first Limits::kMaxHazards)
};

class Engine {
 public:
  // Runs s to its NPU_OP_STOP (or first fault) on `regions` and `shram`, whose contents persist across
  // runs as the hardware's do.
  static RunResult run(const isa::Stream& s, const Regions& regions, ShramBanks& shram, const EngineConfig& config,
                       Timeline& timeline);
};

}  // namespace ethosu::cc
