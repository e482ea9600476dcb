// The names a capture folder uses (host/recording/CAPTURE.md), shared by its writer and reader.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "isa/access.h"
#include "sim/error.h"

namespace ethosu::host::capture_names {

inline constexpr const char* kFormat = "ethosu-sim-capture";
inline constexpr int kVersion = 2;  // what write_capture() writes; read_capture() also reads version 1
inline constexpr const char* kManifest = "capture.json";
inline constexpr const char* kStream = "stream.bin";
inline constexpr const char* kNetwork = "network.bin";
inline constexpr unsigned kMaxBuffers = 16;  // IFM and OFM buffers per NXP inference

inline std::string region_file(unsigned region, bool after) {
  return "region" + std::to_string(region) + (after ? ".after.bin" : ".before.bin");
}
inline std::string ifm_file(unsigned index, bool after) {
  return "ifm" + std::to_string(index) + (after ? ".after.bin" : ".before.bin");
}
inline std::string ofm_file(unsigned index) { return "ofm" + std::to_string(index) + ".appended.bin"; }

// The names a writer may create; anything else in a folder means it is not (only) a capture.
inline bool is_capture_file_name(const std::string& name) {
  if (name == kManifest || name == kStream || name == kNetwork) return true;
  for (unsigned r = 0; r < isa::kRegionCount; ++r)
    if (name == region_file(r, false) || name == region_file(r, true)) return true;
  for (unsigned i = 0; i < kMaxBuffers; ++i)
    if (name == ifm_file(i, false) || name == ifm_file(i, true) || name == ofm_file(i)) return true;
  return false;
}

inline std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

inline std::string crc_text(uint32_t v) { return hex32(v).substr(2); }

// The entries of a folder; file system errors become InputError naming it.
inline std::vector<std::filesystem::path> list_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  std::vector<std::filesystem::path> out;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    out.push_back(it->path());
  if (ec) throw InputError(dir.string() + ": cannot list the folder: " + ec.message());
  return out;
}

}  // namespace ethosu::host::capture_names
