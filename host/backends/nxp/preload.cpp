// libethosu-sim-nxp.so: LD_PRELOAD it and an unmodified client of NXP's /dev/ethosu0 (libethosu, the TFLite
// ethos-u delegate, inference_runner) talks to the simulator instead of the kernel driver.
//
// Contract: open()/openat() (and their 64-bit and _FORTIFY_SOURCE forms) of exactly "/dev/ethosu0" return a
// device fd of nxp::Driver; ioctl(), mmap(), read(), write() and close() on the fds the driver handed out go to
// it; every other call goes to the next definition (libc) unchanged, as host/backends/common/interposer.h says.
// poll/ppoll/select work natively on the driver's real fds (eventfds and memfds), so they are not intercepted.
// dup()'d copies of the driver's fds are not recognised.
#include <sys/mman.h>

#include <cerrno>
#include <cstring>

#include "host/backends/common/interposer.h"
#include "host/backends/nxp/nxp_driver.h"

namespace {

using ethosu::nxp::Driver;

constexpr const char* kDevicePath = "/dev/ethosu0";

// The result of a driver call in the libc convention.
long libc_result(long r) {
  if (r >= 0) return r;
  errno = static_cast<int>(-r);
  return -1;
}

// Driver::owns() is lock-free: every descriptor of the process is asked about.
class NxpInterposer final : public ethosu::interpose::Interposer {
 public:
  // An absolute path, whatever the directory descriptor.
  bool claims_path(int, const char* path) override { return path && std::strcmp(path, kDevicePath) == 0; }

  std::optional<int> open(int, const char*, int flags) override {
    return static_cast<int>(libc_result(Driver::instance().open_device(flags)));
  }

  void closing(int fd) override {
    if (Driver::owns(fd)) Driver::instance().forget(fd);
  }

  std::optional<int> ioctl(int fd, unsigned long request, void* arg) override {
    if (!Driver::owns(fd)) return std::nullopt;
    return static_cast<int>(libc_result(Driver::instance().ioctl(fd, request, arg)));
  }

  // The kernel's checks; a mapping they allow is made by the next definition, of the real descriptor (a memfd).
  std::optional<void*> mmap(void*, size_t length, int, int, int fd, off_t offset) override {
    if (!Driver::owns(fd)) return std::nullopt;
    const int r = Driver::instance().check_mmap(fd, length, offset);
    if (r >= 0) return std::nullopt;
    errno = -r;
    return MAP_FAILED;
  }

  // The driver's files have no read or write operation (the kernel answers EINVAL); passing these through would
  // also let a read consume an inference's completion.
  std::optional<ssize_t> read(int fd, void*, size_t) override { return refused(fd); }
  std::optional<ssize_t> write(int fd, const void*, size_t) override { return refused(fd); }

 private:
  static std::optional<ssize_t> refused(int fd) {
    if (!Driver::owns(fd)) return std::nullopt;
    errno = EINVAL;
    return -1;
  }
};

}  // namespace

// Stateless (the driver keeps its own), so never destroyed.
ethosu::interpose::Interposer& ethosu::interpose::interposer() {
  static NxpInterposer shim;
  return shim;
}
