#include "models/npu/npu.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>

#include "isa/registers.h"
#include "sim/error.h"

namespace ethosu::npu {

using isa::PmuEvent;
using isa::Reg;

namespace {

// The state-register word at an APB offset: the command that writes it and whether the word holds that
// command's parameter (the word after a payload command's mirror) rather than its payload. Made from the ISA table,
// per command set.
struct MirrorWord {
  const isa::CommandInfo* command = nullptr;
  bool parameter = false;
};

using MirrorWords = std::array<MirrorWord, 1024>;

MirrorWords mirror_words(isa::IsaVersion version) {
  MirrorWords words{};
  for (const auto& c : isa::kCommands) {
    if (!isa::has(c.versions, version) || isa::is_operation(c.cmd) || c.mirror_register == 0) continue;
    words[c.mirror_register / 4u] = {&c, false};
    const auto fields = isa::fields_of(c.cmd, version);
    const bool has_parameter = std::any_of(fields.begin(), fields.end(), [](const isa::FieldInfo& f) {
      return f.location != isa::Location::PAYLOAD;
    });
    if (c.kind == isa::Kind::CMD1 && has_parameter) words[c.mirror_register / 4u + 1] = {&c, true};
  }
  return words;
}

const MirrorWord& mirror_word(uint16_t offset, isa::IsaVersion version) {
  static const MirrorWords kV1 = mirror_words(isa::IsaVersion::V1), kV2 = mirror_words(isa::IsaVersion::V2);
  static const MirrorWord kNone;
  const MirrorWords& words = version == isa::IsaVersion::V1 ? kV1 : kV2;
  return offset & 3 || offset / 4u >= words.size() ? kNone : words[offset / 4u];
}

}  // namespace

std::vector<PmuEvent> counted_pmu_events() {
  std::vector<PmuEvent> events(Pmu::kOwnEvents.begin(), Pmu::kOwnEvents.end());
  const auto add = [&](const auto& specs) {
    for (const CounterSpec& c : specs)
      for (PmuEvent e : c.events)
        if (e != PmuEvent::NO_EVENT && std::find(events.begin(), events.end(), e) == events.end()) events.push_back(e);
  };
  add(Cc::kCounters);
  add(Dma::kCounters);
  add(Wd::kCounters);
  add(Mac::kCounters);
  add(Ao::kCounters);
  add(Shram::kCounters);
  for (PmuEvent e : axi::AxiPort::pmu_events()) events.push_back(e);
  return events;
}

bool counts_pmu_event(uint16_t hw_id) {
  static const std::vector<PmuEvent> kCounted = counted_pmu_events();
  for (PmuEvent e : kCounted)
    if (static_cast<uint16_t>(e) == hw_id) return true;
  return false;
}

NpuCore::NpuCore(ethosu_sim::Npu& top)
    : apb_("apb_target"),
      axi0_("axi0_port", axi::AxiPortParams{}, sc_core::sc_time(1, sc_core::SC_NS), 0),
      axi1_("axi1_port", axi::AxiPortParams{}, sc_core::sc_time(1, sc_core::SC_NS), 1),
      ctrl_(isa::kDefaultVariant),
      shram_("shram", stats_),
      pmu_("pmu", axi0_, axi1_),
      wd_("wd", stats_, pmu_),
      mac_("mac", stats_, pmu_),
      ao_("ao", stats_, pmu_),
      dma_("dma", stats_),
      cc_("cc", CcBlocks{ctrl_, mirror_, axi0_, axi1_, dma_, shram_, wd_, mac_, ao_, pmu_, stats_}) {
  apb_.register_b_transport(this, &NpuCore::b_transport);
  apb_.register_transport_dbg(this, &NpuCore::transport_dbg);
  top.apb.bind(apb_);
  axi0_.socket.bind(top.axi0);
  axi1_.socket.bind(top.axi1);
  pmu_.connect([this] { return ctrl_.running(); }, [this] { update_irq(); });
  cc_.connect([this] { update_irq(); });
  axi0_.on_invalidate([this](uint64_t start, uint64_t end) { cc_.invalidated(0, start, end); });
  axi1_.on_invalidate([this](uint64_t start, uint64_t end) { cc_.invalidated(1, start, end); });
  configure(NpuConfig{});
}

void NpuCore::configure(const NpuConfig& c) {
  // Refused rather than kept for the next job: a running job's blocks hold their SHRAM layout, MACs and clock to
  // its end, and a change saved for later would apply to a job its caller cannot tell from this one.
  if (ctrl_.running())
    throw InputError("the NPU is running a job (CMD started it; STATUS.state is running): configure it between "
                     "jobs, once the IRQ says the job has ended");
  const sc_core::sc_time period(1.0 / c.clock_hz, sc_core::SC_SEC);
  axi0_.configure(c.axi[0], period);
  axi1_.configure(c.axi[1], period);
  config_ = c;
  ctrl_.set_variant(c.variant);
  pmu_.registers().set_variant(c.variant);
  shram_.configure(c.cores, c.shram.bytes_per_core);
  wd_.configure(c.wd);
  mac_.configure(c.mac, c.cores);
  ao_.configure(c.ao);
  dma_.configure(c.dma);
  cc_.configure(c.variant, c.cc, c.clock_hz, c.limits);
}

void NpuCore::set_trace(sim::Trace* trace) {
  if (!trace || !trace->enabled()) trace = nullptr;
  const CycleClock clock{config_.clock_hz};
  // Tracks in this order, the data path's: CC, DMA, WD, MAC, AO, SHRAM, AXI0, AXI1.
  for (Block* b : std::initializer_list<Block*>{&cc_, &dma_, &wd_, &mac_, &ao_, &shram_}) b->set_trace(trace, clock);
  axi0_.set_trace(trace, clock);
  axi1_.set_trace(trace, clock);
}

uint64_t NpuCore::cycle_now() const { return cycle_at(sc_core::sc_time_stamp()); }

isa::RegisterMap NpuCore::register_map() const { return isa::architecture(config_.variant).register_map; }

// ---- Registers ----------------------------------------------------------------------------------

// A register access takes effect at its annotated time (sc_time_stamp() + delay): the model does not wait, so
// an SC_METHOD may access registers and a decoupled initiator keeps its quantum. The delay stays as it is: the
// access costs the initiator what its bus says.
void NpuCore::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const uint64_t addr = gp.get_address();
  if (gp.is_read() || gp.is_write()) {
    if (addr >= isa::register_page_bytes(register_map()) || (addr & 3)) {
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    if (gp.get_data_length() != 4 || gp.get_streaming_width() < 4) {
      gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);  // one 32-bit register per access
      return;
    }
  }
  // Byte lanes: the enabled bytes of the word (TLM repeats a shorter pattern over the data).
  uint32_t lanes = 0xFFFFFFFFu;
  if (const unsigned char* be = gp.get_byte_enable_ptr()) {
    const unsigned n = gp.get_byte_enable_length();
    if (n == 0) {
      gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
      return;
    }
    lanes = 0;
    for (unsigned i = 0; i < 4; ++i)
      if (be[i % n] == TLM_BYTE_ENABLED) lanes |= 0xFFu << (8 * i);
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  if (!gp.is_read() && !gp.is_write()) return;  // TLM_IGNORE_COMMAND
  const sc_core::sc_time at = sc_core::sc_time_stamp() + delay;
  const auto offset = static_cast<uint16_t>(addr);
  uint32_t bytes = 0;
  std::memcpy(&bytes, gp.get_data_ptr(), 4);
  if (gp.is_read()) {
    const uint32_t v = read_register(offset, at);
    bytes = (bytes & ~lanes) | (v & lanes);  // disabled lanes keep what the initiator had there
    std::memcpy(gp.get_data_ptr(), &bytes, 4);
  } else {
    // A partial write merges into the register's current value.
    const uint32_t v = lanes == 0xFFFFFFFFu ? bytes : (read_register(offset, at) & ~lanes) | (bytes & lanes);
    write_register(offset, v, at);
  }
}

// Debuggers read registers as the host would, at the current time and without waiting; they write nothing.
unsigned int NpuCore::transport_dbg(tlm::tlm_generic_payload& gp) {
  const uint64_t addr = gp.get_address();
  if (!gp.is_read() || gp.get_data_length() != 4 || (addr & 3) || addr >= isa::register_page_bytes(register_map()))
    return 0;
  const uint32_t v = read_register(static_cast<uint16_t>(addr), sc_core::sc_time_stamp());
  std::memcpy(gp.get_data_ptr(), &v, 4);
  return 4;
}

uint64_t NpuCore::cycle_at(const sc_core::sc_time& t) const {
  return static_cast<uint64_t>(t / axi0_.clock_period());
}

uint32_t NpuCore::read_register(uint16_t offset, const sc_core::sc_time& time) {
  // Idle, the counters' future is known: count up to the access. Running, the CC accounts as it goes.
  if (!ctrl_.running()) pmu_.account_until(cycle_at(time));
  const isa::RegisterWord at = isa::locate_register(offset, register_map());
  uint32_t v = 0;
  if (ctrl_.read(at, v) || pmu_.registers().read(at, v)) return v;
  // A state register of a command this configuration does not have is a hole.
  const isa::Architecture& arch = isa::architecture(config_.variant);
  if (const MirrorWord& m = mirror_word(offset, arch.isa); m.command && arch.has_command(m.command->cmd)) {
    // A state register's mirror: the command's payload word, or its 16-bit parameter (of which a command with a
    // payload keeps 8 bits: address bits 39:32, a scale's shift).
    const uint64_t bits = mirror_.bits(m.command->cmd);
    if (m.command->kind == isa::Kind::CMD0) return static_cast<uint32_t>(bits >> 16) & 0xFFFF;
    return m.parameter ? static_cast<uint32_t>(bits >> 16) & 0xFF : static_cast<uint32_t>(bits >> 32);
  }
  if (!at) return 0;  // holes read 0
  switch (at.reg()) {
    case Reg::SHARED_BUFFER:
      return shram_.debug_read(debug_[2] & 1, (debug_[0] & ~uint64_t{1023}) + uint64_t{at.index} * 4);
    case Reg::CLKFORCE: return clkforce_;
    case Reg::DEBUG_ADDRESS: return debug_[0];
    case Reg::DEBUG_MISC: return debug_[1];
    case Reg::DEBUGCORE: return debug_[2];
    case Reg::DEBUG_BLOCK: return debug_[3];
    // Identification and capability registers: fixed. The U85's INTERNAL_MEMORY window reads 0 (its RAMs are not
    // modelled).
    default: return mirror_word(at.placement->offset, arch.isa).command ? 0 : at.placement->reset;
  }
}

void NpuCore::write_register(uint16_t offset, uint32_t value, const sc_core::sc_time& time) {
  const isa::RegisterWord at = isa::locate_register(offset, register_map());
  HostAction action = HostAction::NONE;
  if (ctrl_.write(at, value, action)) {
    if (action == HostAction::SOFT_RESET) soft_reset(cycle_at(time));
    if (action == HostAction::RUN) {
      ctrl_.set_running(true);
      cc_.start(time > sc_core::sc_time_stamp() ? time - sc_core::sc_time_stamp() : sc_core::SC_ZERO_TIME);
    }
    update_irq();
    return;
  }
  // Count the interval up to the write under the old PMU settings: an enable, reset or new event type
  // applies from the write on, not from the last access.
  if (!ctrl_.running()) pmu_.account_until(cycle_at(time));
  if (pmu_.registers().write(at, value)) {
    pmu_.plan_idle_overflow();
    update_irq();
    return;
  }
  if (!at) return;
  switch (at.reg()) {
    case Reg::CLKFORCE: clkforce_ = value; break;
    case Reg::DEBUG_ADDRESS: debug_[0] = value; break;
    case Reg::DEBUG_MISC: debug_[1] = value; break;
    case Reg::DEBUGCORE: debug_[2] = value; break;
    case Reg::DEBUG_BLOCK: debug_[3] = value; break;
    default: break;  // state registers and read-only registers ignore host writes
  }
}

void NpuCore::soft_reset(uint64_t cycle) {
  // A running job stops where it is: its remaining work and its IRQ are dropped, memory keeps what it wrote.
  cc_.abort();
  ctrl_.reset();
  pmu_.reset(cycle);
  // Transactions of an aborted stream (the rest of a command fetch, a faulted job's DMAs) end with the
  // reset [I: the driver waits for reset_status, which the model clears at once]: the next job finds its
  // ports idle.
  axi0_.timing().reset();
  axi1_.timing().reset();
  pmu_.forget_port_statistics();
  mirror_.reset();
  debug_.fill(0);
  clkforce_ = 0;
  // The LUT banks are SHRAM contents, which reset does not clear [I]; stream state does go.
}

void NpuCore::hard_reset() {
  ctrl_ = ControlRegisters(config_.variant);
  soft_reset(cycle_now());
  update_irq();
}

void NpuCore::update_irq() {
  ctrl_.set_pmu_irq(pmu_.registers().irq());
  irq_level_ = ctrl_.irq();
  // The top's method drives the line, so the NPU is its one writer whichever process changed it.
  irq_changed_.notify();
}

}  // namespace ethosu::npu

namespace ethosu_sim {

Npu::~Npu() = default;

const JobReport& Npu::report() const { return impl_->report(); }

void Npu::set_bus_mode(BusMode mode) { impl_->set_transactions(mode == BusMode::TRANSACTIONS); }

Npu::BusMode Npu::bus_mode() const { return impl_->transactions() ? BusMode::TRANSACTIONS : BusMode::FAST; }

uint64_t Npu::cycle() const { return impl_->cycle_now(); }

void Npu::drive_irq() { irq.write(impl_->irq_level()); }

void Npu::reset_asserted() { impl_->hard_reset(); }

}  // namespace ethosu_sim
