// libFuzzer target: the capture reader (host/recording/capture.h). Each input is tried as a whole capture.json and as a
// splice into a valid one (its first two bytes give the position), next to the valid capture's binary files, so
// that mutations reach the checks behind the JSON syntax: a simulator capture of an NPU submission, and a hardware
// recording of an NXP inference (format version 2). Malformed input may only raise InputError.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "host/recording/capture.h"
#include "sim/error.h"

namespace {

namespace fs = std::filesystem;
using ethosu::host::Capture;

Capture npu_capture() {
  Capture c;
  c.source = "fuzz";
  c.stream = {0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};  // NPU_OP_STOP, padding
  c.regions_before[1].assign(64, 7);
  c.regions_before[2].assign(32, 0);  // zero-filled: no file
  c.regions_after[1].assign(64, 9);
  c.pmu_events = {0x11, 0, 0, 0};
  c.parameters["mem.axi1.read_latency_cycles"] = "300";
  c.status = 0x22;
  c.cycle_counter = 1234;
  return c;
}

Capture inference_recording() {
  Capture c;
  c.source = "nxp-ethosu";
  c.on_hardware = true;
  c.status_recorded = false;
  c.wall_ns = 5000;
  c.device = ethosu::host::NpuIdentity{0x10066001, 0x10003008, 4096};
  c.cycle_counter = 99;
  ethosu::host::InferenceRecord r;
  r.type = 1;
  r.network = {'C', 'O', 'P', '1'};
  r.ifms = {std::vector<uint8_t>(16, 1), {}};
  r.ifm_data_bytes = {16, 0};
  r.ofm_free_bytes = {8};
  r.ifms_after = {std::vector<uint8_t>(16, 2), {}};
  r.ofms_appended = {std::vector<uint8_t>(8, 3)};
  c.inference = r;
  return c;
}

struct Folder {
  fs::path dir;
  std::string valid_manifest;

  Folder(const char* name, const Capture& c)
      : dir(fs::temp_directory_path() / ("ethosu_fuzz_capture_" + std::string(name) + std::to_string(::getpid()))) {
    fs::remove_all(dir);
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
  static const Folder npu("npu", npu_capture());
  static const Folder inference("inference", inference_recording());
  const std::string input(reinterpret_cast<const char*>(data), size);
  for (const Folder* folder : {&npu, &inference}) {
    folder->attempt(input);
    if (size >= 2) {
      std::string spliced = folder->valid_manifest;
      const size_t at = (size_t{data[0]} | size_t{data[1]} << 8) % (spliced.size() + 1);
      spliced.replace(at, std::min(size - 2, spliced.size() - at), input.substr(2));
      folder->attempt(spliced);
    }
  }
  return 0;
}
