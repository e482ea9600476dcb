// libethosu-sim-accel.so: LD_PRELOAD interposer that makes /dev/accel/accel0 an emulated Ethos-U65 behind the
// Linux accel/ethosu interface (device.h), the way Mesa's drm-shim fakes GPUs.
//
// Opening exactly "/dev/accel/accel0" (open, open64, openat, openat64 and glibc's fortified __open*_2) returns a
// real descriptor (a memfd, so poll, close-on-exec and kcmp() work natively) tied to a fresh DeviceFile. dup(),
// dup2(), dup3() and fcntl(F_DUPFD*) copies share that file, as copies of a kernel file do; the file goes when its
// last descriptor is closed. ioctl() and mmap() on any of them go to the emulation. What device discovery reads
// answers as on a board (node.h): stat/fstat/fstatat/statx/access of the node and /dev/accel, the /dev/accel
// directory listing, the node's sysfs entries (files, readlink). Every other path and descriptor goes straight
// to the next definition (dlsym RTLD_NEXT), and no lock is taken for them.
// A bad ETHOSU_SIM_* setting makes the open fail with EINVAL after a message on stderr naming the variable.
// fork(): the child's copies of the parent's device descriptors refuse every ioctl and mmap with EIO (one message
// on stderr); the child opens the device itself to use it. Not emulated: PRIME export/import.
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "host/backends/accel/device.h"
#include "host/backends/accel/node.h"
#include "host/backends/common/owned_fds.h"
#include "host/backends/shim_env.h"

namespace {

using ethosu::accel::DeviceFile;
namespace node = ethosu::accel::node;

template <typename F>
F next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

#define REAL(name, type) static const auto real = next<type>(name)

// One descriptor of the device: the file it shares with its copies, the process that opened it and the memfd's
// inode, which tells a stale entry (the number closed behind the shim's back, by close_range() or a raw syscall,
// and reused) from ours.
struct Entry {
  std::shared_ptr<DeviceFile> file;
  pid_t owner = 0;
  ino_t ino = 0;
};

struct Shim {
  std::mutex mutex;  // the table and the device's creation; held only while they are read or changed
  std::unique_ptr<ethosu::accel::Device> device;
  std::unordered_map<int, Entry> table;
  ethosu::host::OwnedFds owned;
};

Shim& shim() {
  static Shim* s = new Shim;  // never destroyed: clients may close descriptors from atexit handlers
  return *s;
}

ino_t real_inode(int fd) {
  REAL("fstat", int (*)(int, struct stat*));
  struct stat st{};
  return real(fd, &st) == 0 ? st.st_ino : 0;
}

std::optional<Entry> lookup(int fd) {
  Shim& s = shim();
  if (!s.owned.contains(fd)) return std::nullopt;
  std::unique_lock<std::mutex> lock(s.mutex);
  const auto it = s.table.find(fd);
  if (it == s.table.end()) return std::nullopt;
  Entry e = it->second;
  lock.unlock();
  if (real_inode(fd) == e.ino) return e;
  lock.lock();
  s.table.erase(fd);
  s.owned.set(fd, false);
  return std::nullopt;
}

// Drops fd from the table. In a fork child the file is the parent's: it may be mid-call in a thread the child
// does not have, so it is left alone.
void forget(int fd) {
  Shim& s = shim();
  if (!s.owned.contains(fd)) return;
  std::shared_ptr<DeviceFile> dropped;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    const auto it = s.table.find(fd);
    if (it == s.table.end()) return;
    if (it->second.owner == getpid()) dropped = std::move(it->second.file);
    else new std::shared_ptr<DeviceFile>(std::move(it->second.file));
    s.table.erase(it);
    s.owned.set(fd, false);
  }
}

void add(int fd, Entry e) {
  Shim& s = shim();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.table[fd] = std::move(e);
  s.owned.set(fd, true);
}

// After a successful dup of `from` to `to`: `to` no longer names what it named before, and names ours if `from` did.
void duplicated(int from, int to) {
  if (to < 0 || to == from) return;
  forget(to);
  if (auto e = lookup(from)) add(to, *e);
}

// fcntl() by the real function; an F_DUPFD copy of ours is ours. The argument is passed on as the pointer-sized
// value it was read as (int and pointer arguments travel alike in registers on the LP64 ABIs this runs on).
int fcntl_through(int (*real)(int, int, ...), int fd, int cmd, void* arg) {
  const int r = real(fd, cmd, arg);
  if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)) duplicated(fd, r);
  return r;
}

void before_fork() {
  Shim& s = shim();
  s.mutex.lock();
  if (s.device) s.device->before_fork();
}

void after_fork_in_parent() {
  Shim& s = shim();
  if (s.device) s.device->after_fork_in_parent();
  s.mutex.unlock();
}

void after_fork_in_child() {
  Shim& s = shim();
  if (s.device) s.device->after_fork_in_child();
  s.mutex.unlock();
}

int open_device(int flags) {
  Shim& s = shim();
  std::unique_lock<std::mutex> lock(s.mutex);
  try {
    if (!s.device) {
      // SystemC prints its banner on stdout at elaboration; a driver's client owns stdout.
      setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
      s.device = std::make_unique<ethosu::accel::Device>(ethosu::host::shim_settings());
      pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
    }
  } catch (const std::exception& e) {
    std::cerr << "ethosu-sim accel: " << node::kPath << ": " << e.what() << "\n";
    errno = EINVAL;
    return -1;
  }
  ethosu::accel::Device& device = *s.device;
  lock.unlock();
  const int fd = memfd_create("ethosu-sim-accel0", (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
  if (fd < 0) return -1;
  add(fd, Entry{std::make_shared<DeviceFile>(device), getpid(), real_inode(fd)});
  return fd;
}

// The file behind fd for a call of this process, or null with errno set when a fork child uses its parent's.
DeviceFile* usable(const Entry& e) {
  if (e.owner == getpid()) return e.file.get();
  static std::atomic<bool> told{false};
  if (!told.exchange(true))
    std::cerr << "ethosu-sim accel: this process (" << getpid() << ") inherited " << node::kPath << " from process "
              << e.owner << " across fork(); the simulator cannot share it: open the device again in the child\n";
  errno = EIO;
  return nullptr;
}

mode_t mode_arg(int flags, va_list ap) {
  const bool has_mode = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
  return has_mode ? static_cast<mode_t>(va_arg(ap, int)) : 0;
}

// open() of a path the shim answers: the device node or one of its sysfs files (-1 with errno for a sysfs path
// that is not a file); -2 for any other path.
int open_emulated(int dirfd, const char* path, int flags) {
  if (!node::ours(dirfd, path)) return -2;
  if (node::is_node(path)) return open_device(flags);
  return node::open_sysfs(path, flags);
}

template <typename Stat>
int stat_emulated(const char* path, Stat* st, bool follow) {
  return node::stat_path(path, follow, [&](const struct stat& s) { node::copy_stat(s, st); });
}

}  // namespace

extern "C" {

int open(const char* path, int flags, ...) {
  const int fd = open_emulated(AT_FDCWD, path, flags);
  if (fd != -2) return fd;
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  REAL("open", int (*)(const char*, int, ...));
  return real(path, flags, mode);
}

int open64(const char* path, int flags, ...) {
  const int fd = open_emulated(AT_FDCWD, path, flags);
  if (fd != -2) return fd;
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  REAL("open64", int (*)(const char*, int, ...));
  return real(path, flags, mode);
}

int openat(int dirfd, const char* path, int flags, ...) {
  const int fd = open_emulated(dirfd, path, flags);
  if (fd != -2) return fd;
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  REAL("openat", int (*)(int, const char*, int, ...));
  return real(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char* path, int flags, ...) {
  const int fd = open_emulated(dirfd, path, flags);
  if (fd != -2) return fd;
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  REAL("openat64", int (*)(int, const char*, int, ...));
  return real(dirfd, path, flags, mode);
}

// _FORTIFY_SOURCE builds call these for open() without a mode.
int __open_2(const char* path, int flags) {
  const int fd = open_emulated(AT_FDCWD, path, flags);
  if (fd != -2) return fd;
  REAL("__open_2", int (*)(const char*, int));
  return real(path, flags);
}

int __open64_2(const char* path, int flags) {
  const int fd = open_emulated(AT_FDCWD, path, flags);
  if (fd != -2) return fd;
  REAL("__open64_2", int (*)(const char*, int));
  return real(path, flags);
}

int __openat_2(int dirfd, const char* path, int flags) {
  const int fd = open_emulated(dirfd, path, flags);
  if (fd != -2) return fd;
  REAL("__openat_2", int (*)(int, const char*, int));
  return real(dirfd, path, flags);
}

int __openat64_2(int dirfd, const char* path, int flags) {
  const int fd = open_emulated(dirfd, path, flags);
  if (fd != -2) return fd;
  REAL("__openat64_2", int (*)(int, const char*, int));
  return real(dirfd, path, flags);
}

// libdrm and Mesa read sysfs with stdio, whose open is internal to libc.
FILE* fopen(const char* path, const char* mode) {
  if (node::ours(AT_FDCWD, path) && !node::is_node(path)) {
    const int fd = node::open_sysfs(path, O_RDONLY);
    return fd < 0 ? nullptr : fdopen(fd, "r");
  }
  REAL("fopen", FILE* (*)(const char*, const char*));
  return real(path, mode);
}

FILE* fopen64(const char* path, const char* mode) {
  if (node::ours(AT_FDCWD, path) && !node::is_node(path)) return fopen(path, mode);
  REAL("fopen64", FILE* (*)(const char*, const char*));
  return real(path, mode);
}

int close(int fd) {
  forget(fd);
  REAL("close", int (*)(int));
  return real(fd);
}

int close_range(unsigned first, unsigned last, int flags) {
  REAL("close_range", int (*)(unsigned, unsigned, int));
  const int r = real(first, last, flags);
  if (r == 0 && !(flags & CLOSE_RANGE_CLOEXEC)) {
    Shim& s = shim();
    std::lock_guard<std::mutex> lock(s.mutex);
    for (auto it = s.table.begin(); it != s.table.end();) {
      const auto fd = static_cast<unsigned>(it->first);
      if (fd >= first && fd <= last) {
        if (it->second.owner != getpid()) new std::shared_ptr<DeviceFile>(std::move(it->second.file));
        it = s.table.erase(it);
      } else {
        ++it;
      }
    }
    s.owned.clear_range(first, last);
  }
  return r;
}

int dup(int fd) {
  REAL("dup", int (*)(int));
  const int r = real(fd);
  if (r >= 0) duplicated(fd, r);
  return r;
}

int dup2(int from, int to) {
  REAL("dup2", int (*)(int, int));
  const int r = real(from, to);
  if (r >= 0) duplicated(from, r);
  return r;
}

int dup3(int from, int to, int flags) {
  REAL("dup3", int (*)(int, int, int));
  const int r = real(from, to, flags);
  if (r >= 0) duplicated(from, r);
  return r;
}

// Mesa duplicates the device descriptor with fcntl(F_DUPFD_CLOEXEC) (os_dupfd_cloexec) when it creates a screen.
int fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  REAL("fcntl", int (*)(int, int, ...));
  return fcntl_through(real, fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  REAL("fcntl64", int (*)(int, int, ...));
  return fcntl_through(real, fd, cmd, arg);
}

int ioctl(int fd, unsigned long request, ...) {
  va_list ap;
  va_start(ap, request);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  if (const auto e = lookup(fd)) {
    DeviceFile* f = usable(*e);
    if (!f) return -1;
    int ret;
    try {
      ret = f->ioctl(request, arg);
    } catch (const std::exception& ex) {
      // A defect of the shim, not of the client's request: report it rather than terminate the client.
      std::cerr << "ethosu-sim accel: ioctl " << std::hex << request << std::dec << ": internal error: " << ex.what()
                << "\n";
      ret = -EIO;
    }
    if (ret == 0) return 0;
    errno = -ret;
    return -1;
  }
  REAL("ioctl", int (*)(int, unsigned long, ...));
  return real(fd, request, arg);
}

void* mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
  if (!(flags & MAP_ANONYMOUS)) {
    if (const auto e = lookup(fd)) {
      DeviceFile* f = usable(*e);
      if (!f) return MAP_FAILED;
      const intptr_t r = f->map(addr, length, prot, flags, static_cast<uint64_t>(offset));
      if (r < 0) {
        errno = static_cast<int>(-r);
        return MAP_FAILED;
      }
      return reinterpret_cast<void*>(r);
    }
  }
  REAL("mmap", void* (*)(void*, size_t, int, int, int, off_t));
  return real(addr, length, prot, flags, fd, offset);
}

void* mmap64(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
  return mmap(addr, length, prot, flags, fd, offset);
}

// ---- what device discovery reads: the node's status, /dev/accel, sysfs ----

int fstat(int fd, struct stat* st) {
  if (lookup(fd)) return node::stat_path(node::kPath, true, [&](const struct stat& s) { *st = s; });
  REAL("fstat", int (*)(int, struct stat*));
  return real(fd, st);
}

int fstat64(int fd, struct stat64* st) {
  if (lookup(fd)) return stat_emulated(node::kPath, st, true);
  REAL("fstat64", int (*)(int, struct stat64*));
  return real(fd, st);
}

int stat(const char* path, struct stat* st) {
  if (node::ours(AT_FDCWD, path)) return node::stat_path(path, true, [&](const struct stat& s) { *st = s; });
  REAL("stat", int (*)(const char*, struct stat*));
  return real(path, st);
}

int stat64(const char* path, struct stat64* st) {
  if (node::ours(AT_FDCWD, path)) return stat_emulated(path, st, true);
  REAL("stat64", int (*)(const char*, struct stat64*));
  return real(path, st);
}

int lstat(const char* path, struct stat* st) {
  if (node::ours(AT_FDCWD, path)) return node::stat_path(path, false, [&](const struct stat& s) { *st = s; });
  REAL("lstat", int (*)(const char*, struct stat*));
  return real(path, st);
}

int lstat64(const char* path, struct stat64* st) {
  if (node::ours(AT_FDCWD, path)) return stat_emulated(path, st, false);
  REAL("lstat64", int (*)(const char*, struct stat64*));
  return real(path, st);
}

int fstatat(int dirfd, const char* path, struct stat* st, int flags) {
  if ((flags & AT_EMPTY_PATH) && !*path) return fstat(dirfd, st);
  if (node::ours(dirfd, path))
    return node::stat_path(path, !(flags & AT_SYMLINK_NOFOLLOW), [&](const struct stat& s) { *st = s; });
  REAL("fstatat", int (*)(int, const char*, struct stat*, int));
  return real(dirfd, path, st, flags);
}

int fstatat64(int dirfd, const char* path, struct stat64* st, int flags) {
  if ((flags & AT_EMPTY_PATH) && !*path) return fstat64(dirfd, st);
  if (node::ours(dirfd, path)) return stat_emulated(path, st, !(flags & AT_SYMLINK_NOFOLLOW));
  REAL("fstatat64", int (*)(int, const char*, struct stat64*, int));
  return real(dirfd, path, st, flags);
}

int statx(int dirfd, const char* path, int flags, unsigned mask, struct statx* stx) {
  const bool by_fd = (flags & AT_EMPTY_PATH) && path && !*path;
  if (by_fd ? lookup(dirfd).has_value() : node::ours(dirfd, path))
    return node::stat_path(by_fd ? node::kPath : path, !(flags & AT_SYMLINK_NOFOLLOW),
                           [&](const struct stat& s) { node::to_statx(s, stx); });
  REAL("statx", int (*)(int, const char*, int, unsigned, struct statx*));
  return real(dirfd, path, flags, mask, stx);
}

int access(const char* path, int mode) {
  if (node::ours(AT_FDCWD, path)) return node::access_path(path, mode);
  REAL("access", int (*)(const char*, int));
  return real(path, mode);
}

int faccessat(int dirfd, const char* path, int mode, int flags) {
  if (node::ours(dirfd, path)) return node::access_path(path, mode);
  REAL("faccessat", int (*)(int, const char*, int, int));
  return real(dirfd, path, mode, flags);
}

ssize_t readlink(const char* path, char* buf, size_t size) {
  if (node::ours(AT_FDCWD, path)) return node::read_link(path, buf, size);
  REAL("readlink", ssize_t (*)(const char*, char*, size_t));
  return real(path, buf, size);
}

ssize_t readlinkat(int dirfd, const char* path, char* buf, size_t size) {
  if (node::ours(dirfd, path)) return node::read_link(path, buf, size);
  REAL("readlinkat", ssize_t (*)(int, const char*, char*, size_t));
  return real(dirfd, path, buf, size);
}

DIR* opendir(const char* name) {
  REAL("opendir", DIR* (*)(const char*));
  return node::open_dir(name, real);
}

struct dirent* readdir(DIR* dir) {
  REAL("readdir", struct dirent* (*)(DIR*));
  return node::read_dir(dir, real);
}

struct dirent64* readdir64(DIR* dir) {
  REAL("readdir64", struct dirent64* (*)(DIR*));
  return node::read_dir(dir, real);
}

void rewinddir(DIR* dir) {
  REAL("rewinddir", void (*)(DIR*));
  node::rewind_dir(dir, real);
}

int closedir(DIR* dir) {
  REAL("closedir", int (*)(DIR*));
  return node::close_dir(dir, real);
}

int dirfd(DIR* dir) {
  REAL("dirfd", int (*)(DIR*));
  return node::dir_fd(dir, real);
}

}  // extern "C"
