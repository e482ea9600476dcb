// The entry points every shim interposes (interposer.h): open() in all its forms, close(), ioctl(), mmap().
#undef _FORTIFY_SOURCE  // its inline open() wrappers would clash with the definitions of open() here
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdarg>
#include <type_traits>

#include "host/backends/common/dispatch.h"

using namespace ethosu::interpose;

namespace {

// mmap64() goes as mmap(): one offset type on the 64-bit ABIs the shims run on.
static_assert(std::is_same_v<off_t, off64_t>);

// open*(): the shim answers for a path it claims; any other goes on, and the shim hears of the descriptor.
template <typename PassOn>
int open_path(int dirfd, const char* path, int flags, PassOn pass_on) {
  return ask_about_path(
      dirfd, path, [&] { return interposer().open(dirfd, path, flags); },
      [&] {
        const int fd = pass_on();
        if (fd >= 0) notify([&] { interposer().opened(path, fd); });
        return fd;
      });
}

template <typename PassOn>
void* map(void* addr, size_t length, int prot, int flags, int fd, off_t offset, PassOn pass_on) {
  if (flags & MAP_ANONYMOUS) return pass_on();
  return ask_or_pass_on([&] { return interposer().mmap(addr, length, prot, flags, fd, offset); }, pass_on);
}

}  // namespace

extern "C" {

int open(const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  const mode_t mode = mode_argument(flags, args);
  va_end(args);
  return open_path(AT_FDCWD, path, flags, [&] { return libc().open(path, flags, mode); });
}

int open64(const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  const mode_t mode = mode_argument(flags, args);
  va_end(args);
  return open_path(AT_FDCWD, path, flags, [&] { return libc().open64(path, flags, mode); });
}

int openat(int dirfd, const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  const mode_t mode = mode_argument(flags, args);
  va_end(args);
  return open_path(dirfd, path, flags, [&] { return libc().openat(dirfd, path, flags, mode); });
}

int openat64(int dirfd, const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  const mode_t mode = mode_argument(flags, args);
  va_end(args);
  return open_path(dirfd, path, flags, [&] { return libc().openat64(dirfd, path, flags, mode); });
}

// What _FORTIFY_SOURCE builds call for an open without a mode.
int __open_2(const char* path, int flags) {
  return open_path(AT_FDCWD, path, flags, [&] { return libc().open_2(path, flags); });
}

int __open64_2(const char* path, int flags) {
  return open_path(AT_FDCWD, path, flags, [&] { return libc().open64_2(path, flags); });
}

int __openat_2(int dirfd, const char* path, int flags) {
  return open_path(dirfd, path, flags, [&] { return libc().openat_2(dirfd, path, flags); });
}

int __openat64_2(int dirfd, const char* path, int flags) {
  return open_path(dirfd, path, flags, [&] { return libc().openat64_2(dirfd, path, flags); });
}

int close(int fd) {
  notify([&] { interposer().closing(fd); });
  return libc().close(fd);
}

// The argument is passed on as the pointer-sized value it was read as (int and pointer arguments travel alike in
// registers on the LP64 ABIs this runs on).
int ioctl(int fd, unsigned long request, ...) noexcept {
  va_list args;
  va_start(args, request);
  void* arg = va_arg(args, void*);
  va_end(args);
  return ask_or_pass_on([&] { return interposer().ioctl(fd, request, arg); },
                        [&] { return libc().ioctl(fd, request, arg); });
}

void* mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) noexcept {
  return map(addr, length, prot, flags, fd, offset, [&] { return libc().mmap(addr, length, prot, flags, fd, offset); });
}

void* mmap64(void* addr, size_t length, int prot, int flags, int fd, off64_t offset) noexcept {
  return map(addr, length, prot, flags, fd, offset,
             [&] { return libc().mmap64(addr, length, prot, flags, fd, offset); });
}

}  // extern "C"
