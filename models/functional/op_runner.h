// Runs one kernel operation (conv, depthwise, pool, elementwise) on region memory: turns the typed
// isa::Operation into kernel parameters, decodes its weight and scale streams, finds its LUT in SHRAM,
// and calls the bit-exact kernels. Used by the sequential executor and by the SystemC blocks.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "isa/operation.h"
#include "isa/validator.h"
#include "models/kernels/conv.h"
#include "models/kernels/weights/weight_decoder.h"

namespace ethosu::functional {

struct Region;
using Regions = std::array<Region, 8>;

// A weight or scale stream the hardware's weight decoder rejects (STATUS.wd_fault).
class WeightFault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One memory access of an operation: the bytes it reads or writes in a region.
struct AccessRange {
  isa::Access access;
  unsigned region;
  isa::Span span;
};
// Every region access a kernel operation makes, in the geometry of the validator.
std::vector<AccessRange> accesses(const isa::Operation& op);

class OpRunner {
 public:
  OpRunner(const Regions& regions, std::vector<std::vector<uint8_t>>& shram);
  // Executes op (bounds already checked); returns the multiply-accumulates performed.
  uint64_t execute(const isa::Operation& op);

 private:
  kernels::FeatureMap feature_map(const isa::FeatureMap& fm) const;
  kernels::OutputStage output_stage(const isa::Operation& op);
  void decode_weights(const isa::Operation& op);
  void decode_scales(const isa::Operation& op);
  uint64_t conv(const isa::Operation& op);
  uint64_t pool(const isa::Operation& op);
  uint64_t elementwise(const isa::Operation& op);

  const Regions& regions_;
  std::vector<std::vector<uint8_t>>& shram_;
  weights::DenseWeights dense_;
  std::vector<kernels::ScaleBias> scales_;
  kernels::KernelScratch scratch_;
};

}  // namespace ethosu::functional
