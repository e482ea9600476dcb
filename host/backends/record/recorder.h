// libethosu-record.so: records what a client submits to a real Ethos-U driver and what the hardware answers, one
// capture per job (host/recording/capture.h, recorded_on "hardware"), while passing every call through unchanged.
//
// Contract: the interposed functions (preload.cpp) hand every call to the next definition (the kernel driver
// through libc, or a driver shim preloaded after this library) with the client's own arguments, and return its
// result and errno untouched. With ETHOSU_RECORD_DIR unset or empty nothing else happens. Otherwise the
// recorders below watch the driver's descriptors: AccelRecorder for the Linux accel/ethosu driver
// (/dev/accel/accelN whose DRM driver is "ethosu"), NxpRecorder for NXP's /dev/ethosuN. They read buffers only
// through mappings of their own (no copies in memory beyond a command stream or a network's bytes) and write
// each buffer straight into the capture folder, ROOT/NNNN-linux-accel or ROOT/NNNN-nxp-ethosu. Their own driver
// calls (BO_MMAP_OFFSET, DEV_QUERY, BO_WAIT, PERFMON_*, BUFFER_GET, CAPABILITIES_REQ, INFERENCE_STATUS) read and
// wait, and change nothing a client sees, except that the recorder's own perfmon (ETHOSU_RECORD_PMU) takes a
// perfmon id. A recording that fails (a full disk, an unknown buffer) is reported once per job on stderr and
// dropped, as is a job whose buffers exceed kMaxRecordedJobBytes; the client's call is never affected.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "host/backends/common/libc.h"
#include "isa/architecture.h"

namespace ethosu::record {

// The most buffer bytes one job's recording may write (before and after): a larger job is not recorded (a
// warning says so), so that a client's huge buffers never fill the disk.
inline constexpr uint64_t kMaxRecordedJobBytes = uint64_t{2} << 30;

// The next definitions (the kernel driver through libc, or a driver shim preloaded after this library), by which
// the recorders make their own calls and pass the client's on.
using interpose::libc;

// What the environment asks for, read once.
struct Settings {
  std::filesystem::path root;            // ETHOSU_RECORD_DIR; empty: inert
  std::vector<std::string> own_pmu;      // ETHOSU_RECORD_PMU: event names or ids, resolved for the NPU recorded
  bool verbose = false;                  // ETHOSU_RECORD_VERBOSE=1: one line per recorded job on stderr
};
const Settings& settings();
// ETHOSU_RECORD_PMU as hardware event ids of `variant`'s PMU; empty (and a warning) when one is none of its events or
// there are more than its event counters.
std::vector<uint16_t> own_pmu_events(isa::Variant variant);
inline bool enabled() { return !settings().root.empty(); }

// The recorders' lock: their tables and every recording step. The client's own blocking calls are passed on
// without it.
std::recursive_mutex& lock();

// A read-only mapping of a driver buffer made for the recorder, unmapped when it goes.
class Mapping {
 public:
  Mapping() = default;
  Mapping(int fd, off_t offset, size_t size_bytes);  // data() is null when the driver refuses the mapping
  ~Mapping();
  Mapping(Mapping&& o) noexcept;
  Mapping& operator=(Mapping&& o) noexcept;
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  const uint8_t* data() const { return static_cast<const uint8_t*>(p_); }
  size_t size() const { return size_; }

 private:
  void* p_ = nullptr;
  size_t size_ = 0;
};

uint64_t monotonic_ns();
// Reads the client's memory as the kernel's copy_from_user() does: a bad pointer is a failure, not a crash.
bool read_user(void* dst, const void* src, size_t size_bytes);
inline bool read_user(void* dst, uint64_t src, size_t size_bytes) {
  return read_user(dst, reinterpret_cast<const void*>(static_cast<uintptr_t>(src)), size_bytes);
}
// One message on stderr, prefixed "ethosu-record: ".
void warn(const std::string& message);

class AccelRecorder {
 public:
  static AccelRecorder& instance();
  // After the client's open() of `path` returned fd: starts watching it when it is an ethosu accel node.
  void opened(const char* path, int fd);
  bool watches(int fd) const;
  // The client's ioctl on a watched descriptor, passed on by the recorder.
  int ioctl(int fd, unsigned long request, void* arg);
  // The client maps a BO: a job that uses it is finished first, so that its results are recorded.
  void before_mmap(int fd);
  // dup2()/dup3() is about to replace `fd`: what depends on the file it names is recorded while it still does.
  void replacing(int fd);
  void duplicated(int from, int to);
  void closing(int fd);
  void finish_all();  // at exit and before a fork
  void forget_all();  // a fork child: the parent's jobs are not the child's

 private:
  AccelRecorder() = default;
  int submit(int fd, unsigned long request, void* arg);
  struct State;
  State& s();
};

class NxpRecorder {
 public:
  static NxpRecorder& instance();
  void opened(const char* path, int fd);
  bool watches(int fd) const;
  long ioctl(int fd, unsigned long request, void* arg);
  void replacing(int fd);
  void duplicated(int from, int to);
  void closing(int fd);
  void finish_all();
  void forget_all();

 private:
  NxpRecorder() = default;
  struct State;
  State& s();
};

}  // namespace ethosu::record
