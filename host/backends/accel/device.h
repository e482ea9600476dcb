// The emulated /dev/accel/accel0: the Linux accel/ethosu driver's user interface in front of the simulator.
//
// Contract: Device is the NPU and what the kernel keeps for it process-wide (identity registers, the on-chip
// SRAM, the global perfmon, mmap offsets); DeviceFile is one open() of the device node with its own BO
// handles and perfmons, as a drm_file. DeviceFile::ioctl() takes any request number and argument pointer a
// client passes and returns 0 or -errno with the kernel's values (spec 06 section 4; ethosu_accel_uapi.h):
// arguments are copied in and out like drm_ioctl() does (by the size encoded in the request, zero-extended),
// user pointers inside arguments go through user_memory.h. SUBMIT checks each job as the kernel does and runs
// it at once on the simulator (timed by default, functional with ETHOSU_SIM_FUNCTIONAL=1), so BO_WAIT never
// waits. A job that faults is logged on stderr like the kernel's "Error IRQ" line and otherwise completes
// (the kernel resets the NPU and signals the fence; user space sees no error). Not thread-safe: the caller
// serialises every call (preload.cpp holds one process-wide mutex; SystemC runs one simulation per process).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "host/backends/accel/cmdstream.h"
#include "host/backends/accel/ethosu_accel_uapi.h"
#include "host/backends/shim_env.h"
#include "isa/validator.h"
#include "models/platform/platform.h"
#include "sim/config.h"

namespace ethosu::accel {

// Host memory of a BO: a memfd of the page-rounded size, mapped here and mappable by the client through
// mmap() of the device at the BO's fake offset.
struct BufferObject {
  BufferObject(uint64_t size_bytes, uint32_t flags, uint64_t mmap_offset);
  ~BufferObject();
  BufferObject(const BufferObject&) = delete;
  BufferObject& operator=(const BufferObject&) = delete;

  uint64_t size_bytes = 0;
  uint32_t flags = 0;
  uint64_t mmap_offset = 0;
  int memfd = -1;
  uint8_t* data = nullptr;
  std::optional<ValidatedStream> stream;  // command-stream BOs
};

struct Perfmon {
  std::vector<uint16_t> events;  // raw hardware event ids
  std::vector<uint64_t> values;  // events.size() + 1: the cycle counter last
};

class Device {
 public:
  explicit Device(const host::ShimSettings& settings);

  uint32_t sram_size_bytes() const { return sram_size_bytes_; }
  isa::Variant variant() const { return variant_; }
  const host::ShimSettings& settings() const { return settings_; }

  // The kernel's npu_info: ID, CONFIG, SRAM size, PMU event counters.
  std::array<uint32_t, 4> npu_info() const;
  uint64_t allocate_mmap_offset(uint64_t size_bytes);

  // Runs a checked job: region BOs (null where none), the SRAM for region 2 when `sram` is set; adds the PMU
  // counts to `perfmon` (if any). Copies the results back into the BOs. With ETHOSU_SIM_CAPTURE set, writes
  // the submission and its results as a capture (host/capture.h, source "linux-accel").
  void run(const ValidatedStream& stream, const std::array<BufferObject*, 8>& regions, bool sram, Perfmon* perfmon);

  std::shared_ptr<Perfmon> global_perfmon;
  const void* global_perfmon_owner = nullptr;  // the DeviceFile that created it

 private:
  host::ShimSettings settings_;
  isa::Variant variant_;
  std::string variant_name_;
  sim::Config config_;
  platform::PlatformConfig platform_config_;
  uint32_t sram_size_bytes_ = 0;
  uint64_t next_mmap_offset_;
  uint64_t jobs_ = 0;
};

class DeviceFile {
 public:
  explicit DeviceFile(Device& device);
  ~DeviceFile();
  DeviceFile(const DeviceFile&) = delete;
  DeviceFile& operator=(const DeviceFile&) = delete;

  // 0 or -errno.
  int ioctl(unsigned long request, void* arg);
  // The memfd behind the BO mapped at `offset` for `length` bytes, or -errno (EINVAL: no such mapping or a
  // NO_MMAP BO).
  int mmap_fd(uint64_t offset, uint64_t length);

 private:
  int dispatch(unsigned nr, void* arg);
  int version(void* arg);
  int gem_close(void* arg);
  int get_cap(void* arg);
  int dev_query(void* arg);
  int bo_create(void* arg);
  int bo_wait(void* arg);
  int bo_mmap_offset(void* arg);
  int cmdstream_bo_create(void* arg);
  int submit(void* arg);
  int submit_job(const struct ethosu_accel_job& job, Perfmon* perfmon);
  int perfmon_create(void* arg);
  int perfmon_destroy(void* arg);
  int perfmon_get_values(void* arg);
  int perfmon_set_global(void* arg);

  BufferObject* lookup(uint32_t handle);
  uint32_t add_bo(std::unique_ptr<BufferObject> bo);

  Device& device_;
  std::map<uint32_t, std::unique_ptr<BufferObject>> bos_;
  std::map<uint32_t, std::shared_ptr<Perfmon>> perfmons_;
};

}  // namespace ethosu::accel
