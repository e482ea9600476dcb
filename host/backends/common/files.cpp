// The entry points that ask about files by path or descriptor (interposer.h), for a shim that answers what
// device discovery reads: fopen(), the stat family, access(), readlink(). The shim gives a status as a struct
// stat; the program gets the layout it asked for.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>

#include "host/backends/common/dispatch.h"

using namespace ethosu::interpose;

namespace {

void store(const struct stat& s, struct stat* out) { *out = s; }

void store(const struct stat& s, struct stat64* out) {
  *out = {};
  out->st_dev = s.st_dev;
  out->st_ino = s.st_ino;
  out->st_mode = s.st_mode;
  out->st_nlink = s.st_nlink;
  out->st_uid = s.st_uid;
  out->st_gid = s.st_gid;
  out->st_rdev = s.st_rdev;
  out->st_size = s.st_size;
  out->st_blksize = s.st_blksize;
  out->st_blocks = s.st_blocks;
  out->st_atim = s.st_atim;
  out->st_mtim = s.st_mtim;
  out->st_ctim = s.st_ctim;
}

void store(const struct stat& s, struct statx* out) {
  *out = {};
  out->stx_mask = STATX_BASIC_STATS;
  out->stx_blksize = static_cast<uint32_t>(s.st_blksize);
  out->stx_nlink = static_cast<uint32_t>(s.st_nlink);
  out->stx_uid = s.st_uid;
  out->stx_gid = s.st_gid;
  out->stx_mode = static_cast<uint16_t>(s.st_mode);
  out->stx_ino = s.st_ino;
  out->stx_size = static_cast<uint64_t>(s.st_size);
  out->stx_blocks = static_cast<uint64_t>(s.st_blocks);
  const auto ts = [](const timespec& t) { return statx_timestamp{t.tv_sec, static_cast<uint32_t>(t.tv_nsec), 0}; };
  out->stx_atime = ts(s.st_atim);
  out->stx_mtime = ts(s.st_mtim);
  out->stx_ctime = ts(s.st_ctim);
  out->stx_rdev_major = major(s.st_rdev);
  out->stx_rdev_minor = minor(s.st_rdev);
  out->stx_dev_major = major(s.st_dev);
  out->stx_dev_minor = minor(s.st_dev);
}

// The shim's status answer, stored into the program's buffer only on success, as libc does.
template <typename Status, typename Ask>
std::optional<int> status_answer(Status* out, Ask ask) {
  struct stat status {};
  const std::optional<int> answer = ask(status);
  if (answer && *answer == 0) store(status, out);
  return answer;
}

template <typename Status, typename PassOn>
int stat_path(int dirfd, const char* path, bool follow, Status* out, PassOn pass_on) {
  return ask_about_path(
      dirfd, path,
      [&] { return status_answer(out, [&](struct stat& s) { return interposer().stat(path, follow, s); }); }, pass_on);
}

template <typename Status, typename PassOn>
int stat_fd(int fd, Status* out, PassOn pass_on) {
  return ask_or_pass_on([&] { return status_answer(out, [&](struct stat& s) { return interposer().stat_fd(fd, s); }); },
                        pass_on);
}

// fstatat() and statx() with AT_EMPTY_PATH and an empty path: the status of the descriptor itself.
bool of_descriptor(const char* path, int flags) { return (flags & AT_EMPTY_PATH) && path && !*path; }

bool follows(int flags) { return !(flags & AT_SYMLINK_NOFOLLOW); }

}  // namespace

extern "C" {

// stdio opens a file by libc's internal open, which no interposer reaches: a claimed path is asked here.
FILE* fopen(const char* path, const char* mode) {
  return ask_about_path(
      AT_FDCWD, path, [&] { return interposer().fopen(path, mode); }, [&] { return libc().fopen(path, mode); });
}

FILE* fopen64(const char* path, const char* mode) {
  return ask_about_path(
      AT_FDCWD, path, [&] { return interposer().fopen(path, mode); }, [&] { return libc().fopen64(path, mode); });
}

int fstat(int fd, struct stat* st) noexcept {
  return stat_fd(fd, st, [&] { return libc().fstat(fd, st); });
}

int fstat64(int fd, struct stat64* st) noexcept {
  return stat_fd(fd, st, [&] { return libc().fstat64(fd, st); });
}

int stat(const char* path, struct stat* st) noexcept {
  return stat_path(AT_FDCWD, path, true, st, [&] { return libc().stat(path, st); });
}

int stat64(const char* path, struct stat64* st) noexcept {
  return stat_path(AT_FDCWD, path, true, st, [&] { return libc().stat64(path, st); });
}

int lstat(const char* path, struct stat* st) noexcept {
  return stat_path(AT_FDCWD, path, false, st, [&] { return libc().lstat(path, st); });
}

int lstat64(const char* path, struct stat64* st) noexcept {
  return stat_path(AT_FDCWD, path, false, st, [&] { return libc().lstat64(path, st); });
}

int fstatat(int dirfd, const char* path, struct stat* st, int flags) noexcept {
  if (of_descriptor(path, flags)) return fstat(dirfd, st);
  return stat_path(dirfd, path, follows(flags), st, [&] { return libc().fstatat(dirfd, path, st, flags); });
}

int fstatat64(int dirfd, const char* path, struct stat64* st, int flags) noexcept {
  if (of_descriptor(path, flags)) return fstat64(dirfd, st);
  return stat_path(dirfd, path, follows(flags), st, [&] { return libc().fstatat64(dirfd, path, st, flags); });
}

int statx(int dirfd, const char* path, int flags, unsigned mask, struct statx* stx) noexcept {
  const auto pass_on = [&] { return libc().statx(dirfd, path, flags, mask, stx); };
  if (of_descriptor(path, flags)) return stat_fd(dirfd, stx, pass_on);
  return stat_path(dirfd, path, follows(flags), stx, pass_on);
}

int access(const char* path, int mode) noexcept {
  return ask_about_path(
      AT_FDCWD, path, [&] { return interposer().access(path, mode); }, [&] { return libc().access(path, mode); });
}

int faccessat(int dirfd, const char* path, int mode, int flags) noexcept {
  return ask_about_path(
      dirfd, path, [&] { return interposer().access(path, mode); },
      [&] { return libc().faccessat(dirfd, path, mode, flags); });
}

ssize_t readlink(const char* path, char* buf, size_t size) noexcept {
  return ask_about_path(
      AT_FDCWD, path, [&] { return interposer().readlink(path, buf, size); },
      [&] { return libc().readlink(path, buf, size); });
}

ssize_t readlinkat(int dirfd, const char* path, char* buf, size_t size) noexcept {
  return ask_about_path(
      dirfd, path, [&] { return interposer().readlink(path, buf, size); },
      [&] { return libc().readlinkat(dirfd, path, buf, size); });
}

}  // extern "C"
