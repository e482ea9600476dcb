// The cases the golden record of simulated cycles covers, and where each one's record lives: the one place that
// lists sources of cases and names records (tests/corpus/golden_corpus_test.cpp says how the record is used).
//
// Contract: golden_cases() lists the cases of every source found under shared_root(), sorted by label. A case's
// label is its path under shared_root() without extension ("corpus/kws_dscnn_mlperf/u65_512"), its record is
// golden_dir()/LABEL.json, and its load() makes the job `ethosu-sim run SOURCE` runs. Another corpus is one more
// entry of case_sources().
#pragma once

#include <algorithm>
#include <array>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "corpus/corpus_paths.h"
#include "host/run/job.h"

namespace ethosu::test {

struct GoldenCase {
  std::string label;
  fs::path source;                            // what `ethosu-sim run` is given: here a case folder
  host::Job (*load)(const fs::path& source);  // the job that command makes of it
};

// GoogleTest prints a failing test's parameter: the label rather than the struct's bytes.
inline void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.label; }

struct CaseSource {
  std::vector<fs::path> (*list)();  // every case of the source found under shared_root()
  host::Job (*load)(const fs::path& source);
};

inline const std::array<CaseSource, 2>& case_sources() {
  static const std::array<CaseSource, 2> sources{{
      // opcorpus/*, corpus/*, corpus/*/u65_512: folders with manifest.json and cmdstream.bin.
      {corpus_cases, [](const fs::path& dir) { return host::job_from_case(dir); }},
      // corpus-u55/CASE/<accelerator> (and the other families' once the simulator has their configurations).
      {compilation_dirs, [](const fs::path& dir) { return host::job_from_compilation(dir); }},
  }};
  return sources;
}

inline std::vector<GoldenCase> golden_cases() {
  std::vector<GoldenCase> cases;
  for (const CaseSource& s : case_sources())
    for (const fs::path& p : s.list()) {
      fs::path label = fs::relative(p, shared_root());
      if (fs::is_regular_file(p)) label.replace_extension();  // a model file; case folders keep their whole name
      cases.push_back({label.generic_string(), p, s.load});
    }
  std::sort(cases.begin(), cases.end(), [](const GoldenCase& a, const GoldenCase& b) { return a.label < b.label; });
  return cases;
}

// The committed records: tests/golden/ of the source tree (compiled in as ETHOSU_SIM_GOLDEN_DIR).
inline fs::path golden_dir() { return ETHOSU_SIM_GOLDEN_DIR; }

inline fs::path record_path(const GoldenCase& c) { return golden_dir() / (c.label + ".json"); }

}  // namespace ethosu::test
