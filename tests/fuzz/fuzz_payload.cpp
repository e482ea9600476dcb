// libFuzzer target: file classification and the COP1 driver payload. Malformed input may only raise InputError.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "host/formats/payload.h"
#include "sim/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> file(data, data + size);
  try {
    const ethosu::host::NpuFile f = ethosu::host::read_npu_file(file, "fuzz.bin");
    if (f.payload && f.payload->config) f.payload->config->accelerator();
  } catch (const ethosu::InputError&) {
  }
  try {
    ethosu::host::parse_driver_payload(file, "fuzz.bin");  // also when the FourCC is missing
  } catch (const ethosu::InputError&) {
  }
  return 0;
}
