// Fitting timing parameters to recordings: the values of the chosen parameters for which the simulator's cycle
// counts come closest to the recorded ones.
//
// Contract: calibrate() starts from `base` (the imx93 defaults unless it says otherwise; recorded parameters of
// simulator captures are ignored: they describe the machine to be found) and searches the named parameters within
// the ranges the registry declares (sim::Param: INT and DOUBLE parameters with a range; not read-only, not
// choice lists), minimising the mean |log(simulated / recorded cycles)| over the jobs: a relative error, robust to
// a few jobs that the model gets wrong. The objective is deterministic but piecewise constant (cycles are
// integers, INT parameters take steps), so the search uses no derivatives: Nelder-Mead on the logarithms of the
// parameters, restarted once, then a compass search with shrinking steps down to 0.5 % (or the parameter's step).
// system.clock_hz does not change cycle counts; it is fitted from the jobs' wall-clock times instead (wall =
// overhead + cycles / clock, a Theil-Sen line: robust to outliers), when the recordings have them.
// Afterwards each fitted parameter is moved by 20 % both ways: one that changes no job's cycles is reported as not
// determined by the data, and two whose effects on the jobs are (nearly) proportional as a trade-off the data
// cannot separate. Jobs without a recorded cycle count are refused (record with a perfmon, ETHOSU_RECORD_PMU).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "host/recording/compare.h"
#include "host/config/config.h"

namespace ethosu::host {

struct CalibrationOptions {
  std::vector<std::string> fit;  // parameter names
  MachineRequest base;            // the starting configuration (its variant is ignored: each job has its own)
  size_t max_evaluations = 400;  // objective evaluations (each simulates every job once)
};

struct FittedParameter {
  std::string name;
  std::string before, after;  // values as text
  std::string unit;
  bool determined = true;     // false: moving it changes no job's cycles (or not enough wall times, for the clock)
  std::string note;           // why not determined, a bound reached, a trade-off
};

struct JobFit {
  std::string name;
  uint64_t recorded_cycles = 0;
  uint64_t cycles_before = 0, cycles_after = 0;
  double error_before = 0, error_after = 0;  // simulated / recorded - 1
};

struct CalibrationResult {
  std::vector<FittedParameter> parameters;
  std::vector<JobFit> jobs;
  std::vector<std::string> flat_directions;  // what the data cannot determine, one line each
  double median_abs_error_before = 0, median_abs_error_after = 0;
  double worst_error_before = 0, worst_error_after = 0;  // the largest |error|, with its sign
  std::optional<double> overhead_ns;          // the clock fit's intercept: per-job time outside the NPU
  size_t evaluations = 0;
  // The fitted values as a parameter file ('name = value' lines, for --config, Config(config_file=...) and
  // ETHOSU_SIM_CONFIG), with the base file's and assignments' other values.
  std::string parameter_file() const;
  std::vector<std::pair<std::string, std::string>> values;  // what parameter_file() writes
};

// As `calibrate --json` and ethosu_sim.calibrate() give it: parameters, jobs, flat_directions, the errors before
// and after, overhead_ns, evaluations, values and parameter_file.
std::string calibration_json(const CalibrationResult& result);

// Throws InputError naming a parameter that cannot be fitted, or a job without a recorded cycle count.
CalibrationResult calibrate(const std::vector<RecordedJob>& jobs, const CalibrationOptions& options);

}  // namespace ethosu::host
