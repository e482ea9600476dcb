#include "models/npu/cc/cc.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "isa/decoder.h"
#include "isa/registers.h"
#include "isa/validator.h"
#include "models/kernels/dma_copy.h"
#include "models/kernels/op_runner.h"
#include "sim/text.h"

namespace ethosu::npu {

using isa::PmuEvent;
using npu::Stall;

namespace {

uint64_t steady_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

std::string op_kind(const isa::Operation& op) {
  switch (op.kind) {
    case isa::OpKind::CONV: return "CONV";
    case isa::OpKind::DEPTHWISE: return "DEPTHWISE";
    case isa::OpKind::POOL:
      return "POOL." + std::string(isa::enum_value_name(isa::EnumId::pooling_mode,
                                                         static_cast<uint32_t>(op.pooling_mode), op.version));
    case isa::OpKind::ELEMENTWISE:
      return "ELEMENTWISE." + std::string(isa::enum_value_name(isa::EnumId::elementwise_mode,
                                                                static_cast<uint32_t>(op.elementwise_mode), op.version));
    case isa::OpKind::DMA: return "DMA";
    case isa::OpKind::RESIZE:
      return "RESIZE." + std::string(isa::enum_value_name(isa::EnumId::resize_mode,
                                                           static_cast<uint32_t>(op.resize.mode), op.version));
  }
  return "?";
}

// The statistic that counts each of the CC's waits.
struct Wait {
  Stall stall;
  Cc::Stat stat;
};
constexpr Wait kWaits[] = {
    {Stall::BLOCKDEP, Cc::BLOCKDEP_STALL},       {Stall::SHRAM_RECONFIG, Cc::SHRAM_RECONFIG_STALL},
    {Stall::CMD_FETCH, Cc::CMD_FETCH_STALL},     {Stall::DMA_WAIT, Cc::DMA_WAIT_STALL},
    {Stall::DMA_QUEUE, Cc::DMA_QUEUE_STALL},     {Stall::KERNEL_WAIT, Cc::KERNEL_WAIT_STALL},
    {Stall::WRITE_RESPONSE, Cc::WRITE_RESPONSE_STALL},
};

}  // namespace

const std::array<CounterSpec, Cc::kStats> Cc::kCounters = {{
    {"kernel_operations", "operations", "NPU_OP_CONV/DEPTHWISE/POOL/ELEMENTWISE issued"},
    {"dma_operations", "operations", "NPU_OP_DMA_START issued"},
    {"command_bytes", "bytes", "command stream fetched"},
    {"blockdep_stall_cycles", "cycles", "holding an operation until its BLOCKDEP allows it",
     {PmuEvent::CC_STALLED_ON_BLOCKDEP}},
    {"shram_reconfig_stall_cycles", "cycles", "holding an operation until the SHRAM can be laid out anew",
     {PmuEvent::CC_STALLED_ON_SHRAM_RECONFIG}},
    {"cmd_fetch_stall_cycles", "cycles", "waiting for command-stream bytes"},
    {"dma_wait_stall_cycles", "cycles", "in NPU_OP_DMA_WAIT or NPU_OP_STOP waiting for DMAs"},
    {"dma_queue_stall_cycles", "cycles", "NPU_OP_DMA_START waiting for a DMA queue slot"},
    {"kernel_wait_stall_cycles", "cycles", "in NPU_OP_KERNEL_WAIT or a full TSU waiting for operations"},
    {"write_response_stall_cycles", "cycles", "NPU_OP_STOP waiting for the last write responses"},
}};

Cc::Cc(const sc_core::sc_module_name& name, const CcBlocks& blocks)
    : Block(name, blocks.stats, &blocks.pmu), b_(blocks), stat_(counters(kCounters)) {
  for (const Wait& w : kWaits) waits_[static_cast<size_t>(w.stall)] = stat_[w.stat];
  SC_THREAD(thread);
}

void Cc::configure(isa::Variant variant, const CcTiming& t, double clock_hz, const cc::Limits& limits) {
  engine_config_.variant = variant;
  timing_ = t;
  limits_ = limits;
  clock_ = CycleClock{clock_hz};
}

uint64_t Cc::cycle_now() const { return static_cast<uint64_t>(sc_core::sc_time_stamp() / b_.axi0.clock_period()); }

void Cc::thread() {
  for (;;) {
    wait(start_);
    running_ = true;
    abort_requested_ = false;
    run_stream();
    running_ = false;
    b_.pmu.plan_idle_overflow();
    if (irq_changed_) irq_changed_();
  }
}

void Cc::abort() {
  start_.cancel();
  if (!running_) return;
  abort_requested_ = true;
  abort_.notify();
}

void Cc::sync() {
  const sc_core::sc_time target = b_.axi0.clock_period() * static_cast<double>(cc_cycle_);
  if (target > sc_core::sc_time_stamp()) wait(target - sc_core::sc_time_stamp(), abort_);
  check_abort();
  b_.pmu.account_until(cc_cycle_);
}

bool Cc::fetch_stream(std::vector<uint8_t>& bytes) {
  const unsigned p = b_.ctrl.command_port();
  // Past the 16 MiB limit the NPU parses nothing, so it fetches nothing either: one unfetched word more than the
  // limit is enough for the decoder to refuse the stream from its size, without reading it.
  bytes.resize(std::min<uint64_t>(b_.ctrl.qsize(), isa::kMaxStreamBytes + 4));
  fetch_done_.clear();
  if (bytes.size() > isa::kMaxStreamBytes) return true;
  const sc_core::sc_time offset =
      b_.axi0.clock_period() * static_cast<double>(cc_cycle_) - sc_core::sc_time_stamp();
  const uint64_t piece = std::max<uint32_t>(timing_.fetch_bytes, 4);
  struct Stream : axi::AxiPort::TransactionData {
    uint8_t* bytes;
    uint64_t base;
    uint8_t* at(uint64_t address, uint64_t) override { return bytes + (address - base); }
  } stream;
  stream.bytes = bytes.data();
  stream.base = b_.ctrl.qbase();
  for (uint64_t at = 0; at < bytes.size(); at += piece) {
    const uint64_t n = std::min<uint64_t>(piece, bytes.size() - at);
    // Every request is issued at the start; the port's outstanding limit and bandwidth pace them. The pieces are
    // one sequential read for the memory: only the last closes a burst.
    const bool open = at + n < bytes.size();
    axi::AxiAccess a;
    if (transactions_) {
      addresses_.assign(1, {b_.ctrl.qbase() + at, n});
      a = port(p).transactions(tlm::TLM_READ_COMMAND, cc_cycle_, addresses_, isa::Access::CMD, b_.ctrl.qconfig() & 1,
                               stream, open);
    } else {
      sc_core::sc_time request = offset;
      a = port(p).read(b_.ctrl.qbase() + at, bytes.data() + at, n, 0, isa::Access::CMD, request,
                       b_.ctrl.qconfig() & 1, open);
    }
    if (!a.ok()) return false;
    fetch_done_.push_back(a.completion.complete_cycle);
  }
  *stat_[COMMAND_BYTES] += bytes.size();
  return true;
}

void Cc::command(uint32_t offset, uint32_t end_offset, const isa::StreamState& state) {
  check_abort();  // a memory target that waited may have let a reset in
  if (cc_cycle_ > b_.pmu.accounted_cycle() + timing_.quantum_cycles) sync();
  // Word by word in order, each fetch request's words once its bytes are in.
  const uint32_t piece = std::max<uint32_t>(timing_.fetch_bytes, 4);
  while (parsed_ < end_offset) {
    const size_t k = std::min<size_t>(parsed_ / piece, fetch_done_.empty() ? 0 : fetch_done_.size() - 1);
    const uint32_t upto = std::min<uint32_t>(end_offset, static_cast<uint32_t>((k + 1) * piece));
    if (!fetch_done_.empty()) wait_until(fetch_done_[k], Stall::CMD_FETCH);
    const uint64_t from = cc_cycle_;
    cc_cycle_ += uint64_t{timing_.cycles_per_word} * ((upto - parsed_ + 3) / 4);
    time_.parsing(from, cc_cycle_);
    parsed_ = upto;
  }
  b_.ctrl.set_qread(offset);
  b_.mirror = state.regs();
}

void Cc::wait_until(uint64_t cycle, Stall why) {
  if (cycle <= cc_cycle_) return;
  const uint64_t d = cycle - cc_cycle_;
  time_.waiting(cc_cycle_, cycle, why);
  cc_cycle_ = cycle;
  *waits_[static_cast<size_t>(why)] += d;
  // The gates of a kernel operation hold that operation back.
  if (why == Stall::BLOCKDEP || why == Stall::SHRAM_RECONFIG) held_[static_cast<size_t>(why)] += d;
}

void Cc::map_regions() {
  // The AXI limiters as the driver programmed them.
  for (unsigned p = 0; p < 2; ++p) port(p).apply_limits({b_.ctrl.axi_limit(2 * p), b_.ctrl.axi_limit(2 * p + 1)});
  AxiMap& axi = pipeline_.axi;
  axi.ports = {&b_.axi0.timing(), &b_.axi1.timing()};
  for (unsigned r = 0; r < regions_.size(); ++r) {
    regions_[r] = {};
    bound_[r] = Bound{};
    axi.region_read_latency[r] = axi.region_write_latency[r] = 0;
    axi.region_port[r] = b_.ctrl.region_port(r);
    axi.region_limiter[r] = b_.ctrl.region_limiter(r) & 1;
    engine_config_.region_port[r] = static_cast<uint8_t>(axi.region_port[r]);
  }
  any_stale_ = false;
  bus_fault_.reset();
  pipeline_.axi.bus = transactions_ ? static_cast<RegionBus*>(this) : nullptr;
  pipeline_.mac_timing = &b_.mac.timing();
  pipeline_.wd_timing = &b_.wd.timing();
  pipeline_.ao_timing = &b_.ao.timing();
  pipeline_.mac = &b_.mac.unit();
  pipeline_.wd = &b_.wd.unit();
  pipeline_.ao = &b_.ao.unit();
  engine_config_.dma_queue_depth = b_.dma.timing().queue_depth;
  engine_config_.tsu_banks = timing_.tsu_banks;
  engine_config_.limits = limits_;
}

void Cc::bind_regions(const isa::Stream& stream) {
  // Walked as this NPU walks it: what its cores reach. Regions the stream never reaches are not asked for.
  isa::ValidatorOptions own;
  own.variant = engine_config_.variant;
  const isa::Report extents = isa::validate(stream, own);
  for (unsigned r = 0; r < regions_.size(); ++r) {
    const isa::Extent used = extents.region_extent(r);
    if (!used.used || used.end <= 0) continue;
    Bound& b = bound_[r];
    b.used = true;
    b.lowest = static_cast<uint64_t>(std::max<int64_t>(used.lowest, 0));
    b.end = static_cast<uint64_t>(used.end);
    const isa::Extent writes = extents.writes(r);
    b.write_from = writes.used ? static_cast<uint64_t>(std::max<int64_t>(writes.lowest, 0)) : 0;
    b.write_end = writes.used ? static_cast<uint64_t>(std::max<int64_t>(writes.end, 0)) : 0;
    bind_region(r);
  }
}

void Cc::bind_region(unsigned r) {
  Bound& b = bound_[r];
  b.stale = false;
  if (transactions_) {
    // The operations work on a copy the bus keeps current: each loads what it reads before it runs, and its
    // writes carry what it wrote. No DMI is asked for.
    b.bytes.assign(b.end, 0);
    regions_[r] = {b.bytes.data(), b.end};
    return;
  }
  const axi::AxiPort::Direct d = port(b_.ctrl.region_port(r)).direct(b_.ctrl.basep(r));
  if (d.data) {
    regions_[r] = {d.data, d.bytes};
    pipeline_.axi.region_read_latency[r] = d.read_latency_cycles;
    pipeline_.axi.region_write_latency[r] = d.write_latency_cycles;
    return;
  }
  // No DMI: the bytes the stream reaches are read through b_transport now and its writes written back at the
  // end. In pieces, so that a region that runs past the memory keeps the part it has: the stream faults beyond.
  const unsigned p = b_.ctrl.region_port(r);
  b.staged = true;
  b.bytes.assign(b.end, 0);
  constexpr uint64_t kPiece = 4096;
  uint64_t valid = b.lowest;
  uint32_t added = 0;
  uint64_t fault_address = 0;
  while (valid < b.end) {
    const uint64_t n = std::min(kPiece, b.end - valid);
    if (!port(p).transfer_untimed(tlm::TLM_READ_COMMAND, b_.ctrl.basep(r) + valid, b.bytes.data() + valid, n, added,
                                  fault_address))
      break;
    valid += n;
  }
  regions_[r] = {b.bytes.data(), valid};
  b.write_end = std::min(b.write_end, valid);
  pipeline_.axi.region_read_latency[r] = pipeline_.axi.region_write_latency[r] = added;
}

void Cc::invalidated(unsigned p, uint64_t start, uint64_t end) {
  if (transactions_) return;  // no DMI pointer in use
  for (unsigned r = 0; r < regions_.size(); ++r) {
    Bound& b = bound_[r];
    if (!b.used || b.staged || b_.ctrl.region_port(r) != p) continue;
    const uint64_t base = b_.ctrl.basep(r);
    if (base + b.end - 1 >= start && base <= end) b.stale = any_stale_ = true;
  }
}

std::optional<cc::Fault> Cc::prepare(uint32_t offset, const isa::Operation& op) {
  // A DMA's reads brought its bytes in when it was issued.
  if (transactions_) return op.kind == isa::OpKind::DMA ? std::nullopt : load_inputs(offset, op);
  if (any_stale_) {
    // A region whose grant went is asked for again (the memory may have moved): the old pointer is never used.
    any_stale_ = false;
    for (unsigned r = 0; r < regions_.size(); ++r)
      if (bound_[r].stale) bind_region(r);
  }
  return std::nullopt;
}

std::optional<cc::Fault> Cc::load_inputs(uint32_t offset, const isa::Operation& op) {
  // The operation computes its whole output when it is issued, before its read transactions' times (which come
  // later, with its tiles): it takes the bytes as memory holds them now, without bus time, as every earlier
  // operation's writes have gone out already. A memory without debug transport is read through b_transport.
  for (const kernels::AccessRange& a : kernels::accesses(op)) {
    if (isa::is_write(a.access) || a.span.empty()) continue;
    const auto lo = static_cast<uint64_t>(a.span.lo), bytes = static_cast<uint64_t>(a.span.hi - a.span.lo);
    const unsigned p = b_.ctrl.region_port(a.region);
    const uint64_t address = b_.ctrl.basep(a.region) + lo;
    uint8_t* into = regions_[a.region].data + lo;
    const uint64_t got = port(p).debug_read(address, into, bytes);
    if (got == bytes) continue;
    uint32_t added = 0;
    uint64_t fault_address = 0;
    if (!port(p).transfer_untimed(tlm::TLM_READ_COMMAND, address + got, into + got, bytes - got, added, fault_address))
      return cc::Fault{cc::FaultKind::BUS_ERROR, offset,
                       isa::hex_offset(offset) + ": " + std::string(isa::command_info(op.cmd).name) + ": " +
                           isa::access_name(a.access) + " read refused by the memory at " + sim::hex(fault_address),
                       p, cc::channel_of(a.access)};
  }
  return std::nullopt;
}

std::optional<cc::Fault> Cc::bus_fault() {
  std::optional<cc::Fault> f;
  f.swap(bus_fault_);
  return f;
}

axi::Completion Cc::read(unsigned region, uint64_t request_cycle, const std::vector<ByteRun>& runs,
                         isa::Access client) {
  return transfer(tlm::TLM_READ_COMMAND, region, request_cycle, runs, client);
}

axi::Completion Cc::write(unsigned region, uint64_t request_cycle, const std::vector<ByteRun>& runs,
                          isa::Access client) {
  if (client == isa::Access::DMA_DST && dma_op_) {
    // The DMA's rows in the order it moves them, from its source as its reads left it (or the SHRAM).
    const isa::Dma& d = *dma_op_;
    const uint8_t* src = d.src.internal() ? b_.shram.banks().front().data() : regions_[d.src.region].data;
    dma_rows_.resize(d.total_bytes());
    uint8_t* out = dma_rows_.data();
    for (uint64_t p = 0; p < d.planes(); ++p)
      for (uint64_t r = 0; r < d.rows(); ++r, out += d.length_bytes)
        std::memcpy(out, src + d.src.address + kernels::dma_row_offset(d, d.src, p, r), d.length_bytes);
  }
  return transfer(tlm::TLM_WRITE_COMMAND, region, request_cycle, runs, client);
}

axi::Completion Cc::transfer(tlm::tlm_command cmd, unsigned region, uint64_t request_cycle,
                             const std::vector<ByteRun>& runs, isa::Access client) {
  // Where each transaction's bytes are: a kernel operation's reads arrive where its inputs were loaded, so they
  // go to a scratch buffer; a DMA's reads land in its source region; writes carry what the operation (or the
  // DMA's rows) put there.
  struct Data : axi::AxiPort::TransactionData {
    Cc& cc;
    isa::Access client;
    uint8_t* region;
    uint64_t base, rows = 0;
    Data(Cc& c, isa::Access a, uint8_t* r, uint64_t b) : cc(c), client(a), region(r), base(b) {}
    uint8_t* at(uint64_t address, uint64_t bytes) override {
      if (client == isa::Access::DMA_DST) {
        uint8_t* p = cc.dma_rows_.data() + rows;
        rows += bytes;
        return p;
      }
      if (client == isa::Access::DMA_SRC || isa::is_write(client)) return region + (address - base);
      if (cc.discard_.size() < bytes) cc.discard_.resize(bytes);
      return cc.discard_.data();
    }
  };
  const unsigned p = b_.ctrl.region_port(region);
  const uint64_t base = b_.ctrl.basep(region);
  addresses_.clear();
  for (const ByteRun& r : runs)
    addresses_.push_back({base + r.offset, r.bytes, r.strobe_period, r.strobe_lo, r.strobe_hi});
  Data data(*this, client, regions_[region].data, base);
  const axi::AxiAccess a =
      port(p).transactions(cmd, request_cycle, addresses_, client, b_.ctrl.region_limiter(region) & 1, data);
  if (!a.ok() && !bus_fault_)
    bus_fault_ = cc::Fault{cc::FaultKind::BUS_ERROR, op_offset_,
                           isa::hex_offset(op_offset_) + ": " + isa::access_name(client) + " " +
                               (cmd == tlm::TLM_READ_COMMAND ? "read" : "write") + " refused by the memory at " +
                               sim::hex(a.fault_address) + " (region " + std::to_string(region) + ")",
                           p, cc::channel_of(client)};
  return a.completion;
}

void Cc::write_back_staged() {
  for (unsigned r = 0; r < regions_.size(); ++r) {
    Bound& b = bound_[r];
    if (!b.staged || b.write_end <= b.write_from) continue;
    uint32_t added = 0;
    uint64_t fault_address = 0;
    if (!port(b_.ctrl.region_port(r)).transfer_untimed(tlm::TLM_WRITE_COMMAND, b_.ctrl.basep(r) + b.write_from,
                                                       b.bytes.data() + b.write_from, b.write_end - b.write_from, added,
                                                       fault_address))
      report_.hazards.push_back("region " + std::to_string(r) + ": the memory refused the write-back of its results at " +
                                sim::hex(fault_address));
    b.write_from = b.write_end = 0;
  }
}

std::array<axi::ClassBytes, 2> Cc::port_bytes() const {
  return {b_.axi0.timing().class_bytes(), b_.axi1.timing().class_bytes()};
}

std::array<npu::PortTraffic, 2> Cc::traffic_since(const std::array<axi::ClassBytes, 2>& before) const {
  const auto now = port_bytes();
  std::array<npu::PortTraffic, 2> t{};
  for (unsigned p = 0; p < 2; ++p)
    for (size_t k = 0; k < isa::kAccessCount; ++k) {
      t[p].read_bytes[k] = now[p].read[k] - before[p].read[k];
      t[p].write_bytes[k] = now[p].written[k] - before[p].written[k];
    }
  return t;
}

void Cc::run_stream() {
  const uint64_t host_start = steady_ns();
  report_ = npu::JobReport{};
  report_.clock_hz = clock_.hz;
  // The previous job's events are counted before the blocks' statistics start again.
  b_.pmu.account_until(cycle_now());
  b_.stats.reset();
  b_.pmu.forget_block_statistics();
  cc_cycle_ = run_start_cycle_ = cycle_now();
  held_ = {};
  time_.begin_job(cc_cycle_);
  parsed_ = 0;
  b_.wd.begin_stream(cc_cycle_);
  b_.mac.begin_stream(cc_cycle_);
  b_.ao.begin_stream(cc_cycle_);
  b_.dma.begin_stream(cc_cycle_);
  map_regions();
  job_start_bytes_ = port_bytes();

  std::vector<uint8_t> bytes;
  try {
    if (fetch_stream(bytes)) {
      const isa::Stream stream = isa::decode(bytes, isa::architecture(engine_config_.variant));
      bind_regions(stream);
      const cc::RunResult r = cc::Engine::run(stream, regions_, b_.shram.banks(), engine_config_, *this);
      report_.hazards = r.hazards;
      report_.host = r.stats.host;
      write_back_staged();
    } else {
      const unsigned p = b_.ctrl.command_port();
      fault({cc::FaultKind::BUS_ERROR, 0, "command stream fetch at QBASE " + std::to_string(b_.ctrl.qbase()), p,
             cc::Channel::RD_CMD});
    }
  } catch (const Aborted&) {
    // What the issued operations wrote stays: staged regions get it back as DMI regions already have it.
    write_back_staged();
    report_.status = "aborted by reset at cycle " + std::to_string(cycle_now() - run_start_cycle_) + " of the job";
    cc_cycle_ = std::max(run_start_cycle_, cycle_now());
  } catch (const std::exception& e) {
    // An exception leaving a SystemC thread would stop the kernel for the rest of the process (a memory
    // bound to AXI that throws, the host out of memory): the job ends as the simulator's own refusal, and
    // the NPU takes the next one.
    const uint32_t at = b_.ctrl.qread();
    fault({cc::FaultKind::LIMIT, at, isa::hex_offset(at) + ": the simulator could not run the job: " + e.what()});
  }
  finish_report(host_start);
}

void Cc::finish_report(uint64_t host_start_ns) {
  report_.total_cycles = cc_cycle_ - run_start_cycle_;
  time_.end_job(cc_cycle_, report_.ops);
  report_.op_time_cycles = time_.op_totals();
  report_.controller_parse_cycles = time_.controller_parse();
  report_.controller_wait_cycles = time_.controller_waits();
  // Operations are reported from the job's start, so that reports of repeated runs compare.
  for (auto& op : report_.ops) {
    op.start_cycle -= run_start_cycle_;
    op.end_cycle -= run_start_cycle_;
  }
  if (report_.status.empty()) report_.status = "ok";
  report_.ports = traffic_since(job_start_bytes_);
  for (const Wait& w : kWaits) report_.cc_stall_cycles[static_cast<size_t>(w.stall)] = stat_[w.stat]->value();
  const PmuRegisters& pmu = b_.pmu.registers();
  for (const isa::PmuEventInfo* e : b_.ctrl.architecture().pmu_events) {
    if (e->event == PmuEvent::NO_EVENT) continue;
    for (unsigned n = 0; n < pmu.counters(); ++n)
      if (pmu.event_type(n) == e->hw_id) report_.pmu[std::string(e->name)] = pmu.event_counter(n);
  }
  report_.pmu["PMCCNTR"] = pmu.cycle_counter();
  for (const sim::Counter* c : b_.stats.counters())
    report_.stats[c->path()] = {c->value(), c->unit(), c->description()};
  report_.host.total = double(steady_ns() - host_start_ns) * 1e-9;
}

uint64_t Cc::dma(uint32_t offset, const isa::Operation& op) {
  // Transaction mode: SystemC's time comes up to the issue, so nothing the DMA writes is in memory before it.
  if (transactions_) sync();
  op_offset_ = offset;
  dma_op_ = &op.dma;
  const auto before = port_bytes();
  const Dma::Times t = b_.dma.issue(offset, op, cc_cycle_, pipeline_.axi);
  dma_op_ = nullptr;
  npu::OpRecord rec;
  rec.offset = offset;
  rec.kind = "DMA";
  rec.layer = layer_of(offset);
  rec.start_cycle = t.start_cycle;
  rec.end_cycle = t.done_cycle;
  rec.exclusive_cycles = time_.dma(t.start_cycle, t.done_cycle, next_record());
  rec.ports = traffic_since(before);
  trace_op(rec);
  list(std::move(rec));
  ++*stat_[DMA_OPERATIONS];
  return t.done_cycle;
}

cc::KernelTimes Cc::kernel(uint32_t offset, const isa::Operation& op, const cc::KernelIssue& issue) {
  npu::OpRecord rec;
  rec.offset = offset;
  rec.kind = op_kind(op);
  rec.layer = layer_of(offset);
  rec.ofm_shape = {op.ofm.height, op.ofm.width, op.ofm.depth};
  rec.block_config = {op.block.height, op.block.width, op.block.depth};
  // Transaction mode: SystemC's time comes up to the operation's start, so no OFM byte is in memory before it.
  if (transactions_) sync();
  op_offset_ = offset;
  const auto before = port_bytes();
  stages_.clear();
  // Each tile's stages go to the time breakdown, and to the trace when one is open.
  struct Stages : TileSink {
    TimeBreakdown& time;
    std::vector<TileStages>* trace;
    Stages(TimeBreakdown& t, std::vector<TileStages>* tr) : time(t), trace(tr) {}
    void tile(const TileStages& s) override {
      time.tile(s);
      if (trace) trace->push_back(s);
    }
  } stages(time_, tracing() ? &stages_ : nullptr);
  time_.begin_kernel(cc_cycle_);
  const OpTiming t = schedule(op, cc_cycle_, pipeline_, &stages, issue.u85_weights ? &*issue.u85_weights : nullptr);
  rec.exclusive_cycles = time_.end_kernel(t.times.end_cycle, next_record());
  rec.start_cycle = t.start_cycle;
  rec.end_cycle = t.times.end_cycle;
  rec.tiles = t.times.tiles;
  rec.macs = t.macs;
  rec.mac_busy_cycles = t.mac_busy;
  rec.ao_busy_cycles = t.ao_busy;
  rec.wd_busy_cycles = t.wd_busy;
  rec.mac_utilisation = rec.cycles() ? double(t.macs) / (double(rec.cycles()) * b_.mac.peak_macs_per_cycle()) : 0.0;
  rec.stall_cycles = t.stalls;
  rec.held_cycles = held_;
  held_ = {};
  rec.ports = traffic_since(before);
  if (tracing()) {
    trace_op(rec);
    b_.wd.trace_tiles(rec.kind, offset, stages_);
    b_.mac.trace_tiles(rec.kind, offset, stages_);
    b_.ao.trace_tiles(rec.kind, offset, stages_);
  }
  b_.shram.occupy(op, offset, t.start_cycle, t.times.end_cycle, issue.shram_layout_changed);
  b_.wd.account(t);
  b_.mac.account(op, t);
  b_.ao.account(op, t);
  ++*stat_[KERNEL_OPERATIONS];
  list(std::move(rec));
  return t.times;
}

std::string Cc::layer_of(uint32_t offset) const {
  if (!layers_) return {};
  const auto it = layers_->find(offset);
  return it == layers_->end() ? std::string() : it->second;
}

size_t Cc::next_record() const {
  return report_.ops.size() < npu::JobReport::kMaxListedOps ? report_.ops.size() : TimeBreakdown::kUnlisted;
}

void Cc::list(npu::OpRecord&& rec) {
  if (report_.ops.size() < npu::JobReport::kMaxListedOps)
    report_.ops.push_back(std::move(rec));
  else
    ++report_.ops_not_listed;
}

void Cc::trace_op(const npu::OpRecord& rec) {
  if (!tracing()) return;
  if (rec.kind != "DMA")
    span(rec.kind, "operation", rec.start_cycle, rec.end_cycle,
         {{"offset", rec.offset}, {"layer", rec.layer}, {"cycles", rec.cycles()}, {"tiles", rec.tiles},
          {"macs", rec.macs}, {"mac_utilisation", rec.mac_utilisation}});
  for (unsigned p = 0; p < 2; ++p) {
    uint64_t rd = 0, wr = 0;
    for (size_t k = 0; k < isa::kAccessCount; ++k) {
      rd += rec.ports[p].read_bytes[k];
      wr += rec.ports[p].write_bytes[k];
    }
    port(p).trace_traffic(rec.kind, rec.offset, rec.start_cycle, rec.end_cycle, rd, wr);
  }
}

void Cc::pmu_mask(bool enable) {
  sync();
  b_.pmu.registers().set_mask(enable);
}

void Cc::irq(uint16_t mask) {
  sync();
  b_.ctrl.irq_op(mask);
  if (irq_changed_) irq_changed_();
}

void Cc::stop(uint16_t mask) {
  sync();
  b_.ctrl.stop_reached(mask);
}

void Cc::fault(const cc::Fault& f) {
  sync();
  b_.ctrl.set_qread(f.offset);
  b_.ctrl.fault(f);
  report_.status = f.text();
}

}  // namespace ethosu::npu
