// The libc interposition the three LD_PRELOAD libraries share (libethosu-sim-accel.so, libethosu-sim-nxp.so,
// libethosu-record.so): the C entry points a program's calls reach, each defined once in this folder, and the
// Interposer each library implements to take the calls that are its own.
//
// Contract:
//  * Every entry point has glibc's signature, noexcept where glibc declares it so (__THROW). A library links the
//    groups of entry points it interposes (ethosu_preload_library in CMakeLists.txt) and defines interposer().
//  * open(), open64(), openat() and openat64() read their mode argument only when the flags call for one
//    (open_takes_mode); glibc's __open_2, __open64_2, __openat_2 and __openat64_2, which _FORTIFY_SOURCE builds
//    call for an open without a mode, go the same way as the plain forms. mmap64() goes as mmap() (64-bit
//    off_t), and an anonymous mapping never reaches the shim.
//  * A call the shim declines (its hook returns std::nullopt, the default) goes to the next definition (libc, or
//    a library preloaded after this one: libc.h) with the program's own arguments, and returns that result and
//    errno: a hook that declines leaves errno as it was. The notifications (opened, closing, replacing,
//    duplicated, closed_range) never change errno.
//  * Paths: the calls about a path (open, fopen, the stat family, access, readlink) ask the shim only when
//    claims_path() accepts the path; it must be cheap and take no lock. Descriptors: their hooks are asked about
//    every descriptor of the process and answer about one that is not the shim's without taking a lock
//    (OwnedFds), so that the program's own files never wait behind the shim. Directory streams: their hooks are
//    asked about every name and stream, and answer cheaply about those that are not the shim's.
//  * The layer keeps no state but the libc table: fork handling (pthread_atfork) and every table of descriptors
//    are the libraries' own.
#pragma once

#include <dirent.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <cstdio>
#include <optional>

namespace ethosu::interpose {

// A library's shim. Each hook answers one kind of call, or returns std::nullopt to let it go on to the next
// definition unchanged; the defaults decline everything and ignore every notification.
class Interposer {
 public:
  // ---- Paths. `dirfd` and `path` as openat() takes them.
  virtual bool claims_path(int dirfd, const char* path);
  // open*() of a claimed path: a descriptor, or -1 with errno.
  virtual std::optional<int> open(int dirfd, const char* path, int flags);
  virtual std::optional<FILE*> fopen(const char* path, const char* mode);
  // stat(), lstat(), fstatat(), statx() of a claimed path, `follow`ing a last symbolic link: 0 with `status`
  // filled, or -1 with errno. The layer gives the program the layout it asked for (stat64, statx).
  virtual std::optional<int> stat(const char* path, bool follow, struct stat& status);
  // access() and faccessat() (whose flags are not passed) of a claimed path.
  virtual std::optional<int> access(const char* path, int mode);
  virtual std::optional<ssize_t> readlink(const char* path, char* buf, size_t size);

  // ---- Descriptors.
  virtual std::optional<int> ioctl(int fd, unsigned long request, void* arg);
  virtual std::optional<void*> mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset);
  virtual std::optional<ssize_t> read(int fd, void* buf, size_t count);
  virtual std::optional<ssize_t> write(int fd, const void* buf, size_t count);
  // fstat(), and fstatat() or statx() with AT_EMPTY_PATH and an empty path.
  virtual std::optional<int> stat_fd(int fd, struct stat& status);

  // ---- Directory streams: asked for every name and stream, claimed or not.
  virtual std::optional<DIR*> opendir(const char* name);
  virtual std::optional<struct dirent*> readdir(DIR* dir);
  virtual std::optional<struct dirent64*> readdir64(DIR* dir);
  // rewinddir() has no result to answer with: true when the shim did it all and the next definition is not called.
  virtual bool rewinddir(DIR* dir);
  virtual std::optional<int> closedir(DIR* dir);
  virtual std::optional<int> dirfd(DIR* dir);

  // ---- Notifications.
  // The next definition's open*() of a path returned the descriptor fd.
  virtual void opened(const char* path, int fd);
  // close(fd) is about to go to the next definition.
  virtual void closing(int fd);
  // dup2() or dup3() is about to make `fd` a copy of another descriptor, closing whatever it names now (should the
  // call fail, `fd` stays as it was): the last moment to use what it names.
  virtual void replacing(int fd);
  // dup(), dup2(), dup3() or fcntl(F_DUPFD, F_DUPFD_CLOEXEC) made `to` a copy of `from` (to != from); whatever
  // `to` named before is closed.
  virtual void duplicated(int from, int to);
  // close_range(first, last) closed every descriptor in [first, last] (not with CLOSE_RANGE_CLOEXEC).
  virtual void closed_range(unsigned first, unsigned last);

 protected:
  // Never destroyed through this interface: a shim lives as long as the process (interposer()).
  ~Interposer() = default;
};

// The library's shim, defined once by each library (a unit test defines its own). The entry points may call it
// from the first call of the process to its last: programs close descriptors from atexit handlers, so it is
// never destroyed. Hidden: another preloaded library's would take its place.
[[gnu::visibility("hidden")]] Interposer& interposer();

}  // namespace ethosu::interpose
