#include "host/recording/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "host/backends/nxp/nxp_inference.h"
#include "isa/architecture.h"
#include "isa/registers.h"
#include "sim/byte_runs.h"
#include "sim/config.h"
#include "sim/error.h"

namespace ethosu::host {

namespace {

// The event's name in the family of the capture's configuration (the U85 names some ids anew).
std::string event_name(uint16_t id, const std::string& variant) {
  const isa::Variant v = isa::parse_variant(variant).value_or(isa::kDefaultVariant);
  const isa::PmuEventInfo* e = isa::architecture(v).pmu_event(id);
  return e ? std::string(e->name) : "event " + std::to_string(id);
}

std::string status_name(uint32_t s) {
  static const char* const kNames[] = {"OK", "ERROR", "RUNNING", "REJECTED", "ABORTED", "ABORTING"};
  return s < std::size(kNames) ? kNames[s] : "status " + std::to_string(s);
}

// "what: N of M bytes differ, the first at offset X (0xAA simulated, 0xBB recorded)", or the sizes.
std::string bytes_difference(const std::string& what, const uint8_t* simulated, size_t simulated_size,
                             const uint8_t* recorded, size_t recorded_size) {
  if (simulated_size != recorded_size)
    return what + ": " + std::to_string(simulated_size) + " bytes simulated, " + std::to_string(recorded_size) +
           " recorded";
  size_t differ = 0, first = 0;
  for (size_t i = 0; i < simulated_size; ++i)
    if (simulated[i] != recorded[i] && differ++ == 0) first = i;
  if (!differ) return "";
  char buf[128];
  std::snprintf(buf, sizeof buf, ", the first at offset 0x%zx (0x%02x simulated, 0x%02x recorded)", first,
                simulated[first], recorded[first]);
  return what + ": " + std::to_string(differ) + " of " + std::to_string(simulated_size) + " bytes differ" + buf;
}

void add_if(std::vector<std::string>& out, std::string text) {
  if (!text.empty()) out.push_back(std::move(text));
}

// The firmware emulation's settings for replaying an inference on the configuration `o` asks for.
ShimSettings inference_settings(const Capture& c, const ReplayOptions& o) {
  ShimSettings s;
  s.request.variant = c.variant;
  s.request.config_file = o.config_file;
  for (const auto& [name, value] : c.parameters) s.request.assignments.push_back(name + "=" + value);
  s.request.assignments.insert(s.request.assignments.end(), o.assignments.begin(), o.assignments.end());
  s.functional = o.functional;
  const sim::Config config = resolve_config(s.request, c.variant);
  s.sram_size_bytes = static_cast<uint64_t>(std::max<int64_t>(config.param("mem.sram.size_bytes").as_int(), 0));
  return s;
}

nxp::InferenceRequest inference_request(const InferenceRecord& r) {
  nxp::InferenceRequest q;
  q.inference_type = r.type;
  q.network = r.network;
  q.ifm_sizes = r.ifm_data_bytes;
  q.hold_ifms(r.ifms);
  q.ofm_free_bytes = r.ofm_free_bytes;
  for (size_t i = 0; i < 4; ++i) q.pmu.events[i] = r.pmu_event_indices[i];
  q.pmu.cycle_count = r.pmu_cycle_count ? 1 : 0;
  return q;
}

void compare_inference(const Capture& c, const ReplayOptions& o, JobComparison& j, Capture& simulated) {
  const InferenceRecord& rec = *c.inference;
  const nxp::InferenceResult res = nxp::run_inference(inference_request(rec), inference_settings(c, o));
  if (res.status != rec.status)
    j.output_differences.push_back("inference status " + status_name(res.status) + " simulated, " +
                                   status_name(rec.status) + " recorded" +
                                   (res.message.empty() ? std::string() : " (" + res.message + ")"));
  for (size_t i = 0; i < rec.ofms_appended.size() && i < res.ofm_appended.size(); ++i) {
    const auto& want = rec.ofms_appended[i];
    const auto& got = res.ofm_appended[i];
    add_if(j.output_differences,
           bytes_difference("ofm[" + std::to_string(i) + "] appended", got.data(), got.size(), want.data(), want.size()));
  }
  if (res.arena && !rec.ifms.empty()) {
    // The client's arena after the inference: what it held, with what the inference changed.
    std::vector<uint8_t> got = rec.ifms[0];
    const nxp::ArenaChange& change = *res.arena;
    for (const auto& [begin, end] : sim::differing_runs(change.before.data(), change.after.data(),
                                                        std::min(change.before.size(), change.after.size())))
      if (end <= got.size()) std::copy(change.after.begin() + begin, change.after.begin() + end, got.begin() + begin);
    const std::vector<uint8_t>& want =
        !rec.ifms_after.empty() && !rec.ifms_after[0].empty() ? rec.ifms_after[0] : rec.ifms[0];
    for (const auto& [begin, end] : res.arena_results) {
      if (end > got.size() || end > want.size() || begin >= end) continue;
      add_if(j.output_differences, bytes_difference("ifm[0] (arena) bytes [" + std::to_string(begin) + ", " +
                                                        std::to_string(end) + ")",
                                                    got.data() + begin, end - begin, want.data() + begin, end - begin));
    }
  }
  if (res.capture) simulated = *res.capture;
}

}  // namespace

void check_recording(const Capture& c, const ReplayOptions& o) {
  if (c.inference)
    inference_settings(c, o);
  else
    check_replay(c, o);
}

JobComparison compare_recording(const Capture& c, const std::string& name, const ReplayOptions& o, Capture* replayed) {
  JobComparison j;
  j.capture = name;
  j.source = c.source;
  j.on_hardware = c.on_hardware;
  j.wall_ns = c.wall_ns;
  Capture simulated;
  if (c.inference) {
    compare_inference(c, o, j, simulated);
    j.clock_hz = resolve_config(inference_settings(c, o).request, c.variant).param("system.clock_hz").as_double();
  } else {
    ReplayResult r = replay(c, o);
    j.output_differences = r.output_differences;
    // The board's STATUS is not recorded: whether it faulted too is unknown; the outputs tell.
    if (c.on_hardware && r.fault) j.notes.push_back("the simulated run faulted: " + *r.fault);
    // A board's counters differ from the simulator's by design; a simulator capture's must not.
    if (!c.on_hardware)
      for (const auto& d : r.differences)
        if (std::find(r.output_differences.begin(), r.output_differences.end(), d) == r.output_differences.end())
          j.other_differences.push_back(d);
    simulated = r.replayed;
    j.clock_hz = replay_configuration(c, o).param("system.clock_hz").as_double();
  }
  const bool timed = c.timed && !o.functional;
  if (timed) {
    j.simulated_cycles = simulated.cycle_counter;
    if (c.cycle_counter_recorded) {
      j.recorded_cycles = c.cycle_counter;
      if (c.cycle_counter)
        j.cycle_error = static_cast<double>(simulated.cycle_counter) / static_cast<double>(c.cycle_counter) - 1;
      if (j.wall_ns && j.clock_hz > 0)
        j.overhead_ns = static_cast<double>(*j.wall_ns) - static_cast<double>(c.cycle_counter) * 1e9 / j.clock_hz;
    }
    if (c.event_counters_recorded)
      for (size_t i = 0; i < c.pmu_events.size(); ++i)
        if (c.pmu_events[i])
          j.counters.push_back({c.pmu_events[i], event_name(c.pmu_events[i], c.variant), c.event_counters[i],
                                simulated.pmu_events[i] == c.pmu_events[i] ? simulated.event_counters[i] : 0});
  }
  if (replayed) *replayed = std::move(simulated);
  return j;
}

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

}  // namespace

ComparisonSummary summarise(const std::vector<JobComparison>& rows) {
  ComparisonSummary s;
  std::vector<double> errors, abs_errors, overheads;
  for (const auto& j : rows) {
    ++s.jobs;
    s.outputs_identical += j.output_differences.empty();
    if (j.cycle_error) {
      errors.push_back(*j.cycle_error);
      abs_errors.push_back(std::fabs(*j.cycle_error));
      if (!s.worst_cycle_error || std::fabs(*j.cycle_error) > std::fabs(*s.worst_cycle_error)) {
        s.worst_cycle_error = *j.cycle_error;
        s.worst_job = j.capture;
      }
    }
    if (j.overhead_ns) overheads.push_back(*j.overhead_ns);
  }
  if (!errors.empty()) {
    s.median_cycle_error = median(errors);
    s.median_abs_cycle_error = median(abs_errors);
  }
  if (!overheads.empty()) s.median_overhead_ns = median(overheads);
  return s;
}

std::string comparison_json(const std::vector<JobComparison>& rows) {
  using ojson = nlohmann::ordered_json;
  const auto opt = [](const auto& v) { return v ? ojson(*v) : ojson(nullptr); };
  ojson jobs = ojson::array();
  for (const auto& j : rows) {
    ojson o;
    o["capture"] = j.capture;
    o["source"] = j.source;
    o["recorded_on"] = j.on_hardware ? "hardware" : "simulator";
    o["outputs_identical"] = j.output_differences.empty();
    o["output_differences"] = j.output_differences;
    o["other_differences"] = j.other_differences;
    o["notes"] = j.notes;
    o["recorded_cycles"] = opt(j.recorded_cycles);
    o["simulated_cycles"] = j.simulated_cycles;
    o["cycle_error"] = opt(j.cycle_error);
    o["counters"] = ojson::array();
    for (const auto& c : j.counters)
      o["counters"].push_back(
          {{"event", c.name},
           {"recorded", c.recorded},
           {"simulated", c.simulated},
           {"ratio", c.recorded ? ojson(static_cast<double>(c.simulated) / static_cast<double>(c.recorded)) : ojson(nullptr)}});
    o["wall_ns"] = opt(j.wall_ns);
    o["clock_hz"] = j.clock_hz;
    o["overhead_ns"] = opt(j.overhead_ns);
    jobs.push_back(o);
  }
  const ComparisonSummary s = summarise(rows);
  ojson out;
  out["jobs"] = jobs;
  out["summary"] = {{"jobs", s.jobs},
                    {"outputs_identical", s.outputs_identical},
                    {"median_cycle_error", opt(s.median_cycle_error)},
                    {"median_abs_cycle_error", opt(s.median_abs_cycle_error)},
                    {"worst_cycle_error", opt(s.worst_cycle_error)},
                    {"worst_job", s.worst_job.empty() ? ojson(nullptr) : ojson(s.worst_job)},
                    {"median_overhead_ns", opt(s.median_overhead_ns)}};
  return out.dump(1);
}

RecordedJob::RecordedJob(const Capture& c, std::string name) : name_(std::move(name)) {
  if (c.cycle_counter_recorded) recorded_cycles_ = c.cycle_counter;
  wall_ns_ = c.wall_ns;
  options_.timed = true;
  options_.pmu_events = c.pmu_events;
  if (!c.inference) {
    job_ = capture_job(c, name_);
    options_.regioncfg = c.regioncfg;
  } else {
    // The NPU job the firmware makes of the inference; the functional model is enough to build it.
    ShimSettings s = inference_settings(c, ReplayOptions{});
    s.functional = true;
    const nxp::InferenceResult res = nxp::run_inference(inference_request(*c.inference), s);
    if (!res.capture)
      throw InputError(name_ + ": the firmware's emulation cannot run this inference: " + res.message);
    job_ = capture_job(*res.capture, name_);
    options_.regioncfg = res.capture->regioncfg;
  }
  variant_ = job_->variant;
}

uint64_t RecordedJob::simulate(const npu::NpuConfig& config) const {
  // A run changes its job's buffers: it runs on a copy of a kept job, on a released one read again.
  Job job = job_ ? *job_ : std::move(*RecordedJob(read_capture(*folder_), name_).job_);
  RunOptions options = options_;
  options.config = config;
  return run_job(job, options).cycle_counter;
}

uint64_t RecordedJob::job_bytes() const {
  if (!job_) return 0;
  uint64_t bytes = job_->stream.size();
  for (const auto& r : job_->regions) bytes += r.size();
  return bytes;
}

void RecordedJob::release(const std::filesystem::path& folder) {
  folder_ = folder;
  job_.reset();
}

std::vector<RecordedJob> read_recordings(const std::vector<std::string>& folders, uint64_t keep_bytes) {
  std::vector<RecordedJob> jobs;
  uint64_t kept = 0;
  for (const std::string& folder : folders) {
    jobs.emplace_back(read_capture(folder), folder);
    const uint64_t bytes = jobs.back().job_bytes();
    if (kept + bytes <= keep_bytes)
      kept += bytes;
    else
      jobs.back().release(folder);
  }
  return jobs;
}

}  // namespace ethosu::host
