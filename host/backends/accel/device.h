// The emulated /dev/accel/accel0: the Linux accel/ethosu driver's user interface in front of the simulator.
//
// Contract: Device is the NPU and what the kernel keeps for it process-wide (identity registers, the on-chip
// SRAM, the global perfmon, mmap offsets); DeviceFile is one open() of the device node with its own BO
// handles and perfmons, as a drm_file (dup()'d descriptors share one). DeviceFile::ioctl() takes any request
// number and argument pointer a client passes and returns 0 or -errno with the kernel's values (spec 06
// section 4; ethosu_accel_uapi.h): arguments are copied in and out like drm_ioctl() does (by the size encoded in
// the request, zero-extended), user pointers inside arguments go through user_memory.h. SUBMIT checks each job
// as the kernel does and runs it on the simulator (timed by default, functional with ETHOSU_SIM_FUNCTIONAL=1)
// before it returns; BO_WAIT waits for jobs other threads are running on the BO.
//
// Thread safety: every DeviceFile call may come from any thread. A file's handles and perfmons are guarded by
// the file's own mutex, held only while they are read or changed, never while a job runs; jobs run one at a
// time on the NPU (the device's NPU mutex, which nothing else takes), so a thread's ioctl on another file, or
// on the same file, never waits for someone else's job except SUBMIT (the NPU is busy) and BO_WAIT (by intent).
// BO memory is anonymous shared memory: it takes no descriptor of the client's, and mmap() of a BO maps the same
// pages again (mremap with old size 0). A BO stays alive while a job uses it, even after GEM_CLOSE.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "host/backends/accel/cmdstream.h"
#include "host/backends/accel/ethosu_accel_uapi.h"
#include "host/backends/shim_env.h"
#include "host/run/run_job.h"
#include "isa/validator.h"
#include "models/platform/platform.h"
#include "sim/config.h"

namespace ethosu::accel {

// Host memory of a BO: page-rounded anonymous shared memory, mapped here; the client maps the same pages through
// mmap() of the device at the BO's fake offset.
struct BufferObject {
  BufferObject(uint64_t size_bytes, uint32_t flags, uint64_t mmap_offset);  // throws std::bad_alloc
  ~BufferObject();
  BufferObject(const BufferObject&) = delete;
  BufferObject& operator=(const BufferObject&) = delete;

  uint64_t size_bytes = 0;
  uint32_t flags = 0;
  uint64_t mmap_offset = 0;
  uint8_t* data = nullptr;
  std::optional<ValidatedStream> stream;  // command-stream BOs
  unsigned running_jobs = 0;              // guarded by Device's busy mutex
};
using BufferPtr = std::shared_ptr<BufferObject>;

struct Perfmon {
  std::vector<uint16_t> events;  // raw hardware event ids
  std::mutex mutex;              // guards values (jobs of any file add to a global perfmon)
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

  // Runs a checked job on the NPU, after any job running already: region BOs (null where none), the SRAM for
  // region 2 when `sram` is set; adds the PMU counts to `perfmon` (if any). Copies the results back into the BOs.
  // With ETHOSU_SIM_CAPTURE set, writes the submission and its results as a capture (host/recording/capture.h, source
  // "linux-accel"). While it runs, BO_WAIT on the region BOs waits.
  void run(const ValidatedStream& stream, const std::array<BufferPtr, 8>& regions, bool sram,
           const std::shared_ptr<Perfmon>& perfmon);

  // BO_WAIT: waits until no job uses `bo`, until `deadline` (CLOCK_MONOTONIC). False when jobs still run.
  bool wait_idle(BufferObject& bo, const timespec& deadline);

  // The global perfmon (PERFMON_SET_GLOBAL) and the file that set it.
  std::shared_ptr<Perfmon> global_perfmon() const;
  int set_global_perfmon(const std::shared_ptr<Perfmon>& perfmon, const void* owner);  // 0 or -EBUSY
  int clear_global_perfmon();                                                           // 0 or -EINVAL
  void drop_global_perfmon(const Perfmon* perfmon, const void* owner);  // when destroyed or its file closes

  // fork() with the device open: the parent holds the device's locks across the fork, so the child's copies are
  // consistent and unlocked; the child forgets the global perfmon, which belongs to a file it cannot use.
  void before_fork();
  void after_fork_in_parent();
  void after_fork_in_child();

 private:
  host::ShimSettings settings_;
  isa::Variant variant_;
  std::string variant_name_;
  sim::Config config_;
  host::RunOptions run_options_;  // every job's, but for its PMU events
  uint32_t sram_size_bytes_ = 0;
  std::atomic<uint64_t> next_mmap_offset_;
  std::mutex npu_mutex_;  // one job at a time, as on the NPU; held only by a running job
  uint64_t jobs_ = 0;     // guarded by npu_mutex_
  mutable std::mutex state_mutex_;  // the global perfmon
  std::shared_ptr<Perfmon> global_perfmon_;
  const void* global_perfmon_owner_ = nullptr;
  std::mutex busy_mutex_;  // BufferObject::running_jobs
  std::condition_variable busy_cv_;
};

class DeviceFile {
 public:
  explicit DeviceFile(Device& device);
  ~DeviceFile();
  DeviceFile(const DeviceFile&) = delete;
  DeviceFile& operator=(const DeviceFile&) = delete;

  // 0 or -errno.
  int ioctl(unsigned long request, void* arg);
  // mmap() of the device at `offset`: maps the BO's pages for the client (at `addr` with MAP_FIXED) and returns
  // the address, or -errno as the kernel answers (EINVAL: no BO at that offset, a NO_MMAP BO, longer than the BO).
  intptr_t map(void* addr, uint64_t length, int prot, int flags, uint64_t offset);

 private:
  using Lock = std::unique_lock<std::mutex>;
  int dispatch(unsigned nr, void* arg, Lock& lock);
  int version(void* arg);
  int gem_close(void* arg);
  int get_cap(void* arg);
  int dev_query(void* arg);
  int bo_create(void* arg);
  int bo_wait(void* arg, Lock& lock);
  int bo_mmap_offset(void* arg);
  int cmdstream_bo_create(void* arg, Lock& lock);
  int submit(void* arg, Lock& lock);
  int submit_job(const struct ethosu_accel_job& job, const std::shared_ptr<Perfmon>& perfmon, Lock& lock);
  int perfmon_create(void* arg);
  int perfmon_destroy(void* arg);
  int perfmon_get_values(void* arg);
  int perfmon_set_global(void* arg);

  BufferPtr lookup(uint32_t handle) const;
  uint32_t add_bo(BufferPtr bo);

  Device& device_;
  std::mutex mutex_;  // bos_ and perfmons_
  std::map<uint32_t, BufferPtr> bos_;
  std::map<uint32_t, std::shared_ptr<Perfmon>> perfmons_;
};

}  // namespace ethosu::accel
