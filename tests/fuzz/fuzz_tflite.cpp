// libFuzzer target: TFLite reader and ethos-u operator extraction. Malformed input may only raise InputError.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "host/formats/payload.h"
#include "sim/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> file(data, data + size);
  try {
    const ethosu::host::VelaModel vm = ethosu::host::describe_vela_model(file, "fuzz.tflite");
    for (const ethosu::host::TfliteSubgraph& sg : vm.model.subgraphs) {
      for (const ethosu::host::TfliteTensor& t : sg.tensors) {
        try {
          ethosu::host::tflite_tensor_bytes(t, "fuzz.tflite");
        } catch (const ethosu::InputError&) {
        }
      }
    }
  } catch (const ethosu::InputError&) {
  }
  return 0;
}
