// libethosu-sim-accel.so: LD_PRELOAD interposer that makes /dev/accel/accel0 an emulated Ethos-U65 behind the
// Linux accel/ethosu interface (device.h), the way Mesa's drm-shim fakes GPUs.
//
// Opening exactly "/dev/accel/accel0" (open, open64, openat, openat64 and glibc's fortified __open*_2) returns a
// real descriptor (a memfd, so poll/close/dup-free bookkeeping work) tied to a fresh DeviceFile; ioctl() and
// mmap() on such a descriptor go to the emulation, close() drops the file's handles (mappings stay valid, as
// in the kernel). Every other path and descriptor goes straight to the next definition (dlsym RTLD_NEXT).
// A bad ETHOSU_SIM_* setting makes the open fail with EINVAL after a message on stderr naming the variable.
// Not emulated: stat() of the node, dup() of the descriptor, fork() sharing, PRIME export/import.
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>

#include "host/backends/accel/device.h"
#include "host/backends/shim_env.h"

namespace {

constexpr const char* kNode = "/dev/accel/accel0";

template <typename F>
F next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

struct Shim {
  // The descriptor table and every device call (SystemC is one simulation per process). Recursive: the
  // emulation's own mmap() and close() of BO memory come back through the interposed functions.
  std::recursive_mutex mutex;
  std::unique_ptr<ethosu::accel::Device> device;
  std::map<int, std::unique_ptr<ethosu::accel::DeviceFile>> files;
};

Shim& shim() {
  static Shim* s = new Shim;  // never destroyed: clients may close descriptors from atexit handlers
  return *s;
}

bool is_node(const char* path) { return path && std::strcmp(path, kNode) == 0; }

bool has_mode(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }

int open_device(int flags) {
  Shim& s = shim();
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  try {
    if (!s.device) {
      // SystemC prints its banner on stdout at elaboration; a driver's client owns stdout.
      setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
      s.device = std::make_unique<ethosu::accel::Device>(ethosu::host::shim_settings());
    }
  } catch (const std::exception& e) {
    std::cerr << "ethosu-sim accel: " << kNode << ": " << e.what() << "\n";
    errno = EINVAL;
    return -1;
  }
  const int fd = memfd_create("ethosu-sim-accel0", (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
  if (fd < 0) return -1;
  s.files[fd] = std::make_unique<ethosu::accel::DeviceFile>(*s.device);
  return fd;
}

ethosu::accel::DeviceFile* device_file(int fd) {
  const auto it = shim().files.find(fd);
  return it == shim().files.end() ? nullptr : it->second.get();
}

mode_t mode_arg(int flags, va_list ap) { return has_mode(flags) ? static_cast<mode_t>(va_arg(ap, int)) : 0; }

}  // namespace

extern "C" {

int open(const char* path, int flags, ...) {
  if (is_node(path)) return open_device(flags);
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  static const auto real = next<int (*)(const char*, int, ...)>("open");
  return real(path, flags, mode);
}

int open64(const char* path, int flags, ...) {
  if (is_node(path)) return open_device(flags);
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  static const auto real = next<int (*)(const char*, int, ...)>("open64");
  return real(path, flags, mode);
}

int openat(int dirfd, const char* path, int flags, ...) {
  if (is_node(path)) return open_device(flags);
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  static const auto real = next<int (*)(int, const char*, int, ...)>("openat");
  return real(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char* path, int flags, ...) {
  if (is_node(path)) return open_device(flags);
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  static const auto real = next<int (*)(int, const char*, int, ...)>("openat64");
  return real(dirfd, path, flags, mode);
}

// _FORTIFY_SOURCE builds call these for open() without a mode.
int __open_2(const char* path, int flags) {
  if (is_node(path)) return open_device(flags);
  static const auto real = next<int (*)(const char*, int)>("__open_2");
  return real(path, flags);
}

int __open64_2(const char* path, int flags) {
  if (is_node(path)) return open_device(flags);
  static const auto real = next<int (*)(const char*, int)>("__open64_2");
  return real(path, flags);
}

int __openat_2(int dirfd, const char* path, int flags) {
  if (is_node(path)) return open_device(flags);
  static const auto real = next<int (*)(int, const char*, int)>("__openat_2");
  return real(dirfd, path, flags);
}

int __openat64_2(int dirfd, const char* path, int flags) {
  if (is_node(path)) return open_device(flags);
  static const auto real = next<int (*)(int, const char*, int)>("__openat64_2");
  return real(dirfd, path, flags);
}

int close(int fd) {
  static const auto real = next<int (*)(int)>("close");
  {
    Shim& s = shim();
    std::lock_guard<std::recursive_mutex> lock(s.mutex);
    const auto it = s.files.find(fd);
    if (it != s.files.end()) {
      // Out of the table before its BOs close their own descriptors.
      const std::unique_ptr<ethosu::accel::DeviceFile> dropped = std::move(it->second);
      s.files.erase(it);
    }
  }
  return real(fd);
}

int ioctl(int fd, unsigned long request, ...) {
  va_list ap;
  va_start(ap, request);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  {
    Shim& s = shim();
    std::lock_guard<std::recursive_mutex> lock(s.mutex);
    if (ethosu::accel::DeviceFile* f = device_file(fd)) {
      int ret;
      try {
        ret = f->ioctl(request, arg);
      } catch (const std::exception& e) {
        // A defect of the shim, not of the client's request: report it rather than terminate the client.
        std::cerr << "ethosu-sim accel: ioctl " << std::hex << request << std::dec << ": internal error: " << e.what()
                  << "\n";
        ret = -EIO;
      }
      if (ret == 0) return 0;
      errno = -ret;
      return -1;
    }
  }
  static const auto real = next<int (*)(int, unsigned long, ...)>("ioctl");
  return real(fd, request, arg);
}

void* mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
  static const auto real = next<void* (*)(void*, size_t, int, int, int, off_t)>("mmap");
  {
    Shim& s = shim();
    std::lock_guard<std::recursive_mutex> lock(s.mutex);
    if (ethosu::accel::DeviceFile* f = device_file(fd)) {
      const int memfd = f->mmap_fd(static_cast<uint64_t>(offset), length);
      if (memfd < 0) {
        errno = -memfd;
        return MAP_FAILED;
      }
      return real(addr, length, prot, flags, memfd, 0);
    }
  }
  return real(addr, length, prot, flags, fd, offset);
}

void* mmap64(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
  return mmap(addr, length, prot, flags, fd, offset);
}

}  // extern "C"
