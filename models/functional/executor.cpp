#include "models/functional/executor.h"

#include <algorithm>
#include <cstdio>
#include <deque>

#include "models/functional/dma.h"
#include "models/functional/op_runner.h"
#include "sim/error.h"

namespace ethosu::functional {

const char* fault_name(FaultKind k) {
  switch (k) {
    case FaultKind::CMD_PARSE_ERROR: return "command parse error";
    case FaultKind::BUS_ERROR: return "bus error";
    case FaultKind::WD_FAULT: return "weight decoder fault";
    case FaultKind::LIMIT: return "simulation limit";
  }
  return "?";
}

namespace {

using isa::Operation;
using isa::Span;

// Outstanding DMAs the command controller queues before NPU_OP_DMA_START itself waits [I: Vela assumes
// 2 outstanding on the U65 (max_outstanding_dma); the hardware queue depth is not documented].
constexpr size_t kDmaQueueDepth = 2;

std::string hex(int64_t v) {
  // Negated in unsigned arithmetic: saturated spans reach INT64_MIN.
  const uint64_t mag = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  char buf[24];
  std::snprintf(buf, sizeof buf, v < 0 ? "-0x%llx" : "0x%llx", static_cast<unsigned long long>(mag));
  return buf;
}

bool overlaps(const Span& a, const Span& b) { return !a.empty() && !b.empty() && a.lo < b.hi && b.lo < a.hi; }

struct PendingDma {
  uint32_t offset;
  Operation op;
};

class Run {
 public:
  Run(const Regions& regions, std::vector<std::vector<uint8_t>>& shram, const Limits& limits, RunResult& result)
      : regions_(regions), shram_(shram), limits_(limits), work_left_(limits.work), result_(result),
        ops_(regions, shram) {}

  // Returns false when the run must stop (fault).
  bool event(const isa::Event& e) {
    switch (e.kind) {
      case isa::EventKind::OPERATION:
        if (e.operation->kind == isa::OpKind::DMA) return start_dma(e.command.offset, *e.operation);
        return kernel(e.command.offset, *e.operation);
      case isa::EventKind::DMA_WAIT:
        while (pending_.size() > e.value) complete_oldest();
        return true;
      case isa::EventKind::STOP: drain(); return true;
      default: return true;  // KERNEL_WAIT: kernels complete in order here; PMU_MASK and IRQ have no data effect
    }
  }

  void drain() {
    while (!pending_.empty()) complete_oldest();
  }

 private:
  void fault(FaultKind k, uint32_t offset, const std::string& what) {
    result_.fault = Fault{k, offset, isa::hex_offset(offset) + ": " + what};
  }

  // A bus error when [lo, hi) leaves the region the host mapped (the NPU's AXI access faults).
  bool check(uint32_t offset, const char* op, const char* what, unsigned region, const Span& s) {
    if (s.empty()) return true;
    const Region r = region < regions_.size() ? regions_[region] : Region{};
    if (s.lo >= 0 && static_cast<uint64_t>(s.hi) <= r.size_bytes && r.data) return true;
    fault(FaultKind::BUS_ERROR, offset,
          std::string(op) + ": " + what + " bytes [" + hex(s.lo) + ", " + hex(s.hi) + ") outside region " +
              std::to_string(region) + " (" + std::to_string(r.size_bytes) + " bytes)");
    return false;
  }

  bool check_shram(uint32_t offset, const char* op, const Span& s, const char* what) {
    if (s.empty() || (s.lo >= 0 && static_cast<uint64_t>(s.hi) <= shram_.front().size())) return true;
    fault(FaultKind::BUS_ERROR, offset,
          std::string(op) + ": " + what + " SHRAM bytes [" + hex(s.lo) + ", " + hex(s.hi) + ") outside the " +
              std::to_string(shram_.front().size()) + "-byte SHRAM");
    return false;
  }

  // Takes the operation's cost from the run's budget, or faults without running it.
  bool admit(uint32_t offset, const char* op, const OpCost& c) {
    std::string why;
    if (c.buffer_elements > limits_.buffer_elements)
      why = "a host buffer of " + std::to_string(c.buffer_elements) + " elements, over the limit of " +
            std::to_string(limits_.buffer_elements);
    else if (c.work > work_left_)
      why = "up to " + std::to_string(c.work) + " element steps, over the " + std::to_string(work_left_) +
            " left of the run's limit of " + std::to_string(limits_.work);
    if (why.empty()) {
      work_left_ -= c.work;
      return true;
    }
    fault(FaultKind::LIMIT, offset, std::string(op) + ": needs " + why + " (functional::Limits)");
    return false;
  }

  bool start_dma(uint32_t offset, const Operation& op) {
    const char* name = "NPU_OP_DMA_START";
    const auto& d = op.dma;
    const Span src = isa::dma_span(d, d.src), dst = isa::dma_span(d, d.dst);
    if (d.src.internal() ? !check_shram(offset, name, src, "source")
                         : !check(offset, name, "source", d.src.region, src))
      return false;
    if (d.dst.internal() ? !check_shram(offset, name, dst, "destination")
                         : !check(offset, name, "destination", d.dst.region, dst))
      return false;
    if (!admit(offset, name, cost(op))) return false;
    if (pending_.size() >= kDmaQueueDepth) complete_oldest();
    pending_.push_back({offset, op});
    ++result_.stats.dma_ops;
    return true;
  }

  uint8_t* endpoint(const isa::DmaEndpoint& e, unsigned core) {
    return e.internal() ? shram_.at(core).data() : regions_.at(e.region).data;
  }

  // Moves the oldest queued DMA's bytes into every destination it names: an internal destination's
  // region field is a core mask; an internal source reads core 0.
  void complete_oldest() {
    const PendingDma job = pending_.front();
    pending_.pop_front();
    const auto& d = job.op.dma;
    if (!d.dst.internal()) {
      copy_dma(d, endpoint(d.src, 0), endpoint(d.dst, 0));
      return;
    }
    for (unsigned c = 0; c < shram_.size(); ++c)
      if (d.dst.region & (1u << c)) copy_dma(d, endpoint(d.src, 0), endpoint(d.dst, c));
  }

  bool kernel(uint32_t offset, const Operation& op) {
    const char* name = isa::command_info(op.cmd).name.data();
    const auto acc = accesses(op);
    for (const auto& a : acc)
      if (!check(offset, name, isa::access_name(a.access), a.region, a.span)) return false;
    if (!check_shram(offset, name, lut_span(op, shram_.front().size()), "LUT")) return false;
    if (!admit(offset, name, cost(op))) return false;
    // Reading bytes a queued DMA has not delivered yet: the hardware gives no guarantee, the model
    // gives the old bytes and says so.
    for (const auto& a : acc)
      for (const auto& p : pending_)
        if (!p.op.dma.dst.internal() && p.op.dma.dst.region == a.region &&
            overlaps(a.span, isa::dma_span(p.op.dma, p.op.dma.dst)))
          result_.hazards.push_back(isa::hex_offset(offset) + ": " + name + " " + isa::access_name(a.access) +
                                    " overlaps the destination of the DMA at " + isa::hex_offset(p.offset) +
                                    ", which the stream has not waited for (missing NPU_OP_DMA_WAIT)");
    try {
      result_.stats.macs += ops_.execute(op);
    } catch (const WeightFault& e) {
      fault(FaultKind::WD_FAULT, offset, std::string(name) + ": " + e.what());
      return false;
    }
    ++result_.stats.kernel_ops;
    return true;
  }

  const Regions& regions_;
  std::vector<std::vector<uint8_t>>& shram_;
  const Limits& limits_;
  uint64_t work_left_;
  RunResult& result_;
  OpRunner ops_;
  std::deque<PendingDma> pending_;
};

}  // namespace

Executor::Executor(isa::Variant variant, Limits limits) : variant_(variant), limits_(limits) { reset(); }

void Executor::reset() {
  const auto vi = isa::variant_info(variant_);
  shram_.assign(vi.cores, std::vector<uint8_t>(vi.shram_bytes(), 0));
}

RunResult Executor::run(const isa::Stream& s, const Regions& regions) {
  RunResult result;
  // The command controller executes everything before the first command it cannot parse.
  uint32_t parse_error_at = UINT32_MAX;
  std::string parse_error;
  for (const auto& d : s.diagnostics)
    if (d.severity == isa::Severity::ERROR && d.offset < parse_error_at) {
      parse_error_at = d.offset;
      parse_error = d.message;
    }
  Run run(regions, shram_, limits_, result);
  bool stopped = false, running = true;
  isa::walk(s, [&](const isa::Event& e, const isa::StreamState&) {
    if (!running) return;
    if (e.command.offset >= parse_error_at) {
      running = false;
      return;
    }
    running = run.event(e);
    if (e.kind == isa::EventKind::STOP) {
      stopped = true;
      running = false;
    }
  });
  if (result.fault) return result;
  if (!stopped) {
    // Decoding guarantees a parse error before a missing stop; DMAs already started still land.
    run.drain();
    result.fault = Fault{FaultKind::CMD_PARSE_ERROR, parse_error_at, parse_error};
  }
  return result;
}

}  // namespace ethosu::functional
