// Runs one kernel operation (conv, depthwise, pool, elementwise) on region memory: turns the typed
// isa::Operation into kernel parameters, decodes its weight and scale streams, finds its LUT in SHRAM,
// and calls the bit-exact kernels. The command controller's engine (models/npu/cc/engine.h) runs every kernel
// operation through it, in the functional and the timed model alike.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "isa/operation.h"
#include "isa/validator.h"
#include "models/kernels/conv.h"
#include "models/kernels/weights/weight_decoder.h"
#include "sim/host_threads.h"
#include "ethosu_sim/report.h"
#include "sim/host_time.h"

namespace ethosu::kernels {

// The parts of a job's host time (the public report's).
using ethosu_sim::HostSeconds;

struct Region;
using Regions = std::array<Region, 8>;

// A weight or scale stream the hardware's weight decoder rejects (STATUS.wd_fault).
class WeightFault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An operation using a field value whose hardware behaviour is not known (isa::unknown_behaviour): the
// simulator refuses it rather than guess.
class UnknownBehaviour : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One memory access of an operation: the bytes it reads or writes in a region.
struct AccessRange {
  isa::Access access;
  unsigned region;
  isa::Span span;
};
// Every region access a kernel operation makes, in the geometry of the validator: every byte the
// kernels read or write lies inside these spans. Where the kernels read IFM channels the IFM_DEPTH
// register does not cover (depthwise, pooling and elementwise read channel c for OFM channel c), the
// IFM span covers both depths.
std::vector<AccessRange> accesses(const isa::Operation& op);

// SHRAM bytes (of each core) the output stage's lookup table occupies: slot n of a TABLE_n activation,
// 256 bytes for an 8-bit OFM, 1 KiB for 32-bit, 2 KiB for 16-bit. Empty without a table.
isa::Span lut_span(const isa::Operation& op, size_t shram_bytes);

// Upper bounds of the host resources one operation takes, known before it runs. The NPU has no such
// limits; the executor uses them to refuse streams that would exhaust host time or memory.
struct OpCost {
  uint64_t work = 0;             // element steps: MACs, gathered, decoded, compared or copied elements
  uint64_t buffer_elements = 0;  // the largest single host buffer (gathered IFM, weights, DMA source)
};
OpCost cost(const isa::Operation& op);

// Bands of OFM rows a kernel operation's data effect runs in, one per host thread (OpRunner): one unless
// several threads are allowed and the operation has work enough (cost()) to pay for waking them, at most one
// per OFM row. Also one when the OFM shares a byte with what the operation reads, in one region or through
// two regions on the same host buffer: a band would then read rows another band writes, in an order that
// depends on the threads. Bounds already checked.
unsigned kernel_bands(const isa::Operation& op, const Regions& regions, unsigned threads);

// Runs kernel(tile, scratch) over op's OFM in kernel_bands() bands of rows, each on its own host thread with its own
// scratch (one per thread).
template <typename Kernel>
void run_in_bands(const isa::Operation& op, const Regions& regions, sim::HostThreads& threads,
                  std::vector<KernelScratch>& scratch, const Kernel& kernel) {
  const int ofm_height = static_cast<int>(op.ofm.height);
  const OfmTile whole{0, static_cast<int>(op.ofm.width), 0, ofm_height, 0, static_cast<int>(op.ofm.depth)};
  // Qualified: argument-dependent lookup would need Region, incomplete here.
  const unsigned n = kernels::kernel_bands(op, regions, threads.threads());
  if (n == 1) {
    kernel(whole, scratch[0]);
    return;
  }
  threads.run(n, [&](unsigned band) {
    OfmTile b = whole;
    b.y0 = static_cast<int>(int64_t{ofm_height} * band / n);
    b.y1 = static_cast<int>(int64_t{ofm_height} * (band + 1) / n);
    kernel(b, scratch[band]);
  });
}

class OpRunner {
 public:
  // host_threads: how many host threads one operation's kernels may use (cc::Limits::host_threads).
  // ofm_ublock_depth: the MAC array's OFM micro-block depth, which orders the weight streams (4 or 8).
  OpRunner(const Regions& regions, std::vector<std::vector<uint8_t>>& shram, unsigned host_threads = 1,
           unsigned ofm_ublock_depth = 8);
  // Executes op (bounds already checked); returns the multiply-accumulates performed. Throws WeightFault
  // for a stream the weight decoder rejects, UnknownBehaviour for an operation the model cannot run.
  uint64_t execute(const isa::Operation& op);

  // Host time this runner has spent since it was made: getting the packed weights (decoding, or the
  // content lookup in the process's weight cache; scale streams too) and in the kernels. For speed reports.
  const HostSeconds& host_seconds() const { return host_seconds_; }

 private:
  kernels::FeatureMap feature_map(const isa::FeatureMap& fm) const;
  template <typename Params>
  void windowed(const isa::Operation& op, Params& p) const;
  kernels::OutputStage output_stage(const isa::Operation& op);
  const uint8_t* stream_bytes(unsigned region, const isa::StreamRef& s) const;
  std::shared_ptr<const kernels::ConvWeights> decode_weights(const isa::Operation& op);
  void decode_scales(const isa::Operation& op);
  uint64_t conv(const isa::Operation& op);
  uint64_t pool(const isa::Operation& op);
  uint64_t elementwise(const isa::Operation& op);

  const Regions& regions_;
  std::vector<std::vector<uint8_t>>& shram_;
  int ofm_ublock_depth_;
  std::vector<kernels::ScaleBias> scales_;
  weights::DecodeScratch stream_scratch_;
  sim::HostThreads threads_;
  std::vector<kernels::KernelScratch> scratch_;  // one per host thread
  HostSeconds host_seconds_;
};

}  // namespace ethosu::kernels
