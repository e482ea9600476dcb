#include "host/run/simulator.h"

#include "sim/error.h"
#include "sim/int_math.h"
#include "sim/sanitizer_stack.h"

namespace ethosu::host {

namespace {

// Bus addresses of the two memories [I: i.MX 93's on-chip SRAM and DDR windows are elsewhere; the
// NPU only sees BASEPn + offsets, so any placement inside the 40-bit space is equivalent].
constexpr uint64_t kSramBase = 0x2000'0000;
constexpr uint64_t kDramBase = 0x8000'0000;
constexpr uint64_t kAlign = 4096;

uint64_t align_up(uint64_t v) { return sim::round_up(v, kAlign); }

}  // namespace

Simulator& Simulator::instance() {
  static Simulator sim;
  return sim;
}

Simulator::Simulator() : platform_("platform"), host_("host") {
  host_.apb.bind(platform_.npu.apb);
  host_.irq.bind(platform_.irq);
  // Elaborate and let every thread reach its first wait, so that the first job's notification is seen.
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  sim::restore_stack_after_systemc();
}

TimedRun Simulator::run(Job& job, const npu::NpuConfig& config, uint32_t regioncfg,
                        const std::array<uint16_t, isa::kMaxEventCounters>& pmu_events, sim::Trace* trace, bool transactions) {
  platform::configure(platform_, config);
  platform_.npu.set_bus_mode(transactions ? ethosu_sim::Npu::BusMode::TRANSACTIONS : ethosu_sim::Npu::BusMode::FAST);
  platform_.npu.impl().set_trace(trace);
  // The job's layer names, for this run only (the map is the job's), whichever way it ends.
  struct NamedLayers {
    npu::NpuCore& npu;
    ~NamedLayers() { npu.set_layers(nullptr); }
  } named{platform_.npu.impl()};
  named.npu.set_layers(&job.layers);
  platform_.sram.unmap_all();
  platform_.dram.unmap_all();

  DriverJob dj;
  dj.pmu_events = pmu_events;
  dj.regioncfg = regioncfg;
  // Regions land in the memory of the port REGIONCFG gives them; the stream goes to DRAM.
  std::array<uint64_t, 2> next{kSramBase, kDramBase};
  stream_buffer_ = job.stream;
  dj.qbase = next[1];
  dj.qsize = static_cast<uint32_t>(stream_buffer_.size());
  if (!stream_buffer_.empty()) platform_.dram.map(dj.qbase, stream_buffer_.data(), stream_buffer_.size());
  next[1] = align_up(next[1] + stream_buffer_.size() + 1);
  for (unsigned r = 0; r < isa::kRegionCount; ++r) {
    const unsigned port = (dj.regioncfg >> (2 * r) & 3) >> 1;
    auto& buf = job.regions[r];
    dj.basep[r] = next[port];
    if (!buf.empty()) (port ? platform_.dram : platform_.sram).map(next[port], buf.data(), buf.size());
    // A gap after each buffer, so that an access running past its region faults instead of reaching
    // the next one.
    next[port] = align_up(next[port] + buf.size() + 1);
  }

  if (broken_) throw InputError(*broken_);
  host_.submit(dj);
  try {
    sc_core::sc_start();
    sim::restore_stack_after_systemc();
  } catch (const std::exception& e) {
    sim::restore_stack_after_systemc();
    // SystemC cannot be restarted in a process: every later job is refused with the reason, never run on a
    // kernel in an unknown state.
    broken_ = "the SystemC kernel failed (" + std::string(e.what()) +
              "); this process cannot run timed jobs any more: restart it (functional runs still work)";
    platform_.sram.unmap_all();
    platform_.dram.unmap_all();
    throw InputError(*broken_);
  }
  if (sc_core::sc_get_status() == sc_core::SC_STOPPED) {
    broken_ = "the SystemC kernel was stopped; this process cannot run timed jobs any more: restart it";
    throw InputError(*broken_);
  }

  TimedRun out;
  out.driver = host_.result();
  // A driver that gave up before starting the NPU leaves it with the previous job's report.
  if (out.driver.started) out.report = platform_.npu.report();
  if (!out.driver.completed) out.fault = out.report.status.empty() ? out.driver.error : out.report.status;
  platform_.sram.unmap_all();
  platform_.dram.unmap_all();
  platform_.npu.impl().set_trace(nullptr);
  return out;
}

}  // namespace ethosu::host
