// What the command controller's engine asks of time. The engine (engine.h) applies the hardware's rules
// to a stream; a Timeline says when things happen. The functional model runs the engine on NoTime, a
// timeline that costs nothing; the timed model runs it on the NPU's block timeline (npu::Cc), where the
// answers come from the blocks' models and the AXI ports.
//
// Contract: the engine calls these in stream order, one job at a time. Cycles are absolute NPU cycles
// of the timeline's own clock. now() is the CC's cycle: it only moves forward, through wait_until(),
// command() (fetching and parsing take time) and kernel() (the CC is busy issuing). A timeline that has
// no time answers kNever for when a DMA's data lands: the engine then lands it only where the stream
// synchronises with it (a full DMA queue, NPU_OP_DMA_WAIT, NPU_OP_STOP), the latest the hardware could.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "isa/operation.h"
#include "models/npu/cc/fault.h"
#include "models/npu/job_report.h"
#include "models/npu/wd/wd_timing_u85.h"

namespace ethosu::cc {

inline constexpr uint64_t kNever = UINT64_MAX;
// BLOCKDEP is a 2-bit field: an operation may depend on at most the last 4 OFM tiles (the hardware's OFM blocks)
// of its predecessor.
inline constexpr size_t kMaxBlockdep = 3;

// When a kernel operation's work ends, as the engine needs it for the next operations.
struct KernelTimes {
  uint64_t end_cycle = 0;                // its last OFM write done: the TSU bank frees
  uint64_t writes_acknowledged_cycle = 0;  // its last OFM write response (NPU_OP_STOP waits for it)
  // When each of its last tiles finished writing, oldest first; `tiles` counts all of them.
  std::array<uint64_t, kMaxBlockdep + 1> last_tiles_done{};
  uint64_t tiles = 0;
};

// What the engine knows of a kernel operation it issues.
struct KernelIssue {
  uint64_t macs = 0;                  // what its data effect computed
  bool shram_layout_changed = false;  // it lays the SHRAM out differently from its predecessor
  // An Ethos-U85 operation's weights as its data effect found them (their zero fraction and distinct values set
  // the decoders' rate); empty without weights, or when they were not measured.
  std::optional<npu::WeightStreamU85> u85_weights;
};

class Timeline {
 public:
  virtual ~Timeline() = default;

  virtual uint64_t now() const = 0;
  // The CC waits until `cycle` (nothing when it is not later than now()); `why` attributes the wait.
  virtual void wait_until(uint64_t cycle, npu::Stall why) = 0;
  // The CC reaches the command at `offset`, whose words end at `end_offset`; `state` holds the state
  // registers as parsed so far.
  virtual void command(uint32_t offset, uint32_t end_offset, const isa::StreamState& state) = 0;
  // A DMA the engine has checked is issued at now(); returns when its last write is acknowledged, when its
  // data lands (kNever: no time).
  virtual uint64_t dma(uint32_t offset, const isa::Operation& op) = 0;
  // A kernel operation the engine has admitted starts at now() (its gates waited for).
  virtual KernelTimes kernel(uint32_t offset, const isa::Operation& op, const KernelIssue& issue) = 0;
  // The engine is about to run an operation's data effect (a kernel operation, or landing a DMA) on the region
  // buffers: they must be current. A kernel operation that cannot get its bytes fails with the fault returned.
  virtual std::optional<Fault> prepare(uint32_t offset, const isa::Operation& op) = 0;
  // After dma() or kernel(): the bus error the memory answered one of its transfers with, if any (a timeline
  // whose transfers go on a bus).
  virtual std::optional<Fault> bus_fault() = 0;
  virtual void pmu_mask(bool enable) = 0;
  virtual void irq(uint16_t mask) = 0;
  // The stream ends: NPU_OP_STOP after every wait it implies, or a fault after the kernels in flight.
  virtual void stop(uint16_t mask) = 0;
  virtual void fault(const Fault& f) = 0;
};

// The functional model's timeline: no time passes, no DMA lands before the stream synchronises with it.
class NoTime : public Timeline {
 public:
  uint64_t now() const override { return 0; }
  void wait_until(uint64_t, npu::Stall) override {}
  void command(uint32_t, uint32_t, const isa::StreamState&) override {}
  uint64_t dma(uint32_t, const isa::Operation&) override { return kNever; }
  KernelTimes kernel(uint32_t, const isa::Operation&, const KernelIssue&) override { return {}; }
  std::optional<Fault> prepare(uint32_t, const isa::Operation&) override { return std::nullopt; }
  std::optional<Fault> bus_fault() override { return std::nullopt; }
  void pmu_mask(bool) override {}
  void irq(uint16_t) override {}
  void stop(uint16_t) override {}
  void fault(const Fault&) override {}
};

}  // namespace ethosu::cc
