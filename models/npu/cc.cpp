#include "models/npu/cc.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "isa/decoder.h"
#include "isa/registers.h"

namespace ethosu::npu {

using isa::PmuEvent;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string hex(int64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, v < 0 ? "-0x%llx" : "0x%llx", static_cast<unsigned long long>(v < 0 ? -v : v));
  return buf;
}

// STATUS.faulting_channel of an access class.
Channel channel_of(isa::Access a) {
  switch (a) {
    case isa::Access::IFM:
    case isa::Access::IFM2: return Channel::RD_IFM;
    case isa::Access::WEIGHTS: return Channel::RD_WEIGHTS;
    case isa::Access::SCALES: return Channel::RD_SCALE_BIAS;
    case isa::Access::OFM: return Channel::WR_OFM;
    case isa::Access::DMA_SRC: return Channel::RD_MEM2MEM;
    case isa::Access::DMA_DST: return Channel::WR_MEM2MEM;
  }
  return Channel::RD_CMD;
}

std::string op_kind(const isa::Operation& op) {
  switch (op.kind) {
    case isa::OpKind::CONV: return "CONV";
    case isa::OpKind::DEPTHWISE: return "DEPTHWISE";
    case isa::OpKind::POOL:
      return "POOL." + std::string(isa::enum_value_name(isa::EnumId::pooling_mode,
                                                         static_cast<uint32_t>(op.pooling_mode)));
    case isa::OpKind::ELEMENTWISE:
      return "ELEMENTWISE." + std::string(isa::enum_value_name(isa::EnumId::elementwise_mode,
                                                                static_cast<uint32_t>(op.elementwise_mode)));
    case isa::OpKind::DMA: return "DMA";
  }
  return "?";
}

const char* fault_text(Fault f) {
  switch (f) {
    case Fault::BUS_ERROR: return "bus error";
    case Fault::WD_FAULT: return "weight decoder fault";
    case Fault::CMD_PARSE_ERROR: return "command parse error";
  }
  return "fault";
}

}  // namespace

Cc::Cc(const sc_core::sc_module_name& name, const CcBlocks& blocks)
    : sc_module(name), b_(blocks), runner_(regions_, blocks.shram.banks()) {
  SC_THREAD(thread);
}

void Cc::configure(const CcTiming& t, const timing::NpuTiming& units, double clock_hz,
                   const std::array<mem::AxiPortParams, 2>& axi) {
  timing_ = t;
  axi_caps_ = axi;
  units_ = units;
  clock_ = CycleClock{clock_hz};
}

void Cc::set_trace(sim::Trace* trace, sim::Trace::TrackId cc, sim::Trace::TrackId axi0, sim::Trace::TrackId axi1) {
  trace_ = trace;
  cc_track_ = cc;
  axi_tracks_[0] = axi0;
  axi_tracks_[1] = axi1;
}

uint64_t Cc::cycle_now() const { return static_cast<uint64_t>(sc_core::sc_time_stamp() / b_.axi0.clock_period()); }

void Cc::thread() {
  for (;;) {
    wait(start_);
    run_stream();
    b_.pmu.plan_idle_overflow();
    if (irq_changed_) irq_changed_();
  }
}

void Cc::sync() {
  const sc_core::sc_time target = b_.axi0.clock_period() * static_cast<double>(cc_cycle_);
  if (target > sc_core::sc_time_stamp()) wait(target - sc_core::sc_time_stamp());
  b_.pmu.account_until(cc_cycle_);
}

void Cc::fault(const BlockFault& f, uint32_t offset) {
  wait_kernels(0);
  sync();
  b_.ctrl.set_qread(offset);
  b_.ctrl.fault(f.kind, f.port, f.channel);
  report_.status = std::string(fault_text(f.kind)) + " at " + f.what;
}

bool Cc::fetch_stream(std::vector<uint8_t>& bytes) {
  const unsigned p = b_.ctrl.command_port();
  bytes.resize(b_.ctrl.qsize());
  fetch_done_.clear();
  sc_core::sc_time offset = b_.axi0.clock_period() * static_cast<double>(cc_cycle_) - sc_core::sc_time_stamp();
  const uint64_t piece = std::max<uint32_t>(timing_.fetch_bytes, 4);
  for (uint64_t at = 0; at < bytes.size(); at += piece) {
    const uint64_t n = std::min<uint64_t>(piece, bytes.size() - at);
    // Every request is issued at the start; the port's outstanding limit and bandwidth pace them.
    sc_core::sc_time request = offset;
    const auto a = port(p).read(b_.ctrl.qbase() + at, bytes.data() + at, n, 0, mem::Client::CMD, request,
                                b_.ctrl.qconfig() & 1);
    if (!a.ok()) return false;
    fetch_done_.push_back(a.completion.complete_cycle);
  }
  report_.ports[p].read_bytes[static_cast<size_t>(Traffic::CMD)] += bytes.size();
  return true;
}

void Cc::parse_until(uint32_t end_offset) {
  // Word by word in order, each fetch request's words once its bytes are in.
  const uint32_t piece = std::max<uint32_t>(timing_.fetch_bytes, 4);
  while (parsed_ < end_offset) {
    const size_t k = std::min<size_t>(parsed_ / piece, fetch_done_.empty() ? 0 : fetch_done_.size() - 1);
    const uint32_t upto = std::min<uint32_t>(end_offset, static_cast<uint32_t>((k + 1) * piece));
    if (!fetch_done_.empty() && fetch_done_[k] > cc_cycle_) {
      report_.cc_stall_cycles[static_cast<size_t>(Stall::CMD_FETCH)] += fetch_done_[k] - cc_cycle_;
      cc_cycle_ = fetch_done_[k];
    }
    cc_cycle_ += uint64_t{timing_.cycles_per_word} * ((upto - parsed_ + 3) / 4);
    parsed_ = upto;
  }
}

void Cc::map_regions() {
  // The AXI limiters as the driver programmed them, capped by what the port's memory allows.
  for (unsigned p = 0; p < 2; ++p) {
    mem::AxiPortParams params = port(p).timing().params();
    for (unsigned l = 0; l < mem::kLimitersPerPort; ++l) {
      const uint32_t v = b_.ctrl.axi_limit(2 * p + l);
      auto& lim = params.limiters[l];
      const auto& cap = axi_caps_[p].limiters[l];
      lim.burst_split_bytes = 64u << std::min<uint32_t>(isa::get(v, isa::RegField::AXI_LIMIT0_max_beats), 2);
      lim.max_outstanding_reads =
          std::min(cap.max_outstanding_reads, isa::get(v, isa::RegField::AXI_LIMIT0_max_outstanding_read_m1) + 1);
      lim.max_outstanding_writes =
          std::min(cap.max_outstanding_writes, isa::get(v, isa::RegField::AXI_LIMIT0_max_outstanding_write_m1) + 1);
    }
    port(p).timing().configure(params);
  }
  for (unsigned r = 0; r < regions_.size(); ++r) {
    uint64_t avail = 0;
    uint8_t* data = port(b_.ctrl.region_port(r)).direct(b_.ctrl.basep(r), avail);
    regions_[r] = {data, data ? avail : 0};
    pipeline_.region_port[r] = b_.ctrl.region_port(r);
    pipeline_.region_limiter[r] = b_.ctrl.region_limiter(r) & 1;
  }
  pipeline_.ports = {&b_.axi0.timing(), &b_.axi1.timing()};
  pipeline_.wd = &b_.wd.unit();
  pipeline_.mac = &b_.mac.unit();
  pipeline_.ao = &b_.ao.unit();
}

void Cc::run_stream() {
  const auto host_start = std::chrono::steady_clock::now();
  report_ = JobReport{};
  report_.clock_hz = clock_.hz;
  b_.pmu.account_until(cycle_now());
  cc_cycle_ = run_start_cycle_ = cycle_now();
  kernels_.clear();
  work_left_ = limits_.work;
  prev_block_done_.clear();
  have_prev_op_ = false;
  writes_acknowledged_ = cc_cycle_;
  b_.wd.begin_stream(cc_cycle_);
  b_.mac.begin_stream(cc_cycle_);
  b_.ao.begin_stream(cc_cycle_);
  b_.shram.begin_stream();
  map_regions();
  b_.dma.begin_stream(cc_cycle_, regions_);

  std::vector<uint8_t> bytes;
  if (!fetch_stream(bytes)) {
    fault({Fault::BUS_ERROR, "command stream fetch at QBASE " + std::to_string(b_.ctrl.qbase()),
           b_.ctrl.command_port(), Channel::RD_CMD},
          0);
    return;
  }
  const isa::Stream stream = isa::decode(bytes);
  const isa::Diagnostic* error = stream.first_error();
  const uint32_t first_error = error ? error->offset : UINT32_MAX;
  const std::string error_text = error ? error->message : "";

  parsed_ = 0;
  bool stopped = false, halted = false;
  isa::walk(stream, [&](const isa::Event& e, const isa::StreamState& st) {
    if (stopped || halted) return;
    if (e.command.offset >= first_error) {
      halted = true;
      return;
    }
    // The CC parses every word up to the event's command (a payload word counts with what follows).
    parse_until(e.command.offset + 4);
    b_.ctrl.set_qread(e.command.offset);
    b_.mirror = st.regs();
    switch (e.kind) {
      case isa::EventKind::OPERATION:
        halted = e.operation->kind == isa::OpKind::DMA ? !start_dma(e.command.offset, *e.operation)
                                                       : !kernel_operation(e.command.offset, *e.operation);
        break;
      case isa::EventKind::DMA_WAIT: {
        const uint64_t before = cc_cycle_;
        b_.dma.wait(e.value, cc_cycle_);
        report_.cc_stall_cycles[static_cast<size_t>(Stall::DMA_WAIT)] += cc_cycle_ - before;
        break;
      }
      case isa::EventKind::KERNEL_WAIT: wait_kernels(e.value); break;
      case isa::EventKind::PMU_MASK:
        sync();
        b_.pmu.registers().set_mask(e.value != 0);
        break;
      case isa::EventKind::IRQ:
        sync();
        b_.ctrl.irq_op(static_cast<uint16_t>(e.value));
        if (irq_changed_) irq_changed_();
        break;
      case isa::EventKind::STOP:
        stop(static_cast<uint16_t>(e.value));
        stopped = true;
        break;
    }
    if (!halted && !stopped && cc_cycle_ > b_.pmu.accounted_cycle() + timing_.quantum_cycles) sync();
  });
  if (!stopped && !b_.ctrl.faulted()) {
    b_.dma.land_all();
    fault({Fault::CMD_PARSE_ERROR, error_text.empty() ? "the end of the stream without NPU_OP_STOP" : error_text},
          first_error == UINT32_MAX ? static_cast<uint32_t>(bytes.size()) : first_error);
  }
  b_.dma.land_all();
  report_.total_cycles = cc_cycle_ - run_start_cycle_;
  // Operations are reported from the job's start, so that reports of repeated runs compare.
  for (auto& op : report_.ops) {
    op.start_cycle -= run_start_cycle_;
    op.end_cycle -= run_start_cycle_;
  }
  if (report_.status.empty()) report_.status = "ok";
  for (unsigned p = 0; p < 2; ++p)
    for (const auto& op : report_.ops)
      for (size_t k = 0; k < kTrafficClasses; ++k) {
        report_.ports[p].read_bytes[k] += op.ports[p].read_bytes[k];
        report_.ports[p].write_bytes[k] += op.ports[p].write_bytes[k];
      }
  const PmuRegisters& pmu = b_.pmu.registers();
  for (const auto& e : isa::kPmuEvents) {
    if (e.event == PmuEvent::NO_EVENT) continue;
    for (unsigned n = 0; n < PmuRegisters::kCounters; ++n)
      if (pmu.event_type(n) == e.hw_id) report_.pmu[std::string(e.name)] = pmu.event_counter(n);
  }
  report_.pmu["PMCCNTR"] = pmu.cycle_counter();
  report_.host_kernel_seconds += b_.dma.host_copy_seconds();
  report_.host_total_seconds = seconds_since(host_start);
}

void Cc::stop(uint16_t mask) {
  wait_kernels(0);
  b_.dma.wait(0, cc_cycle_);
  // The NPU is done when the last OFM write responses are back, not when the data left.
  if (writes_acknowledged_ > cc_cycle_) {
    report_.cc_stall_cycles[static_cast<size_t>(Stall::WRITE_RESPONSE)] += writes_acknowledged_ - cc_cycle_;
    cc_cycle_ = writes_acknowledged_;
  }
  sync();
  b_.ctrl.stop_reached(mask);
}

void Cc::wait_kernels(size_t max_outstanding) {
  const uint64_t before = cc_cycle_;
  while (kernels_.size() > max_outstanding) {
    cc_cycle_ = std::max(cc_cycle_, kernels_.front().end_cycle);
    kernels_.pop_front();
  }
  report_.cc_stall_cycles[static_cast<size_t>(Stall::KERNEL_WAIT)] += cc_cycle_ - before;
}

bool Cc::admit(uint32_t offset, const char* name, const functional::OpCost& c) {
  if (c.buffer_elements <= limits_.buffer_elements && c.work <= work_left_) {
    work_left_ -= c.work;
    return true;
  }
  // Not a hardware fault: the simulator refuses work that would exhaust the host. The NPU is stopped
  // with a command parse error so that the driver sees the job fail; the report says why.
  fault({Fault::CMD_PARSE_ERROR, isa::hex_offset(offset) + ": " + name +
                                     ": simulation limit: the operation needs more host time or memory " +
                                     "than functional::Limits allows"},
        offset);
  return false;
}

bool Cc::start_dma(uint32_t offset, const isa::Operation& op) {
  if (auto f = b_.dma.check(offset, op)) {
    fault(*f, offset);
    return false;
  }
  if (!admit(offset, "NPU_OP_DMA_START", functional::cost(op))) return false;
  const OpRecord rec = b_.dma.start(offset, op, cc_cycle_);
  if (trace_) trace_op(rec);
  report_.ops.push_back(rec);
  return true;
}

void Cc::trace_op(const OpRecord& rec) {
  if (rec.kind != "DMA")
    trace_->complete(cc_track_, rec.kind, "operation", clock_.ps(rec.start_cycle),
                     clock_.ps(rec.end_cycle) - clock_.ps(rec.start_cycle),
                     {{"offset", rec.offset}, {"cycles", rec.cycles()}, {"blocks", rec.blocks}, {"macs", rec.macs},
                      {"mac_utilisation", rec.mac_utilisation}});
  for (unsigned p = 0; p < 2; ++p) {
    uint64_t rd = 0, wr = 0;
    for (size_t k = 0; k < kTrafficClasses; ++k) {
      rd += rec.ports[p].read_bytes[k];
      wr += rec.ports[p].write_bytes[k];
    }
    if (rd + wr && rec.end_cycle > rec.start_cycle)
      trace_->complete(axi_tracks_[p], rec.kind + " traffic", "axi", clock_.ps(rec.start_cycle),
                       clock_.ps(rec.end_cycle) - clock_.ps(rec.start_cycle),
                       {{"read_bytes", rd}, {"write_bytes", wr}, {"op_offset", rec.offset}});
  }
}

bool Cc::kernel_operation(uint32_t offset, const isa::Operation& op) {
  const char* name = isa::command_info(op.cmd).name.data();
  for (const auto& a : functional::accesses(op)) {
    const auto& r = regions_[a.region];
    if (a.span.empty() || (r.data && a.span.lo >= 0 && static_cast<uint64_t>(a.span.hi) <= r.size_bytes)) continue;
    fault({Fault::BUS_ERROR,
           isa::hex_offset(offset) + ": " + name + ": " + isa::access_name(a.access) + " bytes [" + hex(a.span.lo) +
               ", " + hex(a.span.hi) + ") outside region " + std::to_string(a.region) + " (" +
               std::to_string(r.size_bytes) + " bytes)",
           b_.ctrl.region_port(a.region), channel_of(a.access)},
          offset);
    return false;
  }
  isa::Span lut;
  if (!b_.shram.lut_inside(op, lut)) {
    fault({Fault::BUS_ERROR, isa::hex_offset(offset) + ": " + name + ": LUT SHRAM bytes [" + hex(lut.lo) + ", " +
                                 hex(lut.hi) + ") outside the " + std::to_string(b_.shram.bytes_per_core()) +
                                 "-byte SHRAM"},
          offset);
    return false;
  }
  if (!admit(offset, name, functional::cost(op))) return false;
  // The TSU holds a limited number of operations: the CC waits for the oldest when all banks are busy.
  while (!kernels_.empty() && kernels_.front().end_cycle <= cc_cycle_) kernels_.pop_front();
  if (kernels_.size() >= timing_.tsu_banks) wait_kernels(timing_.tsu_banks - 1);

  OpRecord rec;
  rec.offset = offset;
  rec.kind = op_kind(op);
  rec.ofm_shape = {op.ofm.height, op.ofm.width, op.ofm.depth};
  rec.block = {op.block.height, op.block.width, op.block.depth};
  uint64_t ready = cc_cycle_;
  EventCounts& events = b_.pmu.pending();
  if (have_prev_op_) {
    // BLOCKDEP: the op may start once at most BLOCKDEP blocks of the previous op are unfinished.
    const size_t n = prev_block_done_.size();
    const uint64_t gate = op.blockdep >= n ? 0 : prev_block_done_[n - 1 - op.blockdep];
    if (gate > ready) {
      rec.stall_cycles[static_cast<size_t>(Stall::BLOCKDEP)] = gate - ready;
      events.add(static_cast<uint16_t>(PmuEvent::CC_STALLED_ON_BLOCKDEP), gate - ready);
      ready = gate;
    }
    // A different SHRAM layout waits until the previous op has released its banks.
    const uint64_t drained = n ? prev_block_done_.back() : ready;
    if (b_.shram.needs_reconfig(op) && drained > ready) {
      rec.stall_cycles[static_cast<size_t>(Stall::SHRAM_RECONFIG)] = drained - ready;
      events.add(static_cast<uint16_t>(PmuEvent::CC_STALLED_ON_SHRAM_RECONFIG), drained - ready);
      ready = drained;
    }
  }
  // The CC itself waits out those stalls: the commands after this op are parsed once it is issued.
  cc_cycle_ = ready;
  // DMAs that finished by then are visible to the op; later ones are not (the stream should wait).
  b_.dma.land_until(ready);

  const auto host_start = std::chrono::steady_clock::now();
  try {
    rec.macs = runner_.execute(op);
  } catch (const functional::WeightFault& e) {
    fault({Fault::WD_FAULT, isa::hex_offset(offset) + ": " + name + ": " + e.what()}, offset);
    return false;
  }
  report_.host_kernel_seconds += seconds_since(host_start);
  const timing::OpWork work(op, units_);
  stages_.clear();
  const OpTiming t = schedule(op, work, ready, pipeline_, trace_ ? &stages_ : nullptr);
  rec.start_cycle = t.start_cycle;
  rec.end_cycle = t.end_cycle;
  rec.blocks = work.block_count();
  rec.macs = t.macs;
  rec.mac_busy_cycles = t.mac_busy;
  rec.ao_busy_cycles = t.ao_busy;
  rec.wd_busy_cycles = t.wd_busy;
  rec.mac_utilisation = rec.cycles() ? double(t.macs) / (double(rec.cycles()) * b_.mac.peak_macs_per_cycle()) : 0.0;
  for (size_t k = 0; k < kStallKinds; ++k) rec.stall_cycles[k] += t.stalls[k];
  rec.ports[0] = t.ports[0];
  rec.ports[1] = t.ports[1];
  if (trace_) {
    trace_op(rec);
    b_.wd.trace_blocks(rec, stages_, clock_);
    b_.mac.trace_blocks(rec, stages_, clock_);
    b_.ao.trace_blocks(rec, stages_, clock_);
  }
  report_.ops.push_back(rec);
  b_.wd.account(t, events);
  b_.mac.account(op, t, events);
  b_.ao.account(op, t, events);

  kernels_.push_back({t.end_cycle});
  writes_acknowledged_ = std::max(writes_acknowledged_, t.writes_acknowledged_cycle);
  prev_block_done_ = t.block_done;
  b_.shram.occupy(op);
  have_prev_op_ = true;
  return true;
}

}  // namespace ethosu::npu
