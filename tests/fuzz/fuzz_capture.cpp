// libFuzzer target: the capture reader (host/capture.h). Each input is tried as a whole capture.json and as a
// splice into a valid one (its first two bytes give the position), next to the valid capture's binary files, so
// that mutations reach the checks behind the JSON syntax. Malformed input may only raise InputError.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "host/capture.h"
#include "sim/error.h"

namespace {

namespace fs = std::filesystem;
using ethosu::host::Capture;

struct Folder {
  fs::path dir;
  std::string valid_manifest;

  Folder() : dir(fs::temp_directory_path() / ("ethosu_fuzz_capture_" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    Capture c;
    c.source = "fuzz";
    c.stream = {0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};  // NPU_OP_STOP, padding
    c.regions_before[1].assign(64, 7);
    c.regions_after[1].assign(64, 9);
    c.pmu_events = {0x11, 0, 0, 0};
    c.parameters["mem.axi1.read_latency_cycles"] = "300";
    c.status = 0x22;
    c.cycle_counter = 1234;
    ethosu::host::write_capture(dir, c);
    std::ifstream in(dir / "capture.json", std::ios::binary);
    valid_manifest.assign(std::istreambuf_iterator<char>(in), {});
  }
  ~Folder() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }

  void attempt(const std::string& manifest) const {
    std::ofstream(dir / "capture.json", std::ios::binary | std::ios::trunc) << manifest;
    try {
      ethosu::host::read_capture(dir);
    } catch (const ethosu::InputError&) {
    }
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Folder folder;
  const std::string input(reinterpret_cast<const char*>(data), size);
  folder.attempt(input);
  if (size >= 2) {
    std::string spliced = folder.valid_manifest;
    const size_t at = (size_t{data[0]} | size_t{data[1]} << 8) % (spliced.size() + 1);
    spliced.replace(at, std::min(size - 2, spliced.size() - at), input.substr(2));
    folder.attempt(spliced);
  }
  return 0;
}
