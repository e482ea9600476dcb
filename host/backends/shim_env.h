// What the preloadable driver shims read from the environment: the machine to simulate and how to run.
//
// Contract: shim_settings() reads the variables once per process (first call) and returns the same
// object afterwards; a bad value (unknown variant, system, parameter, malformed assignment) throws
// ethosu::InputError naming the variable. The variables (documented in the README):
//   ETHOSU_SIM_VARIANT      ethos-u65-256 (default) or ethos-u65-512: the drivers drive the Ethos-U65 (a U55 is
//                           refused: no Linux driver drives one)
//   ETHOSU_SIM_SYSTEM       a preset (imx93 default) or a vela.ini system config
//   ETHOSU_SIM_MEMORY_MODE  a vela.ini memory mode or No_Sram, on any system
//   ETHOSU_SIM_VELA_INI     extra vela.ini files, ':'-separated
//   ETHOSU_SIM_CONFIG       a parameter file ('name = value' lines)
//   ETHOSU_SIM_SET          parameter assignments, ';'-separated ('mem.axi1.read_latency_cycles=300;...')
//   ETHOSU_SIM_FUNCTIONAL   1: run the functional model only (bit-exact, no timing, PMU counts 0)
//   ETHOSU_SIM_CAPTURE      a folder: write a capture of every submission under it (host/recording/capture.h)
//   ETHOSU_SIM_SRAM_SIZE    on-chip SRAM size the driver reports (bytes, K/M suffixes; default the resolved
//                           configuration's mem.sram.size_bytes, i.e. the system's SRAM)
//   ETHOSU_SIM_VERBOSE      1: one line per submission on stderr (cycles, status)
// read_shim_settings() does the same from any lookup (tests); empty values count as unset. ETHOSU_SIM_CAPTURE
// is read by capture_dir_from_env() per submission, not here.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "host/config/config.h"

namespace ethosu::host {

// The most region memory one job may make the simulator copy (region buffers plus the SRAM or fast memory),
// in both shims: each buffer is copied for the run, so a job of many huge buffers is refused (accel: SUBMIT
// fails with ENOMEM; NXP: the inference ends in ERROR) instead of exhausting the client's memory.
inline constexpr uint64_t kMaxJobRegionBytes = uint64_t{2} << 30;

struct ShimSettings {
  MachineRequest request;       // variant, system, files and assignments as given
  bool functional = false;
  uint64_t sram_size_bytes = 0;
  bool verbose = false;
};

const ShimSettings& shim_settings();
// The variants the shims take, for messages.
std::string shim_variant_names();

using EnvLookup = std::function<const char*(const char* name)>;
ShimSettings read_shim_settings(const EnvLookup& getenv);

}  // namespace ethosu::host
