// The public jobs and runs (include/ethosu_sim/run.h) over host::Job and host::run_job.
#include "isa/architecture.h"
#include "ethosu_sim/run.h"

#include "sim/files.h"
#include "host/run/job.h"
#include "host/formats/payload.h"
#include "host/run/report.h"
#include "host/run/run_job.h"
#include "models/npu/npu_config.h"
#include "host/config/config.h"
#include "sim/error.h"
#include "sim/trace.h"

namespace ethosu_sim {

namespace host = ethosu::host;

class Job::Impl {
 public:
  host::Job job;
  std::vector<Output> outputs;  // job.outputs as the API has them

  explicit Impl(host::Job j) : job(std::move(j)) {
    for (const host::OutputSpec& o : job.outputs)
      outputs.push_back({o.name, o.region, o.offset, o.size_bytes, o.expected, o.element_bytes, o.element_signed});
  }
};

Job::Job(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Job::Job(const Job& other) : impl_(std::make_unique<Impl>(other.impl())) {}
Job::Job(Job&& other) noexcept = default;
Job& Job::operator=(const Job& other) {
  if (this != &other) impl_ = std::make_unique<Impl>(other.impl());
  return *this;
}
Job& Job::operator=(Job&& other) noexcept = default;
Job::~Job() = default;

Job::Impl& Job::impl() {
  if (!impl_) impl_ = std::make_unique<Impl>(host::Job{});  // a moved-from job becomes an empty one when used
  return *impl_;
}

const Job::Impl& Job::impl() const {
  static const Impl empty{host::Job{}};
  return impl_ ? *impl_ : empty;
}

Job Job::from_case(const std::filesystem::path& folder, bool allow_outside) {
  return Job(std::make_unique<Impl>(host::job_from_folder(folder, allow_outside)));
}

Job Job::from_tflite(const std::filesystem::path& model, const std::vector<std::string>& inputs) {
  return Job(std::make_unique<Impl>(host::job_from_tflite(model, inputs)));
}

Job Job::from_stream(std::vector<uint8_t> stream, std::array<std::vector<uint8_t>, kRegionCount> regions,
                     const std::string& variant) {
  if (!variant.empty() && !parse_variant(variant))
    throw InputError("unknown NPU variant '" + variant + "'; known: " + ethosu::isa::variant_names());
  const host::NpuFile npu = host::read_npu_file(stream, "command stream");
  if (npu.kind == host::NpuFileKind::TFLITE) throw InputError("command stream: is a .tflite model (Job::from_tflite)");
  host::Job j;
  j.name = "stream";
  j.variant = npu.payload && npu.payload->config ? npu.payload->config->accelerator()
              : !variant.empty()                   ? variant
                                                   : std::string(variant_name(kDefaultVariant));
  j.stream = npu.command_stream;
  for (size_t r = 0; r < kRegionCount; ++r) j.regions[r] = std::move(regions[r]);
  return Job(std::make_unique<Impl>(std::move(j)));
}

const std::string& Job::name() const { return impl().job.name; }
const std::string& Job::variant() const { return impl().job.variant; }
const std::vector<uint8_t>& Job::stream() const { return impl().job.stream; }
std::vector<uint8_t>& Job::region(unsigned index) { return impl().job.regions.at(index); }
const std::vector<uint8_t>& Job::region(unsigned index) const { return impl().job.regions.at(index); }
const std::vector<Output>& Job::outputs() const { return impl().outputs; }
std::vector<uint8_t> Job::output_bytes(size_t output) const {
  return impl().job.output_bytes(impl().job.outputs.at(output));
}

RunResult run(Job& job, const RunOptions& options) {
  host::Job& j = job.impl().job;
  host::RunOptions o = host::run_options(options.config.impl().params, options.timed);
  o.pmu_events = options.pmu_events;
  ethosu::sim::Trace trace;
  if (options.trace) {
    if (!options.timed) throw InputError("a trace needs the timed platform");
    trace.open(options.trace->string(), "ethosu-sim: " + j.name + " on " + j.variant);
    o.trace = &trace;
  }
  const host::RunOutcome r = host::run_job(j, o);
  trace.close();
  RunResult out;
  out.completed = !r.fault;
  out.fault = r.fault;
  out.status = r.status;
  out.cycle_counter = r.cycle_counter;
  out.event_counters = r.event_counters;
  out.report = r.report;
  out.hazards = r.hazards;
  out.summary = r.summary;
  return out;
}

std::vector<Comparison> compare_outputs(const Job& job) {
  std::vector<Comparison> out;
  const Job::Impl& impl = job.impl();
  for (const host::OutputSpec& o : impl.job.outputs) {
    Comparison c;
    if (o.expected) {
      const host::Comparison h = host::compare_bytes(impl.job.output_bytes(o), ethosu::sim::read_file(o.expected->string()),
                                                     o.element_bytes, o.element_signed);
      c = {h.exact, true, h.mismatches, h.max_abs_diff, h.text};
    } else {
      c.text = "no expected output";
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::array<uint16_t, kMaxEventCounters> pmu_events(const std::vector<std::string>& names, Variant variant) {
  return host::parse_pmu_events(names, variant).events;
}

std::string report_json(const JobReport& report, const Config& config) {
  return host::report_json(report, config.impl().params.to_json());
}

std::string summary_table(const JobReport& report) { return host::summary_table(report); }

}  // namespace ethosu_sim
