#include "models/npu/npu.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "isa/decoder.h"
#include "isa/registers.h"
#include "models/functional/dma.h"
#include "models/functional/op_runner.h"

namespace ethosu::npu {

using isa::PmuEvent;
using isa::Reg;

namespace {

constexpr uint16_t off(Reg r) { return static_cast<uint16_t>(r); }
constexpr uint16_t ev(PmuEvent e) { return static_cast<uint16_t>(e); }
constexpr uint16_t kStateRegistersBegin = 0x800, kStateRegistersEnd = 0xB60;

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

// The AXI events of one port, from the difference of its statistics over an interval.
struct AxiEventIds {
  PmuEvent rd_accepted, rd_completed, rd_beats, wr_accepted, wr_completed_m, wr_completed_s, wr_beats, rd_limit,
      wr_limit;
};
constexpr AxiEventIds kAxiEvents[2] = {
    {PmuEvent::AXI0_RD_TRANS_ACCEPTED, PmuEvent::AXI0_RD_TRANS_COMPLETED, PmuEvent::AXI0_RD_DATA_BEAT_RECEIVED,
     PmuEvent::AXI0_WR_TRANS_ACCEPTED, PmuEvent::AXI0_WR_TRANS_COMPLETED_M, PmuEvent::AXI0_WR_TRANS_COMPLETED_S,
     PmuEvent::AXI0_WR_DATA_BEAT_WRITTEN, PmuEvent::AXI0_RD_STALL_LIMIT, PmuEvent::AXI0_WR_STALL_LIMIT},
    {PmuEvent::AXI1_RD_TRANS_ACCEPTED, PmuEvent::AXI1_RD_TRANS_COMPLETED, PmuEvent::AXI1_RD_DATA_BEAT_RECEIVED,
     PmuEvent::AXI1_WR_TRANS_ACCEPTED, PmuEvent::AXI1_WR_TRANS_COMPLETED_M, PmuEvent::AXI1_WR_TRANS_COMPLETED_S,
     PmuEvent::AXI1_WR_DATA_BEAT_WRITTEN, PmuEvent::AXI1_RD_STALL_LIMIT, PmuEvent::AXI1_WR_STALL_LIMIT},
};

void axi_events(EventCounts& e, unsigned port, const mem::AxiPortStats& now, const mem::AxiPortStats& before) {
  const AxiEventIds& id = kAxiEvents[port];
  const uint64_t rd_tr = now.read.transactions - before.read.transactions;
  const uint64_t wr_tr = now.write.transactions - before.write.transactions;
  e.add(ev(id.rd_accepted), rd_tr);
  e.add(ev(id.rd_completed), rd_tr);
  e.add(ev(id.rd_beats), now.read.beats - before.read.beats);
  e.add(ev(id.wr_accepted), wr_tr);
  e.add(ev(id.wr_completed_m), wr_tr);
  e.add(ev(id.wr_completed_s), wr_tr);
  e.add(ev(id.wr_beats), now.write.beats - before.write.beats);
  e.add(ev(id.rd_limit), now.read.limit_stall_cycles - before.read.limit_stall_cycles);
  e.add(ev(id.wr_limit), now.write.limit_stall_cycles - before.write.limit_stall_cycles);
}

// Every event the model derives; the others count nothing.
constexpr PmuEvent kDerivedEvents[] = {
    PmuEvent::CYCLE, PmuEvent::NPU_IDLE, PmuEvent::NPU_ACTIVE, PmuEvent::CC_STALLED_ON_BLOCKDEP,
    PmuEvent::CC_STALLED_ON_SHRAM_RECONFIG, PmuEvent::MAC_ACTIVE, PmuEvent::MAC_ACTIVE_8BIT, PmuEvent::MAC_ACTIVE_16BIT,
    PmuEvent::MAC_ACTIVE_32BIT, PmuEvent::MAC_DPU_ACTIVE, PmuEvent::MAC_STALLED_BY_WD_ACC, PmuEvent::MAC_STALLED_BY_WD,
    PmuEvent::MAC_STALLED_BY_ACC, PmuEvent::MAC_STALLED_BY_IB, PmuEvent::AO_ACTIVE, PmuEvent::AO_ACTIVE_8BIT,
    PmuEvent::AO_ACTIVE_16BIT, PmuEvent::AO_STALLED_BY_ACC_IB, PmuEvent::AO_STALLED_BY_ACC, PmuEvent::AO_STALLED_BY_OB,
    PmuEvent::WD_ACTIVE,
    // AXI events of both ports (kAxiEvents).
    PmuEvent::AXI0_RD_TRANS_ACCEPTED, PmuEvent::AXI0_RD_TRANS_COMPLETED, PmuEvent::AXI0_RD_DATA_BEAT_RECEIVED,
    PmuEvent::AXI0_WR_TRANS_ACCEPTED, PmuEvent::AXI0_WR_TRANS_COMPLETED_M, PmuEvent::AXI0_WR_TRANS_COMPLETED_S,
    PmuEvent::AXI0_WR_DATA_BEAT_WRITTEN, PmuEvent::AXI0_RD_STALL_LIMIT, PmuEvent::AXI0_WR_STALL_LIMIT,
    PmuEvent::AXI1_RD_TRANS_ACCEPTED, PmuEvent::AXI1_RD_TRANS_COMPLETED, PmuEvent::AXI1_RD_DATA_BEAT_RECEIVED,
    PmuEvent::AXI1_WR_TRANS_ACCEPTED, PmuEvent::AXI1_WR_TRANS_COMPLETED_M, PmuEvent::AXI1_WR_TRANS_COMPLETED_S,
    PmuEvent::AXI1_WR_DATA_BEAT_WRITTEN, PmuEvent::AXI1_RD_STALL_LIMIT, PmuEvent::AXI1_WR_STALL_LIMIT,
};

}  // namespace

Npu::Npu(const sc_core::sc_module_name& name, mem::AxiPort& axi0, mem::AxiPort& axi1)
    : sc_module(name),
      apb("apb"),
      irq("irq"),
      axi0_(axi0),
      axi1_(axi1),
      ctrl_(isa::Variant::U65_256),
      runner_(regions_, shram_) {
  apb.register_b_transport(this, &Npu::b_transport);
  SC_THREAD(cc_thread);
  configure(NpuConfig{}, {});
}

void Npu::configure(const NpuConfig& c, const std::array<mem::AxiPortParams, 2>& axi) {
  config_ = c;
  config_axi_ = axi;
  ctrl_.set_variant(c.variant);
  const auto vi = isa::variant_info(c.variant);
  shram_.assign(vi.cores, std::vector<uint8_t>(vi.shram_bytes(), 0));
}

bool derives_pmu_event(uint16_t hw_id) {
  for (PmuEvent e : kDerivedEvents)
    if (ev(e) == hw_id) return true;
  return false;
}

void Npu::set_trace(sim::Trace* trace) {
  trace_ = trace && trace->enabled() ? trace : nullptr;
  if (!trace_) return;
  const char* names[kTracks] = {"CC", "DMA", "WD", "MAC", "AO", "AXI0", "AXI1"};
  for (unsigned t = 0; t < kTracks; ++t) tracks_[t] = trace_->track(names[t]);
}

void Npu::trace_op(const OpRecord& rec, const std::vector<BlockStages>& stages) {
  const bool dma = rec.kind == "DMA";
  trace_->complete(tracks_[dma ? DMA : CC], rec.kind, dma ? "dma" : "operation", ps(rec.start_cycle),
                   ps(rec.end_cycle) - ps(rec.start_cycle),
                   {{"offset", rec.offset}, {"cycles", rec.cycles()}, {"blocks", rec.blocks}, {"macs", rec.macs},
                    {"mac_utilisation", rec.mac_utilisation}});
  auto span = [&](Track t, const char* what, uint64_t from, uint64_t to, size_t block) {
    if (to > from)
      trace_->complete(tracks_[t], rec.kind + " " + what, "block", ps(from), ps(to) - ps(from),
                       {{"op_offset", rec.offset}, {"block", block}});
  };
  for (size_t i = 0; i < stages.size(); ++i) {
    const BlockStages& b = stages[i];
    span(WD, "decode", b.wd_start, b.wd_end, i);
    span(MAC, "block", b.mac_start, b.mac_end, i);
    span(AO, "block", b.ao_start, b.ao_end, i);
  }
  for (unsigned p = 0; p < 2; ++p) {
    uint64_t rd = 0, wr = 0;
    for (size_t k = 0; k < kTrafficClasses; ++k) {
      rd += rec.ports[p].read_bytes[k];
      wr += rec.ports[p].write_bytes[k];
    }
    if (rd + wr && rec.end_cycle > rec.start_cycle)
      trace_->complete(tracks_[p ? AXI1 : AXI0], rec.kind + " traffic", "axi", ps(rec.start_cycle),
                       ps(rec.end_cycle) - ps(rec.start_cycle),
                       {{"read_bytes", rd}, {"write_bytes", wr}, {"op_offset", rec.offset}});
  }
}

uint64_t Npu::cycle_now() const {
  return static_cast<uint64_t>(sc_core::sc_time_stamp() / axi0_.clock_period());
}

// ---- Registers ----------------------------------------------------------------------------------

void Npu::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const uint64_t addr = gp.get_address();
  if (gp.get_data_length() != 4 || (addr & 3) || addr >= 0x1000 || gp.get_byte_enable_ptr()) {
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);  // 32-bit aligned accesses only
    return;
  }
  // Register accesses are time-dependent (STATUS, QREAD, PMU): bring the model to the access time.
  wait(delay);
  delay = sc_core::SC_ZERO_TIME;
  uint32_t v = 0;
  if (gp.is_read()) {
    v = read_register(static_cast<uint16_t>(addr));
    std::memcpy(gp.get_data_ptr(), &v, 4);
  } else {
    std::memcpy(&v, gp.get_data_ptr(), 4);
    write_register(static_cast<uint16_t>(addr), v);
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

uint32_t Npu::read_register(uint16_t offset) {
  if (!ctrl_.running()) account_until(cycle_now());
  uint32_t v = 0;
  if (ctrl_.read(offset, v) || pmu_.read(offset, v)) return v;
  if (offset >= kStateRegistersBegin && offset < kStateRegistersEnd) {
    // A state register's mirror: the low or high word of the command that writes it.
    for (const auto& c : isa::kCommands) {
      if (isa::is_operation(c.cmd) || c.mirror_register == 0) continue;
      const uint16_t m = c.mirror_register;
      if (offset == m) return static_cast<uint32_t>(mirror_.bits(c.cmd) >> (c.kind == isa::Kind::CMD1 ? 32 : 16)) &
                              (c.kind == isa::Kind::CMD1 ? 0xFFFFFFFFu : 0xFFFFu);
      if (c.kind == isa::Kind::CMD1 && offset == m + 4) return static_cast<uint32_t>(mirror_.bits(c.cmd) >> 16) & 0xFF;
    }
    return 0;
  }
  const uint16_t window = off(Reg::SHARED_BUFFER);
  if (offset >= window && offset < window + 1024) {
    const auto& sh = shram_.at(std::min<size_t>(debug_[2] & 1, shram_.size() - 1));
    const size_t at = (debug_[0] & ~size_t{1023}) + (offset - window);
    if (at + 4 <= sh.size()) std::memcpy(&v, sh.data() + at, 4);
    return v;
  }
  switch (static_cast<Reg>(offset)) {
    case Reg::CLKFORCE: return clkforce_;
    case Reg::DEBUG_ADDRESS: return debug_[0];
    case Reg::DEBUG_MISC: return debug_[1];
    case Reg::DEBUGCORE: return debug_[2];
    case Reg::DEBUG_BLOCK: return debug_[3];
    default: break;
  }
  const isa::RegisterInfo* ri = isa::find_register(offset);
  return ri ? ri->reset : 0;  // identification registers read their fixed values, holes read 0
}

void Npu::write_register(uint16_t offset, uint32_t value) {
  HostAction action = HostAction::NONE;
  if (ctrl_.write(offset, value, action)) {
    if (action == HostAction::SOFT_RESET) soft_reset();
    if (action == HostAction::RUN) {
      ctrl_.set_running(true);
      start_.notify(sc_core::SC_ZERO_TIME);
    }
    update_irq();
    return;
  }
  // Count the interval up to the write under the old PMU settings: an enable, reset or new event type
  // applies from the write on, not from the last access.
  if (!ctrl_.running()) account_until(cycle_now());
  if (pmu_.write(offset, value)) {
    update_irq();
    return;
  }
  switch (static_cast<Reg>(offset)) {
    case Reg::CLKFORCE: clkforce_ = value; break;
    case Reg::DEBUG_ADDRESS: debug_[0] = value; break;
    case Reg::DEBUG_MISC: debug_[1] = value; break;
    case Reg::DEBUGCORE: debug_[2] = value; break;
    case Reg::DEBUG_BLOCK: debug_[3] = value; break;
    default: break;  // state registers and read-only registers ignore host writes
  }
}

void Npu::soft_reset() {
  account_until(cycle_now());
  ctrl_.reset();
  pmu_.reset();
  mirror_.reset();
  debug_.fill(0);
  clkforce_ = 0;
  // The LUT banks are SHRAM contents, which reset does not clear [I]; stream state does go.
}

void Npu::update_irq() {
  ctrl_.set_pmu_irq(pmu_.irq());
  irq.write(ctrl_.irq());
}

// ---- Command controller ----------------------------------------------------------------------------

void Npu::cc_thread() {
  for (;;) {
    wait(start_);
    run_stream();
    update_irq();
  }
}

void Npu::account_until(uint64_t cycle) {
  const uint64_t dt = cycle > accounted_cycle_ ? cycle - accounted_cycle_ : 0;
  pending_events_.add(ev(PmuEvent::CYCLE), dt);
  pending_events_.add(ctrl_.running() ? ev(PmuEvent::NPU_ACTIVE) : ev(PmuEvent::NPU_IDLE), dt);
  for (unsigned p = 0; p < 2; ++p) {
    const auto now = port(p).timing().stats();
    axi_events(pending_events_, p, now, port_stats_at_sync_[p]);
    port_stats_at_sync_[p] = now;
  }
  pmu_.add(pending_events_);
  pending_events_.clear();
  accounted_cycle_ = std::max(accounted_cycle_, cycle);
  update_irq();
}

void Npu::sync() {
  const sc_core::sc_time target = axi0_.clock_period() * static_cast<double>(cc_cycle_);
  if (target > sc_core::sc_time_stamp()) wait(target - sc_core::sc_time_stamp());
  account_until(cc_cycle_);
}

void Npu::fault(Fault f, uint32_t offset, const std::string& what, unsigned p, Channel ch) {
  wait_kernels(0);
  sync();
  ctrl_.set_qread(offset);
  ctrl_.fault(f, p, ch);
  report_.status = std::string(f == Fault::BUS_ERROR ? "bus error" : f == Fault::WD_FAULT ? "weight decoder fault"
                                                                                         : "command parse error") +
                   " at " + what;
}

bool Npu::fetch_stream(std::vector<uint8_t>& bytes) {
  const unsigned p = ctrl_.command_port();
  bytes.resize(ctrl_.qsize());
  if (bytes.empty()) return true;
  sc_core::sc_time offset = axi0_.clock_period() * static_cast<double>(cc_cycle_) - sc_core::sc_time_stamp();
  // The CC starts parsing when the first burst is in; the rest streams in behind it.
  const uint64_t first = std::min<uint64_t>(bytes.size(), 64);
  auto a = port(p).read(ctrl_.qbase(), bytes.data(), first, 0, mem::Client::CMD, offset, ctrl_.qconfig() & 1);
  if (!a.ok()) return false;
  cc_cycle_ = a.completion.complete_cycle;
  if (bytes.size() > first) {
    sc_core::sc_time rest = offset;
    a = port(p).read(ctrl_.qbase() + first, bytes.data() + first, bytes.size() - first, 0, mem::Client::CMD, rest,
                     ctrl_.qconfig() & 1);
    if (!a.ok()) return false;
  }
  report_.ports[p].read_bytes[static_cast<size_t>(Traffic::CMD)] += bytes.size();
  return true;
}

void Npu::map_regions() {
  // The AXI limiters as the driver programmed them, capped by what the port's memory allows.
  for (unsigned p = 0; p < 2; ++p) {
    mem::AxiPortParams params = port(p).timing().params();
    for (unsigned l = 0; l < mem::kLimitersPerPort; ++l) {
      const uint32_t v = ctrl_.axi_limit(2 * p + l);
      auto& lim = params.limiters[l];
      const auto& cap = config_axi_[p].limiters[l];
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
    uint8_t* data = port(ctrl_.region_port(r)).direct(ctrl_.basep(r), avail);
    regions_[r] = {data, data ? avail : 0};
    units_.region_port[r] = ctrl_.region_port(r);
    units_.region_limiter[r] = ctrl_.region_limiter(r) & 1;
  }
  units_.ports = {&axi0_.timing(), &axi1_.timing()};
}

void Npu::run_stream() {
  const auto host_start = std::chrono::steady_clock::now();
  report_ = JobReport{};
  report_.clock_hz = config_.clock_hz;
  account_until(cycle_now());
  cc_cycle_ = run_start_cycle_ = cycle_now();
  dmas_.clear();
  kernels_.clear();
  work_left_ = limits_.work;
  prev_block_done_.clear();
  have_prev_op_ = false;
  units_.wd = units_.mac = units_.ao = Unit{cc_cycle_, 0};
  dma_free_ = cc_cycle_;
  map_regions();

  std::vector<uint8_t> bytes;
  if (!fetch_stream(bytes)) {
    fault(Fault::BUS_ERROR, 0, "command stream fetch at QBASE " + std::to_string(ctrl_.qbase()), ctrl_.command_port(),
          Channel::RD_CMD);
    return;
  }
  const isa::Stream stream = isa::decode(bytes);
  const isa::Diagnostic* error = stream.first_error();
  const uint32_t first_error = error ? error->offset : UINT32_MAX;
  const std::string error_text = error ? error->message : "";

  uint32_t last_offset = 0;
  bool stopped = false, halted = false;
  isa::walk(stream, [&](const isa::Event& e, const isa::StreamState& st) {
    if (stopped || halted) return;
    if (e.command.offset >= first_error) {
      halted = true;
      return;
    }
    // The CC parses every word between two events.
    cc_cycle_ += uint64_t{config_.cc.cycles_per_word} * ((e.command.offset - last_offset) / 4 + 1);
    last_offset = e.command.offset + 4;
    ctrl_.set_qread(e.command.offset);
    mirror_ = st.regs();
    switch (e.kind) {
      case isa::EventKind::OPERATION:
        halted = e.operation->kind == isa::OpKind::DMA ? !start_dma(e.command.offset, *e.operation)
                                                       : !kernel_operation(e.command.offset, *e.operation);
        break;
      case isa::EventKind::DMA_WAIT: {
        const uint64_t before = cc_cycle_;
        while (dmas_.size() > e.value) {
          cc_cycle_ = std::max(cc_cycle_, dmas_.front().done_cycle);
          complete_dma(dmas_.front());
          dmas_.pop_front();
        }
        report_.cc_stall_cycles[static_cast<size_t>(Stall::DMA_WAIT)] += cc_cycle_ - before;
        break;
      }
      case isa::EventKind::KERNEL_WAIT: wait_kernels(e.value); break;
      case isa::EventKind::PMU_MASK:
        sync();
        pmu_.set_mask(e.value != 0);
        break;
      case isa::EventKind::IRQ:
        sync();
        ctrl_.irq_op(static_cast<uint16_t>(e.value));
        update_irq();
        break;
      case isa::EventKind::STOP:
        wait_kernels(0);
        while (!dmas_.empty()) {
          cc_cycle_ = std::max(cc_cycle_, dmas_.front().done_cycle);
          complete_dma(dmas_.front());
          dmas_.pop_front();
        }
        sync();
        ctrl_.stop_reached(static_cast<uint16_t>(e.value));
        stopped = true;
        break;
    }
    if (!halted && !stopped && cc_cycle_ > accounted_cycle_ + config_.cc.quantum_cycles) sync();
  });
  if (!stopped && !ctrl_.faulted()) {
    while (!dmas_.empty()) {
      complete_dma(dmas_.front());
      dmas_.pop_front();
    }
    fault(Fault::CMD_PARSE_ERROR, first_error == UINT32_MAX ? static_cast<uint32_t>(bytes.size()) : first_error,
          error_text.empty() ? "the end of the stream without NPU_OP_STOP" : error_text);
  }
  report_.total_cycles = cc_cycle_ - run_start_cycle_;
  if (report_.status.empty()) report_.status = "ok";
  for (unsigned p = 0; p < 2; ++p) {
    for (const auto& op : report_.ops)
      for (size_t k = 0; k < kTrafficClasses; ++k) {
        report_.ports[p].read_bytes[k] += op.ports[p].read_bytes[k];
        report_.ports[p].write_bytes[k] += op.ports[p].write_bytes[k];
      }
  }
  for (const auto& e : isa::kPmuEvents) {
    if (e.event == PmuEvent::NO_EVENT) continue;
    for (unsigned n = 0; n < Pmu::kCounters; ++n)
      if (pmu_.event_type(n) == e.hw_id) report_.pmu[std::string(e.name)] = pmu_.event_counter(n);
  }
  report_.pmu["PMCCNTR"] = pmu_.cycle_counter();
  report_.host_total_seconds = seconds_since(host_start);
}

void Npu::wait_kernels(size_t max_outstanding) {
  const uint64_t before = cc_cycle_;
  while (kernels_.size() > max_outstanding) {
    cc_cycle_ = std::max(cc_cycle_, kernels_.front().end_cycle);
    kernels_.pop_front();
  }
  report_.cc_stall_cycles[static_cast<size_t>(Stall::KERNEL_WAIT)] += cc_cycle_ - before;
}

void Npu::complete_dmas_until(uint64_t cycle) {
  while (!dmas_.empty() && dmas_.front().done_cycle <= cycle) {
    complete_dma(dmas_.front());
    dmas_.pop_front();
  }
}

void Npu::complete_dma(const PendingDma& d) {
  const auto& dma = d.op.dma;
  std::vector<uint8_t*> dst;
  if (dma.dst.internal()) {
    for (unsigned c = 0; c < shram_.size(); ++c)
      if (dma.dst.region & (1u << c)) dst.push_back(shram_[c].data());
  } else {
    dst.push_back(regions_[dma.dst.region].data);
  }
  const uint8_t* src = dma.src.internal() ? shram_.front().data() : regions_[dma.src.region].data;
  const auto host_start = std::chrono::steady_clock::now();
  for (uint8_t* p : dst) functional::copy_dma(dma, src, p);
  report_.host_kernel_seconds += seconds_since(host_start);
}

bool Npu::admit(uint32_t offset, const char* name, const functional::OpCost& c) {
  if (c.buffer_elements <= limits_.buffer_elements && c.work <= work_left_) {
    work_left_ -= c.work;
    return true;
  }
  // Not a hardware fault: the simulator refuses work that would exhaust the host. The NPU is stopped
  // with a command parse error so that the driver sees the job fail; the report says why.
  fault(Fault::CMD_PARSE_ERROR, offset,
        isa::hex_offset(offset) + ": " + name + ": simulation limit: the operation needs more host time or memory " +
            "than functional::Limits allows");
  return false;
}

bool Npu::start_dma(uint32_t offset, const isa::Operation& op) {
  const auto& d = op.dma;
  const uint64_t shram_bytes = shram_.front().size();
  // Bounds, as the AXI ports (external) or the SHRAM (internal) would enforce them.
  const isa::Span src = isa::dma_span(d, d.src), dst = isa::dma_span(d, d.dst);
  auto inside = [&](const isa::DmaEndpoint& e, const isa::Span& s) {
    if (s.empty()) return true;
    const uint64_t size = e.internal() ? shram_bytes : regions_[e.region].size_bytes;
    return s.lo >= 0 && static_cast<uint64_t>(s.hi) <= size && (e.internal() || regions_[e.region].data);
  };
  if (!inside(d.src, src)) {
    fault(Fault::BUS_ERROR, offset, isa::hex_offset(offset) + ": NPU_OP_DMA_START source outside region " +
                                        std::to_string(d.src.region),
          ctrl_.region_port(d.src.region), Channel::RD_MEM2MEM);
    return false;
  }
  if (!inside(d.dst, dst)) {
    fault(Fault::BUS_ERROR, offset, isa::hex_offset(offset) + ": NPU_OP_DMA_START destination outside region " +
                                        std::to_string(d.dst.region),
          d.dst.internal() ? 0 : ctrl_.region_port(d.dst.region), Channel::WR_MEM2MEM);
    return false;
  }
  if (!admit(offset, "NPU_OP_DMA_START", functional::cost(op))) return false;
  // The CC stalls when the DMA queue is full.
  if (dmas_.size() >= config_.dma.queue_depth) {
    cc_cycle_ = std::max(cc_cycle_, dmas_.front().done_cycle);
    complete_dma(dmas_.front());
    dmas_.pop_front();
  }
  OpRecord rec;
  rec.offset = offset;
  rec.kind = "DMA";
  rec.start_cycle = std::max(cc_cycle_, dma_free_);
  const uint64_t bytes = d.total_bytes();
  uint64_t read_done = rec.start_cycle, done = rec.start_cycle;
  if (!d.src.internal() && bytes) {
    const unsigned p = ctrl_.region_port(d.src.region);
    read_done = port(p).timing().read(rec.start_cycle, bytes, static_cast<uint32_t>(d.length_bytes),
                                      mem::Client::DMA_SRC, ctrl_.region_limiter(d.src.region) & 1)
                    .complete_cycle;
    rec.ports[p].read_bytes[static_cast<size_t>(Traffic::DMA_SRC)] += bytes;
  }
  done = read_done;
  if (!d.dst.internal() && bytes) {
    const unsigned p = ctrl_.region_port(d.dst.region);
    // The write side follows the read side one burst behind: it cannot finish before the reads.
    done = std::max(read_done, port(p).timing().write(rec.start_cycle, bytes, static_cast<uint32_t>(d.length_bytes),
                                                      mem::Client::DMA_DST, ctrl_.region_limiter(d.dst.region) & 1)
                                   .complete_cycle);
    rec.ports[p].write_bytes[static_cast<size_t>(Traffic::DMA_DST)] += bytes;
  }
  dma_free_ = done;
  rec.end_cycle = done;
  if (trace_) trace_op(rec, {});
  report_.ops.push_back(rec);
  dmas_.push_back({offset, op, done});
  return true;
}

bool Npu::kernel_operation(uint32_t offset, const isa::Operation& op) {
  const char* name = isa::command_info(op.cmd).name.data();
  for (const auto& a : functional::accesses(op)) {
    const auto& r = regions_[a.region];
    if (a.span.empty() || (r.data && a.span.lo >= 0 && static_cast<uint64_t>(a.span.hi) <= r.size_bytes)) continue;
    fault(Fault::BUS_ERROR, offset,
          isa::hex_offset(offset) + ": " + name + ": " + isa::access_name(a.access) + " bytes [" + hex(a.span.lo) +
              ", " + hex(a.span.hi) + ") outside region " + std::to_string(a.region) + " (" +
              std::to_string(r.size_bytes) + " bytes)",
          ctrl_.region_port(a.region), channel_of(a.access));
    return false;
  }
  const isa::Span lut = functional::lut_span(op, shram_.front().size());
  if (!lut.empty() && (lut.lo < 0 || static_cast<uint64_t>(lut.hi) > shram_.front().size())) {
    fault(Fault::BUS_ERROR, offset,
          isa::hex_offset(offset) + ": " + name + ": LUT SHRAM bytes [" + hex(lut.lo) + ", " + hex(lut.hi) +
              ") outside the " + std::to_string(shram_.front().size()) + "-byte SHRAM");
    return false;
  }
  if (!admit(offset, name, functional::cost(op))) return false;
  // The TSU holds a limited number of operations: the CC waits for the oldest when all banks are busy.
  while (!kernels_.empty() && kernels_.front().end_cycle <= cc_cycle_) kernels_.pop_front();
  if (kernels_.size() >= config_.cc.tsu_banks) wait_kernels(config_.cc.tsu_banks - 1);

  OpRecord rec;
  rec.offset = offset;
  rec.kind = op_kind(op);
  rec.ofm_shape = {op.ofm.height, op.ofm.width, op.ofm.depth};
  rec.block = {op.block.height, op.block.width, op.block.depth};
  uint64_t ready = cc_cycle_;
  if (have_prev_op_) {
    // BLOCKDEP: the op may start once at most BLOCKDEP blocks of the previous op are unfinished.
    const size_t n = prev_block_done_.size();
    const uint64_t gate = op.blockdep >= n ? 0 : prev_block_done_[n - 1 - op.blockdep];
    if (gate > ready) {
      rec.stall_cycles[static_cast<size_t>(Stall::BLOCKDEP)] = gate - ready;
      pending_events_.add(ev(PmuEvent::CC_STALLED_ON_BLOCKDEP), gate - ready);
      ready = gate;
    }
    // A different SHRAM layout waits until the previous op has released its banks.
    const bool reconfig = op.shram.ib_end != prev_shram_.ib_end || op.shram.ab_start != prev_shram_.ab_start ||
                          op.shram.ifm2_ib_start != prev_shram_.ifm2_ib_start || op.acc_format != prev_acc_;
    const uint64_t drained = n ? prev_block_done_.back() : ready;
    if (reconfig && drained > ready) {
      rec.stall_cycles[static_cast<size_t>(Stall::SHRAM_RECONFIG)] = drained - ready;
      pending_events_.add(ev(PmuEvent::CC_STALLED_ON_SHRAM_RECONFIG), drained - ready);
      ready = drained;
    }
  }
  // DMAs that finished by then are visible to the op; later ones are not (the stream should wait).
  complete_dmas_until(ready);

  const auto host_start = std::chrono::steady_clock::now();
  try {
    rec.macs = runner_.execute(op);
  } catch (const functional::WeightFault& e) {
    fault(Fault::WD_FAULT, offset, isa::hex_offset(offset) + ": " + name + ": " + e.what());
    return false;
  }
  report_.host_kernel_seconds += seconds_since(host_start);
  const timing::OpWork work(op, config_.units);
  stages_.clear();
  const OpTiming t = schedule(op, work, ready, units_, trace_ ? &stages_ : nullptr);
  rec.start_cycle = t.start_cycle;
  rec.end_cycle = t.end_cycle;
  rec.blocks = work.block_count();
  rec.macs = t.macs;
  rec.mac_busy_cycles = t.mac_busy;
  rec.ao_busy_cycles = t.ao_busy;
  rec.wd_busy_cycles = t.wd_busy;
  const double peak = double(config_.units.cores) * 256.0;
  rec.mac_utilisation = rec.cycles() ? double(t.macs) / (double(rec.cycles()) * peak) : 0.0;
  for (size_t k = 0; k < kStallKinds; ++k) rec.stall_cycles[k] += t.stalls[k];
  rec.ports[0] = t.ports[0];
  rec.ports[1] = t.ports[1];
  if (trace_) trace_op(rec, stages_);
  report_.ops.push_back(rec);

  pending_events_.add(ev(PmuEvent::MAC_ACTIVE), t.mac_busy);
  pending_events_.add(op.ifm.element.bits() == 8 ? ev(PmuEvent::MAC_ACTIVE_8BIT)
                      : op.ifm.element.bits() == 16 ? ev(PmuEvent::MAC_ACTIVE_16BIT)
                                                    : ev(PmuEvent::MAC_ACTIVE_32BIT),
                      t.mac_busy);
  pending_events_.add(ev(PmuEvent::MAC_DPU_ACTIVE), static_cast<uint64_t>(double(t.macs) / peak + 0.5));
  pending_events_.add(ev(PmuEvent::MAC_STALLED_BY_IB), t.stalls[static_cast<size_t>(Stall::MAC_WAIT_IFM)]);
  pending_events_.add(ev(PmuEvent::MAC_STALLED_BY_WD), t.stalls[static_cast<size_t>(Stall::MAC_WAIT_WEIGHTS)]);
  pending_events_.add(ev(PmuEvent::MAC_STALLED_BY_ACC), t.stalls[static_cast<size_t>(Stall::MAC_WAIT_ACC)]);
  pending_events_.add(ev(PmuEvent::MAC_STALLED_BY_WD_ACC), t.stalls[static_cast<size_t>(Stall::MAC_WAIT_WEIGHTS)] +
                                                               t.stalls[static_cast<size_t>(Stall::MAC_WAIT_ACC)]);
  pending_events_.add(ev(PmuEvent::AO_ACTIVE), t.ao_busy);
  pending_events_.add(op.ofm.element.bits() == 8 ? ev(PmuEvent::AO_ACTIVE_8BIT) : ev(PmuEvent::AO_ACTIVE_16BIT),
                      t.ao_busy);
  pending_events_.add(ev(PmuEvent::AO_STALLED_BY_ACC), t.stalls[static_cast<size_t>(Stall::AO_WAIT_ACC)]);
  pending_events_.add(ev(PmuEvent::AO_STALLED_BY_OB), t.stalls[static_cast<size_t>(Stall::AO_WAIT_OB)]);
  pending_events_.add(ev(PmuEvent::AO_STALLED_BY_ACC_IB), t.stalls[static_cast<size_t>(Stall::AO_WAIT_ACC)]);
  pending_events_.add(ev(PmuEvent::WD_ACTIVE), t.wd_busy);

  kernels_.push_back({t.end_cycle});
  prev_block_done_ = t.block_done;
  prev_shram_ = op.shram;
  prev_acc_ = op.acc_format;
  have_prev_op_ = true;
  return true;
}

}  // namespace ethosu::npu
