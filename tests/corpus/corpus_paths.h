// Where the conformance data lives, for the corpus test suites.
//
// The root is $ETHOSU_SIM_SHARED_DIR, else the CMake cache variable ETHOSU_SIM_SHARED_DIR (compiled in as
// ETHOSU_SIM_SHARED_DIR_DEFAULT). Suites call corpus_cases() and GTEST_SKIP() with skip_message() when
// it returns nothing, so a checkout without the data still passes and says why.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "isa/architecture.h"
#include "sim/files.h"

namespace ethosu::test {

namespace fs = std::filesystem;

inline fs::path shared_root() {
  if (const char* env = std::getenv("ETHOSU_SIM_SHARED_DIR"); env && *env) return env;
#ifdef ETHOSU_SIM_SHARED_DIR_DEFAULT
  return ETHOSU_SIM_SHARED_DIR_DEFAULT;
#else
  return "../shared";
#endif
}

inline std::string skip_message() {
  return "conformance data not found under '" + shared_root().string() +
         "' (set ETHOSU_SIM_SHARED_DIR or -DETHOSU_SIM_SHARED_DIR=...); skipping";
}

// Every case directory (one holding cmdstream.bin and manifest.json): opcorpus/*, corpus/*, corpus/*/u65_512.
inline std::vector<fs::path> corpus_cases() {
  std::vector<fs::path> cases;
  std::error_code ec;
  auto add_children = [&](const fs::path& dir) {
    if (!fs::is_directory(dir, ec)) return;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      if (fs::exists(e.path() / "cmdstream.bin") && fs::exists(e.path() / "manifest.json")) cases.push_back(e.path());
      if (fs::exists(e.path() / "u65_512" / "cmdstream.bin")) cases.push_back(e.path() / "u65_512");
    }
  };
  add_children(shared_root() / "opcorpus");
  add_children(shared_root() / "corpus");
  std::sort(cases.begin(), cases.end());
  return cases;
}

// Every compilation folder of the family corpora (corpus-u55/CASE/<accelerator>, corpus-u85/...) whose
// configuration the simulator has; the others are left out (a family not modelled yet).
inline std::vector<fs::path> compilation_dirs() {
  std::vector<fs::path> dirs;
  std::error_code ec;
  for (const char* corpus : {"corpus-u55", "corpus-u85"}) {
    const fs::path root = shared_root() / corpus;
    if (!fs::is_directory(root, ec)) continue;
    for (const auto& c : fs::directory_iterator(root, ec)) {
      if (!fs::is_regular_file(c.path() / "info.json", ec)) continue;
      for (const auto& a : fs::directory_iterator(c.path(), ec))
        if (fs::is_regular_file(a.path() / "model_vela.tflite", ec) && isa::find_architecture(a.path().filename().string()))
          dirs.push_back(a.path());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

// Empty when the simulator runs the operations of the folder's configuration; else why a test that runs them skips
// (a compilation for a configuration whose command set is decoded but not run).
inline std::string not_run_reason(const fs::path& dir) {
  const isa::Architecture* arch = isa::find_architecture(dir.filename().string());
  if (!arch || arch->operations_modelled()) return {};
  return "the simulator decodes the " + arch->describe() + "'s command set but does not run its operations yet";
}

// The case folders and the compilation folders together: what `ethosu-sim run DIR` runs.
inline std::vector<fs::path> run_cases() {
  std::vector<fs::path> all = corpus_cases();
  const std::vector<fs::path> compiled = compilation_dirs();
  all.insert(all.end(), compiled.begin(), compiled.end());
  return all;
}

inline std::vector<fs::path> run_cases_or_placeholder() {
  auto c = run_cases();
  if (c.empty()) c.push_back(fs::path());
  return c;
}

// "opcorpus/add_i8", "corpus/kws_dscnn_mlperf/u65_512": a readable test parameter name.
inline std::string case_label(const fs::path& dir) {
  return fs::relative(dir, shared_root()).generic_string();
}

// Parameter list for suites over every case; one empty path when there is no data, whose test skips
// with skip_message().
inline std::vector<fs::path> cases_or_placeholder() {
  auto c = corpus_cases();
  if (c.empty()) c.push_back(fs::path());
  return c;
}

// GoogleTest parameter names: the case label with non-alphanumerics replaced.
struct CaseName {
  template <typename Info>
  std::string operator()(const Info& info) const {
    std::string n = info.param.empty() ? "none" : case_label(info.param);
    for (char& ch : n)
      if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return n;
  }
};

// A whole file; a missing or unreadable one throws an InputError naming it.
inline std::vector<uint8_t> read_file(const fs::path& p) { return sim::read_file(p); }

}  // namespace ethosu::test
