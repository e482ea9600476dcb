// Runs one Ethos-U85 kernel operation (conv, depthwise, pool, elementwise, resize) on region memory: turns the
// typed isa::Operation (version 2) into the parameters of the U85 kernels (u85_kernels.h), decodes its weight and
// scale streams (weights/weight_decoder_u85.h, scale_stream_u85.h), finds its LUT in the LUT RAM, and keeps the
// chaining buffers that carry a CHAINED OFM to the next operations' CHAINED IFM or IFM2. The command controller's
// engine runs every version-2 kernel operation through it, in the functional and the timed model alike.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "isa/architecture.h"
#include "isa/operation.h"
#include "models/kernels/op_runner.h"
#include "models/kernels/u85_kernels.h"
#include "models/kernels/weights/weight_decoder_u85.h"
#include "sim/host_threads.h"

namespace ethosu::kernels {

// The LUT RAM bytes (of the buffer the engine keeps as SHRAM) an operation's activation reads; empty without one.
isa::Span lut_ram_span(const isa::Operation& op);

class U85Runner {
 public:
  // lut_ram: the LUT RAM (DMA destination of INTERNAL region mode), at least the architecture's lut_bytes.
  // host_threads: how many host threads a convolution may use (cc::Limits::host_threads; kernel_bands()).
  U85Runner(const Regions& regions, const std::vector<uint8_t>& lut_ram, const isa::Architecture& arch,
            unsigned host_threads = 1);
  // Executes op (bounds already checked); returns the multiply-accumulates performed. Throws WeightFault for a
  // stream the weight decoders reject, UnknownBehaviour for an operation the model cannot run.
  uint64_t execute(const isa::Operation& op);

  // Host time this runner has spent since it was made, as OpRunner::host_seconds() counts it.
  const HostSeconds& host_seconds() const { return host_seconds_; }
  // The weights of the operation execute() ran last, measured for the weight decoders' timing; empty when it had
  // none.
  const std::optional<ConvWeights::Stats>& weight_stats() const { return weight_stats_; }

 private:
  struct Chain {
    std::vector<uint8_t> bytes;  // dense NHWC
    uint32_t width = 0, height = 0, depth = 0;
    DataType type = DataType::Int8;
  };
  template <typename TensorOf>
  uint64_t convolution(const isa::Operation& op, const TensorOf& tensor, const u85::Output& out,
                       const u85::Destination& ofm);
  // NPU_OP_CONV with weights_ifm2 (MatMul): the weights from IFM2.
  template <typename TensorOf>
  uint64_t matmul(const isa::Operation& op, const TensorOf& tensor, const u85::Output& out,
                  const u85::Destination& ofm);

  // The operation's weights packed for the conv kernels, from the process's weight cache or decoded into it.
  std::shared_ptr<const ConvWeights> decode_weights(const weights::u85::Layout& l,
                                                    const weights::u85::Streams& streams);

  const Regions& regions_;
  const std::vector<uint8_t>& lut_ram_;
  const isa::Architecture& arch_;
  std::map<uint8_t, Chain> chains_;  // chaining buffer contents by id (the CHAINED map's region)
  weights::DecodeScratch decode_scratch_;
  sim::HostThreads threads_;
  std::vector<KernelScratch> scratch_;  // one per host thread
  HostSeconds host_seconds_;
  std::optional<ConvWeights::Stats> weight_stats_;
};

}  // namespace ethosu::kernels
