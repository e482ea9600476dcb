// libethosu-record.so's interposed C functions (recorder.h): each calls the next definition first, or after the
// recorder has recorded what the call is about to change, and returns its result and errno unchanged. With
// ETHOSU_RECORD_DIR unset they only pass calls on.
#undef _FORTIFY_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <mutex>
#include <new>

#include "host/backends/record/recorder.h"

namespace {

using ethosu::record::AccelRecorder;
using ethosu::record::enabled;
using ethosu::record::NxpRecorder;

template <typename F>
F next_of(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

void before_fork() { ethosu::record::lock().lock(); }
void after_fork_in_parent() { ethosu::record::lock().unlock(); }
void after_fork_in_child() {
  // The lock belongs to the parent's forking thread, which the child's thread is not (a recursive mutex refuses
  // the unlock): the child starts with a fresh one. The parent's jobs and descriptors are the parent's to record.
  new (&ethosu::record::lock()) std::recursive_mutex;
  AccelRecorder::instance().forget_all();
  NxpRecorder::instance().forget_all();
}

// Jobs still waiting for their results when the process ends are recorded then.
void at_exit() {
  AccelRecorder::instance().finish_all();
  NxpRecorder::instance().finish_all();
}

int opened(const char* path, int fd) {
  if (fd < 0 || !enabled()) return fd;
  const int saved = errno;
  static std::once_flag hooks;
  std::call_once(hooks, [] {
    pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
    std::atexit(at_exit);
  });
  AccelRecorder::instance().opened(path, fd);
  NxpRecorder::instance().opened(path, fd);
  errno = saved;
  return fd;
}

bool needs_mode(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }

// openat() paths the recorder knows: absolute ones (the device nodes are opened so).
const char* absolute(const char* path) { return path && path[0] == '/' ? path : nullptr; }

void duplicated(int from, int to) {
  if (to < 0 || !enabled()) return;
  const int saved = errno;
  AccelRecorder::instance().duplicated(from, to);
  NxpRecorder::instance().duplicated(from, to);
  errno = saved;
}

void closing(int fd) {
  if (!enabled()) return;
  AccelRecorder::instance().closing(fd);
  NxpRecorder::instance().closing(fd);
}

int fcntl_through(int (*real)(int, int, ...), int fd, int cmd, void* arg) {
  const int r = real(fd, cmd, arg);
  if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)) duplicated(fd, r);
  return r;
}

}  // namespace

// The library is built with hidden visibility: only these are exported.
#pragma GCC visibility push(default)
extern "C" {

// The mode open() takes with O_CREAT or O_TMPFILE, from the variadic arguments after `flags`.
#define ETHOSU_RECORD_MODE(flags)                  \
  mode_t mode = 0;                                 \
  if (needs_mode(flags)) {                         \
    va_list ap;                                    \
    va_start(ap, flags);                           \
    mode = static_cast<mode_t>(va_arg(ap, int));   \
    va_end(ap);                                    \
  }

#define ETHOSU_RECORD_OPEN(name)                                              \
  int name(const char* path, int flags, ...) {                                \
    static const auto real = next_of<int (*)(const char*, int, ...)>(#name);  \
    ETHOSU_RECORD_MODE(flags)                                                 \
    return opened(path, real(path, flags, mode));                             \
  }
ETHOSU_RECORD_OPEN(open)
ETHOSU_RECORD_OPEN(open64)
#undef ETHOSU_RECORD_OPEN

#define ETHOSU_RECORD_OPENAT(name)                                                \
  int name(int dirfd, const char* path, int flags, ...) {                         \
    static const auto real = next_of<int (*)(int, const char*, int, ...)>(#name); \
    ETHOSU_RECORD_MODE(flags)                                                     \
    return opened(absolute(path), real(dirfd, path, flags, mode));                \
  }
ETHOSU_RECORD_OPENAT(openat)
ETHOSU_RECORD_OPENAT(openat64)
#undef ETHOSU_RECORD_OPENAT
#undef ETHOSU_RECORD_MODE

// The forms _FORTIFY_SOURCE builds call.
int __open_2(const char* path, int flags) {
  static const auto real = next_of<int (*)(const char*, int)>("__open_2");
  return opened(path, real(path, flags));
}

int __open64_2(const char* path, int flags) {
  static const auto real = next_of<int (*)(const char*, int)>("__open64_2");
  return opened(path, real(path, flags));
}

int __openat_2(int dirfd, const char* path, int flags) {
  static const auto real = next_of<int (*)(int, const char*, int)>("__openat_2");
  return opened(absolute(path), real(dirfd, path, flags));
}

int __openat64_2(int dirfd, const char* path, int flags) {
  static const auto real = next_of<int (*)(int, const char*, int)>("__openat64_2");
  return opened(absolute(path), real(dirfd, path, flags));
}

int close(int fd) {
  closing(fd);
  return ethosu::record::next().close(fd);
}

int dup(int fd) {
  static const auto real = next_of<int (*)(int)>("dup");
  const int r = real(fd);
  duplicated(fd, r);
  return r;
}

int dup2(int from, int to) {
  static const auto real = next_of<int (*)(int, int)>("dup2");
  const int r = real(from, to);
  duplicated(from, r);
  return r;
}

int dup3(int from, int to, int flags) {
  static const auto real = next_of<int (*)(int, int, int)>("dup3");
  const int r = real(from, to, flags);
  duplicated(from, r);
  return r;
}

int fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  static const auto real = next_of<int (*)(int, int, ...)>("fcntl");
  return fcntl_through(real, fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  static const auto real = next_of<int (*)(int, int, ...)>("fcntl64");
  return fcntl_through(real, fd, cmd, arg);
}

int ioctl(int fd, unsigned long request, ...) {
  va_list ap;
  va_start(ap, request);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  if (enabled()) {
    if (AccelRecorder::instance().watches(fd)) return AccelRecorder::instance().ioctl(fd, request, arg);
    if (NxpRecorder::instance().watches(fd)) return static_cast<int>(NxpRecorder::instance().ioctl(fd, request, arg));
  }
  return ethosu::record::next().ioctl(fd, request, arg);
}

void* mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
  if (enabled() && !(flags & MAP_ANONYMOUS)) AccelRecorder::instance().before_mmap(fd);
  return ethosu::record::next().mmap(addr, length, prot, flags, fd, offset);
}

void* mmap64(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
  return mmap(addr, length, prot, flags, fd, offset);
}

}  // extern "C"
#pragma GCC visibility pop
