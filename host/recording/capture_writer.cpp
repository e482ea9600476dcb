// Writing capture folders (host/recording/capture.h): the streaming CaptureWriter, write_capture() on top of it, and the
// numbered folders of a recording session. Kept apart from the reader and replay so that the recorder
// (libethosu-record.so) links the writer without the simulator.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <system_error>

#include "host/recording/capture.h"
#include "host/recording/capture_names.h"
#include "sim/files.h"
#include "isa/registers.h"
#include "isa/architecture.h"
#include "sim/error.h"

namespace ethosu::host {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;  // keeps the written manifest in a readable key order
using namespace capture_names;

namespace {

void remove_file(const fs::path& p) {
  std::error_code ec;
  if (!fs::remove(p, ec) || ec) throw InputError(p.string() + ": cannot remove: " + ec.message());
}

ojson file_json(const CaptureWriter::File& f) {
  ojson j;
  if (f.zero_filled) {
    j["size_bytes"] = f.size_bytes;
    j["zero_filled"] = true;
    return j;
  }
  j["file"] = f.name;
  j["size_bytes"] = f.size_bytes;
  j["crc32"] = crc_text(f.crc);
  return j;
}

ojson indexed_json(const char* key, unsigned index, const CaptureWriter::File& f) {
  ojson j;
  j[key] = index;
  j.update(file_json(f));
  return j;
}

void check_index(unsigned index, const char* what) {
  if (index >= kMaxBuffers)
    throw InputError(std::string("capture: ") + what + " " + std::to_string(index) + " is beyond the " +
                     std::to_string(kMaxBuffers) + " buffers an inference has");
}

template <typename T>
void grow(std::vector<std::optional<T>>& v, unsigned index) {
  if (v.size() <= index) v.resize(index + 1);
}

}  // namespace

uint32_t crc32(const uint8_t* data, size_t size, uint32_t crc) {
  // Reflected, polynomial 0xEDB88320: zlib's, gzip's and Python's zlib.crc32, so a capture can be checked with
  // common tools. Eight bytes a step ("slicing by 8": table[k] advances a byte's CRC by k more bytes), several times
  // the speed of a byte a step: reading a recording again, as calibration does, costs mostly its CRCs.
  static const std::array<std::array<uint32_t, 256>, 8> table = [] {
    std::array<std::array<uint32_t, 256>, 8> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i)
      for (size_t k = 1; k < 8; ++k) t[k][i] = t[0][t[k - 1][i] & 0xFF] ^ (t[k - 1][i] >> 8);
    return t;
  }();
  uint32_t c = crc ^ 0xFFFFFFFFu;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint32_t lo, hi;  // little-endian hosts (x86-64, aarch64), as the capture format's words
    std::memcpy(&lo, data + i, 4);
    std::memcpy(&hi, data + i + 4, 4);
    lo ^= c;
    c = table[7][lo & 0xFF] ^ table[6][(lo >> 8) & 0xFF] ^ table[5][(lo >> 16) & 0xFF] ^ table[4][lo >> 24] ^
        table[3][hi & 0xFF] ^ table[2][(hi >> 8) & 0xFF] ^ table[1][(hi >> 16) & 0xFF] ^ table[0][hi >> 24];
  }
  for (; i < size; ++i) c = table[0][(c ^ data[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

CaptureWriter::CaptureWriter(fs::path dir) : dir_(std::move(dir)) {
  check_capture_dir(dir_);
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec || !fs::is_directory(dir_, ec)) throw InputError(dir_.string() + ": cannot create the capture folder");
  // A previous capture in the same folder is replaced; its manifest goes first, so that it never describes a
  // mixture of old and new files.
  const std::vector<fs::path> old = list_dir(dir_);
  for (const auto& p : old)
    if (p.filename() == kManifest) remove_file(p);
  for (const auto& p : old)
    if (p.filename() != kManifest) remove_file(p);
}

CaptureWriter::File CaptureWriter::write(const std::string& name, const uint8_t* data, size_t size) {
  // A piece at a time through a copy, so that the CRC is of the bytes the file holds even when the data is a
  // mapping of a client's buffer that the client writes meanwhile (the recorder's case).
  sim::OutputFile out(dir_ / name);
  std::vector<uint8_t> piece(std::min<size_t>(size, size_t{1} << 20));
  uint32_t crc = 0;
  for (size_t at = 0; at < size; at += piece.size()) {
    const size_t n = std::min(piece.size(), size - at);
    std::memcpy(piece.data(), data + at, n);
    crc = crc32(piece.data(), n, crc);
    out.write(piece.data(), n);
  }
  out.commit();
  return File{name, size, crc};
}

void CaptureWriter::add_stream(const uint8_t* data, size_t size) { stream_ = write(kStream, data, size); }

void CaptureWriter::add_region(unsigned region, bool after, const uint8_t* data, size_t size) {
  if (region >= isa::kRegionCount) throw InputError("capture: region " + std::to_string(region) + " does not exist");
  if (size == 0) return;  // a region without a buffer has no entry
  (after ? after_ : before_)[region] = write(region_file(region, after), data, size);
}

void CaptureWriter::add_zero_region(unsigned region, uint64_t size) {
  if (region >= isa::kRegionCount) throw InputError("capture: region " + std::to_string(region) + " does not exist");
  if (size == 0) return;
  before_[region] = File{"", size, 0, true};
}

void CaptureWriter::add_network(const uint8_t* data, size_t size) { network_ = write(kNetwork, data, size); }

void CaptureWriter::add_ifm(unsigned index, bool after, const uint8_t* data, size_t size, uint64_t data_bytes) {
  check_index(index, "IFM buffer");
  auto& list = after ? ifms_after_ : ifms_;
  grow(list, index);
  list[index] = write(ifm_file(index, after), data, size);
  list[index]->data_bytes = data_bytes;
}

void CaptureWriter::add_ofm_appended(unsigned index, const uint8_t* data, size_t size) {
  check_index(index, "OFM buffer");
  grow(ofms_, index);
  ofms_[index] = write(ofm_file(index), data, size);
}

bool CaptureWriter::ifm_before_equals(unsigned index, const uint8_t* data, size_t size) const {
  if (index >= ifms_.size() || !ifms_[index] || ifms_[index]->size_bytes != size) return false;
  std::ifstream in(dir_ / ifms_[index]->name, std::ios::binary);
  std::vector<char> chunk(size_t{1} << 16);
  for (size_t at = 0; at < size; at += chunk.size()) {
    const size_t n = std::min(chunk.size(), size - at);
    if (!in.read(chunk.data(), static_cast<std::streamsize>(n)) || std::memcmp(chunk.data(), data + at, n) != 0)
      return false;
  }
  return true;
}

void CaptureWriter::finish(const Capture& c) {
  if (!isa::parse_variant(c.variant)) throw InputError("capture: unknown NPU variant '" + c.variant + "'");
  ojson m;
  m["format"] = kFormat;
  m["version"] = kVersion;
  m["source"] = c.source;
  m["recorded_on"] = c.on_hardware ? "hardware" : "simulator";
  m["variant"] = c.variant;
  m["timed"] = c.timed;
  m["parameters"] = c.parameters;
  if (c.device) {
    ojson d;
    d["id"] = hex32(c.device->id);
    d["config"] = hex32(c.device->config);
    d["sram_size_bytes"] = c.device->sram_size_bytes;
    m["device"] = d;
  } else {
    m["device"] = nullptr;
  }
  m["wall_ns"] = c.wall_ns ? ojson(*c.wall_ns) : ojson(nullptr);
  // One per event counter of the variant.
  const size_t counters = isa::architecture(isa::parse_variant(c.variant).value_or(isa::kDefaultVariant)).pmu_event_counters;
  m["pmu_events"] = std::vector<uint16_t>(c.pmu_events.begin(), c.pmu_events.begin() + counters);
  ojson results;
  results["status"] = c.status_recorded ? ojson(hex32(c.status)) : ojson(nullptr);
  results["cycle_counter"] = c.cycle_counter_recorded ? ojson(c.cycle_counter) : ojson(nullptr);
  results["event_counters"] = c.event_counters_recorded
                                  ? ojson(std::vector<uint32_t>(c.event_counters.begin(), c.event_counters.begin() + counters))
                                  : ojson(nullptr);
  if (c.inference) {
    const InferenceRecord& inf = *c.inference;
    if (!network_) throw InputError("capture: an inference without its network");
    ojson i;
    i["type"] = inf.type;
    i["network"] = file_json(*network_);
    i["ifms"] = ojson::array();
    for (unsigned k = 0; k < ifms_.size(); ++k) {
      if (!ifms_[k]) throw InputError("capture: IFM buffer " + std::to_string(k) + " was not written");
      ojson f = indexed_json("ifm", k, *ifms_[k]);
      f["data_bytes"] = ifms_[k]->data_bytes;
      i["ifms"].push_back(f);
    }
    i["ofm_free_bytes"] = inf.ofm_free_bytes;
    i["pmu"] = {{"events", inf.pmu_event_indices}, {"cycle_count", inf.pmu_cycle_count}};
    m["inference"] = i;
    results["inference_status"] = inf.status;
    results["ifms"] = ojson::array();
    for (unsigned k = 0; k < ifms_after_.size(); ++k)
      if (ifms_after_[k]) results["ifms"].push_back(indexed_json("ifm", k, *ifms_after_[k]));
    results["ofms"] = ojson::array();
    for (unsigned k = 0; k < ofms_.size(); ++k)
      if (ofms_[k]) results["ofms"].push_back(indexed_json("ofm", k, *ofms_[k]));
  } else {
    if (!stream_) throw InputError("capture: no command stream was written");
    m["regioncfg"] = hex32(c.regioncfg);
    m["axi_limits"] = ojson::array();
    for (uint32_t v : c.axi_limits) m["axi_limits"].push_back(hex32(v));
    m["sram_region"] = c.sram_region ? ojson(*c.sram_region) : ojson(nullptr);
    m["stream"] = file_json(*stream_);
    m["regions"] = ojson::array();
    for (unsigned r = 0; r < isa::kRegionCount; ++r)
      if (before_[r]) m["regions"].push_back(indexed_json("region", r, *before_[r]));
    results["regions"] = ojson::array();
    for (unsigned r = 0; r < isa::kRegionCount; ++r) {
      if (!after_[r]) continue;
      if (!before_[r] || before_[r]->size_bytes != after_[r]->size_bytes)
        throw InputError("capture: region " + std::to_string(r) + " holds " + std::to_string(after_[r]->size_bytes) +
                         " bytes after the run but " + std::to_string(before_[r] ? before_[r]->size_bytes : 0) +
                         " before");
      results["regions"].push_back(indexed_json("region", r, *after_[r]));
    }
  }
  m["results"] = results;
  sim::write_text_file((dir_ / kManifest).string(), m.dump(1) + "\n");
}

namespace {

bool all_zero(const std::vector<uint8_t>& bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; });
}

}  // namespace

void write_capture(const fs::path& dir, const Capture& c) {
  if (!isa::parse_variant(c.variant)) throw InputError("capture: unknown NPU variant '" + c.variant + "'");
  if (!c.inference)
    for (unsigned r = 0; r < isa::kRegionCount; ++r)
      if (!c.regions_after[r].empty() && c.regions_after[r].size() != c.region_before_bytes(r))
        throw InputError("capture: region " + std::to_string(r) + " holds " + std::to_string(c.regions_after[r].size()) +
                         " bytes after the run but " + std::to_string(c.region_before_bytes(r)) + " before");
  CaptureWriter w(dir);
  if (c.inference) {
    const InferenceRecord& inf = *c.inference;
    w.add_network(inf.network.data(), inf.network.size());
    for (unsigned k = 0; k < inf.ifms.size(); ++k)
      w.add_ifm(k, false, inf.ifms[k].data(), inf.ifms[k].size(),
                k < inf.ifm_data_bytes.size() ? inf.ifm_data_bytes[k] : 0);
    for (unsigned k = 0; k < inf.ifms_after.size(); ++k)
      if (!inf.ifms_after[k].empty()) w.add_ifm(k, true, inf.ifms_after[k].data(), inf.ifms_after[k].size());
    for (unsigned k = 0; k < inf.ofms_appended.size(); ++k)
      if (!inf.ofms_appended[k].empty()) w.add_ofm_appended(k, inf.ofms_appended[k].data(), inf.ofms_appended[k].size());
  } else {
    w.add_stream(c.stream.data(), c.stream.size());
    for (unsigned r = 0; r < isa::kRegionCount; ++r) {
      // Zeros (a cleared SRAM, fresh output buffers) need no file.
      if (all_zero(c.regions_before[r]))
        w.add_zero_region(r, c.region_before_bytes(r));
      else
        w.add_region(r, false, c.regions_before[r].data(), c.regions_before[r].size());
      w.add_region(r, true, c.regions_after[r].data(), c.regions_after[r].size());
    }
  }
  w.finish(c);
}

std::optional<std::string> variant_of_config(uint32_t config) {
  // The whole word first: the U85's also says its AXI ports and weight decoders.
  if (const isa::Architecture* exact = isa::from_config_register(config)) return std::string(exact->name);
  const uint32_t product = isa::get(config, isa::RegField::CONFIG_product);
  const uint32_t macs_log2 = isa::get(config, isa::RegField::CONFIG_macs_per_cc);
  if (product > static_cast<uint32_t>(isa::Product::U85) || macs_log2 > 16) return std::nullopt;
  const isa::Architecture* a = isa::find_architecture(static_cast<isa::Product>(product), uint32_t{1} << macs_log2);
  if (!a) return std::nullopt;
  return std::string(a->name);
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

fs::path next_capture_dir(const fs::path& root, const std::string& source, const std::string& variable) {
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec || !fs::is_directory(root, ec)) throw InputError(variable + "=" + root.string() + ": cannot create the folder");
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

std::optional<fs::path> capture_dir_from_env(const std::string& source) {
  const char* root = std::getenv("ETHOSU_SIM_CAPTURE");
  if (!root || !*root) return std::nullopt;
  return next_capture_dir(root, source, "ETHOSU_SIM_CAPTURE");
}

}  // namespace ethosu::host
