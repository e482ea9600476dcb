#include "host/config/system_config.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>
#include <tuple>

#include "sim/error.h"
#include "sim/params.h"
#include "sim/files.h"
#include "sim/text.h"

namespace ethosu::host {
namespace {

using sim::Source;

constexpr std::string_view kSystemPrefix = "System_Config.";
constexpr std::string_view kModePrefix = "Memory_Mode.";

// Vela's MemArea / MemPort spellings, as they appear in vela.ini values and key prefixes.
constexpr std::array<std::string_view, kMemAreas> kVelaAreaNames = {"Sram", "Dram", "OnChipFlash", "OffChipFlash"};
constexpr std::array<std::string_view, kAxiPorts> kVelaPortNames = {"Axi0", "Axi1"};

struct BuiltinSection {
  std::string_view name;
  std::vector<std::pair<std::string_view, std::string_view>> keys;
};

// Sources: Arm's vela.ini (ethosu/config_files/Arm/vela.ini) and Vela's built-in U65 defaults
// (architecture_features.py, _set_default_sys_config / _set_default_mem_mode), both summarised in spec 05
// section 7.5; NXP's Imx93ArchitectureFeatures in nxp-imx/ethos-u-vela vela.py.
const std::vector<BuiltinSection>& builtin_sections() {
  // SRAM on AXI0: 16 B/cycle, 32-byte bursts, 32/32 cycles in every config below.
  static const std::vector<BuiltinSection> kSections = {
      {"System_Config.Ethos_U65_Embedded",  // 8 GB/s SRAM, 0.5 GB/s flash at 500 MHz
       {{"core_clock", "500e6"}, {"axi0_port", "Sram"}, {"axi1_port", "OffChipFlash"},
        {"sram_clock_scale", "1.0"}, {"sram_burst_length", "32"}, {"sram_read_latency", "32"},
        {"sram_write_latency", "32"}, {"offchipflash_clock_scale", "0.0625"}, {"offchipflash_burst_length", "128"},
        {"offchipflash_read_latency", "64"}, {"offchipflash_write_latency", "64"}}},
      {"System_Config.Ethos_U65_Mid_End",  // 8 GB/s SRAM, 3.75 GB/s DRAM at 500 MHz
       {{"core_clock", "500e6"}, {"axi0_port", "Sram"}, {"axi1_port", "Dram"},
        {"sram_clock_scale", "1.0"}, {"sram_burst_length", "32"}, {"sram_read_latency", "32"},
        {"sram_write_latency", "32"}, {"dram_clock_scale", "0.46875"}, {"dram_burst_length", "128"},
        {"dram_read_latency", "500"}, {"dram_write_latency", "250"}}},
      {"System_Config.Ethos_U65_High_End",  // 16 GB/s SRAM, 3.75 GB/s DRAM at 1 GHz
       {{"core_clock", "1e9"}, {"axi0_port", "Sram"}, {"axi1_port", "Dram"},
        {"sram_clock_scale", "1.0"}, {"sram_burst_length", "32"}, {"sram_read_latency", "32"},
        {"sram_write_latency", "32"}, {"dram_clock_scale", "0.234375"}, {"dram_burst_length", "128"},
        {"dram_read_latency", "500"}, {"dram_write_latency", "250"}}},
      {"System_Config.Ethos_U65_Client_Server",  // 16 GB/s SRAM, 12 GB/s DRAM at 1 GHz
       {{"core_clock", "1e9"}, {"axi0_port", "Sram"}, {"axi1_port", "Dram"},
        {"sram_clock_scale", "1.0"}, {"sram_burst_length", "32"}, {"sram_read_latency", "32"},
        {"sram_write_latency", "32"}, {"dram_clock_scale", "0.75"}, {"dram_burst_length", "128"},
        {"dram_read_latency", "500"}, {"dram_write_latency", "250"}}},
      // Arm's vela.ini U55 system configs (Vela 5.1): SRAM 1.6 / 4 GB/s, flash 0.1 / 0.5 GB/s. A flash takes no
      // writes: its max_writes is 0.
      {"System_Config.Ethos_U55_Deep_Embedded",
       {{"core_clock", "200e6"}, {"axi0_port", "Sram"}, {"axi1_port", "OffChipFlash"},
        {"sram_clock_scale", "1.0"}, {"sram_burst_length", "32"}, {"sram_read_latency", "32"},
        {"sram_write_latency", "32"}, {"sram_max_reads", "8"}, {"sram_max_writes", "8"},
        {"offchipflash_clock_scale", "0.0625"}, {"offchipflash_burst_length", "128"},
        {"offchipflash_read_latency", "64"}, {"offchipflash_write_latency", "0"}, {"offchipflash_max_reads", "2"},
        {"offchipflash_max_writes", "0"}}},
      {"System_Config.Ethos_U55_High_End_Embedded",
       {{"core_clock", "500e6"}, {"axi0_port", "Sram"}, {"axi1_port", "OffChipFlash"},
        {"sram_clock_scale", "1.0"}, {"sram_burst_length", "32"}, {"sram_read_latency", "32"},
        {"sram_write_latency", "32"}, {"sram_max_reads", "4"}, {"sram_max_writes", "4"},
        {"offchipflash_clock_scale", "0.125"}, {"offchipflash_burst_length", "128"},
        {"offchipflash_read_latency", "64"}, {"offchipflash_write_latency", "0"}, {"offchipflash_max_reads", "2"},
        {"offchipflash_max_writes", "0"}}},
      // Arm's vela.ini U85 system configs (Vela 5.1): SRAM 64-byte bursts over 2 (High: 4) AXI ports; DRAM on one
      // (High: 2) ports, flash on one. Bandwidth = clock scale x 16 bytes x ports used.
      {"System_Config.Ethos_U85_SYS_Flash_Low",
       {{"core_clock", "200e6"}, {"axi0_port", "Sram"}, {"axi1_port", "OffChipFlash"},
        {"sram_clock_scale", "1.0"}, {"sram_ports_used", "2"}, {"sram_burst_length", "64"},
        {"sram_read_latency", "8"}, {"sram_write_latency", "8"}, {"sram_max_reads", "8"}, {"sram_max_writes", "8"},
        {"offchipflash_clock_scale", "0.0625"}, {"offchipflash_ports_used", "1"}, {"offchipflash_burst_length", "128"},
        {"offchipflash_read_latency", "32"}, {"offchipflash_write_latency", "0"}, {"offchipflash_max_reads", "2"},
        {"offchipflash_max_writes", "0"}}},
      {"System_Config.Ethos_U85_SYS_Flash_High",
       {{"core_clock", "500e6"}, {"axi0_port", "Sram"}, {"axi1_port", "OffChipFlash"},
        {"sram_clock_scale", "1.0"}, {"sram_ports_used", "2"}, {"sram_burst_length", "64"},
        {"sram_read_latency", "32"}, {"sram_write_latency", "32"}, {"sram_max_reads", "8"}, {"sram_max_writes", "8"},
        {"offchipflash_clock_scale", "0.0625"}, {"offchipflash_ports_used", "1"}, {"offchipflash_burst_length", "128"},
        {"offchipflash_read_latency", "64"}, {"offchipflash_write_latency", "0"}, {"offchipflash_max_reads", "2"},
        {"offchipflash_max_writes", "0"}}},
      {"System_Config.Ethos_U85_SYS_DRAM_Low",
       {{"core_clock", "500e6"}, {"axi0_port", "Sram"}, {"axi1_port", "Dram"},
        {"sram_clock_scale", "1.0"}, {"sram_ports_used", "2"}, {"sram_burst_length", "64"},
        {"sram_read_latency", "16"}, {"sram_write_latency", "16"}, {"sram_max_reads", "8"}, {"sram_max_writes", "8"},
        {"dram_clock_scale", "0.46875"}, {"dram_ports_used", "1"}, {"dram_burst_length", "128"},
        {"dram_read_latency", "500"}, {"dram_write_latency", "250"}, {"dram_max_reads", "24"}, {"dram_max_writes", "12"}}},
      {"System_Config.Ethos_U85_SYS_DRAM_Mid",
       {{"core_clock", "1e9"}, {"axi0_port", "Sram"}, {"axi1_port", "Dram"},
        {"sram_clock_scale", "1.0"}, {"sram_ports_used", "2"}, {"sram_burst_length", "64"},
        {"sram_read_latency", "32"}, {"sram_write_latency", "32"}, {"sram_max_reads", "8"}, {"sram_max_writes", "8"},
        {"dram_clock_scale", "0.75"}, {"dram_ports_used", "1"}, {"dram_burst_length", "128"},
        {"dram_read_latency", "500"}, {"dram_write_latency", "250"}, {"dram_max_reads", "64"}, {"dram_max_writes", "32"}}},
      {"System_Config.Ethos_U85_SYS_DRAM_High",
       {{"core_clock", "1e9"}, {"axi0_port", "Sram"}, {"axi1_port", "Dram"},
        {"sram_clock_scale", "1.0"}, {"sram_ports_used", "4"}, {"sram_burst_length", "64"},
        {"sram_read_latency", "32"}, {"sram_write_latency", "32"}, {"sram_max_reads", "8"}, {"sram_max_writes", "8"},
        {"dram_clock_scale", "0.75"}, {"dram_ports_used", "2"}, {"dram_burst_length", "128"},
        {"dram_read_latency", "500"}, {"dram_write_latency", "250"}, {"dram_max_reads", "64"}, {"dram_max_writes", "32"}}},
      // NXP's i.MX 93 default: the High_End figures (LPDDR4X at 3.75 GB/s = scale 0.234375 at 1 GHz).
      {"System_Config.Imx93", {{"inherit", "System_Config.Ethos_U65_High_End"}}},
      {"Memory_Mode.Sram_Only", {{"const_mem_area", "Axi0"}, {"arena_mem_area", "Axi0"}, {"cache_mem_area", "Axi0"}}},
      {"Memory_Mode.Shared_Sram", {{"const_mem_area", "Axi1"}, {"arena_mem_area", "Axi0"}, {"cache_mem_area", "Axi0"}}},
      {"Memory_Mode.Dedicated_Sram",  // the SRAM is a 384 KiB cache for the NPU alone
       {{"const_mem_area", "Axi1"}, {"arena_mem_area", "Axi1"}, {"cache_mem_area", "Axi0"},
        {"arena_cache_size", "393216"}}},
      // Vela's default for the U85: Dedicated_Sram with its 384 KiB cache named.
      {"Memory_Mode.Dedicated_Sram_384KB", {{"inherit", "Memory_Mode.Dedicated_Sram"}, {"arena_cache_size", "393216"}}},
      // Vela's built-in U65 memory mode: Dedicated_Sram.
      {"Memory_Mode.internal-default", {{"inherit", "Memory_Mode.Dedicated_Sram"}}},
  };
  return kSections;
}

std::vector<std::string> system_keys() {
  std::vector<std::string> keys = {"inherit", "core_clock", "axi0_port", "axi1_port"};
  for (std::string_view area : kVelaAreaNames) {
    std::string a(area);
    std::transform(a.begin(), a.end(), a.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const char* suffix : {"_clock_scale", "_burst_length", "_read_latency", "_write_latency", "_max_reads",
                               "_max_writes", "_ports_used"}) {
      keys.push_back(a + suffix);
    }
  }
  return keys;
}

const std::vector<std::string> kModeKeys = {"inherit", "const_mem_area", "arena_mem_area", "cache_mem_area",
                                            "arena_cache_size"};

using sim::lower;
using sim::trim;

[[noreturn]] void bad(const std::string& origin, std::string_view key, std::string_view what, std::string_view value) {
  throw InputError(origin + ": " + std::string(key) + ": expected " + std::string(what) + ", got '" +
                   std::string(value) + "'");
}

double to_double(const std::string& origin, std::string_view key, std::string_view text) {
  double d = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(d) || d <= 0) {
    bad(origin, key, "a positive number", text);
  }
  return d;
}

int64_t to_int(const std::string& origin, std::string_view key, std::string_view text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < 0) {
    bad(origin, key, "a non-negative integer", text);
  }
  return v;
}

template <size_t N>
size_t to_enum(const std::string& origin, std::string_view key, std::string_view text,
               const std::array<std::string_view, N>& names) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == text) return i;
  }
  std::string choices;
  for (std::string_view n : names) choices += (choices.empty() ? "" : ", ") + std::string(n);
  bad(origin, key, "one of " + choices, text);
}

}  // namespace

const char* to_string(MemArea area) {
  switch (area) {
    case MemArea::SRAM: return "sram";
    case MemArea::DRAM: return "dram";
    case MemArea::ON_CHIP_FLASH: return "on_chip_flash";
    case MemArea::OFF_CHIP_FLASH: return "off_chip_flash";
  }
  return "";
}

VelaIni::VelaIni() {
  for (const BuiltinSection& s : builtin_sections()) {
    Section& section = sections_[std::string(s.name)];
    for (const auto& [k, v] : s.keys) section.keys[std::string(k)] = Entry{std::string(v), "built-in " + std::string(s.name)};
  }
}

void VelaIni::add_file(const std::filesystem::path& path) {
  std::string text;
  try {
    text = sim::read_text_file(path);
  } catch (const InputError& e) {
    throw InputError(std::string("Vela config file ") + e.what());
  }
  add_text(text, path.string());
}

void VelaIni::add_text(std::string_view text, std::string_view origin) {
  // Parsed completely before merging, so a bad file leaves the sections unchanged.
  std::map<std::string, Section> parsed;
  std::map<std::string, size_t> section_line;
  Section* current = nullptr;
  std::string current_name;
  size_t line_no = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view raw = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    const std::string at = std::string(origin) + ":" + std::to_string(line_no);
    const std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (std::isspace(static_cast<unsigned char>(raw.front()))) {
      throw InputError(at + ": indented line (a continuation line in Vela's parser) is not supported");
    }
    if (line.front() == '[') {
      if (line.back() != ']' || line.size() < 3) throw InputError(at + ": malformed section header '" + std::string(line) + "'");
      current_name = std::string(line.substr(1, line.size() - 2));
      if (current_name == "DEFAULT") throw InputError(at + ": a [DEFAULT] section is not supported");
      auto [it, inserted] = section_line.emplace(current_name, line_no);
      if (!inserted) {
        throw InputError(at + ": section [" + current_name + "] repeats line " + std::to_string(it->second));
      }
      current = &parsed[current_name];
      continue;
    }
    const size_t delim = line.find_first_of("=:");
    if (delim == std::string_view::npos) throw InputError(at + ": expected 'key=value', got '" + std::string(line) + "'");
    if (!current) throw InputError(at + ": key outside any [section]");
    const std::string key = lower(trim(line.substr(0, delim)));
    if (key.empty()) throw InputError(at + ": missing key before '" + std::string(1, line[delim]) + "'");
    auto [it, inserted] = current->keys.emplace(key, Entry{std::string(trim(line.substr(delim + 1))), at});
    if (!inserted) {
      throw InputError(at + ": key '" + key + "' repeats " + it->second.origin + " in [" + current_name + "]");
    }
  }
  for (auto& [name, section] : parsed) {
    for (auto& [key, entry] : section.keys) sections_[name].keys[key] = std::move(entry);
  }
}

std::vector<const VelaIni::Section*> VelaIni::chain(const std::string& section) const {
  std::vector<const Section*> out;
  std::set<std::string> seen;
  std::string name = section;
  while (true) {
    auto it = sections_.find(name);
    if (it == sections_.end()) throw InputError("Vela config: section [" + name + "] not found");
    seen.insert(name);
    out.push_back(&it->second);
    auto inherit = it->second.keys.find("inherit");
    if (inherit == it->second.keys.end()) return out;
    if (!sections_.count(inherit->second.value)) {
      throw InputError(inherit->second.origin + ": inherit: section [" + inherit->second.value + "] not found");
    }
    if (seen.count(inherit->second.value)) {
      throw InputError(inherit->second.origin + ": inherit: [" + inherit->second.value + "] makes a cycle");
    }
    name = inherit->second.value;
  }
}

const VelaIni::Entry* VelaIni::lookup(const std::string& section, const std::string& key) const {
  for (const Section* s : chain(section)) {
    auto k = s->keys.find(key);
    if (k != s->keys.end()) return &k->second;
  }
  return nullptr;
}

std::vector<std::string> VelaIni::ignored_keys(std::string_view system_config, std::string_view memory_mode) const {
  static const std::vector<std::string> kSystemKeys = system_keys();
  std::vector<std::string> warnings;
  const auto check = [&](const std::string& section, const std::vector<std::string>& known) {
    if (!sections_.count(section)) return;
    for (const Section* s : chain(section))
      for (const auto& [k, entry] : s->keys) {
        if (std::find(known.begin(), known.end(), k) != known.end()) continue;
        std::string msg = entry.origin + ": " + k + " is ignored: no Vela key of that name";
        const auto close = sim::close_names(k, known);
        if (!close.empty()) msg += "; did you mean " + close.front() + "?";
        warnings.push_back(msg);
      }
  };
  check(std::string(kSystemPrefix) + std::string(system_config), kSystemKeys);
  check(std::string(kModePrefix) + std::string(memory_mode), kModeKeys);
  return warnings;
}

std::vector<std::string> VelaIni::names_with_prefix(std::string_view prefix) const {
  std::vector<std::string> out;
  for (const auto& [name, s] : sections_) {
    if (name.compare(0, prefix.size(), prefix) == 0) out.push_back(name.substr(prefix.size()));
  }
  return out;
}

std::vector<std::string> VelaIni::system_config_names() const { return names_with_prefix(kSystemPrefix); }
std::vector<std::string> VelaIni::memory_mode_names() const {
  std::vector<std::string> names = names_with_prefix(kModePrefix);
  if (std::find(names.begin(), names.end(), kNoSramMode) == names.end()) names.emplace_back(kNoSramMode);
  return names;
}

SystemConfig VelaIni::system_config(std::string_view name) const {
  const std::string section = std::string(kSystemPrefix) + std::string(name);
  if (!sections_.count(section)) {
    std::string msg = "unknown Vela system config '" + std::string(name) + "'; known:";
    for (const std::string& n : system_config_names()) msg += " " + n;
    throw InputError(msg);
  }
  static const std::vector<std::string> kKeys = system_keys();
  const auto required = [&](const std::string& key) -> const Entry& {
    const Entry* e = lookup(section, key);
    if (!e) throw InputError("Vela config: [" + section + "] does not set " + key);
    return *e;
  };
  SystemConfig sc;
  sc.name = std::string(name);
  const Entry& clock = required("core_clock");
  sc.core_clock_hz = to_double(clock.origin, "core_clock", clock.value);
  for (unsigned port = 0; port < kAxiPorts; ++port) {
    const std::string key = "axi" + std::to_string(port) + "_port";
    const Entry& e = required(key);
    sc.axi_port[port] = static_cast<MemArea>(to_enum(e.origin, key, e.value, kVelaAreaNames));
  }
  // Vela reads timing keys only for the memories the two ports reach.
  for (MemArea area : sc.axi_port) {
    const std::string prefix = lower(kVelaAreaNames[static_cast<size_t>(area)]);
    MemTiming& t = sc.timing[static_cast<size_t>(area)];
    // An LPDDR channel moves reads and writes over one bidirectional DQ bus (the i.MX 93's is one x16 LPDDR4X
    // channel, NXP's i.MX 93 LPDDR4/4X memory compatibility guide), so its bandwidth is the total of both
    // directions, as Vela charges every memory. On-chip SRAM keeps AXI's independent read and write channels
    // [I: its controller is not documented]; flash is not written.
    t.shared_data_bus = area == MemArea::DRAM;
    if (const Entry* e = lookup(section, prefix + "_clock_scale")) {
      t.clock_scale = to_double(e->origin, prefix + "_clock_scale", e->value);
    }
    if (const Entry* e = lookup(section, prefix + "_burst_length")) {
      t.burst_bytes = to_int(e->origin, prefix + "_burst_length", e->value);
      if (t.burst_bytes == 0) bad(e->origin, prefix + "_burst_length", "a positive integer", e->value);
    }
    if (const Entry* e = lookup(section, prefix + "_read_latency")) {
      t.read_latency_cycles = to_int(e->origin, prefix + "_read_latency", e->value);
    }
    if (const Entry* e = lookup(section, prefix + "_write_latency")) {
      t.write_latency_cycles = to_int(e->origin, prefix + "_write_latency", e->value);
    }
    if (const Entry* e = lookup(section, prefix + "_ports_used")) {
      t.ports_used = to_int(e->origin, prefix + "_ports_used", e->value);
      if (t.ports_used < 1 || t.ports_used > 4) bad(e->origin, prefix + "_ports_used", "1 to 4 AXI ports", e->value);
    }
    // The widest AXI limiters (the U65's) track up to 64 reads and 32 writes (spec 05 section 1); a configuration
    // with narrower ones keeps its own. 0 is a memory that takes no such transactions (Vela's flash has
    // max_writes 0): the port keeps its limit, as nothing is written there.
    for (auto [suffix, limit, field] : {std::tuple{"_max_reads", int64_t{64}, &t.max_reads},
                                        std::tuple{"_max_writes", int64_t{32}, &t.max_writes}}) {
      if (const Entry* e = lookup(section, prefix + suffix)) {
        const int64_t v = to_int(e->origin, prefix + suffix, e->value);
        if (v > limit)
          bad(e->origin, prefix + suffix, "0 to " + std::to_string(limit) + " outstanding transactions", e->value);
        if (v > 0) *field = v;
      }
    }
  }
  return sc;
}

MemoryMode VelaIni::memory_mode(std::string_view name) const {
  const std::string section = std::string(kModePrefix) + std::string(name);
  if (name == kNoSramMode && !sections_.count(section)) {
    MemoryMode none;
    none.name = std::string(name);
    none.const_port = none.arena_port = none.cache_port = 1;
    none.sram = false;
    return none;
  }
  if (!sections_.count(section)) {
    std::string msg = "unknown Vela memory mode '" + std::string(name) + "'; known:";
    for (const std::string& n : memory_mode_names()) msg += " " + n;
    throw InputError(msg);
  }
  MemoryMode mm;
  mm.name = std::string(name);
  for (auto [key, port] : {std::pair{"const_mem_area", &mm.const_port}, std::pair{"arena_mem_area", &mm.arena_port},
                           std::pair{"cache_mem_area", &mm.cache_port}}) {
    if (const Entry* e = lookup(section, key)) {
      *port = static_cast<unsigned>(to_enum(e->origin, key, e->value, kVelaPortNames));
    }
  }
  if (const Entry* e = lookup(section, "arena_cache_size")) {
    mm.arena_cache_size_bytes = static_cast<uint64_t>(to_int(e->origin, "arena_cache_size", e->value));
  }
  return mm;
}

Machine VelaIni::machine(std::string_view system_config_name, std::string_view memory_mode_name) const {
  return vela_machine(system_config(system_config_name), memory_mode(memory_mode_name));
}

Machine vela_machine(SystemConfig sc, MemoryMode mm) {
  const auto port_area = [&](unsigned port) { return sc.axi_port[port]; };
  if (port_area(mm.const_port) == MemArea::SRAM && mm.const_port == mm.arena_port && mm.const_port == mm.cache_port) {
    mm.const_port = 1 - mm.const_port;
    sc.axi_port[mm.const_port] = MemArea::ON_CHIP_FLASH;
    sc.timing[static_cast<size_t>(MemArea::ON_CHIP_FLASH)] = sc.timing[static_cast<size_t>(MemArea::SRAM)];
  }
  const std::string combo = "Vela system config " + sc.name + " with memory mode " + mm.name + ": ";
  if (port_area(mm.const_port) == MemArea::SRAM) {
    throw InputError(combo + "constants (region 0) must be on DRAM or flash, not SRAM");
  }
  if (port_area(mm.arena_port) != MemArea::SRAM && port_area(mm.arena_port) != MemArea::DRAM) {
    throw InputError(combo + "the arena (region 1) must be on SRAM or DRAM, not " + to_string(port_area(mm.arena_port)));
  }
  if (mm.sram && port_area(mm.cache_port) != MemArea::SRAM) {
    throw InputError(combo + "the cache (region 2) must be on SRAM, not " + to_string(port_area(mm.cache_port)));
  }
  return {std::move(sc), std::move(mm)};
}

std::vector<std::string> preset_names() {
  return {"imx93", "imx93-800mhz", "corstone-300", "arm-internal-default", "nxp-internal-default"};
}

Machine preset(std::string_view name) {
  const VelaIni builtin;
  // Both of Vela's `internal-default`s for the U65: Dedicated_Sram with a 384 KiB cache, on Arm's 12 GB/s DRAM
  // (Vela's architecture_features.py) or NXP's 3.75 GB/s (NXP's Vela 3.10, the i.MX 93's figures).
  if (name == "arm-internal-default" || name == "nxp-internal-default") {
    Machine m = builtin.machine(name[0] == 'a' ? "Ethos_U65_Client_Server" : "Imx93", "internal-default");
    m.system.name = std::string(name);
    return m;
  }
  if (name == "internal-default")
    throw InputError("system 'internal-default' is two machines: Arm's Vela calls its built-in U65 system (DRAM at "
                     "12 GB/s, Ethos_U65_Client_Server) internal-default, NXP's Vela (the i.MX 93's, as in the "
                     "corpus's Vela printouts) its 3.75 GB/s one; did you mean arm-internal-default or "
                     "nxp-internal-default? (A vela.ini you give that defines it is used as it is.)");
  if (name == "imx93") {
    // NXP's Vela default system (1 GHz, SRAM 16 B/cycle 32/32 cycles burst 32, LPDDR4X 3.75 GB/s
    // 500/250 cycles burst 128) with Dedicated_Sram and the 384 KiB arena cache NXP's Vela uses.
    Machine m = builtin.machine("Imx93", "Dedicated_Sram");
    m.system.name = "imx93";
    return m;
  }
  if (name == "imx93-800mhz") {
    // The upstream device tree clocks the NPU at 800 MHz. Assumption: the LPDDR4X keeps its 3.75 GB/s
    // and its latencies in ns (500/250 ns), so per NPU cycle it gets 1.25x the bytes and 0.8x the
    // latency cycles; the on-chip SRAM on AXI0 keeps its per-cycle figures.
    Machine m = preset("imx93");
    m.system.name = "imx93-800mhz";
    const double ratio = 1e9 / 800e6;
    m.system.core_clock_hz = 800e6;
    MemTiming& dram = m.system.timing[static_cast<size_t>(MemArea::DRAM)];
    dram.clock_scale *= ratio;
    dram.read_latency_cycles = std::llround(static_cast<double>(dram.read_latency_cycles) / ratio);
    dram.write_latency_cycles = std::llround(static_cast<double>(dram.write_latency_cycles) / ratio);
    return m;
  }
  if (name == "corstone-300") {
    // Arm's Corstone-300 with an Ethos-U55, as Vela models it by default for the U55 and as the FVP's timing
    // adapters mirror it: SRAM at 8 B/cycle and flash at 1 B/cycle at 500 MHz, constants in flash, the arena in SRAM.
    Machine m = builtin.machine("Ethos_U55_High_End_Embedded", "Shared_Sram");
    m.system.name = "corstone-300";
    return m;
  }
  std::string msg = "unknown system preset '" + std::string(name) + "'; known:";
  for (const std::string& n : preset_names()) msg += " " + n;
  throw InputError(msg);
}

std::array<unsigned, isa::kRegionCount> region_ports(const MemoryMode& mode) {
  std::array<unsigned, isa::kRegionCount> ports;
  ports.fill(1);
  ports[0] = mode.const_port;
  ports[1] = mode.arena_port;
  ports[2] = mode.cache_port;
  return ports;
}

void set_port_timing(axi::AxiPortParams& port, const MemTiming& t, unsigned axi_bytes_per_beat) {
  port.bytes_per_cycle = t.bytes_per_cycle(axi_bytes_per_beat);
  port.burst_bytes = static_cast<uint32_t>(t.burst_bytes);
  port.read_latency_cycles = static_cast<uint32_t>(t.read_latency_cycles);
  port.write_latency_cycles = static_cast<uint32_t>(t.write_latency_cycles);
  port.shared_data_bus = t.shared_data_bus;
}

mem::DramParams dram_params(const Machine& m, unsigned axi_bytes_per_beat) {
  mem::DramParams p;
  const SystemConfig& s = m.system;
  if (s.axi_port[0] != MemArea::DRAM && s.axi_port[1] != MemArea::DRAM) return p;
  // The same DRAM as the NPU's port sees it (vela.ini gives it per NPU cycle), in the DRAM's own units.
  const MemTiming& t = s.timing[static_cast<size_t>(MemArea::DRAM)];
  const double ns_per_cycle = 1e9 / s.core_clock_hz;
  p.bytes_per_ns = axi_bytes_per_beat * t.clock_scale / ns_per_cycle;
  p.read_latency_ns = static_cast<double>(t.read_latency_cycles) * ns_per_cycle;
  p.write_latency_ns = static_cast<double>(t.write_latency_cycles) * ns_per_cycle;
  return p;
}

int64_t sram_size_param(const MemoryMode& mode) {
  if (!mode.sram) return 0;
  return mode.arena_cache_size_bytes ? static_cast<int64_t>(mode.arena_cache_size_bytes) : kSramUnbounded;
}

void declare_parameters(sim::Config& c) {
  const Machine d = preset("imx93");
  sim::declare_fields(c, "mem.dram", dram_params(d, 16));
  const std::vector<std::string> areas = {"sram", "dram", "on_chip_flash", "off_chip_flash"};
  c.declare_label("system.config", d.system.name, "system config or preset the system parameters came from");
  c.declare_label("system.memory_mode", d.memory_mode.name, "Vela memory mode the region mapping came from");
  for (unsigned p = 0; p < kAxiPorts; ++p)
    c.declare_label("mem.axi" + std::to_string(p) + ".memory", to_string(d.system.axi_port[p]),
                    "memory this AXI port reaches", areas);
  c.declare_int_word("mem.sram.size_bytes", sram_size_param(d.memory_mode), "bytes",
                     "on-chip SRAM for the NPU (Vela arena_cache_size): the regions on its AXI port must fit; "
                     "0 = no SRAM, unbounded = no limit (Vela's arena_cache_size unset)",
                     0, int64_t{1} << 40, "unbounded", kSramUnbounded);
  const std::array<unsigned, isa::kRegionCount> ports = region_ports(d.memory_mode);
  for (unsigned r = 0; r < isa::kRegionCount; ++r) {
    c.declare_int("regions." + std::to_string(r) + ".port", ports[r], "AXI port",
                  "AXI port of base pointer " + std::to_string(r) + " (REGIONCFG)", 0, 1);
  }
}

void apply_machine(sim::Config& c, const Machine& m, unsigned axi_bytes_per_beat, Source source,
                   std::string_view origin) {
  // The read-only labels of where the values came from are a preset's to set.
  const Source label = std::min(source, Source::PRESET);
  c.set_value("system.config", m.system.name, label, origin);
  c.set_value("system.memory_mode", m.memory_mode.name, label, origin);
  c.set_value("system.clock_hz", static_cast<int64_t>(std::llround(m.system.core_clock_hz)), source, origin);
  for (unsigned p = 0; p < kAxiPorts; ++p) {
    const std::string pre = "mem.axi" + std::to_string(p) + ".";
    const MemTiming& t = m.system.port_timing(p);
    c.set_value(pre + "memory", std::string(to_string(m.system.axi_port[p])), label, origin);
    c.set_value(pre + "bytes_per_cycle", t.bytes_per_cycle(axi_bytes_per_beat), source, origin);
    c.set_value(pre + "burst_bytes", t.burst_bytes, source, origin);
    c.set_value(pre + "read_latency_cycles", t.read_latency_cycles, source, origin);
    c.set_value(pre + "write_latency_cycles", t.write_latency_cycles, source, origin);
    c.set_value(pre + "shared_data_bus", t.shared_data_bus, source, origin);
    // A memory spread over several AXI ports (the U85's) is one port of their summed bandwidth with the
    // outstanding transactions of all of them, as Vela's channel model multiplies both by the ports used.
    const auto outstanding = [&](int64_t per_port, uint32_t most) {
      return std::min<int64_t>(per_port * t.ports_used, most);
    };
    if (t.max_reads)
      c.set_value(pre + "max_outstanding_reads", outstanding(*t.max_reads, axi::kMaxOutstandingReads), source, origin);
    if (t.max_writes)
      c.set_value(pre + "max_outstanding_writes", outstanding(*t.max_writes, axi::kMaxOutstandingWrites), source,
                  origin);
  }
  c.set_value("mem.sram.size_bytes", sram_size_param(m.memory_mode), source, origin);
  if (m.system.axi_port[0] == MemArea::DRAM || m.system.axi_port[1] == MemArea::DRAM) {
    const mem::DramParams dram = dram_params(m, axi_bytes_per_beat);
    c.set_value("mem.dram.bytes_per_ns", dram.bytes_per_ns, source, origin);
    c.set_value("mem.dram.read_latency_ns", dram.read_latency_ns, source, origin);
    c.set_value("mem.dram.write_latency_ns", dram.write_latency_ns, source, origin);
  }
  const std::array<unsigned, isa::kRegionCount> ports = region_ports(m.memory_mode);
  for (unsigned r = 0; r < isa::kRegionCount; ++r) {
    c.set_value("regions." + std::to_string(r) + ".port", static_cast<int64_t>(ports[r]), source, origin);
  }
}

}  // namespace ethosu::host
