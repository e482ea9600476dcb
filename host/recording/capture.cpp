#include "host/recording/capture.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <system_error>

#include "host/recording/capture_names.h"
#include "sim/files.h"
#include "host/run/job.h"
#include "host/run/run_job.h"
#include "host/config/config.h"
#include "isa/decoder.h"
#include "isa/architecture.h"
#include "isa/registers.h"
#include "isa/validator.h"
#include "sim/config.h"
#include "sim/error.h"

namespace ethosu::host {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using namespace capture_names;
constexpr uint64_t kPmccntrMax = (uint64_t{1} << 48) - 1;  // PMCCNTR is 48 bits wide
// A job's wall-clock time: at most 2^53 ns (104 days), which a double holds exactly, so that the clock fit's
// arithmetic on it stays exact and finite.
constexpr uint64_t kMaxWallNs = uint64_t{1} << 53;

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

// A capture's files lie in its folder, as a case folder's do (sim::inside_folder): a link out of it is refused
// before the file is opened, so that its size and CRC are never reported.
void check_inside(const fs::path& dir, const fs::path& path) {
  if (!sim::inside_folder(dir, path))
    throw InputError(path.string() + ": lies outside the capture folder " + dir.string() +
                     " (a symbolic link out of it); a capture's files must be in its folder");
}

std::vector<uint8_t> load(const fs::path& dir, const FileRef& f) {
  const std::string manifest_name = kManifest;
  const fs::path path = dir / f.name;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(path.string() + ": missing (" + manifest_name + " lists it)");
  check_inside(dir, path);
  if (!fs::is_regular_file(path, ec)) throw InputError(path.string() + ": not a regular file");
  const uint64_t size = fs::file_size(path, ec);
  if (ec || size != f.size_bytes)
    throw InputError(path.string() + ": " + (ec ? "size unreadable" : std::to_string(size) + " bytes") + ", " +
                     manifest_name + " says " + std::to_string(f.size_bytes) + " (truncated or replaced)");
  auto bytes = sim::read_file(path.string(), f.size_bytes);
  const uint32_t crc = crc32(bytes.data(), bytes.size());
  if (crc != f.crc)
    throw InputError(path.string() + ": CRC-32 " + crc_text(crc) + " does not match " + manifest_name + "'s " +
                     crc_text(f.crc) + " (the file was changed or corrupted)");
  return bytes;
}

// How one kind of indexed file list reads: "regions" (key "region"), an inference's "ifms" or "ofms".
struct ListKind {
  const char* key;
  unsigned max_index;
  std::string (*file_name)(unsigned index);
  bool empty_allowed = false;        // IFM buffers may hold 0 bytes
  bool data_bytes = false;           // IFM buffers before the run: "data_bytes", the buffer's size
};

std::string region_before_name(unsigned r) { return region_file(r, false); }
std::string region_after_name(unsigned r) { return region_file(r, true); }
std::string ifm_before_name(unsigned i) { return ifm_file(i, false); }
std::string ifm_after_name(unsigned i) { return ifm_file(i, true); }
std::string ofm_name(unsigned i) { return ofm_file(i); }

// Reads an indexed list: calls `take(index, bytes, data_bytes)` per entry and adds the files it references to
// `files`; an index may appear once. With `zero_filled` (version 2 before-regions), an entry {"region",
// "size_bytes", "zero_filled": true} is passed to it as (index, size) instead, nothing allocated.
template <typename Take>
void read_list(const ManifestReader& m, const json& list, const std::string& where, const fs::path& dir,
               const ListKind& kind, std::set<std::string>& files, Take take,
               const std::function<void(unsigned, uint64_t)>& zero_filled = {}) {
  if (!list.is_array()) m.fail(where, "expected an array");
  std::vector<bool> seen(kind.max_index + 1);
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string w = where + "[" + std::to_string(i) + "]";
    if (!list[i].is_object()) m.fail(w, "expected an object");
    const auto index = static_cast<unsigned>(m.uint(m.member(list[i], kind.key, w), w + "." + kind.key, kind.max_index));
    if (seen[index]) m.fail(w + "." + kind.key, std::string(kind.key) + " " + std::to_string(index) + " is listed twice");
    seen[index] = true;
    uint64_t data_bytes = 0;
    if (kind.data_bytes) data_bytes = m.uint(m.member(list[i], "data_bytes", w), w + ".data_bytes", UINT32_MAX);
    if (zero_filled && list[i].contains("zero_filled")) {
      m.object(list[i], w, {kind.key, "size_bytes", "zero_filled"});
      const json& z = list[i]["zero_filled"];
      if (!z.is_boolean() || !z.get<bool>()) m.fail(w + ".zero_filled", "expected true (or no key and a file)");
      const uint64_t size = m.uint(m.member(list[i], "size_bytes", w), w + ".size_bytes", kMaxRegionBytes);
      if (size == 0) m.fail(w + ".size_bytes", "0: absent regions are not listed");
      zero_filled(index, size);
      continue;
    }
    const FileRef f = kind.data_bytes
                          ? read_file_ref(m, list[i], w, kind.file_name(index), {kind.key, "file", "size_bytes", "crc32", "data_bytes"})
                          : read_file_ref(m, list[i], w, kind.file_name(index), {kind.key, "file", "size_bytes", "crc32"});
    if (f.size_bytes == 0 && !kind.empty_allowed) m.fail(w + ".size_bytes", "0: absent entries are not listed");
    files.insert(f.name);
    take(index, load(dir, f), data_bytes);
  }
}

// The bytes a list's entries declare (files and zero-filled regions alike), for the limits checked before any is
// read; entries that are not well-formed count nothing here and are refused when the list is read.
uint64_t declared_bytes(const json& list) {
  uint64_t total = 0;
  if (!list.is_array()) return 0;
  for (const json& entry : list) {
    const auto it = entry.is_object() ? entry.find("size_bytes") : entry.end();
    if (entry.is_object() && it != entry.end() && it->is_number_unsigned())
      total += std::min<uint64_t>(it->get<uint64_t>(), kMaxRegionBytesPerJob + 1);
  }
  return total;
}

// A capture holds no more than a job may (host/run/job.h): checked from the manifest, so that a small capture.json
// cannot make a reader allocate or read gigabytes.
void check_job_limit(const ManifestReader& m, const std::string& where, const std::string& what, uint64_t bytes) {
  if (bytes > kMaxRegionBytesPerJob)
    m.fail(where, what + " hold " + std::to_string(bytes) + " bytes, over the " +
                      std::to_string(kMaxRegionBytesPerJob >> 30) + " GiB limit of a job");
}

// The bytes declared under an object's `key`: one file entry, or a list of them.
uint64_t declared_under(const json& obj, const char* key) {
  const auto it = obj.is_object() ? obj.find(key) : obj.end();
  if (it == obj.end()) return 0;
  return declared_bytes(it->is_array() ? *it : json::array({*it}));
}

bool completed(uint32_t status) {
  using isa::RegField;
  const bool error = isa::get(status, RegField::STATUS_bus_status) || isa::get(status, RegField::STATUS_cmd_parse_error) ||
                     isa::get(status, RegField::STATUS_wd_fault) || isa::get(status, RegField::STATUS_ecc_fault);
  return !error && isa::get(status, RegField::STATUS_cmd_end_reached);
}

// The event's name in the family of the capture's configuration (the U85 names some ids anew).
std::string event_name(uint16_t id, const std::string& variant) {
  const isa::Variant v = isa::parse_variant(variant).value_or(isa::kDefaultVariant);
  const isa::PmuEventInfo* e = isa::architecture(v).pmu_event(id);
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
  MachineRequest request;
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
  if (c.inference)
    throw InputError("an NXP /dev/ethosu0 inference recording: its submission is made by the firmware's emulation "
                     "(host/hw_replay.h), not replayed as an NPU job");
  sim::Config config = recorded_config(c, "the capture's parameters");
  // A parameter file replaces recorded values as --set does; --set comes last.
  if (o.config_file) {
    sim::Config file = make_config();
    file.load_file(*o.config_file);
    for (const sim::Param* p : file.params())
      if (p->source() == sim::Source::FILE) config.set(p->name(), p->value_text(), sim::Source::CLI, p->origin());
  }
  for (const auto& s : o.assignments) config.set_assignment(s, sim::Source::CLI, "--set");
  return config;
}

}  // namespace

namespace {

// The NPU-level submission: stream, regions, register set-up.
void read_submission(const ManifestReader& m, const json& j, const fs::path& dir, int version, Capture& c,
                     std::set<std::string>& files) {
  c.regioncfg = m.reg(m.member(j, "regioncfg", "top level"), "regioncfg");
  if (c.regioncfg >> (2 * isa::kRegionCount))
    m.fail("regioncfg", hex32(c.regioncfg) + " sets bits above the 8 regions' 16");
  const json& limits = m.member(j, "axi_limits", "top level");
  if (!limits.is_array() || limits.size() != 4) m.fail("axi_limits", "expected 4 values (AXI_LIMIT0-3)");
  for (size_t i = 0; i < 4; ++i) c.axi_limits[i] = m.reg(limits[i], "axi_limits[" + std::to_string(i) + "]");
  const json& sram = m.member(j, "sram_region", "top level");
  if (!sram.is_null()) {
    c.sram_region = static_cast<uint32_t>(m.uint(sram, "sram_region", isa::kRegionCount - 1));
    if ((c.regioncfg >> (2 * *c.sram_region + 1)) & 1)
      m.fail("sram_region", "region " + std::to_string(*c.sram_region) + " is on AXI1 in regioncfg " +
                                hex32(c.regioncfg) + ", not on the SRAM port AXI0");
  }
  const json& regions = m.member(j, "regions", "top level");
  const json& regions_after = m.member(j["results"], "regions", "results");
  check_job_limit(m, "regions", "the stream and the regions before the run",
                  declared_under(j, "stream") + declared_bytes(regions));
  check_job_limit(m, "results.regions", "the regions after the run", declared_bytes(regions_after));
  const FileRef stream =
      read_file_ref(m, m.member(j, "stream", "top level"), "stream", kStream, {"file", "size_bytes", "crc32"});
  files.insert(stream.name);
  c.stream = load(dir, stream);
  const auto zero_filled = [&](unsigned r, uint64_t size) { c.zero_regions_bytes[r] = size; };
  read_list(
      m, regions, "regions", dir, ListKind{"region", isa::kRegionCount - 1, region_before_name}, files,
      [&](unsigned r, std::vector<uint8_t> bytes, uint64_t) { c.regions_before[r] = std::move(bytes); },
      version >= 2 ? zero_filled : std::function<void(unsigned, uint64_t)>{});
  read_list(m, regions_after, "results.regions", dir, ListKind{"region", isa::kRegionCount - 1, region_after_name},
            files, [&](unsigned r, std::vector<uint8_t> bytes, uint64_t) { c.regions_after[r] = std::move(bytes); });
  for (unsigned r = 0; r < isa::kRegionCount; ++r)
    if (!c.regions_after[r].empty() && c.regions_after[r].size() != c.region_before_bytes(r))
      m.fail("results.regions", "region " + std::to_string(r) + " has " + std::to_string(c.regions_after[r].size()) +
                                    " bytes after the run but " + std::to_string(c.region_before_bytes(r)) +
                                    " before (mismatched sizes)");
}

// An NXP /dev/ethosu0 inference (version 2).
void read_inference(const ManifestReader& m, const json& j, const fs::path& dir, Capture& c,
                    std::set<std::string>& files) {
  const json& in = m.member(j, "inference", "top level");
  m.object(in, "inference", {"type", "network", "ifms", "ofm_free_bytes", "pmu"});
  const json& results = j["results"];
  check_job_limit(m, "inference", "the network and IFM buffers", declared_under(in, "network") + declared_under(in, "ifms"));
  check_job_limit(m, "results", "the IFM buffers after the inference and the bytes appended to its OFM buffers",
                  declared_under(results, "ifms") + declared_under(results, "ofms"));
  InferenceRecord r;
  r.type = static_cast<uint32_t>(m.uint(m.member(in, "type", "inference"), "inference.type", UINT32_MAX));
  const FileRef network =
      read_file_ref(m, m.member(in, "network", "inference"), "inference.network", kNetwork, {"file", "size_bytes", "crc32"});
  files.insert(network.name);
  r.network = load(dir, network);
  ListKind ifms{"ifm", kMaxBuffers - 1, ifm_before_name};
  ifms.empty_allowed = true;
  ifms.data_bytes = true;
  std::vector<bool> present;
  read_list(m, m.member(in, "ifms", "inference"), "inference.ifms", dir, ifms, files,
            [&](unsigned i, std::vector<uint8_t> bytes, uint64_t data_bytes) {
              if (r.ifms.size() <= i) {
                r.ifms.resize(i + 1);
                r.ifm_data_bytes.resize(i + 1);
                present.resize(i + 1);
              }
              r.ifms[i] = std::move(bytes);
              r.ifm_data_bytes[i] = data_bytes;
              present[i] = true;
            });
  for (size_t i = 0; i < present.size(); ++i)
    if (!present[i]) m.fail("inference.ifms", "IFM buffer " + std::to_string(i) + " is missing (the list has gaps)");
  const json& free = m.member(in, "ofm_free_bytes", "inference");
  if (!free.is_array() || free.size() > kMaxBuffers)
    m.fail("inference.ofm_free_bytes", "expected an array of at most " + std::to_string(kMaxBuffers) + " sizes");
  for (size_t i = 0; i < free.size(); ++i)
    r.ofm_free_bytes.push_back(m.uint(free[i], "inference.ofm_free_bytes[" + std::to_string(i) + "]", UINT32_MAX));
  const json& pmu = m.member(in, "pmu", "inference");
  m.object(pmu, "inference.pmu", {"events", "cycle_count"});
  const json& events = m.member(pmu, "events", "inference.pmu");
  if (!events.is_array() || events.size() != 4) m.fail("inference.pmu.events", "expected 4 event indices");
  for (size_t i = 0; i < 4; ++i)
    r.pmu_event_indices[i] =
        static_cast<uint32_t>(m.uint(events[i], "inference.pmu.events[" + std::to_string(i) + "]", UINT32_MAX));
  const json& cycles = m.member(pmu, "cycle_count", "inference.pmu");
  if (!cycles.is_boolean()) m.fail("inference.pmu.cycle_count", "expected true or false");
  r.pmu_cycle_count = cycles.get<bool>();

  r.status = static_cast<uint32_t>(
      m.uint(m.member(results, "inference_status", "results"), "results.inference_status", UINT32_MAX));
  r.ifms_after.resize(r.ifms.size());
  ListKind after{"ifm", kMaxBuffers - 1, ifm_after_name};
  after.empty_allowed = true;
  read_list(m, m.member(results, "ifms", "results"), "results.ifms", dir, after, files,
            [&](unsigned i, std::vector<uint8_t> bytes, uint64_t) {
              if (i >= r.ifms.size() || bytes.size() != r.ifms[i].size())
                m.fail("results.ifms", "IFM buffer " + std::to_string(i) + " has " + std::to_string(bytes.size()) +
                                           " bytes after the inference but " +
                                           (i < r.ifms.size() ? std::to_string(r.ifms[i].size()) : std::string("none")) +
                                           " before (mismatched sizes)");
              r.ifms_after[i] = std::move(bytes);
            });
  r.ofms_appended.resize(r.ofm_free_bytes.size());
  read_list(m, m.member(results, "ofms", "results"), "results.ofms", dir, ListKind{"ofm", kMaxBuffers - 1, ofm_name},
            files, [&](unsigned i, std::vector<uint8_t> bytes, uint64_t) {
              if (i >= r.ofm_free_bytes.size() || bytes.size() > r.ofm_free_bytes[i])
                m.fail("results.ofms", "OFM buffer " + std::to_string(i) + " received " + std::to_string(bytes.size()) +
                                           " bytes, more than the " +
                                           (i < r.ofm_free_bytes.size() ? std::to_string(r.ofm_free_bytes[i]) : std::string("0")) +
                                           " it had room for (mismatched sizes)");
              r.ofms_appended[i] = std::move(bytes);
            });
  c.inference = std::move(r);
}

}  // namespace

Capture read_capture(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir.string() + ": not a capture folder (no such directory)");
  const fs::path manifest_path = dir / kManifest;
  if (!fs::exists(manifest_path, ec))
    throw InputError(manifest_path.string() + ": missing (a capture folder has " + kManifest + ")");
  check_inside(dir, manifest_path);
  const ManifestReader m(manifest_path.string());
  const auto text = sim::read_file(manifest_path.string(), uint64_t{1} << 24);
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {  // syntax errors and out-of-range numbers
    throw InputError(manifest_path.string() + ": not valid JSON: " + e.what());
  }
  if (!j.is_object()) m.fail("top level", "expected an object");
  const std::string format = m.string(m.member(j, "format", "top level"), "format");
  if (format != kFormat) m.fail("format", "'" + format + "' is not " + kFormat);
  const uint64_t version = m.uint(m.member(j, "version", "top level"), "version", UINT32_MAX);
  if (version != 1 && version != 2)
    m.fail("version", "version " + std::to_string(version) + " is not known (this ethosu-sim reads versions 1 and 2)");
  const bool inference = version >= 2 && j.contains("inference");
  if (version == 1)
    m.object(j, "top level", {"format", "version", "source", "variant", "timed", "regioncfg", "axi_limits",
                              "pmu_events", "parameters", "sram_region", "stream", "regions", "results"});
  else if (inference)
    m.object(j, "top level", {"format", "version", "source", "recorded_on", "variant", "timed", "parameters", "device",
                              "wall_ns", "pmu_events", "inference", "results"});
  else
    m.object(j, "top level", {"format", "version", "source", "recorded_on", "variant", "timed", "parameters", "device",
                              "wall_ns", "pmu_events", "regioncfg", "axi_limits", "sram_region", "stream", "regions",
                              "results"});

  Capture c;
  c.source = m.string(m.member(j, "source", "top level"), "source");
  if (version >= 2) {
    const std::string on = m.string(m.member(j, "recorded_on", "top level"), "recorded_on");
    if (on != "hardware" && on != "simulator") m.fail("recorded_on", "'" + on + "', expected hardware or simulator");
    c.on_hardware = on == "hardware";
  }
  c.variant = m.string(m.member(j, "variant", "top level"), "variant");
  if (!isa::parse_variant(c.variant))
    m.fail("variant", "unknown NPU variant '" + c.variant + "'; known: " + isa::variant_names());
  const json& timed = m.member(j, "timed", "top level");
  if (!timed.is_boolean()) m.fail("timed", "expected true or false");
  c.timed = timed.get<bool>();
  // One event id per event counter of the variant (4 on the U55 and U65, 8 on the U85); 4 from a U85 as well, as
  // captures written before the U85's eight counters have.
  const isa::Architecture& arch = isa::architecture(*isa::parse_variant(c.variant));
  const json& events = m.member(j, "pmu_events", "top level");
  const size_t event_counters = arch.pmu_event_counters;
  const std::string expected = std::to_string(event_counters) + (event_counters == 4 ? "" : " (or 4)");
  if (!events.is_array() || (events.size() != event_counters && events.size() != 4))
    m.fail("pmu_events", "expected " + expected + " event ids (PMEVTYPERn) for the " + isa::product_name(arch.product));
  for (size_t i = 0; i < events.size(); ++i) {
    const std::string w = "pmu_events[" + std::to_string(i) + "]";
    c.pmu_events[i] = static_cast<uint16_t>(m.uint(events[i], w, UINT16_MAX));
    if (!arch.pmu_event(c.pmu_events[i]))
      m.fail(w, std::to_string(c.pmu_events[i]) + " is not a PMU event id of the " + isa::product_name(arch.product));
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
  if (version >= 2) {
    const json& device = m.member(j, "device", "top level");
    if (!device.is_null()) {
      m.object(device, "device", {"id", "config", "sram_size_bytes"});
      NpuIdentity d;
      d.id = m.reg(m.member(device, "id", "device"), "device.id");
      d.config = m.reg(m.member(device, "config", "device"), "device.config");
      d.sram_size_bytes =
          static_cast<uint32_t>(m.uint(m.member(device, "sram_size_bytes", "device"), "device.sram_size_bytes", UINT32_MAX));
      const std::optional<std::string> named = variant_of_config(d.config);
      if (!named)
        m.fail("device.config", hex32(d.config) + " is not the CONFIG register of an Ethos-U configuration the "
                                                   "simulator models");
      if (*named != c.variant)
        m.fail("device.config", hex32(d.config) + " is the CONFIG of an " + *named + ", the capture says variant '" +
                                    c.variant + "' (wrong variant)");
      c.device = d;
    }
    const json& wall = m.member(j, "wall_ns", "top level");
    if (!wall.is_null()) c.wall_ns = m.uint(wall, "wall_ns", kMaxWallNs);
  }

  const json& results = m.member(j, "results", "top level");
  if (version == 1)
    m.object(results, "results", {"status", "cycle_counter", "event_counters", "regions"});
  else if (inference)
    m.object(results, "results", {"status", "cycle_counter", "event_counters", "inference_status", "ifms", "ofms"});
  else
    m.object(results, "results", {"status", "cycle_counter", "event_counters", "regions"});
  // Version 2 marks what a board's driver did not report as null.
  const auto recorded = [&](const json& v) { return !(version >= 2 && v.is_null()); };
  const json& status = m.member(results, "status", "results");
  c.status_recorded = recorded(status);
  if (c.status_recorded) c.status = m.reg(status, "results.status");
  const json& cycles = m.member(results, "cycle_counter", "results");
  c.cycle_counter_recorded = recorded(cycles);
  if (c.cycle_counter_recorded) c.cycle_counter = m.uint(cycles, "results.cycle_counter", kPmccntrMax);
  const json& counters = m.member(results, "event_counters", "results");
  c.event_counters_recorded = recorded(counters);
  if (c.event_counters_recorded) {
    if (!counters.is_array() || counters.size() != events.size())
      m.fail("results.event_counters", "expected " + std::to_string(events.size()) + " values (PMEVCNTRn), one per pmu_events");
    for (size_t i = 0; i < counters.size(); ++i)
      c.event_counters[i] =
          static_cast<uint32_t>(m.uint(counters[i], "results.event_counters[" + std::to_string(i) + "]", UINT32_MAX));
  }

  std::set<std::string> files{kManifest};
  if (inference)
    read_inference(m, j, dir, c, files);
  else
    read_submission(m, j, dir, static_cast<int>(version), c, files);

  for (const auto& p : list_dir(dir))
    if (!files.count(p.filename().string()))
      throw InputError(p.string() + ": not part of the capture (" + kManifest + " does not list it)");
  return c;
}

ReplayResult replay(const Capture& c) { return replay(c, ReplayOptions{}); }

void check_replay(const Capture& c, const ReplayOptions& o) { replay_config(c, o); }

sim::Config replay_configuration(const Capture& c, const ReplayOptions& o) { return replay_config(c, o); }

ReplayResult replay(const Capture& c, const ReplayOptions& o) {
  const bool timed = c.timed && !o.functional;
  const sim::Config config = replay_config(c, o);
  Job job = capture_job(c, "capture from " + c.source);
  job.variant = config.param("npu.variant").as_string();
  RunOptions options = run_options(config, timed);
  options.regioncfg = c.regioncfg;
  options.pmu_events = c.pmu_events;
  // A driver's job fits the SRAM its driver reported, which the capture records.
  if (c.device) options.sram_size_bytes = c.device->sram_size_bytes;
  const RunOutcome outcome = run_job(job, options);

  ReplayResult r;
  r.replayed = c;
  r.replayed.variant = job.variant;
  r.replayed.timed = timed;
  r.replayed.parameters = capture_parameters(config);
  r.replayed.on_hardware = false;
  r.replayed.status_recorded = r.replayed.cycle_counter_recorded = r.replayed.event_counters_recorded = true;
  r.replayed.wall_ns.reset();
  r.replayed.status = outcome.status;
  r.replayed.cycle_counter = outcome.cycle_counter;
  r.replayed.event_counters = outcome.event_counters;
  for (unsigned i = 0; i < isa::kRegionCount; ++i) {
    if (c.regions_after[i].empty()) continue;
    // A zero-filled region was allocated only as far as the stream reaches; the rest holds its zeros still.
    job.regions[i].resize(c.regions_after[i].size(), 0);
    r.replayed.regions_after[i] = job.regions[i];
    if (job.regions[i] != c.regions_after[i])
      r.output_differences.push_back(region_difference(i, job.regions[i], c.regions_after[i]));
  }
  r.fault = outcome.fault;
  const std::string fault = outcome.fault ? " (the replay faulted: " + *outcome.fault + ")" : "";
  if (timed != c.timed) {
    // Only the end state is comparable across models.
    if (c.status_recorded && completed(outcome.status) != completed(c.status))
      r.output_differences.push_back(std::string("the replay ") + (completed(outcome.status) ? "completed" : "did not complete") +
                              ", the recorded run (STATUS " + hex32(c.status) + ") " +
                              (completed(c.status) ? "completed" : "did not") + fault);
  }
  r.differences = r.output_differences;
  if (timed == c.timed) {
    // Functional captures made before the functional model shared the NPU's control registers recorded
    // STATUS without the IRQ history bits (31:16): those bits, set by the stream's own masks, are not compared.
    const uint32_t compared = timed ? 0xFFFFFFFFu : 0xFFFFu;
    if (c.status_recorded && (outcome.status & compared) != (c.status & compared))
      r.differences.push_back("STATUS " + hex32(outcome.status) + " replayed, " + hex32(c.status) + " recorded" +
                              fault);
    if (c.cycle_counter_recorded && outcome.cycle_counter != c.cycle_counter)
      r.differences.push_back("PMCCNTR (cycle counter) " + std::to_string(outcome.cycle_counter) + " replayed, " +
                              std::to_string(c.cycle_counter) + " recorded");
    for (size_t i = 0; i < c.event_counters.size() && c.event_counters_recorded; ++i)
      if (outcome.event_counters[i] != c.event_counters[i])
        r.differences.push_back("PMEVCNTR" + std::to_string(i) + " (" + event_name(c.pmu_events[i], c.variant) + ") " +
                                std::to_string(outcome.event_counters[i]) + " replayed, " +
                                std::to_string(c.event_counters[i]) + " recorded");
  }
  r.identical = r.differences.empty();
  return r;
}

Job capture_job(const Capture& c, const std::string& name) {
  if (c.inference) throw InputError(name + ": an NXP /dev/ethosu0 inference: the firmware's emulation makes its job");
  Job job;
  job.name = name;
  job.variant = c.variant;
  job.stream = c.stream;
  job.regions = c.regions_before;
  if (std::none_of(c.zero_regions_bytes.begin(), c.zero_regions_bytes.end(), [](uint64_t n) { return n != 0; }))
    return job;
  // Walked as on the most cores of its product (two for a U65), which reach every byte one core would (and the
  // second core's weights), in its configuration's command set.
  isa::ValidatorOptions both_cores;
  both_cores.variant = isa::most_cores(isa::parse_variant(c.variant).value_or(isa::kDefaultVariant));
  const isa::Report extents =
      isa::validate(isa::decode(c.stream, isa::architecture(both_cores.variant)), both_cores);
  for (unsigned r = 0; r < isa::kRegionCount; ++r) {
    if (!c.zero_regions_bytes[r]) continue;
    const isa::Extent reach = extents.region_extent(r);
    const uint64_t end = reach.used && reach.end > 0 ? static_cast<uint64_t>(reach.end) : 0;
    job.regions[r].assign(std::min(end, c.zero_regions_bytes[r]), 0);
  }
  return job;
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

Capture capture_run(const std::string& source, const std::array<std::vector<uint8_t>, isa::kRegionCount>& regions_before,
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
  for (unsigned r = 0; r < isa::kRegionCount && !c.sram_region; ++r)
    if (!regions_before[r].empty() && !((options.regioncfg >> (2 * r + 1)) & 1)) c.sram_region = r;
  isa::ValidatorOptions vo;
  vo.variant = isa::parse_variant(job.variant).value_or(isa::kDefaultVariant);
  const isa::Report written = isa::validate(isa::decode(job.stream), vo);
  for (unsigned r = 0; r < isa::kRegionCount; ++r)
    if (written.writes(r).used && !job.regions[r].empty()) c.regions_after[r] = job.regions[r];
  c.status = outcome.status;
  c.cycle_counter = outcome.cycle_counter;
  c.event_counters = outcome.event_counters;
  return c;
}

}  // namespace ethosu::host
