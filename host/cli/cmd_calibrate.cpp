// calibrate: fit timing parameters to recorded jobs (host/recording/calibrate.h).
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "host/recording/capture.h"
#include "host/cli/args.h"
#include "host/cli/commands.h"
#include "host/cli/machine_options.h"
#include "sim/files.h"
#include "host/recording/calibrate.h"
#include "sim/config.h"

namespace ethosu::cli {

const char* const kCalibrateHelp =
    "usage: ethosu-sim calibrate RECORDING... --fit NAME[,NAME...] [--config FILE] [--set NAME=VALUE ...]\n"
    "                            [-o FILE] [--json] [--max-evaluations N]\n"
    "       ethosu-sim calibrate --list-params\n"
    "\n"
    "Fits the named timing parameters so that the simulator's cycle counts come closest to the ones recorded on\n"
    "a board (captures written by libethosu-record.so, or any capture with a cycle count): it minimises the mean\n"
    "|log(simulated / recorded cycles)| over the jobs, a relative error that a few badly modelled jobs do not\n"
    "dominate, within each parameter's range, with a derivative-free search (Nelder-Mead on the logarithms of\n"
    "the values, then a compass search). It starts from the default imx93 machine, or from --config and --set,\n"
    "never from parameters a capture carries. system.clock_hz changes no cycle count: it is fitted from the\n"
    "jobs' wall-clock times (wall = overhead + cycles / clock). Prints each job's cycle error (simulated /\n"
    "recorded - 1) before and after, the fitted values, and what the recordings cannot determine: a parameter\n"
    "that changes no job's cycles, or two that only trade off against each other. Keep some recordings back and\n"
    "check the fit on them with 'ethosu-sim replay --config FILE'.\n"
    "\n"
    "  --fit NAME,...          parameters to fit (numbers with a range: memory latencies and bandwidths, block\n"
    "                          timing parameters, system.clock_hz; see --list-params)\n"
    "  --config FILE           the starting configuration ('name = value' lines)\n"
    "  --set NAME=VALUE        a starting value (repeatable)\n"
    "  -o, --output FILE       write the fitted configuration as a parameter file, usable with --config,\n"
    "                          Config(config_file=...) and ETHOSU_SIM_CONFIG\n"
    "  --json                  the result as JSON on standard output\n"
    "  --max-evaluations N     simulations of all jobs the search may use (default 400)\n"
    "  --list-params           the parameters that can be fitted, with their ranges, and exit\n"
    "\n"
    "exit status: 0 fitted, 2 usage error, a bad recording or a parameter that cannot be fitted\n";

namespace {

std::string percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f %%", 100 * x);
  return buf;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

void list_params() {
  const sim::Config config = host::make_config();  // outlives the loop: params() points into it
  for (const sim::Param* p : config.params()) {
    const bool number = p->type() == sim::ParamType::INT || p->type() == sim::ParamType::DOUBLE;
    if (!number || p->read_only() || !p->choices().empty()) continue;
    std::cout << p->name() << " = " << p->value_text() << (p->unit().empty() ? "" : " " + p->unit()) << "  # "
              << p->range_text() << "; " << p->description()
              << (p->name() == "system.clock_hz" ? " (fitted from wall-clock times)" : "") << "\n";
  }
}

void print(const host::CalibrationResult& r) {
  size_t width = 8;
  for (const auto& j : r.jobs) width = std::max(width, j.name.size());
  std::cout << std::left << std::setw(static_cast<int>(width)) << "job" << std::right << std::setw(12) << "recorded"
            << std::setw(12) << "before" << std::setw(10) << "error" << std::setw(12) << "after" << std::setw(10)
            << "error" << "\n";
  for (const auto& j : r.jobs)
    std::cout << std::left << std::setw(static_cast<int>(width)) << j.name << std::right << std::setw(12)
              << j.recorded_cycles << std::setw(12) << j.cycles_before << std::setw(10) << percent(j.error_before)
              << std::setw(12) << j.cycles_after << std::setw(10) << percent(j.error_after) << "\n";
  std::cout << "median |cycle error| " << percent(r.median_abs_error_before).substr(1) << " before, "
            << percent(r.median_abs_error_after).substr(1) << " after; worst " << percent(r.worst_error_before)
            << " before, " << percent(r.worst_error_after) << " after (" << r.evaluations << " simulations of "
            << r.jobs.size() << (r.jobs.size() == 1 ? " job)\n" : " jobs)\n");
  for (const auto& p : r.parameters)
    std::cout << "  " << p.name << ": " << p.before << " -> " << p.after << (p.unit.empty() ? "" : " " + p.unit)
              << (p.note.empty() ? "" : "  (" + p.note + ")") << "\n";
  if (r.overhead_ns)
    std::cout << "  per-job overhead outside the NPU: " << std::fixed << std::setprecision(1) << *r.overhead_ns / 1000
              << " us\n";
  if (!r.flat_directions.empty()) {
    std::cout << "not determined by these recordings:\n";
    for (const auto& f : r.flat_directions) std::cout << "  " << f << "\n";
  }
}

}  // namespace

int run_calibrate(const std::vector<std::string>& argv) {
  std::vector<OptionSpec> specs = machine_option_specs(PARAMETER_OPTIONS);
  specs.insert(specs.end(), {{"--fit", "", true, true},
                {"--output", "-o", true, false},
                {"--json", "", false, false},
                {"--max-evaluations", "", true, false},
                {"--list-params", "", false, false}});
  Args a(argv, specs);
  if (a.flag("--list-params")) {
    list_params();
    return 0;
  }
  a.expect_positionals(1, SIZE_MAX, "RECORDING");
  host::CalibrationOptions options;
  for (const auto& list : a.values("--fit"))
    for (const auto& name : split_list(list)) options.fit.push_back(name);
  if (options.fit.empty()) throw UsageError("--fit NAME[,NAME...] is required");
  options.base = machine_request(a, PARAMETER_OPTIONS);
  if (auto n = a.value("--max-evaluations")) options.max_evaluations = parse_size(*n, "--max-evaluations");
  const auto output = a.value("--output");
  const host::CalibrationResult r = host::calibrate(host::read_recordings(a.positionals()), options);
  if (output) sim::write_text_file(*output, r.parameter_file());
  if (a.flag("--json"))
    std::cout << host::calibration_json(r) << "\n";
  else
    print(r);
  if (output && !a.flag("--json")) std::cout << "written to " << *output << "\n";
  return 0;
}

}  // namespace ethosu::cli
