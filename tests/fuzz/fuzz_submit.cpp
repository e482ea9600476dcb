// libFuzzer target: any command stream through the Linux accel shim's ioctl path (CMDSTREAM_BO_CREATE, BO_CREATE,
// SUBMIT, BO_WAIT, GEM_CLOSE) in-process, run on the timed platform. Whatever the stream does, neither the shim
// nor the simulator may touch host memory outside the buffers they were given (the simulator works on exactly
// sized copies of the BOs, which ASan watches) or hang.
//
// Input: the bytes are the stream, on the shim's default device (the i.MX 93's U65-256), so the corpus
// cmdstream.bin files are seeds as they are. An input that starts with "FZSU" has an 8-byte header instead, whose
// byte 4 picks the device: even the U65-256, odd a U85-256 (the accel shim's other family). Each region the
// validated stream reaches gets a BO of exactly that reach (page-rounded, at most 1 MiB; beyond that the job is
// not submitted), filled with a fixed pattern; region 2 is the device's SRAM. A stream the shim's validator
// refuses stops at CMDSTREAM_BO_CREATE, as in the kernel.
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "host/backends/accel/cmdstream.h"
#include "host/backends/accel/device.h"
#include "host/backends/accel/ethosu_accel_uapi.h"
#include "host/backends/shim_env.h"
#include "tests/fuzz/fuzz_defaults.h"

namespace acc = ethosu::accel;

namespace {

// Small work limits keep every input to milliseconds; refusing an operation exercises the cost bound itself.
const char* fuzz_limits(const char* name) {
  return std::strcmp(name, "ETHOSU_SIM_SET") == 0 ? "sim.limits.work_steps=4194304;sim.limits.buffer_elements=262144"
                                                  : nullptr;
}

constexpr uint64_t kMaxRegionBytes = uint64_t{1} << 20;

const char* fuzz_limits_u85(const char* name) {
  return std::strcmp(name, "ETHOSU_SIM_VARIANT") == 0 ? "ethos-u85-256" : fuzz_limits(name);
}

acc::Device& device(bool u85) {
  static acc::Device* devices[2] = {nullptr, nullptr};
  acc::Device*& d = devices[u85];
  if (!d) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    // The shim's defaults (timed, the family's default system and SRAM), whatever the environment says.
    d = new acc::Device(
        ethosu::host::read_shim_settings(u85 ? fuzz_limits_u85 : fuzz_limits, ethosu::host::ShimDriver::LINUX_ACCEL));
  }
  return *d;
}

}  // namespace

// After a run on the timed platform, LeakSanitizer's exit-time scan no longer sees libFuzzer's own stack (SystemC
// runs its processes on coroutine stacks it switches to by hand) and reports libFuzzer's locals as leaks. Leak
// detection is therefore off for this target; ASan's bounds and use-after-free checks are what it is for.
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  ethosu::fuzz::default_max_len(argc, argv, 2048);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  bool u85 = false;
  if (size >= 8 && std::memcmp(data, "FZSU", 4) == 0) {
    u85 = data[4] & 1;
    data += 8;
    size -= 8;
  }
  if (size == 0 || size > 65536) return 0;
  acc::Device& npu = device(u85);
  acc::DeviceFile file(npu);
  std::string reason;
  const auto info = acc::validate_cmdstream(data, size, npu.variant(), reason);

  ethosu_accel_cmdstream_bo_create c{};
  c.size = static_cast<uint32_t>(size);
  c.data = reinterpret_cast<uintptr_t>(data);
  const int created = file.ioctl(ETHOSU_ACCEL_IOCTL_CMDSTREAM_BO_CREATE, &c);
  if ((created == 0) != info.has_value()) __builtin_trap();  // the ioctl and the validator must agree
  if (created) return 0;

  ethosu_accel_job job{};
  job.cmd_bo = c.handle;
  for (unsigned r = 0; r < 8; ++r) {
    const uint64_t need = info->region_size_bytes[r];
    if (need == 0) continue;
    if (r == ETHOSU_ACCEL_SRAM_REGION && need <= npu.sram_size_bytes()) continue;
    if (need > kMaxRegionBytes) return 0;
    ethosu_accel_bo_create b{};
    b.size = need;
    if (file.ioctl(ETHOSU_ACCEL_IOCTL_BO_CREATE, &b)) __builtin_trap();
    ethosu_accel_bo_mmap_offset m{};
    m.handle = b.handle;
    if (file.ioctl(ETHOSU_ACCEL_IOCTL_BO_MMAP_OFFSET, &m)) __builtin_trap();
    const intptr_t mapped = file.map(nullptr, b.size, PROT_READ | PROT_WRITE, MAP_SHARED, m.offset);
    if (mapped < 0) __builtin_trap();
    void* p = reinterpret_cast<void*>(mapped);
    auto* bytes = static_cast<uint8_t*>(p);
    for (uint64_t i = 0; i < b.size; ++i) bytes[i] = static_cast<uint8_t>(i * 31 + 7 + r * 17);
    munmap(p, b.size);
    job.region_bo_handles[r] = b.handle;
  }
  ethosu_accel_submit s{};
  s.jobs = reinterpret_cast<uintptr_t>(&job);
  s.job_count = 1;
  // With every region sized to the stream's reach the kernel's checks pass: the job must run.
  if (file.ioctl(ETHOSU_ACCEL_IOCTL_SUBMIT, &s)) __builtin_trap();
  ethosu_accel_bo_wait w{};
  w.handle = job.cmd_bo;
  if (file.ioctl(ETHOSU_ACCEL_IOCTL_BO_WAIT, &w)) __builtin_trap();
  return 0;
}
