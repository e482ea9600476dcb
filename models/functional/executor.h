// The sequential functional model: runs a decoded command stream on region memory, bit-exactly,
// with no timing. The SystemC platform reuses the same pieces (operation description, weight and
// scale decoding, kernels) and adds time.
//
// Contract: run() walks the stream with isa::walk(), applies each operation's effect on the region
// buffers and the SHRAM, and stops at NPU_OP_STOP or at the first fault. Faults are reported as the
// hardware reports them (a status bit and where), never thrown: an access outside a region is a bus
// error, an invalid command a command-parse error, a bad weight stream a weight-decoder fault. No
// operation touches host memory outside the region buffers and the SHRAM: every byte the kernels and
// DMAs use lies in a span checked before they run (an unmapped or short region is a bus error).
// Ordering follows the hardware's rules, not the stream author's intent: a DMA's destination bytes
// become visible when the stream waits for that DMA (NPU_OP_DMA_WAIT) or stops; an operation issued
// before that reads the old bytes, and the run notes the missing wait as a hazard.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "isa/decoder.h"
#include "isa/operation.h"
#include "isa/validator.h"

namespace ethosu::functional {

struct Region {
  uint8_t* data = nullptr;
  uint64_t size_bytes = 0;
};
using Regions = std::array<Region, 8>;

// LIMIT is the simulator's own refusal (see Limits), not a hardware fault.
enum class FaultKind : uint8_t { CMD_PARSE_ERROR, BUS_ERROR, WD_FAULT, LIMIT };
const char* fault_name(FaultKind k);

// Host resources a run may take. The NPU runs any stream to completion; these bounds keep a hostile
// or corrupt stream from taking hours or exhausting host memory, and are far above what a real
// network layer needs. An operation over a limit is not run: the run ends with a LIMIT fault.
struct Limits {
  uint64_t work = uint64_t{1} << 40;             // element steps over the whole run (see OpCost)
  uint64_t buffer_elements = uint64_t{1} << 28;  // any one host buffer; must stay below 2^31 (int indices)
};

struct Fault {
  FaultKind kind = FaultKind::CMD_PARSE_ERROR;
  uint32_t offset = 0;  // command offset in the stream
  std::string message;  // what and where, one line
};

struct RunStats {
  uint64_t kernel_ops = 0;
  uint64_t dma_ops = 0;
  uint64_t macs = 0;  // multiply-accumulates the kernels performed (conv, depthwise, FC)
};

struct RunResult {
  std::optional<Fault> fault;
  RunStats stats;
  std::vector<std::string> hazards;  // missing waits the run observed
};

class Executor {
 public:
  explicit Executor(isa::Variant variant, Limits limits = {});

  // Runs s to its NPU_OP_STOP (or first fault). The SHRAM (and its LUTs) persists across runs, as on
  // the hardware; reset() clears it.
  RunResult run(const isa::Stream& s, const Regions& regions);
  void reset();

  // SHRAM bytes of one core (LUT slots and DMA-internal destinations).
  std::vector<uint8_t>& shram(unsigned core) { return shram_.at(core); }

 private:
  isa::Variant variant_;
  Limits limits_;
  std::vector<std::vector<uint8_t>> shram_;
};

}  // namespace ethosu::functional
