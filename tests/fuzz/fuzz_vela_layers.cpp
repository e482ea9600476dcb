// libFuzzer target: Vela's register listings and per-layer CSVs (host/formats/vela_layers.h). Malformed input may
// only raise InputError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "host/formats/vela_layers.h"
#include "sim/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    ethosu::host::read_vela_layers(text, "fuzz.txt");
  } catch (const ethosu::InputError&) {
  }
  return 0;
}
