#include "host/formats/case.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "sim/error.h"
#include "sim/files.h"

namespace ethosu::host {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr uint32_t kMaxRegions = 8;  // BASEP0..7

// Key names that differ between the two manifest flavours.
struct TensorKeys {
  const char* list;
  const char* size;
  const char* file;
};
constexpr TensorKeys kNormalisedInputs{"inputs", "size_bytes", "file"};
constexpr TensorKeys kNormalisedOutputs{"outputs", "size_bytes", "file"};
constexpr TensorKeys kCorpusInputs{"npu_inputs", "bytes", "file"};
constexpr TensorKeys kCorpusOutputs{"npu_outputs", "bytes", "expected_file"};

class ManifestReader {
 public:
  ManifestReader(fs::path manifest, bool allow_outside)
      : path_(std::move(manifest)), dir_(path_.parent_path()), allow_outside_(allow_outside) {
    // A nested build of a case (the corpus's u65_512/) shares its parent case's files.
    std::error_code ec;
    const fs::path folder = fs::weakly_canonical(dir_.empty() ? fs::path(".") : dir_, ec);
    root_ = fs::is_regular_file(folder.parent_path() / "manifest.json", ec) ? folder.parent_path() : folder;
  }

  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    throw InputError(path_.string() + ": " + key + ": " + problem);
  }

  const fs::path& path() const { return path_; }

  json load() const {
    const std::string text = sim::read_text_file(path_);
    try {
      return json::parse(text);
    } catch (const json::exception& e) {  // syntax errors and out-of-range numbers
      throw InputError(path_.string() + ": not valid JSON: " + e.what());
    }
  }

  const json& member(const json& obj, const char* key, const std::string& key_path) const {
    if (!obj.is_object()) fail(key_path, "is not an object");
    const auto it = obj.find(key);
    if (it == obj.end()) fail(join(key_path, key), "missing");
    return *it;
  }

  std::string string(const json& obj, const char* key, const std::string& key_path) const {
    const json& v = member(obj, key, key_path);
    if (!v.is_string()) fail(join(key_path, key), "is not a string");
    return v.get<std::string>();
  }

  uint64_t u64(const json& obj, const char* key, const std::string& key_path) const {
    return non_negative(member(obj, key, key_path), join(key_path, key));
  }

  uint64_t non_negative(const json& v, const std::string& key) const {
    if (v.is_number_unsigned()) return v.get<uint64_t>();
    if (v.is_number_integer() && v.get<int64_t>() >= 0) return static_cast<uint64_t>(v.get<int64_t>());
    fail(key, "is not a non-negative integer");
  }

  // A file key that may be absent or null. The file must exist and, when `size` is given, hold that many bytes.
  std::optional<fs::path> file(const json& obj, const char* key, const std::string& key_path,
                               std::optional<uint64_t> size) const {
    const auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return std::nullopt;
    const std::string k = join(key_path, key);
    if (!it->is_string()) fail(k, "is not a string or null");
    const fs::path p = (dir_ / it->get<std::string>()).lexically_normal();
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) fail(k, "file " + p.string() + " does not exist");
    // Someone else's case must not make `run --capture` copy any file it can name (an absolute path, "..", a
    // symbolic link out of the folder).
    if (!allow_outside_ && !sim::inside_folder(root_, p))
      fail(k, "file " + p.string() + " lies outside the case folder " + root_.string() +
                  " (allow it with --allow-outside-case)");
    const uint64_t actual = fs::file_size(p, ec);
    if (ec) fail(k, "cannot read the size of " + p.string());
    if (size && actual != *size) {
      fail(k, p.string() + " holds " + std::to_string(actual) + " bytes but the manifest says " +
                  std::to_string(*size));
    }
    return p;
  }

  static std::string join(const std::string& key_path, const std::string& key) {
    return key_path.empty() ? key : key_path + "." + key;
  }

 private:
  fs::path path_;
  fs::path dir_;
  fs::path root_;  // the folder the case's files must lie in
  bool allow_outside_;
};

uint32_t region_index(const ManifestReader& r, uint64_t index, const std::string& key) {
  if (index >= kMaxRegions) r.fail(key, "region " + std::to_string(index) + " is not a base pointer 0..7");
  return static_cast<uint32_t>(index);
}

// `regions` as an object keyed by region number (normalised flavour).
std::vector<CaseRegion> regions_from_object(const ManifestReader& r, const json& obj) {
  std::vector<CaseRegion> regions;
  for (const auto& [key, value] : obj.items()) {
    const std::string k = "regions." + key;
    if (key.empty() || key.size() > 1 || key[0] < '0' || key[0] > '9') r.fail(k, "key is not a region number");
    CaseRegion region;
    region.index = region_index(r, static_cast<uint64_t>(key[0] - '0'), k);
    region.size_bytes = r.u64(value, "size_bytes", k);
    region.file = r.file(value, "file", k, region.size_bytes);
    regions.push_back(std::move(region));
  }
  return regions;
}

// A list of {region, size, file} (model-corpus flavour: `regions` list or `regions_detail`).
std::vector<CaseRegion> regions_from_list(const ManifestReader& r, const json& list, const std::string& key) {
  if (!list.is_array()) r.fail(key, "is not a list");
  std::vector<CaseRegion> regions;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string k = key + "[" + std::to_string(i) + "]";
    CaseRegion region;
    region.index = region_index(r, r.u64(list[i], "region", k), k + ".region");
    region.size_bytes = r.u64(list[i], "size", k);
    region.file = r.file(list[i], "file", k, region.size_bytes);
    regions.push_back(std::move(region));
  }
  return regions;
}

std::vector<CaseRegion> sorted_unique(const ManifestReader& r, std::vector<CaseRegion> regions, const char* key) {
  std::sort(regions.begin(), regions.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
  for (size_t i = 1; i < regions.size(); ++i) {
    if (regions[i].index == regions[i - 1].index) r.fail(key, "region " + std::to_string(regions[i].index) + " appears twice");
  }
  return regions;
}

std::vector<CaseTensor> tensors(const ManifestReader& r, const json& manifest, const TensorKeys& keys,
                                const std::vector<CaseRegion>& regions, const json* reference_files) {
  const json& list = r.member(manifest, keys.list, "");
  if (!list.is_array()) r.fail(keys.list, "is not a list");
  std::vector<CaseTensor> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string k = std::string(keys.list) + "[" + std::to_string(i) + "]";
    const json& item = list[i];
    CaseTensor t;
    t.name = r.string(item, "name", k);
    t.region = region_index(r, r.u64(item, "region", k), k + ".region");
    t.offset = r.u64(item, "offset", k);
    t.size_bytes = r.u64(item, keys.size, k);
    t.file = r.file(item, keys.file, k, t.size_bytes);
    if (item.contains("dtype")) t.dtype = r.string(item, "dtype", k);
    if (item.contains("shape")) {
      const json& shape = item["shape"];
      if (!shape.is_array()) r.fail(k + ".shape", "is not a list");
      for (size_t d = 0; d < shape.size(); ++d)
        t.shape.push_back(r.non_negative(shape[d], k + ".shape[" + std::to_string(d) + "]"));
    }
    const auto region = std::find_if(regions.begin(), regions.end(), [&](const auto& g) { return g.index == t.region; });
    if (region == regions.end()) r.fail(k + ".region", "region " + std::to_string(t.region) + " is not described");
    if (t.offset > region->size_bytes || t.size_bytes > region->size_bytes - t.offset) {
      r.fail(k + ".offset", "bytes [" + std::to_string(t.offset) + ", " + std::to_string(t.offset + t.size_bytes) +
                                ") lie outside region " + std::to_string(t.region) + " (" +
                                std::to_string(region->size_bytes) + " bytes)");
    }
    if (reference_files != nullptr && item.contains(keys.file) && item[keys.file].is_string()) {
      const auto it = reference_files->find(item[keys.file].get<std::string>());
      if (it != reference_files->end()) {
        if (!it->is_string()) r.fail("reference.files", "engine of " + item[keys.file].get<std::string>() + " is not a string");
        t.reference_engine = it->get<std::string>();
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

void check_same_tensors(const ManifestReader& r, const std::vector<CaseTensor>& a, const std::vector<CaseTensor>& b,
                        const char* key_a, const char* key_b) {
  if (a.size() != b.size()) {
    r.fail(key_b, std::to_string(b.size()) + " entries but " + key_a + " has " + std::to_string(a.size()));
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].region != b[i].region || a[i].offset != b[i].offset || a[i].size_bytes != b[i].size_bytes ||
        a[i].file != b[i].file) {
      r.fail(std::string(key_b) + "[" + std::to_string(i) + "]",
             std::string("region, offset, size or file disagrees with ") + key_a + "[" + std::to_string(i) + "]");
    }
  }
}

void check_same_regions(const ManifestReader& r, const std::vector<CaseRegion>& a, const std::vector<CaseRegion>& b) {
  bool same = a.size() == b.size();
  for (size_t i = 0; same && i < a.size(); ++i) {
    same = a[i].index == b[i].index && a[i].size_bytes == b[i].size_bytes && a[i].file == b[i].file;
  }
  if (!same) r.fail("regions_detail", "disagrees with regions (index, size or file)");
}

}  // namespace

const CaseRegion* CorpusCase::region(uint32_t index) const {
  const auto it = std::find_if(regions.begin(), regions.end(), [&](const auto& g) { return g.index == index; });
  return it == regions.end() ? nullptr : &*it;
}

bool is_compilation(const std::filesystem::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "model_vela.tflite", ec) &&
         fs::is_regular_file(fs::absolute(dir, ec).lexically_normal().parent_path() / "info.json", ec);
}

VelaCompilation load_compilation(const std::filesystem::path& dir, bool allow_outside) {
  std::error_code ec;
  const fs::path folder = fs::absolute(dir, ec).lexically_normal();
  const fs::path case_dir = (folder.filename().empty() ? folder.parent_path() : folder).parent_path();
  VelaCompilation c;
  c.info = case_dir / "info.json";
  c.accelerator = (folder.filename().empty() ? folder.parent_path() : folder).filename().string();
  c.name = case_dir.filename().string() + "/" + c.accelerator;
  const ManifestReader r(c.info, allow_outside);
  const json m = r.load();
  if (!m.is_object()) r.fail("(top level)", "is not an object");
  const json& compilations = r.member(m, "compilations", "");
  const std::string key = "compilations." + c.accelerator;
  const json& compilation = r.member(compilations, c.accelerator.c_str(), "compilations");
  if (compilation.contains("vela_npu_cycles")) c.vela_npu_cycles = r.u64(compilation, "vela_npu_cycles", key);
  if (compilation.contains("vela_total_cycles")) c.vela_total_cycles = r.u64(compilation, "vela_total_cycles", key);
  if (compilation.contains("system_config")) c.system_config = r.string(compilation, "system_config", key);
  if (compilation.contains("memory_mode")) c.memory_mode = r.string(compilation, "memory_mode", key);
  const std::optional<fs::path> model = r.file(json{{"model", c.accelerator + "/model_vela.tflite"}}, "model", key, std::nullopt);
  c.model = *model;
  if (m.contains("inputs_by")) c.inputs_by_name = r.string(m, "inputs_by", "") == "name";
  // Inputs and outputs in the order of their `k`.
  const auto ordered = [&](const char* list_key) {
    const json& list = r.member(m, list_key, "");
    if (!list.is_array()) r.fail(list_key, "is not a list");
    std::vector<const json*> entries(list.size(), nullptr);
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string at = std::string(list_key) + "[" + std::to_string(i) + "]";
      const uint64_t k = r.u64(list[i], "k", at);
      if (k >= entries.size() || entries[k]) r.fail(at + ".k", "is not a distinct index below " + std::to_string(list.size()));
      entries[k] = &list[i];
    }
    return entries;
  };
  const std::vector<const json*> inputs = ordered("inputs");
  for (size_t k = 0; k < inputs.size(); ++k) {
    const std::string at = "inputs[k=" + std::to_string(k) + "]";
    const std::optional<fs::path> file = r.file(*inputs[k], "file", at, std::nullopt);
    if (!file) r.fail(at + ".file", "missing");
    c.inputs.push_back({r.string(*inputs[k], "tensor", at), *file});
  }
  const std::vector<const json*> outputs = ordered("outputs");
  for (size_t k = 0; k < outputs.size(); ++k) {
    const std::string at = "outputs[k=" + std::to_string(k) + "]";
    c.outputs.push_back({r.string(*outputs[k], "tensor", at), r.file(*outputs[k], "expected", at, std::nullopt)});
  }
  return c;
}

CorpusCase load_case(const std::filesystem::path& path, bool allow_outside) {
  std::error_code ec;
  const fs::path manifest_path = fs::is_directory(path, ec) ? path / "manifest.json" : path;
  const ManifestReader r(manifest_path, allow_outside);
  const json m = r.load();
  if (!m.is_object()) r.fail("(top level)", "is not an object");

  CorpusCase c;
  c.manifest = manifest_path;
  c.flavour = m.contains("npu_inputs") ? CaseFlavour::MODEL_CORPUS : CaseFlavour::OPCORPUS;
  c.name = m.contains("case") ? r.string(m, "case", "") : r.string(m, "name", "");
  c.accelerator = m.contains("accelerator") ? r.string(m, "accelerator", "")
                                            : r.string(r.member(m, "vela", ""), "accelerator", "vela");
  const json& cmdstream = r.member(m, "cmdstream", "");
  const std::optional<fs::path> stream = r.file(cmdstream, "file", "cmdstream", std::nullopt);
  if (!stream) r.fail("cmdstream.file", "missing");
  c.command_stream = *stream;
  const uint64_t stream_bytes = fs::file_size(c.command_stream, ec);
  if (ec || stream_bytes == 0 || stream_bytes % 4 != 0) {
    r.fail("cmdstream.file", c.command_stream.string() + " is not a non-empty whole number of 32-bit words");
  }

  const json& regions = r.member(m, "regions", "");
  if (regions.is_object()) {
    c.regions = sorted_unique(r, regions_from_object(r, regions), "regions");
    if (m.contains("regions_detail")) {
      check_same_regions(r, c.regions, sorted_unique(r, regions_from_list(r, m["regions_detail"], "regions_detail"),
                                                     "regions_detail"));
    }
  } else {
    c.regions = sorted_unique(r, regions_from_list(r, regions, "regions"), "regions");
  }

  const json* reference_files = nullptr;
  if (const auto ref = m.find("reference"); ref != m.end() && ref->is_object() && ref->contains("files")) {
    reference_files = &(*ref)["files"];
    if (!reference_files->is_object()) r.fail("reference.files", "is not an object");
  }
  const bool normalised = m.contains("inputs");
  if (normalised) {
    c.inputs = tensors(r, m, kNormalisedInputs, c.regions, nullptr);
    c.outputs = tensors(r, m, kNormalisedOutputs, c.regions, reference_files);
  }
  if (c.flavour == CaseFlavour::MODEL_CORPUS) {
    std::vector<CaseTensor> inputs = tensors(r, m, kCorpusInputs, c.regions, nullptr);
    std::vector<CaseTensor> outputs = tensors(r, m, kCorpusOutputs, c.regions, reference_files);
    if (normalised) {
      check_same_tensors(r, c.inputs, inputs, "inputs", "npu_inputs");
      check_same_tensors(r, c.outputs, outputs, "outputs", "npu_outputs");
      // The same tensors: a shape only the model-corpus keys give is theirs too.
      for (size_t i = 0; i < inputs.size(); ++i)
        if (c.inputs[i].shape.empty()) c.inputs[i].shape = inputs[i].shape;
      for (size_t i = 0; i < outputs.size(); ++i)
        if (c.outputs[i].shape.empty()) c.outputs[i].shape = outputs[i].shape;
    } else {
      c.inputs = std::move(inputs);
      c.outputs = std::move(outputs);
    }
  } else if (!normalised) {
    r.fail("inputs", "missing (and no npu_inputs either)");
  }
  return c;
}

}  // namespace ethosu::host
