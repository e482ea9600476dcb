// libFuzzer target: what the NXP shim's firmware does with an INFERENCE_CREATE (host/backends/nxp/nxp_inference.h),
// on the functional model. The input is the network buffer, so the corpus's driver_payload.bin (OP mode) and
// Vela .tflite files (MODEL mode) are seeds as they are; a COP1 FourCC picks OP mode. OP mode also runs with the
// layout buffer's header and sizes taken from the input's last 24 bytes. Whatever the bytes are, the result must be a
// status with a message, never an exception, a crash or an access outside the buffers.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "host/backends/nxp/nxp_inference.h"
#include "host/backends/shim_env.h"
#include "tests/fuzz/fuzz_defaults.h"

namespace nxp = ethosu::nxp;

namespace {

// Small work limits keep every input to milliseconds; refusing an operation exercises the cost bound itself.
const char* fuzz_limits(const char* name) {
  return std::strcmp(name, "ETHOSU_SIM_SET") == 0 ? "sim.limits.work_steps=4194304;sim.limits.buffer_elements=262144"
                                                  : nullptr;
}

constexpr size_t kArenaBytes = 256 * 1024;

const ethosu::host::ShimSettings& settings() {
  static const ethosu::host::ShimSettings s = [] {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    ethosu::host::ShimSettings v = ethosu::host::read_shim_settings(fuzz_limits, ethosu::host::ShimDriver::NXP);
    v.functional = true;  // the timed platform is fuzzed through the accel shim (fuzz_submit)
    return v;
  }();
  return s;
}

// The delegate's layout buffer for one input and one output: u32 n_in, n_out, u32 sizes[5], u64 base_addr[5].
std::vector<uint8_t> layout(const uint32_t (&words)[7]) {
  std::vector<uint8_t> bytes(7 * 4 + 5 * 8, 0);
  std::memcpy(bytes.data(), words, sizeof words);
  return bytes;
}

void run(nxp::InferenceRequest& request, std::vector<std::vector<uint8_t>> ifms) {
  request.ifm_sizes.clear();
  request.hold_ifms(std::move(ifms));
  const nxp::InferenceResult r = nxp::run_inference(request, settings());
  if (r.status != nxp::STATUS_OK && r.message.empty()) std::abort();  // a refusal always says why
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  ethosu::fuzz::default_max_len(argc, argv, 4096);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nxp::InferenceRequest request;
  request.network.assign(data, data + size);
  const bool op = size >= 4 && std::memcmp(data, "COP1", 4) == 0;
  if (!op) {
    request.inference_type = nxp::INFERENCE_MODEL;
    run(request, {std::vector<uint8_t>(kArenaBytes, 0)});
    return 0;
  }
  request.inference_type = nxp::INFERENCE_OP;
  const uint32_t sane[7] = {1, 1, 0, static_cast<uint32_t>(kArenaBytes), 4096, 1024, 1024};
  run(request, {std::vector<uint8_t>(kArenaBytes, 0), layout(sane)});
  if (size >= 4 + sizeof sane) {
    uint32_t words[7];
    std::memcpy(words, data + size - sizeof words, sizeof words);
    run(request, {std::vector<uint8_t>(kArenaBytes, 0), layout(words)});
  }
  return 0;
}
