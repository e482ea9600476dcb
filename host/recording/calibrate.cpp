#include "host/recording/calibrate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "sim/config.h"
#include "sim/error.h"

namespace ethosu::host {

namespace {

constexpr const char* kClock = "system.clock_hz";
constexpr double kProbe = 0.18232155679395462;  // log(1.2): the flat-direction probe, 20 %

// One fitted parameter, searched on the logarithm of its value within its declared range.
struct Axis {
  const sim::Param* param = nullptr;
  double log_lo = 0, log_hi = 0;
  double start = 0;  // log of the base value

  double clamp(double u) const { return std::min(std::max(u, log_lo), log_hi); }
  std::string text(double u) const {
    const double v = std::exp(clamp(u));
    if (param->type() == sim::ParamType::DOUBLE) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.6g", std::min(std::max(v, param->double_min()), param->double_max()));
      return buf;
    }
    const int64_t step = std::max<int64_t>(param->int_step(), 1);
    const double k = std::round((v - static_cast<double>(param->int_min())) / static_cast<double>(step));
    const int64_t x = param->int_min() + static_cast<int64_t>(k) * step;
    return std::to_string(std::min(std::max(x, param->int_min()), param->int_max()));
  }
};

Axis make_axis(const sim::Param& p) {
  if (p.read_only()) throw InputError("--fit " + p.name() + ": a read-only label, not a parameter to fit");
  if (!p.choices().empty())
    throw InputError("--fit " + p.name() + ": takes one of a list (" + p.range_text() +
                     "); compare its values with replay --set instead");
  Axis a;
  a.param = &p;
  double lo = 0, hi = 0;
  if (p.type() == sim::ParamType::INT) {
    lo = static_cast<double>(p.int_min());
    hi = static_cast<double>(p.int_max());
    lo = std::max(lo, 1.0);  // a log scale starts above 0 (a latency of 0 is reached as 1)
  } else if (p.type() == sim::ParamType::DOUBLE) {
    lo = p.double_min();
    hi = p.double_max();
    if (lo <= 0) lo = hi * 1e-9;
  } else {
    throw InputError("--fit " + p.name() + ": not a number");
  }
  if (!(hi > lo) || !std::isfinite(hi)) throw InputError("--fit " + p.name() + ": its range " + p.range_text() + " has no room");
  a.log_lo = std::log(lo);
  a.log_hi = std::log(hi);
  a.start = a.clamp(std::log(std::max(p.as_double(), lo)));
  return a;
}

struct Evaluation {
  double f = 0;                      // mean |log(simulated / recorded)|
  std::vector<double> residuals;     // log(simulated / recorded) per job
  std::vector<uint64_t> cycles;
};

class Objective {
 public:
  Objective(const std::vector<RecordedJob>& jobs, const MachineRequest& base, const std::vector<Axis>& axes)
      : jobs_(jobs), base_(base), axes_(axes) {
    base_.variant.reset();  // each job runs on its own variant
  }

  std::vector<std::string> texts(const std::vector<double>& u) const {
    std::vector<std::string> t;
    for (size_t i = 0; i < axes_.size(); ++i) t.push_back(axes_[i].text(u[i]));
    return t;
  }

  const Evaluation& operator()(const std::vector<double>& u) {
    const std::vector<std::string> key = texts(u);
    const auto hit = cache_.find(key);
    if (hit != cache_.end()) return hit->second;
    ++evaluations_;
    MachineRequest request = base_;
    for (size_t i = 0; i < axes_.size(); ++i) request.assignments.push_back(axes_[i].param->name() + "=" + key[i]);
    request.origin = "calibrate";
    std::map<std::string, npu::NpuConfig> by_variant;
    Evaluation e;
    for (const RecordedJob& job : jobs_) {
      auto it = by_variant.find(job.variant());
      if (it == by_variant.end())
        it = by_variant.emplace(job.variant(), npu::read_config(resolve_config(request, job.variant()))).first;
      const uint64_t cycles = job.simulate(it->second);
      e.cycles.push_back(cycles);
      const double r = std::log(std::max<double>(static_cast<double>(cycles), 1) /
                                static_cast<double>(std::max<uint64_t>(*job.recorded_cycles(), 1)));
      e.residuals.push_back(r);
      e.f += std::fabs(r);
    }
    e.f /= static_cast<double>(std::max<size_t>(jobs_.size(), 1));
    return cache_.emplace(key, std::move(e)).first->second;
  }

  size_t evaluations() const { return evaluations_; }

 private:
  const std::vector<RecordedJob>& jobs_;
  MachineRequest base_;
  const std::vector<Axis>& axes_;
  std::map<std::vector<std::string>, Evaluation> cache_;
  size_t evaluations_ = 0;
};

// Nelder-Mead in the axes' log coordinates, clamped to their ranges, from `start` with simplex edges `step`.
std::vector<double> nelder_mead(Objective& f, const std::vector<Axis>& axes, std::vector<double> start, double step,
                                size_t budget) {
  const size_t n = start.size();
  std::vector<std::vector<double>> x(n + 1, start);
  for (size_t i = 0; i < n; ++i) {
    const double up = start[i] + step;
    x[i + 1][i] = up <= axes[i].log_hi ? up : start[i] - step;
  }
  auto clamp = [&](std::vector<double> v) {
    for (size_t i = 0; i < n; ++i) v[i] = axes[i].clamp(v[i]);
    return v;
  };
  auto value = [&](const std::vector<double>& v) { return f(v).f; };
  const size_t stop_at = f.evaluations() + budget;
  // Rounded INT parameters make points repeat (cached, so not counted): the iterations are bounded too.
  for (size_t iteration = 0; f.evaluations() < stop_at && iteration < 20 * budget; ++iteration) {
    std::sort(x.begin(), x.end(), [&](const auto& a, const auto& b) { return value(a) < value(b); });
    double size = 0;
    for (size_t k = 1; k <= n; ++k)
      for (size_t i = 0; i < n; ++i) size = std::max(size, std::fabs(x[k][i] - x[0][i]));
    if (size < 1e-3 || value(x[n]) - value(x[0]) < 1e-9 * (1 + value(x[0]))) break;
    std::vector<double> c(n, 0.0);
    for (size_t k = 0; k < n; ++k)
      for (size_t i = 0; i < n; ++i) c[i] += x[k][i] / static_cast<double>(n);
    auto along = [&](double t) {
      std::vector<double> v(n);
      for (size_t i = 0; i < n; ++i) v[i] = c[i] + t * (x[n][i] - c[i]);
      return clamp(v);
    };
    const std::vector<double> reflected = along(-1);
    const double fr = value(reflected);
    if (fr < value(x[0])) {
      const std::vector<double> expanded = along(-2);
      x[n] = value(expanded) < fr ? expanded : reflected;
    } else if (fr < value(x[n - 1])) {
      x[n] = reflected;
    } else {
      const std::vector<double> contracted = fr < value(x[n]) ? along(-0.5) : along(0.5);
      if (value(contracted) < std::min(fr, value(x[n]))) {
        x[n] = contracted;
      } else {
        for (size_t k = 1; k <= n; ++k)
          for (size_t i = 0; i < n; ++i) x[k][i] = x[0][i] + 0.5 * (x[k][i] - x[0][i]);
      }
    }
  }
  return *std::min_element(x.begin(), x.end(), [&](const auto& a, const auto& b) { return value(a) < value(b); });
}

// Compass search: each axis up and down by a step, the steps shrinking to 0.5 %.
std::vector<double> compass(Objective& f, std::vector<double> best, size_t budget) {
  const size_t stop_at = f.evaluations() + budget;
  for (double step : {0.05, 0.02, 0.01, 0.005}) {
    for (bool improved = true; improved && f.evaluations() < stop_at;) {
      improved = false;
      for (size_t i = 0; i < best.size(); ++i)
        for (double sign : {1.0, -1.0}) {
          std::vector<double> v = best;
          v[i] += sign * step;
          if (f(v).f < f(best).f) {
            best = v;
            improved = true;
          }
        }
    }
  }
  return best;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

double worst(const std::vector<double>& v) {
  double w = 0;
  for (double x : v)
    if (std::fabs(x) > std::fabs(w)) w = x;
  return w;
}

std::string percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f %%", 100 * x);
  return buf;
}

// wall = overhead + cycles * ns_per_cycle, by Theil-Sen: the median of the pairwise slopes, then the median
// intercept. Nothing when fewer than two jobs have distinct cycle counts.
std::optional<std::pair<double, double>> theil_sen(const std::vector<std::pair<double, double>>& points) {
  std::vector<double> slopes;
  for (size_t a = 0; a < points.size(); ++a)
    for (size_t b = a + 1; b < points.size(); ++b)
      if (points[a].first != points[b].first)
        slopes.push_back((points[b].second - points[a].second) / (points[b].first - points[a].first));
  if (slopes.empty()) return std::nullopt;
  const double slope = median(slopes);
  std::vector<double> intercepts;
  for (const auto& [x, y] : points) intercepts.push_back(y - slope * x);
  return std::make_pair(slope, median(intercepts));
}

}  // namespace

std::string CalibrationResult::parameter_file() const {
  std::string out = "# ethosu-sim calibrate: fitted to " + std::to_string(jobs.size()) + " recorded job(s); median |cycle error| " +
                    percent(median_abs_error_before) + " before, " + percent(median_abs_error_after) + " after\n";
  for (const auto& [name, value] : values) out += name + " = " + value + "\n";
  return out;
}

std::string calibration_json(const CalibrationResult& r) {
  using ojson = nlohmann::ordered_json;
  ojson out;
  out["parameters"] = ojson::array();
  for (const auto& p : r.parameters)
    out["parameters"].push_back({{"name", p.name},
                                 {"before", p.before},
                                 {"after", p.after},
                                 {"unit", p.unit},
                                 {"determined", p.determined},
                                 {"note", p.note}});
  out["jobs"] = ojson::array();
  for (const auto& j : r.jobs)
    out["jobs"].push_back({{"job", j.name},
                           {"recorded_cycles", j.recorded_cycles},
                           {"cycles_before", j.cycles_before},
                           {"cycles_after", j.cycles_after},
                           {"cycle_error_before", j.error_before},
                           {"cycle_error_after", j.error_after}});
  out["flat_directions"] = r.flat_directions;
  out["median_abs_cycle_error_before"] = r.median_abs_error_before;
  out["median_abs_cycle_error_after"] = r.median_abs_error_after;
  out["worst_cycle_error_before"] = r.worst_error_before;
  out["worst_cycle_error_after"] = r.worst_error_after;
  out["overhead_ns"] = r.overhead_ns ? ojson(*r.overhead_ns) : ojson(nullptr);
  out["evaluations"] = r.evaluations;
  out["values"] = ojson::object();
  for (const auto& [name, value] : r.values) out["values"][name] = value;
  out["parameter_file"] = r.parameter_file();
  return out.dump(1);
}

CalibrationResult calibrate(const std::vector<RecordedJob>& jobs, const CalibrationOptions& o) {
  if (jobs.empty()) throw InputError("calibrate: no recordings");
  for (const RecordedJob& j : jobs)
    if (!j.recorded_cycles())
      throw InputError(j.name() + ": no recorded cycle count (record with a perfmon: ETHOSU_RECORD_PMU=CYCLE, or a "
                                  "client that counts cycles)");
  if (o.fit.empty()) throw InputError("calibrate: no parameters to fit (--fit NAME[,NAME...])");
  const sim::Config base = resolve_config(o.base, jobs.front().variant());
  std::vector<Axis> axes;
  bool fit_clock = false;
  std::set<std::string> seen;
  for (const std::string& name : o.fit) {
    if (!seen.insert(name).second) throw InputError("--fit " + name + ": named twice");
    const sim::Param& p = base.param(name);  // unknown names: InputError with close names
    if (name == kClock)
      fit_clock = true;
    else
      axes.push_back(make_axis(p));
  }

  Objective f(jobs, o.base, axes);
  std::vector<double> start;
  for (const Axis& a : axes) start.push_back(a.start);
  const Evaluation before = f(start);
  std::vector<double> best = start;
  if (!axes.empty()) {
    const size_t budget = std::max<size_t>(o.max_evaluations, 20);
    best = nelder_mead(f, axes, best, 0.3, budget * 5 / 10);
    best = nelder_mead(f, axes, best, 0.05, budget * 2 / 10);  // a fresh simplex where the first one collapsed
    best = compass(f, best, budget * 3 / 10);
  }
  const Evaluation after = f(best);

  CalibrationResult r;
  std::vector<double> e_before, e_after;
  for (size_t j = 0; j < jobs.size(); ++j) {
    JobFit jf;
    jf.name = jobs[j].name();
    jf.recorded_cycles = *jobs[j].recorded_cycles();
    jf.cycles_before = before.cycles[j];
    jf.cycles_after = after.cycles[j];
    jf.error_before = std::exp(before.residuals[j]) - 1;
    jf.error_after = std::exp(after.residuals[j]) - 1;
    e_before.push_back(jf.error_before);
    e_after.push_back(jf.error_after);
    r.jobs.push_back(jf);
  }
  std::vector<double> abs_before, abs_after;
  for (double e : e_before) abs_before.push_back(std::fabs(e));
  for (double e : e_after) abs_after.push_back(std::fabs(e));
  r.median_abs_error_before = median(abs_before);
  r.median_abs_error_after = median(abs_after);
  r.worst_error_before = worst(e_before);
  r.worst_error_after = worst(e_after);

  // What the data determines: each fitted parameter moved by 20 % both ways.
  const std::vector<std::string> fitted = f.texts(best);
  std::vector<std::vector<double>> slopes(axes.size());
  for (size_t i = 0; i < axes.size(); ++i) {
    FittedParameter p;
    p.name = axes[i].param->name();
    p.unit = axes[i].param->unit();
    p.before = axes[i].text(axes[i].start);
    p.after = fitted[i];
    std::vector<double> up = best, down = best;
    up[i] += kProbe;
    down[i] -= kProbe;
    const Evaluation eu = f(up), ed = f(down);
    double change = 0;
    slopes[i].resize(jobs.size());
    for (size_t j = 0; j < jobs.size(); ++j) {
      change = std::max({change, std::fabs(eu.residuals[j] - after.residuals[j]), std::fabs(ed.residuals[j] - after.residuals[j])});
      slopes[i][j] = eu.residuals[j] - ed.residuals[j];
    }
    if (change < 1e-7) {
      p.determined = false;
      p.note = "not determined: 20 % more or less changes no job's cycles";
      r.flat_directions.push_back(p.name + ": changes no recorded job's cycles");
    } else if (best[i] <= axes[i].log_lo + 1e-3 || best[i] >= axes[i].log_hi - 1e-3) {
      p.note = "at the end of its range " + axes[i].param->range_text();
    }
    r.parameters.push_back(p);
  }
  for (size_t a = 0; a < axes.size(); ++a)
    for (size_t b = a + 1; b < axes.size(); ++b) {
      if (!r.parameters[a].determined || !r.parameters[b].determined) continue;
      double dot = 0, na = 0, nb = 0;
      for (size_t j = 0; j < jobs.size(); ++j) {
        dot += slopes[a][j] * slopes[b][j];
        na += slopes[a][j] * slopes[a][j];
        nb += slopes[b][j] * slopes[b][j];
      }
      const double cosine = dot / std::sqrt(na * nb);
      if (std::fabs(cosine) > 0.995) {
        const std::string line = r.parameters[a].name + " and " + r.parameters[b].name +
                                 " change every job's cycles in the same proportions: the recordings determine only a "
                                 "combination of them (record jobs that load them differently)";
        r.flat_directions.push_back(line);
        r.parameters[a].note = r.parameters[b].note = "trades off against the other (see below)";
      }
    }

  if (fit_clock) {
    FittedParameter p;
    p.name = kClock;
    p.unit = base.param(kClock).unit();
    p.before = base.param(kClock).value_text();
    p.after = p.before;
    std::vector<std::pair<double, double>> points;
    for (size_t j = 0; j < jobs.size(); ++j)
      if (jobs[j].wall_ns()) points.emplace_back(static_cast<double>(*jobs[j].recorded_cycles()), static_cast<double>(*jobs[j].wall_ns()));
    const auto line = theil_sen(points);
    const sim::Param& clock = base.param(kClock);
    if (!line || line->first <= 0) {
      p.determined = false;
      p.note = points.size() < 2 ? "not determined: it changes no cycle count, and fewer than two jobs have wall times"
                                 : "not determined: the wall times do not grow with the cycle counts";
      r.flat_directions.push_back(std::string(kClock) + ": " + p.note.substr(p.note.find(':') + 2));
    } else {
      const double hz = std::min(std::max(1e9 / line->first, static_cast<double>(clock.int_min())),
                                 static_cast<double>(clock.int_max()));
      p.after = std::to_string(static_cast<int64_t>(std::llround(hz)));
      // How far the jobs lie from the line: host noise in the wall times shows here.
      std::vector<double> spread;
      for (const auto& [x, y] : points) spread.push_back(std::fabs(y - line->second - line->first * x) / y);
      // The intercept as a double: wall times far apart make it larger than any integer type.
      char overhead[32];
      std::snprintf(overhead, sizeof overhead, "%.0f", line->second);
      p.note = "from the wall times, which scatter by " + percent(median(spread)) + " around wall = " + overhead +
               " ns + cycles / clock (NPU cycles do not depend on it)";
      r.overhead_ns = line->second;
    }
    r.parameters.push_back(p);
  }

  // The parameter file: the base file's and assignments' values, then the fitted ones.
  std::map<std::string, std::string> values;
  if (o.base.config_file) {
    sim::Config file = make_config();
    file.load_file(*o.base.config_file);
    for (const sim::Param* p : file.params())
      if (p->source() == sim::Source::FILE) values[p->name()] = p->value_text();
  }
  for (const std::string& a : o.base.assignments) {
    const size_t eq = a.find('=');
    if (eq != std::string::npos) values[a.substr(0, eq)] = a.substr(eq + 1);
  }
  for (const FittedParameter& p : r.parameters) values[p.name] = p.after;
  r.values.assign(values.begin(), values.end());
  r.evaluations = f.evaluations();
  return r;
}

}  // namespace ethosu::host
