#include "host/capture.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>
#include <system_error>

#include "host/file_io.h"
#include "host/job.h"
#include "host/run_job.h"
#include "host/sim_config.h"
#include "isa/decoder.h"
#include "isa/registers.h"
#include "isa/validator.h"
#include "sim/config.h"
#include "sim/error.h"

namespace ethosu::host {

namespace fs = std::filesystem;
using nlohmann::json;
using ojson = nlohmann::ordered_json;  // keeps the written manifest in a readable key order

namespace {

constexpr const char* kFormat = "ethosu-sim-capture";
constexpr int kVersion = 1;
constexpr const char* kManifest = "capture.json";
constexpr uint64_t kPmccntrMax = (uint64_t{1} << 48) - 1;  // PMCCNTR is 48 bits wide

// CRC-32 as zlib, gzip and Python's zlib.crc32 compute it (reflected, polynomial 0xEDB88320), so that a
// capture can be checked with common tools.
uint32_t crc32(const std::vector<uint8_t>& bytes) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xFFFFFFFFu;
  for (uint8_t b : bytes) c = table[(c ^ b) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

std::string crc_text(uint32_t v) { return hex32(v).substr(2); }

std::string region_file(unsigned region, bool after) {
  return "region" + std::to_string(region) + (after ? ".after.bin" : ".before.bin");
}

// The entries of a folder; file system errors become InputError naming it.
std::vector<fs::path> list_dir(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> out;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) out.push_back(it->path());
  if (ec) throw InputError(dir.string() + ": cannot list the folder: " + ec.message());
  return out;
}

void remove_file(const fs::path& p) {
  std::error_code ec;
  if (!fs::remove(p, ec) || ec) throw InputError(p.string() + ": cannot remove: " + ec.message());
}

// The names write_capture may create; anything else in a folder means it is not (only) a capture.
bool is_capture_file_name(const std::string& name) {
  if (name == kManifest || name == "stream.bin") return true;
  for (unsigned r = 0; r < kRegions; ++r)
    if (name == region_file(r, false) || name == region_file(r, true)) return true;
  return false;
}

// Strict reading of capture.json: every error names the manifest and the key.
class ManifestReader {
 public:
  explicit ManifestReader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw InputError(path_ + ": " + where + ": " + what);
  }
  const json& member(const json& obj, const std::string& key, const std::string& where) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(where, "missing key '" + key + "'");
    return *it;
  }
  void object(const json& obj, const std::string& where, std::initializer_list<const char*> keys) const {
    if (!obj.is_object()) fail(where, "expected an object");
    for (auto it = obj.begin(); it != obj.end(); ++it)
      if (std::none_of(keys.begin(), keys.end(), [&](const char* k) { return it.key() == k; }))
        fail(where, "unknown key '" + it.key() + "'");
  }
  std::string string(const json& v, const std::string& where) const {
    if (!v.is_string()) fail(where, "expected a string");
    return v.get<std::string>();
  }
  uint64_t uint(const json& v, const std::string& where, uint64_t max) const {
    if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<int64_t>() < 0))
      fail(where, "expected a non-negative integer");
    const uint64_t x = v.get<uint64_t>();
    if (x > max) fail(where, std::to_string(x) + " is larger than " + std::to_string(max));
    return x;
  }
  // Register values: "0x" and 1 to 8 hex digits (written with 8).
  uint32_t reg(const json& v, const std::string& where) const {
    const std::string s = string(v, where);
    if (s.size() < 3 || s.size() > 10 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') ||
        s.find_first_not_of("0123456789abcdefABCDEF", 2) != std::string::npos)
      fail(where, "'" + s + "' is not a 32-bit hex value (0x...)");
    return static_cast<uint32_t>(std::stoul(s.substr(2), nullptr, 16));
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct FileRef {
  std::string name;
  uint64_t size_bytes = 0;
  uint32_t crc = 0;
};

ojson file_json(const std::string& name, const std::vector<uint8_t>& bytes) {
  ojson j;
  j["file"] = name;
  j["size_bytes"] = bytes.size();
  j["crc32"] = crc_text(crc32(bytes));
  return j;
}

ojson region_json(unsigned region, bool after, const std::vector<uint8_t>& bytes) {
  ojson j;
  j["region"] = region;
  j.update(file_json(region_file(region, after), bytes));
  return j;
}

FileRef read_file_ref(const ManifestReader& m, const json& j, const std::string& where, const std::string& expected_name,
                      std::initializer_list<const char*> keys) {
  m.object(j, where, keys);
  FileRef f;
  f.name = m.string(m.member(j, "file", where), where + ".file");
  if (f.name != expected_name) m.fail(where + ".file", "'" + f.name + "', expected '" + expected_name + "'");
  f.size_bytes = m.uint(m.member(j, "size_bytes", where), where + ".size_bytes", uint64_t{1} << 32);
  const std::string crc = m.string(m.member(j, "crc32", where), where + ".crc32");
  if (crc.size() != 8 || crc.find_first_not_of("0123456789abcdef") != std::string::npos)
    m.fail(where + ".crc32", "'" + crc + "' is not 8 lower-case hex digits");
  f.crc = static_cast<uint32_t>(std::stoul(crc, nullptr, 16));
  return f;
}

std::vector<uint8_t> load(const fs::path& dir, const FileRef& f) {
  const std::string manifest_name = kManifest;
  const fs::path path = dir / f.name;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(path.string() + ": missing (" + manifest_name + " lists it)");
  if (!fs::is_regular_file(path, ec)) throw InputError(path.string() + ": not a regular file");
  const uint64_t size = fs::file_size(path, ec);
  if (ec || size != f.size_bytes)
    throw InputError(path.string() + ": " + (ec ? "size unreadable" : std::to_string(size) + " bytes") + ", " +
                     manifest_name + " says " + std::to_string(f.size_bytes));
  auto bytes = read_file(path.string(), f.size_bytes);
  const uint32_t crc = crc32(bytes);
  if (crc != f.crc)
    throw InputError(path.string() + ": CRC-32 " + crc_text(crc) + " does not match " + manifest_name + "'s " +
                     crc_text(f.crc) + " (the file was changed or corrupted)");
  return bytes;
}

// Reads a "regions" list (before or after) into `out` and adds the file names it references to `files`.
void read_regions(const ManifestReader& m, const json& list, const std::string& where, const fs::path& dir, bool after,
                  std::array<std::vector<uint8_t>, kRegions>& out, std::set<std::string>& files) {
  if (!list.is_array()) m.fail(where, "expected an array");
  std::array<bool, kRegions> seen{};
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string w = where + "[" + std::to_string(i) + "]";
    if (!list[i].is_object()) m.fail(w, "expected an object");
    const auto r = static_cast<unsigned>(m.uint(m.member(list[i], "region", w), w + ".region", kRegions - 1));
    if (seen[r]) m.fail(w + ".region", "region " + std::to_string(r) + " is listed twice");
    seen[r] = true;
    const FileRef f = read_file_ref(m, list[i], w, region_file(r, after), {"region", "file", "size_bytes", "crc32"});
    if (f.size_bytes == 0) m.fail(w + ".size_bytes", "0: absent regions are not listed");
    files.insert(f.name);
    out[r] = load(dir, f);
  }
}

bool completed(uint32_t status) {
  using isa::RegField;
  const bool error = isa::get(status, RegField::STATUS_bus_status) || isa::get(status, RegField::STATUS_cmd_parse_error) ||
                     isa::get(status, RegField::STATUS_wd_fault) || isa::get(status, RegField::STATUS_ecc_fault);
  return !error && isa::get(status, RegField::STATUS_cmd_end_reached);
}

std::string event_name(uint16_t id) {
  const isa::PmuEventInfo* e = isa::find_pmu_event(id);
  return e ? std::string(e->name) : "event " + std::to_string(id);
}

// What differs between a recorded region and the replayed one: byte count, first offset and values.
std::string region_difference(unsigned region, const std::vector<uint8_t>& replayed, const std::vector<uint8_t>& recorded) {
  const std::string what = "region " + std::to_string(region) + " after the run: ";
  const Comparison c = compare_bytes(replayed, recorded);
  if (replayed.size() != recorded.size()) return what + c.text;
  const auto first = std::mismatch(replayed.begin(), replayed.end(), recorded.begin());
  const size_t at = static_cast<size_t>(first.first - replayed.begin());
  char buf[96];
  std::snprintf(buf, sizeof buf, "; first at offset 0x%zx: 0x%02x replayed, 0x%02x recorded", at, *first.first,
                *first.second);
  return what + std::to_string(c.mismatches) + " of " + std::to_string(replayed.size()) + " bytes differ" + buf;
}

// The recorded parameters resolved for the recorded variant. Read-only ones (where the values came from)
// are restored as a preset would set them.
sim::Config recorded_config(const Capture& c, const std::string& origin) {
  const sim::Config declared = make_config();
  ConfigRequest request;
  std::vector<std::pair<std::string, std::string>> labels;
  for (const auto& [name, value] : c.parameters) {
    const sim::Param* p = declared.find(name);
    if (p && p->read_only())
      labels.emplace_back(name, value);
    else
      request.assignments.push_back(name + "=" + value);
  }
  request.origin = origin;
  sim::Config config = resolve_config(request, c.variant);
  for (const auto& [name, value] : labels) config.set(name, value, sim::Source::PRESET, origin);
  return config;
}

// The configuration a replay runs with; throws what replay() refuses before running.
sim::Config replay_config(const Capture& c, const ReplayOptions& o) {
  if (c.timed && !o.functional && c.axi_limits != Capture{}.axi_limits)
    throw InputError("the capture's AXI_LIMIT0-3 differ from the Linux driver's values, which are the only ones "
                     "the simulator's host programs; a timed replay would not reproduce its timing");
  sim::Config config = recorded_config(c, "the capture's parameters");
  for (const auto& s : o.assignments) config.set_assignment(s, sim::Source::CLI, "--set");
  return config;
}

}  // namespace

void write_capture(const fs::path& dir, const Capture& c) {
  if (!isa::parse_variant(c.variant)) throw InputError("capture: unknown NPU variant '" + c.variant + "'");
  for (unsigned r = 0; r < kRegions; ++r)
    if (!c.regions_after[r].empty() && c.regions_after[r].size() != c.regions_before[r].size())
      throw InputError("capture: region " + std::to_string(r) + " holds " + std::to_string(c.regions_after[r].size()) +
                       " bytes after the run but " + std::to_string(c.regions_before[r].size()) + " before");
  check_capture_dir(dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir, ec)) throw InputError(dir.string() + ": cannot create the capture folder");
  // A previous capture in the same folder is replaced.
  const std::vector<fs::path> old = list_dir(dir);
  // The manifest goes first and last: a capture interrupted while writing has none and reads as incomplete.
  for (const auto& p : old)
    if (p.filename() == kManifest) remove_file(p);
  for (const auto& p : old)
    if (p.filename() != kManifest) remove_file(p);

  ojson m;
  m["format"] = kFormat;
  m["version"] = kVersion;
  m["source"] = c.source;
  m["variant"] = c.variant;
  m["timed"] = c.timed;
  m["regioncfg"] = hex32(c.regioncfg);
  m["axi_limits"] = ojson::array();
  for (uint32_t v : c.axi_limits) m["axi_limits"].push_back(hex32(v));
  m["pmu_events"] = c.pmu_events;
  m["parameters"] = c.parameters;
  m["sram_region"] = c.sram_region ? ojson(*c.sram_region) : ojson(nullptr);
  write_file((dir / "stream.bin").string(), c.stream);
  m["stream"] = file_json("stream.bin", c.stream);
  m["regions"] = ojson::array();
  for (unsigned r = 0; r < kRegions; ++r) {
    if (c.regions_before[r].empty()) continue;
    write_file((dir / region_file(r, false)).string(), c.regions_before[r]);
    m["regions"].push_back(region_json(r, false, c.regions_before[r]));
  }
  ojson results;
  results["status"] = hex32(c.status);
  results["cycle_counter"] = c.cycle_counter;
  results["event_counters"] = c.event_counters;
  results["regions"] = ojson::array();
  for (unsigned r = 0; r < kRegions; ++r) {
    if (c.regions_after[r].empty()) continue;
    write_file((dir / region_file(r, true)).string(), c.regions_after[r]);
    results["regions"].push_back(region_json(r, true, c.regions_after[r]));
  }
  m["results"] = results;
  write_text_file((dir / kManifest).string(), m.dump(1) + "\n");
}

void check_capture_dir(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return;
  if (!fs::is_directory(dir, ec)) throw InputError(dir.string() + ": exists and is not a folder");
  // A folder with anything but a capture in it is left alone.
  for (const auto& p : list_dir(dir))
    if (!fs::is_regular_file(p, ec) || !is_capture_file_name(p.filename().string()))
      throw InputError(dir.string() + ": holds " + p.filename().string() +
                       ", which is not part of a capture; give an empty or new folder");
}

Capture read_capture(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir.string() + ": not a capture folder (no such directory)");
  const fs::path manifest_path = dir / kManifest;
  if (!fs::exists(manifest_path, ec))
    throw InputError(manifest_path.string() + ": missing (a capture folder has " + kManifest + ")");
  const ManifestReader m(manifest_path.string());
  const auto text = read_file(manifest_path.string(), uint64_t{1} << 24);
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {  // syntax errors and out-of-range numbers
    throw InputError(manifest_path.string() + ": not valid JSON: " + e.what());
  }
  m.object(j, "top level", {"format", "version", "source", "variant", "timed", "regioncfg", "axi_limits", "pmu_events",
                            "parameters", "sram_region", "stream", "regions", "results"});
  const std::string format = m.string(m.member(j, "format", "top level"), "format");
  if (format != kFormat) m.fail("format", "'" + format + "' is not " + kFormat);
  const uint64_t version = m.uint(m.member(j, "version", "top level"), "version", UINT32_MAX);
  if (version != kVersion)
    m.fail("version", "version " + std::to_string(version) + " is not known (this ethosu-sim reads version " +
                          std::to_string(kVersion) + ")");

  Capture c;
  c.source = m.string(m.member(j, "source", "top level"), "source");
  c.variant = m.string(m.member(j, "variant", "top level"), "variant");
  if (!isa::parse_variant(c.variant))
    m.fail("variant", "unknown NPU variant '" + c.variant + "' (ethos-u65-256 or ethos-u65-512)");
  const json& timed = m.member(j, "timed", "top level");
  if (!timed.is_boolean()) m.fail("timed", "expected true or false");
  c.timed = timed.get<bool>();
  c.regioncfg = m.reg(m.member(j, "regioncfg", "top level"), "regioncfg");
  if (c.regioncfg >> (2 * kRegions))
    m.fail("regioncfg", hex32(c.regioncfg) + " sets bits above the 8 regions' 16");
  const json& limits = m.member(j, "axi_limits", "top level");
  if (!limits.is_array() || limits.size() != 4) m.fail("axi_limits", "expected 4 values (AXI_LIMIT0-3)");
  for (size_t i = 0; i < 4; ++i) c.axi_limits[i] = m.reg(limits[i], "axi_limits[" + std::to_string(i) + "]");
  const json& events = m.member(j, "pmu_events", "top level");
  if (!events.is_array() || events.size() != 4) m.fail("pmu_events", "expected 4 event ids (PMEVTYPER0-3)");
  for (size_t i = 0; i < 4; ++i) {
    const std::string w = "pmu_events[" + std::to_string(i) + "]";
    c.pmu_events[i] = static_cast<uint16_t>(m.uint(events[i], w, UINT16_MAX));
    if (!isa::find_pmu_event(c.pmu_events[i])) m.fail(w, std::to_string(c.pmu_events[i]) + " is not a U65 PMU event id");
  }
  const json& params = m.member(j, "parameters", "top level");
  if (!params.is_object()) m.fail("parameters", "expected an object of name: value strings");
  for (auto it = params.begin(); it != params.end(); ++it)
    c.parameters[it.key()] = m.string(it.value(), "parameters." + it.key());
  // The parameters must resolve as replay() will resolve them.
  const sim::Config config = recorded_config(c, manifest_path.string() + ": parameters");
  if (config.param("npu.variant").as_string() != c.variant)
    m.fail("parameters.npu.variant", "'" + config.param("npu.variant").as_string() + "' contradicts variant '" +
                                         c.variant + "'");
  const json& sram = m.member(j, "sram_region", "top level");
  if (!sram.is_null()) {
    c.sram_region = static_cast<uint32_t>(m.uint(sram, "sram_region", kRegions - 1));
    if ((c.regioncfg >> (2 * *c.sram_region + 1)) & 1)
      m.fail("sram_region", "region " + std::to_string(*c.sram_region) + " is on AXI1 in regioncfg " +
                                hex32(c.regioncfg) + ", not on the SRAM port AXI0");
  }

  std::set<std::string> files{kManifest};
  const FileRef stream =
      read_file_ref(m, m.member(j, "stream", "top level"), "stream", "stream.bin", {"file", "size_bytes", "crc32"});
  files.insert(stream.name);
  c.stream = load(dir, stream);
  read_regions(m, m.member(j, "regions", "top level"), "regions", dir, false, c.regions_before, files);

  const json& results = m.member(j, "results", "top level");
  m.object(results, "results", {"status", "cycle_counter", "event_counters", "regions"});
  c.status = m.reg(m.member(results, "status", "results"), "results.status");
  c.cycle_counter = m.uint(m.member(results, "cycle_counter", "results"), "results.cycle_counter", kPmccntrMax);
  const json& counters = m.member(results, "event_counters", "results");
  if (!counters.is_array() || counters.size() != 4) m.fail("results.event_counters", "expected 4 values (PMEVCNTR0-3)");
  for (size_t i = 0; i < 4; ++i)
    c.event_counters[i] =
        static_cast<uint32_t>(m.uint(counters[i], "results.event_counters[" + std::to_string(i) + "]", UINT32_MAX));
  read_regions(m, m.member(results, "regions", "results"), "results.regions", dir, true, c.regions_after, files);
  for (unsigned r = 0; r < kRegions; ++r)
    if (!c.regions_after[r].empty() && c.regions_after[r].size() != c.regions_before[r].size())
      m.fail("results.regions", "region " + std::to_string(r) + " has " + std::to_string(c.regions_after[r].size()) +
                                    " bytes after the run but " + std::to_string(c.regions_before[r].size()) +
                                    " before");

  for (const auto& p : list_dir(dir))
    if (!files.count(p.filename().string()))
      throw InputError(p.string() + ": not part of the capture (" + kManifest + " does not list it)");
  return c;
}

std::optional<fs::path> capture_dir_from_env(const std::string& source) {
  const char* root_env = std::getenv("ETHOSU_SIM_CAPTURE");
  if (!root_env || !*root_env) return std::nullopt;
  const fs::path root = root_env;
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec || !fs::is_directory(root, ec))
    throw InputError("ETHOSU_SIM_CAPTURE=" + root.string() + ": cannot create the folder");
  // Numbered after the highest existing capture; create_directory() claims a number atomically, so processes
  // capturing into the same folder never share one.
  unsigned long next = 1;
  for (const auto& p : list_dir(root)) {
    const std::string name = p.filename().string();
    const size_t digits = name.find_first_not_of("0123456789");
    if (digits == 0 || digits == std::string::npos || digits > 9 || name[digits] != '-') continue;
    next = std::max(next, std::stoul(name.substr(0, digits)) + 1);
  }
  for (;; ++next) {
    char number[16];
    std::snprintf(number, sizeof number, "%04lu-", next);
    const fs::path dir = root / (number + source);
    if (fs::create_directory(dir, ec)) return dir;
    if (ec) throw InputError(dir.string() + ": cannot create: " + ec.message());
  }
}

ReplayResult replay(const Capture& c) { return replay(c, ReplayOptions{}); }

void check_replay(const Capture& c, const ReplayOptions& o) { replay_config(c, o); }

ReplayResult replay(const Capture& c, const ReplayOptions& o) {
  const bool timed = c.timed && !o.functional;
  const sim::Config config = replay_config(c, o);
  Job job;
  job.name = "capture from " + c.source;
  job.variant = config.param("npu.variant").as_string();
  job.stream = c.stream;
  job.regions = c.regions_before;
  RunOptions options;
  options.timed = timed;
  options.config = platform_config(config);
  options.regioncfg = c.regioncfg;
  options.pmu_events = c.pmu_events;
  const RunOutcome outcome = run_job(job, options);

  ReplayResult r;
  r.replayed = c;
  r.replayed.variant = job.variant;
  r.replayed.timed = timed;
  r.replayed.parameters = capture_parameters(config);
  r.replayed.status = outcome.status;
  r.replayed.cycle_counter = outcome.cycle_counter;
  r.replayed.event_counters = outcome.event_counters;
  for (unsigned i = 0; i < kRegions; ++i) {
    if (c.regions_after[i].empty()) continue;
    r.replayed.regions_after[i] = job.regions[i];
    if (job.regions[i] != c.regions_after[i])
      r.differences.push_back(region_difference(i, job.regions[i], c.regions_after[i]));
  }
  const std::string fault = outcome.fault ? " (the replay faulted: " + *outcome.fault + ")" : "";
  if (timed != c.timed) {
    // Only the end state is comparable across models.
    if (completed(outcome.status) != completed(c.status))
      r.differences.push_back(std::string("the replay ") + (completed(outcome.status) ? "completed" : "did not complete") +
                              ", the recorded run (STATUS " + hex32(c.status) + ") " +
                              (completed(c.status) ? "completed" : "did not") + fault);
  } else {
    // Functional captures made before the functional model shared the NPU's control registers recorded
    // STATUS without the IRQ history bits (31:16): those bits, set by the stream's own masks, are not compared.
    const uint32_t compared = timed ? 0xFFFFFFFFu : 0xFFFFu;
    if ((outcome.status & compared) != (c.status & compared))
      r.differences.push_back("STATUS " + hex32(outcome.status) + " replayed, " + hex32(c.status) + " recorded" +
                              fault);
    if (outcome.cycle_counter != c.cycle_counter)
      r.differences.push_back("PMCCNTR (cycle counter) " + std::to_string(outcome.cycle_counter) + " replayed, " +
                              std::to_string(c.cycle_counter) + " recorded");
    for (size_t i = 0; i < 4; ++i)
      if (outcome.event_counters[i] != c.event_counters[i])
        r.differences.push_back("PMEVCNTR" + std::to_string(i) + " (" + event_name(c.pmu_events[i]) + ") " +
                                std::to_string(outcome.event_counters[i]) + " replayed, " +
                                std::to_string(c.event_counters[i]) + " recorded");
  }
  r.identical = r.differences.empty();
  return r;
}

std::map<std::string, std::string> capture_parameters(const sim::Config& config) {
  const sim::Config defaults = make_config();
  std::map<std::string, std::string> out;
  for (const sim::Param* p : config.params()) {
    const sim::Param* d = defaults.find(p->name());
    if (!d || d->value_text() != p->value_text()) out[p->name()] = p->value_text();
  }
  return out;
}

Capture capture_run(const std::string& source, const std::array<std::vector<uint8_t>, kRegions>& regions_before,
                    const Job& job, const RunOptions& options, const RunOutcome& outcome, const sim::Config& config) {
  Capture c;
  c.source = source;
  c.variant = job.variant;
  c.stream = job.stream;
  c.regions_before = regions_before;
  c.regioncfg = options.regioncfg;
  c.pmu_events = options.pmu_events;
  c.timed = options.timed;
  c.parameters = capture_parameters(config);
  for (unsigned r = 0; r < kRegions && !c.sram_region; ++r)
    if (!regions_before[r].empty() && !((options.regioncfg >> (2 * r + 1)) & 1)) c.sram_region = r;
  isa::ValidatorOptions vo;
  vo.variant = isa::parse_variant(job.variant).value_or(isa::Variant::U65_256);
  const isa::Report written = isa::validate(isa::decode(job.stream), vo);
  for (unsigned r = 0; r < kRegions; ++r)
    if (written.writes(r).used && !job.regions[r].empty()) c.regions_after[r] = job.regions[r];
  c.status = outcome.status;
  c.cycle_counter = outcome.cycle_counter;
  c.event_counters = outcome.event_counters;
  return c;
}

}  // namespace ethosu::host
