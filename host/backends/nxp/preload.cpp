// libethosu-sim-nxp.so: LD_PRELOAD it and an unmodified client of NXP's /dev/ethosu0 (libethosu, the TFLite
// ethos-u delegate, inference_runner) talks to the simulator instead of the kernel driver.
//
// Contract: open()/openat() (and their 64-bit and _FORTIFY_SOURCE forms) of exactly "/dev/ethosu0" return a
// device fd of nxp::Driver; ioctl(), mmap(), read(), write() and close() on the fds the driver handed out go to
// it; every other call goes to the next definition (libc) unchanged. poll/ppoll/select work natively on the
// driver's real fds (eventfds and memfds), so they are not intercepted. dup()'d copies of the driver's fds are
// not recognised.
#undef _FORTIFY_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstring>

#include "host/backends/nxp/nxp_driver.h"

namespace {

using ethosu::nxp::Driver;

constexpr const char* kDevicePath = "/dev/ethosu0";

template <class F>
F next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

// The result of a driver call in the libc convention.
long libc_result(long r) {
  if (r >= 0) return r;
  errno = static_cast<int>(-r);
  return -1;
}

bool is_device(int dirfd, const char* path) {
  return path && std::strcmp(path, kDevicePath) == 0 && (dirfd == AT_FDCWD || path[0] == '/');
}

bool needs_mode(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }

int open_device(int flags) { return static_cast<int>(libc_result(Driver::instance().open_device(flags))); }

}  // namespace

extern "C" {

int open(const char* path, int flags, ...) {
  static const auto real = next<int (*)(const char*, int, ...)>("open");
  if (is_device(AT_FDCWD, path)) return open_device(flags);
  mode_t mode = 0;
  if (needs_mode(flags)) {
    va_list ap;
    va_start(ap, flags);
    mode = static_cast<mode_t>(va_arg(ap, int));
    va_end(ap);
  }
  return real(path, flags, mode);
}

int open64(const char* path, int flags, ...) {
  static const auto real = next<int (*)(const char*, int, ...)>("open64");
  if (is_device(AT_FDCWD, path)) return open_device(flags);
  mode_t mode = 0;
  if (needs_mode(flags)) {
    va_list ap;
    va_start(ap, flags);
    mode = static_cast<mode_t>(va_arg(ap, int));
    va_end(ap);
  }
  return real(path, flags, mode);
}

int openat(int dirfd, const char* path, int flags, ...) {
  static const auto real = next<int (*)(int, const char*, int, ...)>("openat");
  if (is_device(dirfd, path)) return open_device(flags);
  mode_t mode = 0;
  if (needs_mode(flags)) {
    va_list ap;
    va_start(ap, flags);
    mode = static_cast<mode_t>(va_arg(ap, int));
    va_end(ap);
  }
  return real(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char* path, int flags, ...) {
  static const auto real = next<int (*)(int, const char*, int, ...)>("openat64");
  if (is_device(dirfd, path)) return open_device(flags);
  mode_t mode = 0;
  if (needs_mode(flags)) {
    va_list ap;
    va_start(ap, flags);
    mode = static_cast<mode_t>(va_arg(ap, int));
    va_end(ap);
  }
  return real(dirfd, path, flags, mode);
}

// The forms _FORTIFY_SOURCE builds call.
int __open_2(const char* path, int flags) {
  static const auto real = next<int (*)(const char*, int)>("__open_2");
  return is_device(AT_FDCWD, path) ? open_device(flags) : real(path, flags);
}

int __open64_2(const char* path, int flags) {
  static const auto real = next<int (*)(const char*, int)>("__open64_2");
  return is_device(AT_FDCWD, path) ? open_device(flags) : real(path, flags);
}

int __openat_2(int dirfd, const char* path, int flags) {
  static const auto real = next<int (*)(int, const char*, int)>("__openat_2");
  return is_device(dirfd, path) ? open_device(flags) : real(dirfd, path, flags);
}

int __openat64_2(int dirfd, const char* path, int flags) {
  static const auto real = next<int (*)(int, const char*, int)>("__openat64_2");
  return is_device(dirfd, path) ? open_device(flags) : real(dirfd, path, flags);
}

int close(int fd) {
  static const auto real = next<int (*)(int)>("close");
  if (Driver::owns(fd)) Driver::instance().forget(fd);
  return real(fd);
}

int ioctl(int fd, unsigned long request, ...) noexcept {
  static const auto real = next<int (*)(int, unsigned long, ...)>("ioctl");
  va_list ap;
  va_start(ap, request);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  if (Driver::owns(fd)) return static_cast<int>(libc_result(Driver::instance().ioctl(fd, request, arg)));
  return real(fd, request, arg);
}

void* mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) noexcept {
  static const auto real = next<void* (*)(void*, size_t, int, int, int, off_t)>("mmap");
  if (!(flags & MAP_ANONYMOUS) && Driver::owns(fd)) {
    const int r = Driver::instance().check_mmap(fd, length, offset);
    if (r < 0) {
      errno = -r;
      return MAP_FAILED;
    }
  }
  return real(addr, length, prot, flags, fd, offset);
}

void* mmap64(void* addr, size_t length, int prot, int flags, int fd, off64_t offset) noexcept {
  static const auto real = next<void* (*)(void*, size_t, int, int, int, off64_t)>("mmap64");
  if (!(flags & MAP_ANONYMOUS) && Driver::owns(fd)) {
    const int r = Driver::instance().check_mmap(fd, length, static_cast<off_t>(offset));
    if (r < 0) {
      errno = -r;
      return MAP_FAILED;
    }
  }
  return real(addr, length, prot, flags, fd, offset);
}

// The driver's files have no read or write operation (the kernel answers EINVAL); passing these through would
// also let a read consume an inference's completion.
ssize_t read(int fd, void* buf, size_t count) {
  static const auto real = next<ssize_t (*)(int, void*, size_t)>("read");
  if (Driver::owns(fd)) {
    errno = EINVAL;
    return -1;
  }
  return real(fd, buf, count);
}

ssize_t write(int fd, const void* buf, size_t count) {
  static const auto real = next<ssize_t (*)(int, const void*, size_t)>("write");
  if (Driver::owns(fd)) {
    errno = EINVAL;
    return -1;
  }
  return real(fd, buf, count);
}

}  // extern "C"
