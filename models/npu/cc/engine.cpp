#include "models/npu/cc/engine.h"

#include <algorithm>
#include <deque>

#include "models/kernels/dma_copy.h"
#include "models/kernels/op_runner.h"
#include "models/kernels/u85_runner.h"
#include "models/npu/tiles.h"
#include "sim/text.h"

namespace ethosu::cc {

namespace {

using isa::Access;
using isa::Operation;
using isa::Span;
using npu::Stall;

bool overlaps(const Span& a, const Span& b) { return !a.empty() && !b.empty() && a.lo < b.hi && b.lo < a.hi; }

std::string span_text(const Span& s) { return "[" + sim::hex(s.lo) + ", " + sim::hex(s.hi) + ")"; }

// The SHRAM layout a kernel operation programs; a different one waits for the previous operation's banks.
struct ShramLayout {
  isa::ShramConfig banks;
  isa::enums::acc_format acc;
  bool operator!=(const ShramLayout& o) const {
    return banks.ib_end != o.banks.ib_end || banks.ab_start != o.banks.ab_start ||
           banks.ifm2_ib_start != o.banks.ifm2_ib_start || acc != o.acc;
  }
};

class Run {
 public:
  Run(const Regions& regions, ShramBanks& shram, const EngineConfig& config, Timeline& timeline, RunResult& result)
      : regions_(regions), shram_(shram), config_(config), timeline_(timeline), result_(result),
        work_left_(config.limits.work),
        ops_(regions, shram, config.limits.host_threads, isa::architecture(config.variant).ofm_ublock.d),
        u85_ops_(regions, shram.empty() ? no_lut_ram_ : shram.front(), isa::architecture(config.variant),
                 config.limits.host_threads) {}

  // Handles one event; false when the stream ends (stop or fault).
  bool event(const isa::Event& e, const isa::StreamState& st) {
    timeline_.command(e.command.offset, e.command.offset + 4, st);
    switch (e.kind) {
      case isa::EventKind::OPERATION:
        return e.operation->kind == isa::OpKind::DMA ? start_dma(e.command.offset, *e.operation)
                                                     : kernel(e.command.offset, *e.operation);
      case isa::EventKind::DMA_WAIT: wait_dmas(e.value); return true;
      case isa::EventKind::KERNEL_WAIT: wait_kernels(e.value); return true;
      case isa::EventKind::PMU_MASK: timeline_.pmu_mask(e.value != 0); return true;
      case isa::EventKind::IRQ: timeline_.irq(static_cast<uint16_t>(e.value)); return true;
      case isa::EventKind::STOP: stop(static_cast<uint16_t>(e.value)); return false;
    }
    return true;
  }

  // The operations' host time in weights and kernels, into the result.
  void take_host_seconds() {
    result_.stats.host.weights = ops_.host_seconds().weights + u85_ops_.host_seconds().weights;
    result_.stats.host.kernels = ops_.host_seconds().kernels + u85_ops_.host_seconds().kernels;
  }

  // The stream ends without NPU_OP_STOP: a command parse error at `offset`.
  void parse_error(uint32_t offset, const std::string& message) {
    fault({FaultKind::CMD_PARSE_ERROR, offset, message});
  }

  // A job the simulator itself cannot run (not a hardware fault).
  void refuse(uint32_t offset, const std::string& message) { fault({FaultKind::LIMIT, offset, message}); }

 private:
  struct QueuedDma {
    uint32_t offset;
    Operation op;
    uint64_t done_cycle;
  };
  struct InFlight {
    uint64_t end_cycle;
    uint64_t writes_acknowledged_cycle;
  };

  void fault(Fault f) {
    wait_kernels(0);
    land_all();
    result_.fault = f;
    timeline_.fault(f);
  }

  void bus_error(uint32_t offset, const std::string& what, unsigned port, Channel channel) {
    fault({FaultKind::BUS_ERROR, offset, isa::hex_offset(offset) + ": " + what, port, channel});
  }

  // An access (`what` names it) of bytes `s` in `region`; a bus error on the region's port and the access's
  // channel when it leaves the host buffer.
  bool check_region(uint32_t offset, const char* op, const char* what, Access access, unsigned region, const Span& s) {
    if (s.empty()) return true;
    const Region r = region < regions_.size() ? regions_[region] : Region{};
    if (r.data && s.lo >= 0 && static_cast<uint64_t>(s.hi) <= r.size_bytes) return true;
    bus_error(offset,
              std::string(op) + ": " + what + " bytes " + span_text(s) + " outside region " + std::to_string(region) +
                  " (" + std::to_string(r.size_bytes) + " bytes)",
              config_.region_port[region & 7], channel_of(access));
    return false;
  }

  bool check_shram(uint32_t offset, const char* op, const char* what, const Span& s, Channel channel) {
    const uint64_t size = shram_.empty() ? 0 : shram_.front().size();
    if (s.empty() || (s.lo >= 0 && static_cast<uint64_t>(s.hi) <= size)) return true;
    bus_error(offset,
              std::string(op) + ": " + what + " SHRAM bytes " + span_text(s) + " outside the " +
                  std::to_string(size) + "-byte SHRAM",
              0, channel);
    return false;
  }

  // Takes the operation's cost from the job's budget, or faults without running it.
  bool admit(uint32_t offset, const char* op, const isa::Operation& operation) {
    kernels::OpCost c = kernels::cost(operation);
    const uint64_t blocks = npu::OfmTiles::count_of(operation);
    c.work = blocks > (UINT64_MAX - c.work) / Limits::kTileWork ? UINT64_MAX : c.work + blocks * Limits::kTileWork;
    std::string why;
    if (c.buffer_elements > config_.limits.buffer_elements)
      why = "a host buffer of " + std::to_string(c.buffer_elements) + " elements, over the limit of " +
            std::to_string(config_.limits.buffer_elements);
    else if (c.work > work_left_)
      why = "up to " + std::to_string(c.work) + " element steps, over the " + std::to_string(work_left_) +
            " left of the job's limit of " + std::to_string(config_.limits.work);
    if (why.empty()) {
      work_left_ -= c.work;
      return true;
    }
    fault({FaultKind::LIMIT, offset, isa::hex_offset(offset) + ": " + op + ": needs " + why});
    return false;
  }

  bool start_dma(uint32_t offset, const Operation& op) {
    const char* name = "NPU_OP_DMA_START";
    if (const auto why = isa::unknown_behaviour(op)) {
      refuse(offset, isa::hex_offset(offset) + ": " + name + ": not modelled: " + *why);
      return false;
    }
    const auto& d = op.dma;
    const Span src = isa::dma_span(d, d.src), dst = isa::dma_span(d, d.dst);
    if (d.src.internal() ? !check_shram(offset, name, "source", src, Channel::RD_MEM2MEM)
                         : !check_region(offset, name, "source", Access::DMA_SRC, d.src.region, src))
      return false;
    if (d.dst.internal() ? !check_shram(offset, name, "destination", dst, Channel::WR_MEM2MEM)
                         : !check_region(offset, name, "destination", Access::DMA_DST, d.dst.region, dst))
      return false;
    if (!admit(offset, name, op)) return false;
    if (dmas_.size() >= config_.dma_queue_depth) wait_dmas(config_.dma_queue_depth - 1, Stall::DMA_QUEUE);
    uint64_t done_cycle;
    {
      const sim::HostTimer timer(result_.stats.host.timing);
      done_cycle = timeline_.dma(offset, op);
    }
    dmas_.push_back({offset, op, done_cycle});
    ++result_.stats.dma_ops;
    if (const std::optional<Fault> f = timeline_.bus_fault()) {
      fault(*f);
      return false;
    }
    return true;
  }

  // Moves the oldest queued DMA's bytes into every destination it names: an internal destination's region
  // field is a core mask; an internal source reads core 0.
  void land_oldest() {
    timeline_.prepare(dmas_.front().offset, dmas_.front().op);  // a DMA's bus errors came at its issue
    const sim::HostTimer timer(result_.stats.host.dma);
    const auto& d = dmas_.front().op.dma;
    const uint8_t* src = d.src.internal() ? shram_.front().data() : regions_[d.src.region].data;
    if (!d.dst.internal()) {
      kernels::copy_dma(d, src, regions_[d.dst.region].data);
    } else if (dmas_.front().op.v2()) {
      kernels::copy_dma(d, src, shram_.front().data());  // the U85's internal destination is its LUT RAM
    } else {
      for (unsigned c = 0; c < shram_.size(); ++c)
        if (d.dst.region & (1u << c)) kernels::copy_dma(d, src, shram_[c].data());
    }
    dmas_.pop_front();
  }

  void wait_dmas(size_t max_outstanding, Stall why = Stall::DMA_WAIT) {
    while (dmas_.size() > max_outstanding) {
      timeline_.wait_until(dmas_.front().done_cycle, why);
      land_oldest();
    }
  }

  void land_done_by(uint64_t cycle) {
    while (!dmas_.empty() && dmas_.front().done_cycle <= cycle) land_oldest();
  }

  void land_all() {
    while (!dmas_.empty()) land_oldest();
  }

  void retire_kernels() {
    const uint64_t now = timeline_.now();
    while (!kernels_.empty() && kernels_.front().end_cycle <= now) kernels_.pop_front();
  }

  void wait_kernels(size_t max_outstanding) {
    while (kernels_.size() > max_outstanding) {
      timeline_.wait_until(kernels_.front().end_cycle, Stall::KERNEL_WAIT);
      kernels_.pop_front();
    }
  }

  bool kernel(uint32_t offset, const Operation& op) {
    const char* name = isa::command_info(op.cmd).name.data();
    const auto accesses = kernels::accesses(op);
    for (const auto& a : accesses)
      if (!check_region(offset, name, isa::access_name(a.access), a.access, a.region, a.span)) return false;
    const uint64_t shram_bytes = shram_.empty() ? 0 : shram_.front().size();
    const Span lut = op.v2() ? kernels::lut_ram_span(op) : kernels::lut_span(op, shram_bytes);
    if (!check_shram(offset, name, "LUT", lut, Channel::RD_CMD)) return false;
    if (!admit(offset, name, op)) return false;

    // The TSU holds a limited number of operations: the CC waits for the oldest when all banks are busy.
    retire_kernels();
    if (kernels_.size() >= config_.tsu_banks) wait_kernels(config_.tsu_banks - 1);
    // The U85 has no SHRAM to lay out (its IFM, accumulator and output RAMs are the pipeline's buffers; Vela's
    // BLOCKDEP alone orders its operations), so it never waits for one.
    const ShramLayout layout{op.shram, op.acc_format};
    const bool new_layout = !op.v2() && (result_.stats.kernel_ops == 0 || layout != layout_);
    if (previous_.tiles) {
      // BLOCKDEP: the op may start once at most BLOCKDEP blocks of the previous op are unfinished.
      const uint64_t kept = std::min<uint64_t>(previous_.tiles, kMaxBlockdep + 1);
      if (op.blockdep < kept) timeline_.wait_until(previous_.last_tiles_done[kMaxBlockdep - op.blockdep], Stall::BLOCKDEP);
      // A different SHRAM layout waits until the previous op has released its banks.
      if (new_layout) timeline_.wait_until(previous_.last_tiles_done[kMaxBlockdep], Stall::SHRAM_RECONFIG);
    }
    // DMAs done by now are visible to the op; later ones are not (the stream should have waited).
    land_done_by(timeline_.now());
    note_hazards(offset, name, accesses);

    if (const std::optional<Fault> f = timeline_.prepare(offset, op)) {
      fault(*f);
      return false;
    }
    uint64_t macs = 0;
    try {
      macs = op.v2() ? u85_ops_.execute(op) : ops_.execute(op);
    } catch (const kernels::WeightFault& e) {
      fault({FaultKind::WD_FAULT, offset, isa::hex_offset(offset) + ": " + name + ": " + e.what()});
      return false;
    } catch (const kernels::UnknownBehaviour& e) {
      fault({FaultKind::LIMIT, offset, isa::hex_offset(offset) + ": " + name + ": " + e.what()});
      return false;
    }
    result_.stats.macs += macs;
    ++result_.stats.kernel_ops;

    KernelTimes t;
    {
      const sim::HostTimer timer(result_.stats.host.timing);
      KernelIssue issue{macs, new_layout, std::nullopt};
      if (op.v2() && u85_ops_.weight_stats()) {
        npu::WeightStreamU85 w;
        w.fast = op.weight_format == isa::enums::weight_format::FWD;
        w.zero_fraction = u85_ops_.weight_stats()->zero_fraction;
        w.distinct_values = u85_ops_.weight_stats()->distinct_values;
        issue.u85_weights = w;
      }
      t = timeline_.kernel(offset, op, issue);
    }
    kernels_.push_back({t.end_cycle, t.writes_acknowledged_cycle});
    writes_acknowledged_ = std::max(writes_acknowledged_, t.writes_acknowledged_cycle);
    previous_ = t;
    layout_ = layout;
    if (const std::optional<Fault> f = timeline_.bus_fault()) {
      fault(*f);
      return false;
    }
    return true;
  }

  // Reading bytes a queued DMA has not delivered yet: the hardware gives no guarantee, the model gives the
  // old bytes and says so.
  void note_hazards(uint32_t offset, const char* name, const std::vector<kernels::AccessRange>& accesses) {
    for (const auto& a : accesses)
      for (const auto& p : dmas_)
        if (!p.op.dma.dst.internal() && p.op.dma.dst.region == a.region &&
            overlaps(a.span, isa::dma_span(p.op.dma, p.op.dma.dst)) && ++result_.stats.hazards <= Limits::kMaxHazards)
          result_.hazards.push_back(isa::hex_offset(offset) + ": " + name + " " + isa::access_name(a.access) +
                                    " overlaps the destination of the DMA at " + isa::hex_offset(p.offset) +
                                    ", which the stream has not waited for (missing NPU_OP_DMA_WAIT)");
  }

  void stop(uint16_t mask) {
    wait_kernels(0);
    wait_dmas(0);
    // The NPU is done when the last OFM write responses are back, not when the data left.
    timeline_.wait_until(writes_acknowledged_, Stall::WRITE_RESPONSE);
    timeline_.stop(mask);
  }

  const Regions& regions_;
  ShramBanks& shram_;
  const EngineConfig& config_;
  Timeline& timeline_;
  RunResult& result_;
  uint64_t work_left_;
  kernels::OpRunner ops_;
  const std::vector<uint8_t> no_lut_ram_;
  kernels::U85Runner u85_ops_;
  std::deque<QueuedDma> dmas_;
  std::deque<InFlight> kernels_;
  KernelTimes previous_;
  ShramLayout layout_{};
  uint64_t writes_acknowledged_ = 0;
};

}  // namespace

RunResult Engine::run(const isa::Stream& s, const Regions& regions, ShramBanks& shram, const EngineConfig& config,
                      Timeline& timeline) {
  RunResult result;
  // The command controller executes everything before the first command it cannot parse.
  const isa::Diagnostic* error = s.first_error();
  const uint32_t parse_error_at = error ? error->offset : UINT32_MAX;
  Run run(regions, shram, config, timeline, result);
  if (!isa::architecture(config.variant).operations_modelled() || s.version != isa::architecture(config.variant).isa) {
    run.refuse(0, isa::hex_offset(0) + ": the simulator does not run the " + isa::architecture(config.variant).describe() +
                      "'s operations yet (command set " + isa::version_name(s.version) + ")");
    return result;
  }
  bool running = true, ended = false;
  isa::walk(s, [&](const isa::Event& e, const isa::StreamState& st) {
    if (!running) return;
    if (e.command.offset >= parse_error_at) {
      running = false;
      return;
    }
    running = run.event(e, st);
    ended = !running;
  });
  if (!ended) {
    // Decoding reports a missing NPU_OP_STOP as an error; the fallback names the end of the stream.
    if (error)
      run.parse_error(error->offset, error->message);
    else
      run.parse_error(static_cast<uint32_t>(s.size_bytes),
                      isa::hex_offset(static_cast<uint32_t>(s.size_bytes)) + ": the end of the stream without NPU_OP_STOP");
  }
  run.take_host_seconds();
  return result;
}

}  // namespace ethosu::cc
