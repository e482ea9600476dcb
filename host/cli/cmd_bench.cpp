// bench: simulator speed and fidelity over corpus cases: simulated cycles against Vela's estimate, host
// time per run and where it goes, bit-exactness, and predicted times next to silicon figures.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "isa/architecture.h"
#include "host/cli/args.h"
#include "host/cli/commands.h"
#include "host/formats/case.h"
#include "sim/files.h"
#include "host/run/job.h"
#include "host/run/run_job.h"
#include "host/config/config.h"
#include "host/run/simulator.h"
#include "host/config/system_config.h"
#include "isa/decoder.h"
#include "isa/validator.h"
#include "models/kernels/microkernel.h"
#include "models/kernels/simd_loops.h"
#include "models/estimate/vela_estimate.h"
#include "sim/error.h"

namespace ethosu::cli {

const char* const kBenchHelp =
    "usage: ethosu-sim bench CASE_DIR ... [options]\n"
    "       ethosu-sim bench --corpus ROOT [options]\n"
    "\n"
    "Runs corpus cases on the timed platform and prints one row per case: simulated cycles, Vela's\n"
    "estimate from the manifest and the ratio, the sum of this simulator's own Vela-formula estimate\n"
    "over the stream's kernel operations (a cross-check of the manifest figure), host time per run and\n"
    "where it goes, simulated cycles per host second, and whether the outputs match the reference.\n"
    "Then totals, sim/Vela per configuration (geometric mean, median, range, cases within 0.5-2x),\n"
    "host CPU time per run of the cases run on several configurations (and relative to the U65-256:\n"
    "how fast one generation's runs are against another's), and the models with published i.MX 93\n"
    "silicon figures: predicted NPU time and host time next to the silicon's.\n"
    "\n"
    "CASE_DIR   a folder with manifest.json and cmdstream.bin (the conformance corpus layout), or a\n"
    "           compilation folder CASE/<accelerator> (model_vela.tflite, with CASE/info.json)\n"
    "  --corpus ROOT        every case in ROOT/corpus/*, ROOT/corpus/*/u65_512, ROOT/opcorpus/* and every\n"
    "                       compilation in ROOT/corpus-u55/*/* (and any other ROOT/corpus-*/ of that layout)\n"
    "  --repeat N           runs per case, 1 to 1000 (default 5)\n"
    "  --process            every run is a new 'ethosu-sim run CASE' process (default: all runs of a\n"
    "                       case in this process, as Python and the driver shims run a loaded job)\n"
    "  --system NAME        a preset (imx93, imx93-800mhz, corstone-300, arm-internal-default,\n"
    "                       nxp-internal-default) or a built-in\n"
    "                       vela.ini system config with its family's memory mode; default: each case's\n"
    "                       family default (imx93 for the U65, corstone-300 for the U55,\n"
    "                       Ethos_U85_SYS_DRAM_Mid for the U85), which is the memory system Vela's\n"
    "                       estimate of the U55 and U85 compilations assumes\n"
    "  --variant NAME       only the cases compiled for that configuration (ethos-u65-256, ethos-u55-128, ...)\n"
    "  --set NAME=VALUE     a parameter, after the system (repeatable, as `run --set`); the own Vela\n"
    "                       estimate follows the memories and region ports it sets\n"
    "  --transactions       the NPU's traffic as TLM transactions on the memories (the embedded NPU's\n"
    "                       default bus mode) instead of the fast path (DMI); not with --process\n"
    "  --threads N          host threads one operation's kernels may use (sim.limits.host_threads,\n"
    "                       default 1); cpu then counts every thread, wall is the time to wait\n"
    "  --simd NAME          run the kernels on this SIMD target instead of the host's best (AVX2, SSE4,\n"
    "                       SCALAR, ...: Highway's names, and AVX2_VNNI: AVX2 with AVX-VNNI's 8-bit\n"
    "                       dot products; a wrong one lists this host's), as ETHOSU_SIM_SIMD=NAME does\n"
    "                       for any command; the conv micro-kernels follow\n"
    "  --csv FILE           also write the rows as CSV\n"
    "\n"
    "Host time, in milliseconds per run:\n"
    "  first    CPU time of the case's first run in this process, which decodes its weight streams\n"
    "           (later runs find them in the process's weight cache); '-' with --process\n"
    "  cpu      median CPU time of the later runs (of the one run with --repeat 1); with --process,\n"
    "           the median CPU time (user + system) of a whole process, start-up and loading included\n"
    "  wall     median wall time of the same runs\n"
    "  weights, kernels, timing, rest: the wall time of the median run by part: the operations' weight\n"
    "           and scale streams (decoding, or the weight cache's lookup), their bit-exact kernels, the\n"
    "           timing of operations and DMAs (block work, pipeline, AXI ports), and the rest (copying\n"
    "           the case's initial memory, command stream decoding and checks, DMA copies, SystemC, the\n"
    "           host's driver model; with --process also process start-up and loading the case)\n"
    "On a busy machine CPU time is the steadier figure; the parts are wall time. The first line names\n"
    "the SIMD code the kernels run on this host (the Highway target and the conv micro-kernels).\n"
    "\n"
    "Vela's estimate is the manifest's total cycles (opcorpus vela.estimated, corpus vela_estimate), or a\n"
    "compilation's vela_total_cycles in info.json. A case that is one NPU subgraph of a split model uses\n"
    "vela_estimate_this_subgraph, marked '*'. 'own Vela' is this simulator's Vela formulas for the U65\n"
    "('-' on other configurations).\n"
    "Outputs: 'exact', 'DIFF n' (elements differing from a bit-exact reference), '~n' (largest\n"
    "difference from an approximate ArmNN reference) or '-' (no reference).\n"
    "\n"
    "exit status: 0 all ran and matched their bit-exact references, 1 a fault or a differing output,\n"
    "2 usage or input error\n";

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Published end-to-end inference times on the i.MX 93 (Ethos-U65-256, NPU at 1 GHz in NXP's Vela
// preset), including roughly 0.1 ms of driver overhead. Figures from NXP's published benchmark results,
// as quoted in the issue that asked for this command. Data for comparison, not test expectations.
struct SiliconAnchor {
  const char* case_name;
  const char* model;
  double ms;
};
constexpr SiliconAnchor kSiliconAnchors[] = {
    {"kws_dscnn_mlperf", "MLPerf Tiny KWS DS-CNN", 0.409},
    {"vww_mobilenetv1_mlperf", "MLPerf Tiny VWW MobileNet", 0.214},
    {"ic_resnet8_mlperf", "MLPerf Tiny ResNet-8 CIFAR", 0.33},
    {"ad_fc_autoencoder_mlperf", "MLPerf Tiny deep autoencoder", 0.143},
    {"mobilenet_v2_100_224_uint8_coral", "MobileNetV2-224", 3.46},
    {"mobilenet_v2_int8_pytorch", "MobileNetV2-224", 3.46},
};
constexpr double kDriverOverheadMs = 0.1;

bool is_case_dir(const fs::path& dir) {
  std::error_code ec;
  return (fs::is_regular_file(dir / "manifest.json", ec) && fs::is_regular_file(dir / "cmdstream.bin", ec)) ||
         host::is_compilation(dir);
}

// Sorted sub-folders of `dir` that hold a case.
std::vector<fs::path> cases_in(const fs::path& dir) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (is_case_dir(e.path())) found.push_back(e.path());
  std::sort(found.begin(), found.end());
  return found;
}

std::vector<fs::path> corpus_cases(const fs::path& root, size_t& unknown_configurations) {
  std::vector<fs::path> cases;
  std::error_code ec;
  for (const char* set : {"corpus", "opcorpus"}) {
    if (!fs::is_directory(root / set, ec)) continue;
    std::vector<fs::path> found;
    for (const auto& e : fs::directory_iterator(root / set, ec)) {
      if (is_case_dir(e.path())) found.push_back(e.path());
      if (is_case_dir(e.path() / "u65_512")) found.push_back(e.path() / "u65_512");
    }
    std::sort(found.begin(), found.end());
    cases.insert(cases.end(), found.begin(), found.end());
  }
  // Compilation corpora: ROOT/corpus-u55/CASE/<accelerator>.
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(root, ec))
    if (e.is_directory(ec) && e.path().filename().string().rfind("corpus-", 0) == 0) sets.push_back(e.path());
  std::sort(sets.begin(), sets.end());
  for (const fs::path& set : sets) {
    std::vector<fs::path> models;
    for (const auto& e : fs::directory_iterator(set, ec))
      if (fs::is_regular_file(e.path() / "info.json", ec)) models.push_back(e.path());
    std::sort(models.begin(), models.end());
    for (const fs::path& model : models) {
      // A model's compilations in the order of the configurations (U55-32 before U55-128); those for
      // configurations this build does not know are counted and skipped.
      std::vector<std::pair<isa::Variant, fs::path>> known;
      for (const fs::path& c : cases_in(model)) {
        if (const auto v = isa::parse_variant(c.filename().string()))
          known.emplace_back(*v, c);
        else
          ++unknown_configurations;
      }
      std::stable_sort(known.begin(), known.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
      for (const auto& [v, c] : known) cases.push_back(c);
    }
  }
  return cases;
}

// The model folder's name; a corpus variant folder (u65_512/) and a compilation folder are named after their model.
std::string case_name(const fs::path& dir) {
  const fs::path d = dir.filename().empty() ? dir.parent_path() : dir;
  return d.filename() == "u65_512" || host::is_compilation(d) ? d.parent_path().filename().string()
                                                               : d.filename().string();
}

struct VelaFigure {
  double total_cycles = 0;
  bool this_subgraph = false;
};

std::optional<VelaFigure> manifest_vela(const fs::path& dir) {
  if (host::is_compilation(dir)) {
    const fs::path d = dir.filename().empty() ? dir.parent_path() : dir;
    std::ifstream f(d.parent_path() / "info.json");
    const nlohmann::json info = nlohmann::json::parse(f, nullptr, false);
    const std::string accelerator = d.filename().string();
    if (info.is_object() && info.contains("compilations") && info["compilations"].is_object() &&
        info["compilations"].contains(accelerator)) {
      const nlohmann::json& c = info["compilations"][accelerator];
      if (c.is_object() && c.contains("vela_total_cycles") && c["vela_total_cycles"].is_number())
        return VelaFigure{c["vela_total_cycles"].get<double>(), false};
    }
    return std::nullopt;
  }
  std::ifstream f(dir / "manifest.json");
  const nlohmann::json m = nlohmann::json::parse(f, nullptr, false);
  if (m.is_discarded() || !m.is_object()) return std::nullopt;
  auto total = [](const nlohmann::json& o) -> std::optional<double> {
    if (o.is_object() && o.contains("total_cycles") && o["total_cycles"].is_number())
      return o["total_cycles"].get<double>();
    return std::nullopt;
  };
  if (m.contains("vela_estimate_this_subgraph"))
    if (auto t = total(m["vela_estimate_this_subgraph"])) return VelaFigure{*t, true};
  if (m.contains("vela_estimate"))
    if (auto t = total(m["vela_estimate"])) return VelaFigure{*t, false};
  if (m.contains("vela") && m["vela"].is_object() && m["vela"].contains("estimated"))
    if (auto t = total(m["vela"]["estimated"])) return VelaFigure{*t, false};
  return std::nullopt;
}

// This simulator's Vela formulas over the stream as it stands (stripes are not merged back into operators), on the
// memories and region mapping of the run's machine (with the default system, Vela's view of the i.MX 93).
uint64_t own_vela_estimate(const std::vector<uint8_t>& stream, const host::RunOptions& machine) {
  const isa::Stream s = isa::decode(stream);
  estimate::VelaSystem sys;
  for (unsigned p = 0; p < 2; ++p) {
    const axi::AxiPortParams& a = machine.config.axi[p];
    sys.axi[p] = {a.bytes_per_cycle, a.read_latency_cycles, a.write_latency_cycles, a.burst_bytes};
  }
  for (unsigned r = 0; r < isa::kRegionCount; ++r) sys.region_port[r] = static_cast<uint8_t>((machine.regioncfg >> (2 * r) & 3) >> 1);
  uint64_t cycles = 0;
  isa::walk(s, [&](const isa::Event& e, const isa::StreamState&) {
    if (e.kind == isa::EventKind::OPERATION && e.operation->is_kernel())
      cycles += estimate::vela_estimate(*e.operation, sys).total_cycles;
  });
  return cycles;
}

// One run's host time.
struct Sample {
  double wall_s = 0, cpu_s = 0;
  npu::HostSeconds parts;  // from the run's report
};

struct Row {
  std::string name, variant;
  uint64_t cycles = 0;
  double clock_hz = 0;
  std::optional<VelaFigure> vela;
  uint64_t own_estimate = 0;
  std::optional<double> first_cpu_s;  // in-process mode
  Sample median;                      // the median run by wall time, with the median CPU time
  std::string outputs;                // "exact", "DIFF n", "~n", "-", "fault"
  bool ok = true;

  double rest_s() const {
    return std::max(0.0, median.wall_s - median.parts.weights - median.parts.kernels - median.parts.timing);
  }
};

// Compares the outputs of one run, whose bytes `actual(k)` gives for the job's output k: the text for the
// table, and whether a bit-exact reference differs.
std::pair<std::string, bool> check_outputs(const host::Job& job,
                                           const std::function<std::vector<uint8_t>(size_t)>& actual) {
  bool any_reference = false, exact = true;
  size_t differ = 0;
  int64_t approx_max = -1;
  for (size_t k = 0; k < job.outputs.size(); ++k) {
    const host::OutputSpec& o = job.outputs[k];
    if (!o.expected) continue;
    any_reference = true;
    const auto cmp =
        host::compare_bytes(actual(k), sim::read_file(o.expected->string()), o.element_bytes, o.element_signed);
    // ArmNN computes in float: its files are tolerance references (see the corpus READMEs).
    if (o.reference_engine.find("armnn") != std::string::npos) {
      approx_max = std::max(approx_max, cmp.max_abs_diff);
    } else if (!cmp.exact) {
      exact = false;
      differ += cmp.mismatches;
    }
  }
  if (!any_reference) return {"-", true};
  if (!exact) return {"DIFF " + std::to_string(differ), false};
  if (approx_max > 0) return {"~" + std::to_string(approx_max), true};
  return {"exact", true};
}

// The run of median wall time, carrying the median CPU time.
Sample median_of(std::vector<Sample> runs) {
  std::vector<double> cpu;
  for (const Sample& s : runs) cpu.push_back(s.cpu_s);
  std::sort(cpu.begin(), cpu.end());
  std::sort(runs.begin(), runs.end(), [](const Sample& a, const Sample& b) { return a.wall_s < b.wall_s; });
  Sample m = runs[(runs.size() - 1) / 2];
  m.cpu_s = cpu[(cpu.size() - 1) / 2];
  return m;
}

double cpu_seconds() { return double(std::clock()) / CLOCKS_PER_SEC; }

struct Bench {
  host::RunOptions options;
  std::string system;
  std::vector<std::string> assignments;  // --set
  std::string threads = "1";
  uint64_t repeat = 5;
};

// Enough runs for a stable median; a mistyped count must not run (and keep a sample of) a case for ever.
constexpr uint64_t kMaxRepeat = 1000;

// Every run of the case in this process, each on a fresh copy of the case's initial memory.
void bench_in_process(const Bench& b, const host::Job& job, Row& row) {
  std::vector<Sample> later;
  for (uint64_t n = 0; n < b.repeat && row.ok; ++n) {
    Sample s;
    const auto start = Clock::now();
    const double cpu_start = cpu_seconds();
    host::Job run = job;
    const host::RunOutcome out = host::run_job(run, b.options);
    s.cpu_s = cpu_seconds() - cpu_start;
    s.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
    if (out.fault || !out.report) {
      row.outputs = "fault: " + out.fault.value_or("no report");
      row.ok = false;
      return;
    }
    auto [text, ok] = check_outputs(run, [&](size_t k) { return run.output_bytes(run.outputs[k]); });
    row.outputs = text;
    row.ok = ok;
    row.cycles = out.report->total_cycles;
    row.clock_hz = out.report->clock_hz;
    s.parts = out.report->host;
    if (n == 0) row.first_cpu_s = s.cpu_s;
    if (n > 0 || b.repeat == 1) later.push_back(s);
  }
  if (row.ok) row.median = median_of(later);
}

// A child process's wall and CPU time and exit status (-1: it did not exit normally).
struct ChildRun {
  double wall_s = 0, cpu_s = 0;
  int status = -1;
};
// Runs this program with `args` (argv[0] first), its output discarded.
ChildRun run_child(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ChildRun r;
  // posix_spawn rather than fork: the child shares the parent's memory until it execs (glibc uses vfork
  // semantics), so its CPU time is the run's rather than a copy of this process's page tables as well.
  posix_spawn_file_actions_t actions;
  int spawned = posix_spawn_file_actions_init(&actions);
  if (spawned != 0) throw InputError(std::string("bench: cannot start a process: ") + std::strerror(spawned));
  spawned = posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  if (spawned == 0) spawned = posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  const auto start = Clock::now();
  pid_t pid = 0;
  if (spawned == 0) spawned = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw InputError(std::string("bench: cannot start a process: ") + std::strerror(spawned));
  int status = 0;
  struct rusage ru {};
  if (wait4(pid, &status, 0, &ru) < 0) throw InputError(std::string("bench: wait for a run: ") + std::strerror(errno));
  r.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  r.cpu_s = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + 1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Every run a new process; cycles and the parts of its host time from its report, outputs from its files.
void bench_processes(const Bench& b, const fs::path& dir, const host::Job& job, Row& row) {
  char tmpl[] = "/tmp/ethosu-sim-bench-XXXXXX";
  if (!mkdtemp(tmpl)) throw InputError(std::string("bench: cannot make a temporary folder: ") + std::strerror(errno));
  const fs::path tmp = tmpl;
  std::vector<Sample> runs;
  for (uint64_t n = 0; n < b.repeat && row.ok; ++n) {
    std::vector<std::string> args = {"ethosu-sim", "run", dir.string(), "--set", "sim.limits.host_threads=" + b.threads,
                                     "--out", tmp.string(), "--report", (tmp / "report.json").string()};
    if (!b.system.empty()) args.insert(args.end(), {"--system", b.system});
    for (const std::string& s : b.assignments) args.insert(args.end(), {"--set", s});
    const ChildRun c = run_child(args);
    std::ifstream f(tmp / "report.json");
    const nlohmann::json report = nlohmann::json::parse(f, nullptr, false);
    if (c.status != 0 && c.status != 1) {
      row.outputs = "run failed: exit status " + std::to_string(c.status);
      row.ok = false;
      break;
    }
    if (report.is_discarded() || report.value("status", "") != "ok") {
      row.outputs = "fault: " + (report.is_discarded() ? std::string("no report") : report.value("status", ""));
      row.ok = false;
      break;
    }
    auto [text, ok] = check_outputs(job, [&](size_t k) {
      return sim::read_file((tmp / ("output" + std::to_string(k) + ".bin")).string());
    });
    row.outputs = text;
    row.ok = ok;
    row.cycles = report.value("total_cycles", uint64_t{0});
    row.clock_hz = report.value("clock_hz", 0.0);
    Sample s{c.wall_s, c.cpu_s, {}};
    const nlohmann::json& h = report["host"];
    s.parts.weights = h.value("weights_seconds", 0.0);
    s.parts.kernels = h.value("kernels_seconds", 0.0);
    s.parts.timing = h.value("timing_seconds", 0.0);
    runs.push_back(s);
  }
  std::error_code ec;
  fs::remove_all(tmp, ec);
  if (row.ok) row.median = median_of(runs);
}

std::string fixed(double v, int decimals) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string ms(double seconds) { return fixed(1e3 * seconds, 3); }

constexpr const char* kHeader =
    "%-34s %-7s %11s %12s %8s %11s %9s %9s %9s %8s %8s %8s %8s %8s  %s\n";

void print_row(const Row& r) {
  const std::string vela = r.vela ? std::to_string(std::llround(r.vela->total_cycles)) + (r.vela->this_subgraph ? "*" : "")
                                  : "-";
  const std::string ratio = r.vela && r.vela->total_cycles > 0 ? fixed(double(r.cycles) / r.vela->total_cycles, 3) : "-";
  const Sample& m = r.median;
  std::printf(kHeader, r.name.c_str(), r.variant.c_str(), std::to_string(r.cycles).c_str(), vela.c_str(),
              ratio.c_str(), r.own_estimate ? std::to_string(r.own_estimate).c_str() : "-", r.first_cpu_s ? ms(*r.first_cpu_s).c_str() : "-",
              ms(m.cpu_s).c_str(), ms(m.wall_s).c_str(), ms(m.parts.weights).c_str(), ms(m.parts.kernels).c_str(),
              ms(m.parts.timing).c_str(), ms(r.rest_s()).c_str(),
              m.wall_s > 0 ? fixed(double(r.cycles) / m.wall_s / 1e6, 1).c_str() : "-", r.outputs.c_str());
  std::fflush(stdout);
}

std::string csv_row(const Row& r) {
  std::string s = r.name + "," + r.variant + "," + std::to_string(r.cycles) + ",";
  if (r.vela) s += fixed(r.vela->total_cycles, 1) + "," + (r.vela->this_subgraph ? "1" : "0") + "," +
                   (r.vela->total_cycles > 0 ? fixed(double(r.cycles) / r.vela->total_cycles, 4) : "");
  else s += ",,";
  const Sample& m = r.median;
  s += "," + (r.own_estimate ? std::to_string(r.own_estimate) : std::string()) + "," + (r.first_cpu_s ? fixed(*r.first_cpu_s, 6) : "") + "," +
       fixed(m.cpu_s, 6) + "," + fixed(m.wall_s, 6) + "," + fixed(m.parts.weights, 6) + "," + fixed(m.parts.kernels, 6) +
       "," + fixed(m.parts.timing, 6) + "," + fixed(r.rest_s(), 6) + "," +
       (m.wall_s > 0 ? fixed(double(r.cycles) / m.wall_s, 0) : "") + "," + r.outputs + "\n";
  return s;
}


// sim/Vela per configuration: geometric mean, median, range and how many cases lie within a factor of two.
void print_ratios_by_variant(const std::vector<Row>& rows) {
  // Keyed by the configuration's place in the Variant enumeration, then its name.
  std::map<std::pair<int, std::string>, std::vector<std::pair<double, std::string>>> by;
  for (const Row& r : rows) {
    if (!r.vela || r.vela->total_cycles <= 0 || r.cycles == 0) continue;
    const auto v = isa::parse_variant("ethos-" + r.variant);
    by[{v ? static_cast<int>(*v) : 255, r.variant}].emplace_back(double(r.cycles) / r.vela->total_cycles, r.name);
  }
  if (by.size() < 2 && (by.empty() || by.begin()->second.size() < 2)) return;
  std::printf("\n%-9s %6s %9s %8s %22s %22s %10s\n", "variant", "cases", "geomean", "median", "lowest", "highest",
              "0.5x-2x");
  for (auto& [key, ratios] : by) {
    const std::string& variant = key.second;
    std::sort(ratios.begin(), ratios.end());
    double log_sum = 0;
    size_t within = 0;
    for (const auto& [ratio, name] : ratios) {
      log_sum += std::log(ratio);
      within += ratio >= 0.5 && ratio <= 2.0;
    }
    const auto named = [](const std::pair<double, std::string>& r) {
      return fixed(r.first, 2) + " " + r.second.substr(0, 17);
    };
    std::printf("%-9s %6zu %9.3f %8.3f %22s %22s %6zu/%-3zu\n", variant.c_str(), ratios.size(),
                std::exp(log_sum / double(ratios.size())), ratios[(ratios.size() - 1) / 2].first,
                named(ratios.front()).c_str(), named(ratios.back()).c_str(), within, ratios.size());
  }
}

// Host CPU time per run of the cases run on several configurations, and each configuration's geometric mean relative
// to the U65-256's over the cases both ran: how fast one generation's runs are against another's.
void print_host_time_by_variant(const std::vector<Row>& rows) {
  using Key = std::pair<int, std::string>;  // the Variant enumeration's order, then the name
  std::map<std::string, std::map<Key, double>> by_case;
  for (const Row& r : rows) {
    if (!r.ok || r.median.cpu_s <= 0) continue;
    const auto v = isa::parse_variant("ethos-" + r.variant);
    by_case[r.name][{v ? static_cast<int>(*v) : 255, r.variant}] = r.median.cpu_s;
  }
  std::map<Key, std::vector<double>> vs_reference;  // cpu / the U65-256's, per configuration
  std::set<Key> variants;
  for (auto it = by_case.begin(); it != by_case.end();) {
    if (it->second.size() < 2) {
      it = by_case.erase(it);
      continue;
    }
    const auto reference = std::find_if(it->second.begin(), it->second.end(),
                                        [](const auto& e) { return e.first.second == "u65-256"; });
    for (const auto& [key, cpu] : it->second) {
      variants.insert(key);
      if (reference != it->second.end()) vs_reference[key].push_back(cpu / reference->second);
    }
    ++it;
  }
  if (by_case.empty()) return;
  std::printf("\nhost CPU ms per run, cases run on several configurations%s\n",
              vs_reference.empty() ? "" : " (last row: geometric mean relative to the u65-256 over the cases both ran)");
  std::printf("%-34s", "case");
  for (const Key& v : variants) std::printf(" %9s", v.second.c_str());
  std::printf("\n");
  for (const auto& [name, cpu] : by_case) {
    std::printf("%-34s", name.substr(0, 34).c_str());
    for (const Key& v : variants) {
      const auto e = cpu.find(v);
      std::printf(" %9s", e == cpu.end() ? "-" : ms(e->second).c_str());
    }
    std::printf("\n");
  }
  if (vs_reference.empty()) return;
  std::printf("%-34s", "relative to u65-256");
  for (const Key& v : variants) {
    const auto e = vs_reference.find(v);
    if (e == vs_reference.end()) {
      std::printf(" %9s", "-");
      continue;
    }
    double log_sum = 0;
    for (double x : e->second) log_sum += std::log(x);
    std::printf(" %8.2fx", std::exp(log_sum / double(e->second.size())));
  }
  std::printf("\n");
}

}  // namespace

int run_bench(const std::vector<std::string>& argv) {
  Args a(argv, {{"--corpus", "", true, false},
                {"--repeat", "", true, false},
                {"--process", "", false, false},
                {"--system", "", true, false},
                {"--variant", "", true, false},
                {"--threads", "", true, false},
                {"--simd", "", true, false},
                {"--set", "", true, true},
                {"--transactions", "", false, false},
                {"--csv", "", true, false}});
  std::vector<fs::path> cases;
  size_t skipped = 0;  // compilations for configurations this build does not know
  if (auto root = a.value("--corpus")) {
    if (!a.positionals().empty()) throw UsageError("give case folders or --corpus ROOT, not both");
    cases = corpus_cases(*root, skipped);
    if (cases.empty())
      throw InputError("no cases (folders with manifest.json and cmdstream.bin) under " + *root + "/corpus or " +
                       *root + "/opcorpus");
  } else {
    if (a.positionals().empty()) throw UsageError("give one or more case folders, or --corpus ROOT");
    for (const auto& p : a.positionals()) {
      if (!is_case_dir(p))
        throw InputError(p + ": not a case folder (manifest.json and cmdstream.bin) nor a compilation folder (model_vela.tflite)");
      cases.emplace_back(p);
    }
  }
  Bench bench;
  if (a.value("--repeat")) bench.repeat = parse_size(*a.value("--repeat"), "--repeat");
  if (bench.repeat == 0 || bench.repeat > kMaxRepeat)
    throw UsageError("--repeat must be 1 to " + std::to_string(kMaxRepeat) + " runs per case, not " +
                     *a.value("--repeat"));
  const bool processes = a.flag("--process");
  std::optional<isa::Variant> only;
  if (auto v = a.value("--variant")) {
    only = isa::parse_variant(*v);
    if (!only) throw UsageError("--variant: unknown variant '" + *v + "'; known: " + isa::variant_names());
  }
  bench.system = a.value("--system").value_or("");
  if (!bench.system.empty()) {
    host::MachineRequest check;  // an unknown system is refused before anything runs
    check.system = bench.system;
    host::resolve_config(check, isa::variant_name(isa::kDefaultVariant));
  }
  if (auto t = a.value("--threads")) bench.threads = *t;
  bench.assignments = a.values("--set");
  bench.options.transactions = a.flag("--transactions");
  if (bench.options.transactions && processes)
    throw UsageError("--transactions runs in this process: `ethosu-sim run` takes the fast path");
  if (auto simd = a.value("--simd")) {
    kernels::limit_simd(*simd);
    setenv("ETHOSU_SIM_SIMD", simd->c_str(), 1);  // for the 'run' processes of --process
  }

  std::ofstream csv;
  if (auto path = a.value("--csv")) {
    csv.open(*path);
    if (!csv) throw InputError(*path + ": cannot write");
    csv << "case,variant,sim_cycles,vela_cycles,vela_this_subgraph,sim_over_vela,own_vela_estimate,first_cpu_seconds,"
           "cpu_seconds,wall_seconds,weights_seconds,kernels_seconds,timing_seconds,rest_seconds,"
           "cycles_per_host_second,outputs\n";
  }

  // Elaborate the SystemC platform before any run is timed.
  if (!processes) host::Simulator::instance();
  const char* const conv_kernels[] = {"generic", "AVX2", "AVX-VNNI", "AVX-512 VNNI"};
  std::printf("system %s, %llu runs per case %s, %s host thread(s) per operation; host ms per run (medians); "
              "SIMD: Highway target %s, conv micro-kernels %s\n",
              bench.system.empty() ? "per family (imx93 for the U65, corstone-300 for the U55, Ethos_U85_SYS_DRAM_Mid for the U85)" : bench.system.c_str(),
              static_cast<unsigned long long>(bench.repeat),
              processes ? "each in a new 'ethosu-sim run' process" : "in this process", bench.threads.c_str(),
              kernels::simd_target_name(),
              conv_kernels[static_cast<int>(kernels::best_simd_level())]);
  std::printf(kHeader, "case", "variant", "sim cycles", "Vela cycles", "sim/Vela", "own Vela", "first", "cpu", "wall",
              "weights", "kernels", "timing", "rest", "Mcyc/s", "outputs");
  if (skipped)
    std::printf("(%zu compilation(s) for configurations this build does not simulate skipped; it knows %s)\n", skipped,
                isa::variant_names().c_str());
  std::vector<Row> rows;
  bool all_ok = true;
  for (const auto& dir : cases) {
    const host::Job job = host::job_from_folder(dir);
    const auto variant = isa::parse_variant(job.variant);
    if (!variant) throw InputError(dir.string() + ": unknown NPU variant '" + job.variant + "'");
    if (only && *variant != *only) continue;

    host::MachineRequest request;
    if (!bench.system.empty()) request.system = bench.system;
    request.assignments = bench.assignments;
    request.origin = "--set";
    sim::Config config = host::resolve_config(request, job.variant);
    config.set("sim.limits.host_threads", bench.threads, sim::Source::CLI, "--threads");
    const host::RunOptions machine = host::run_options(config);
    bench.options.config = machine.config;
    bench.options.regioncfg = machine.regioncfg;

    Row row;
    row.name = case_name(dir);
    row.variant = job.variant.rfind("ethos-", 0) == 0 ? job.variant.substr(6) : job.variant;
    row.vela = manifest_vela(dir);
    if (isa::architecture(*variant).product == isa::Product::U65) row.own_estimate = own_vela_estimate(job.stream, machine);
    row.outputs = "-";
    if (processes)
      bench_processes(bench, dir, job, row);
    else
      bench_in_process(bench, job, row);
    all_ok = all_ok && row.ok;
    print_row(row);
    if (csv.is_open()) csv << csv_row(row);
    rows.push_back(row);
  }
  if (rows.empty()) {
    std::printf("no case was compiled for %s\n", a.value("--variant")->c_str());
    return 0;
  }

  uint64_t cycles = 0;
  double wall = 0, cpu = 0, log_ratio = 0;
  npu::HostSeconds parts;
  size_t with_vela = 0, exact = 0, subgraphs = 0;
  for (const auto& r : rows) {
    cycles += r.cycles;
    wall += r.median.wall_s;
    cpu += r.median.cpu_s;
    parts.weights += r.median.parts.weights;
    parts.kernels += r.median.parts.kernels;
    parts.timing += r.median.parts.timing;
    exact += r.outputs == "exact";
    if (r.vela && r.vela->total_cycles > 0 && r.cycles > 0) {
      log_ratio += std::log(double(r.cycles) / r.vela->total_cycles);
      ++with_vela;
      subgraphs += r.vela->this_subgraph;
    }
  }
  const auto share = [&](double s) { return wall > 0 ? 100 * s / wall : 0; };
  std::printf("\n%zu cases: %llu simulated cycles in %.3f s of host time (%.3f s CPU; %.1f M cycles/s): %.0f%% weight "
              "streams, %.0f%% kernels, %.0f%% timing, %.0f%% rest; %zu bit-exact\n",
              rows.size(), static_cast<unsigned long long>(cycles), wall, cpu, wall > 0 ? double(cycles) / wall / 1e6 : 0,
              share(parts.weights), share(parts.kernels), share(parts.timing),
              std::max(0.0, 100 - share(parts.weights) - share(parts.kernels) - share(parts.timing)), exact);
  if (with_vela)
    std::printf("sim/Vela: geometric mean %.3f over %zu cases with a Vela estimate\n",
                std::exp(log_ratio / double(with_vela)), with_vela);
  print_ratios_by_variant(rows);
  print_host_time_by_variant(rows);
  if (subgraphs)
    std::printf("* %zu case(s) are one NPU subgraph of a split model: Vela's estimate for that subgraph\n", subgraphs);

  bool header = false;
  for (const auto& anchor : kSiliconAnchors)
    for (const auto& r : rows) {
      if (r.name != anchor.case_name || r.variant != "u65-256" || r.clock_hz <= 0) continue;
      if (!header) {
        std::printf("\nsilicon (i.MX 93, Ethos-U65-256, end to end incl. ~%.1f ms driver): predicted at %.0f MHz, and "
                    "this host's time per run (cpu, %s)\n",
                    kDriverOverheadMs, r.clock_hz / 1e6, processes ? "a whole process" : "in-process");
        std::printf("%-34s %-30s %9s %12s %11s %8s %9s %11s\n", "case", "model", "NPU ms", "+driver ms", "silicon ms",
                    "ratio", "host ms", "host/silicon");
        header = true;
      }
      const double npu_ms = 1e3 * double(r.cycles) / r.clock_hz;
      std::printf("%-34s %-30s %9.3f %12.3f %11.3f %8.2f %9.3f %11.2f\n", r.name.c_str(), anchor.model, npu_ms,
                  npu_ms + kDriverOverheadMs, anchor.ms, (npu_ms + kDriverOverheadMs) / anchor.ms, 1e3 * r.median.cpu_s,
                  1e3 * r.median.cpu_s / anchor.ms);
    }
  return all_ok ? 0 : 1;
}

}  // namespace ethosu::cli
