#include "host/backends/common/libc.h"

#include <dlfcn.h>

namespace ethosu::interpose {

namespace {

template <typename F>
void look_up(F& next, const char* name) {
  next = reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

Libc look_up_all() {
  Libc c{};
  look_up(c.open, "open");
  look_up(c.open64, "open64");
  look_up(c.openat, "openat");
  look_up(c.openat64, "openat64");
  look_up(c.open_2, "__open_2");
  look_up(c.open64_2, "__open64_2");
  look_up(c.openat_2, "__openat_2");
  look_up(c.openat64_2, "__openat64_2");
  look_up(c.close, "close");
  look_up(c.close_range, "close_range");
  look_up(c.dup, "dup");
  look_up(c.dup2, "dup2");
  look_up(c.dup3, "dup3");
  look_up(c.fcntl, "fcntl");
  look_up(c.fcntl64, "fcntl64");
  look_up(c.ioctl, "ioctl");
  look_up(c.mmap, "mmap");
  look_up(c.mmap64, "mmap64");
  look_up(c.munmap, "munmap");
  look_up(c.read, "read");
  look_up(c.write, "write");
  look_up(c.fopen, "fopen");
  look_up(c.fopen64, "fopen64");
  look_up(c.fstat, "fstat");
  look_up(c.fstat64, "fstat64");
  look_up(c.stat, "stat");
  look_up(c.stat64, "stat64");
  look_up(c.lstat, "lstat");
  look_up(c.lstat64, "lstat64");
  look_up(c.fstatat, "fstatat");
  look_up(c.fstatat64, "fstatat64");
  look_up(c.statx, "statx");
  look_up(c.access, "access");
  look_up(c.faccessat, "faccessat");
  look_up(c.readlink, "readlink");
  look_up(c.readlinkat, "readlinkat");
  look_up(c.opendir, "opendir");
  look_up(c.readdir, "readdir");
  look_up(c.readdir64, "readdir64");
  look_up(c.rewinddir, "rewinddir");
  look_up(c.closedir, "closedir");
  look_up(c.dirfd, "dirfd");
  return c;
}

}  // namespace

const Libc& libc() {
  static const Libc table = look_up_all();
  return table;
}

}  // namespace ethosu::interpose
