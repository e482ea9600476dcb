// The system around the NPU (clock, the memory behind each AXI port, which port each region uses) as run-time
// parameters; built-in presets; and a reader for Vela's vela.ini files, so that a Vela estimate and a simulation
// describe the same machine.
//
// Contract:
// * declare_parameters() declares the system's own parameters with the `imx93` preset's values as defaults;
//   apply_machine() writes a machine (clock, port timing, region mapping) into one layer of the registry.
// * VelaIni holds [System_Config.NAME] and [Memory_Mode.NAME] sections. It starts with built-in sections:
//   Arm's vela.ini U55 and U65 system configs (Ethos_U55_Deep_Embedded, _High_End_Embedded, Ethos_U65_Embedded,
//   _Mid_End, _High_End, _Client_Server) and
//   memory modes (Sram_Only, Shared_Sram, Dedicated_Sram, Dedicated_Sram_384KB), `Memory_Mode.internal-default`
//   (Vela's built-in U65 memory mode, Dedicated_Sram in Arm's and NXP's Vela alike) and `System_Config.Imx93`
//   (NXP's Vela default for the i.MX 93). The two Vela's built-in `System_Config.internal-default`s differ, so
//   neither is a built-in section: presets name them (below). User files are merged
//   over them, as Vela merges several --config files: a later file adds sections and overrides keys.
// * File syntax follows Python's ConfigParser as Vela uses it: `key=value` or `key: value`; key names
//   are case-insensitive, section names and values case-sensitive; whole-line comments start with `#`
//   or `;` (no trailing comments: Vela would read them as part of the value); a section or key repeated
//   within one file is an error; `inherit=<full section name>` takes the keys the section does not set
//   from another section, recursively. Assumptions where Vela is silent or lenient: indented lines
//   (ConfigParser continuation lines), [DEFAULT], inheritance cycles and unknown keys are errors (Vela
//   ignores unknown keys; a typo would silently change the machine); a system config must give
//   core_clock, axi0_port and axi1_port (Vela would fall back to a 1 Hz clock and SRAM on both ports);
//   other missing keys take Vela's fallbacks: clock scale 1.0, burst 1 B, latency 0, region on Axi0,
//   arena cache unbounded.
// * machine() applies Vela's adjustments and checks: when constants, arena and cache all sit on the
//   SRAM port, constants move to the other port as on-chip flash with the SRAM's timing; constants must
//   be on DRAM or flash, the arena on SRAM or DRAM, the cache on SRAM. Errors are ethosu::InputError
//   naming file:line where a line is at fault.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "isa/access.h"
#include "models/mem/dram_timing.h"
#include "models/npu/axi/axi_timing.h"
#include "sim/config.h"

namespace ethosu::host {

enum class MemArea { SRAM, DRAM, ON_CHIP_FLASH, OFF_CHIP_FLASH };
inline constexpr size_t kMemAreas = 4;
// Parameter spelling: "sram", "dram", "on_chip_flash", "off_chip_flash".
const char* to_string(MemArea area);

inline constexpr unsigned kAxiPorts = 2;

struct MemTiming {
  double clock_scale = 1.0;  // memory bandwidth as a fraction of one AXI beat per NPU cycle
  int64_t burst_bytes = 1;
  int64_t read_latency_cycles = 0;
  int64_t write_latency_cycles = 0;
  // Vela 5's <memory>_max_reads / _max_writes: outstanding transactions; unset keeps the U65's limits.
  std::optional<int64_t> max_reads, max_writes;
  // Vela 5's <memory>_ports_used: the U85's AXI ports the memory is spread over; its bandwidth is that many beats
  // per cycle times the clock scale (Regor's regor_set_system_config).
  int64_t ports_used = 1;
  double bytes_per_cycle(unsigned axi_bytes_per_beat) const {
    return axi_bytes_per_beat * clock_scale * static_cast<double>(ports_used);
  }
  // Reads and writes share the memory's one data bus (no vela.ini key: DRAM does, the others do not).
  bool shared_data_bus = false;
};

struct SystemConfig {
  std::string name;
  double core_clock_hz = 0;
  std::array<MemArea, kAxiPorts> axi_port{MemArea::SRAM, MemArea::SRAM};
  std::array<MemTiming, kMemAreas> timing{};  // by MemArea; only the two port memories matter
  const MemTiming& port_timing(unsigned port) const { return timing[static_cast<size_t>(axi_port[port])]; }
};

struct MemoryMode {
  std::string name;
  // AXI port of Vela's constants (region 0), arena (region 1) and fast-scratch cache (region 2).
  unsigned const_port = 0, arena_port = 0, cache_port = 0;
  uint64_t arena_cache_size_bytes = 0;  // 0 = unbounded (Vela: the maximum address offset)
  bool sram = true;  // false: no SRAM for the NPU at all (No_Sram)
};
// The simulator's own memory mode (Vela has none like it): no SRAM, every region on AXI1.
inline constexpr std::string_view kNoSramMode = "No_Sram";

struct Machine {
  SystemConfig system;
  MemoryMode memory_mode;
};

class VelaIni {
 public:
  VelaIni();  // the built-in sections
  void add_file(const std::filesystem::path& path);
  void add_text(std::string_view text, std::string_view origin);

  std::vector<std::string> system_config_names() const;
  std::vector<std::string> memory_mode_names() const;
  SystemConfig system_config(std::string_view name) const;
  MemoryMode memory_mode(std::string_view name) const;
  // Vela's --system-config NAME --memory-mode NAME, with Vela's adjustments and checks (vela_machine()).
  Machine machine(std::string_view system_config, std::string_view memory_mode) const;
  // The keys of those sections (and what they inherit) that set no parameter, one warning each: keys no Vela
  // writes (with the nearest known key). They are ignored, as Vela ignores what it does not read.
  std::vector<std::string> ignored_keys(std::string_view system_config, std::string_view memory_mode) const;

 private:
  struct Entry {
    std::string value;
    std::string origin;  // "file:line"
  };
  struct Section {
    std::map<std::string, Entry> keys;  // lower-case key
  };
  // The entry for `key` in `section` or the sections it inherits from; nullptr if none sets it. Checks the
  // inheritance chain (missing sections, cycles).
  const Entry* lookup(const std::string& section, const std::string& key) const;
  // The sections `section` inherits from, itself first.
  std::vector<const Section*> chain(const std::string& section) const;
  std::vector<std::string> names_with_prefix(std::string_view prefix) const;

  std::map<std::string, Section> sections_;
};

// A system with a memory mode, with Vela's adjustments and checks (see the contract above): any preset's system
// takes any memory mode this way.
Machine vela_machine(SystemConfig system, MemoryMode mode);

// Presets: "imx93" (NXP's i.MX 93: 1 GHz, SRAM, LPDDR4X at 3.75 GB/s), "imx93-800mhz", "corstone-300" (Arm's
// Corstone-300 with an Ethos-U55, Vela's default for the U55), "arm-internal-default" and "nxp-internal-default"
// (Arm's and NXP's Vela built-in U65 systems, both called `internal-default` by their Vela: preset() refuses that
// name, naming them).
std::vector<std::string> preset_names();
Machine preset(std::string_view name);

// Region -> AXI port: 0 constants, 1 arena, 2 cache from the memory mode; 3-7 on AXI1, as the Linux
// accel driver programs REGIONCFG (0xAA8A).
std::array<unsigned, isa::kRegionCount> region_ports(const MemoryMode& mode);

// mem.sram.size_bytes: 0 is no SRAM, kSramUnbounded (spelled `unbounded`) no limit.
inline constexpr int64_t kSramUnbounded = -1;
// The SRAM size a memory mode gives: its arena cache size, unbounded where Vela's is (0: unset).
int64_t sram_size_param(const MemoryMode& mode);

// The system's own parameters: where the values came from (system.config, system.memory_mode, mem.axiN.memory),
// the SRAM's size, the region mapping (regions.N.port) and the DRAM a platform's Dram models (mem.dram.*,
// models/mem/dram_timing.h); the NPU declares the rest (models/npu/npu_config.h).
void declare_parameters(sim::Config& config);
// The machine's DRAM in the Dram model's units: its bandwidth and latencies as the NPU's port sees them at the
// machine's clock (defaults where no port reaches DRAM).
mem::DramParams dram_params(const Machine& machine, unsigned axi_bytes_per_beat);
// A port's timing as Vela's memory timing gives it: bytes per cycle = the NPU's AXI data width (the
// configuration's: 16 bytes on the U65, 8 on the U55) x the memory's clock scale (spec 05 section 7.5).
void set_port_timing(axi::AxiPortParams& port, const MemTiming& t, unsigned axi_bytes_per_beat);
void apply_machine(sim::Config& config, const Machine& machine, unsigned axi_bytes_per_beat, sim::Source source,
                   std::string_view origin);

}  // namespace ethosu::host
