// The next definitions of the functions the interposer layer defines (interposer.h), and of munmap, which the
// recorder calls without going through the layer: what a call that is not the shim's goes to.
//
// Contract: libc() looks every one up with dlsym(RTLD_NEXT) from the library that links this (so a library
// preloaded after it comes before libc) on its first call, once for the process and thread-safe, and returns the
// same table afterwards. A function the C library lacks (close_range before glibc 2.34, statx before 2.28) is
// null; only the entry point of that name calls it, and a program that calls it has found it in libc.
#pragma once

#include <dirent.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <cstdio>

namespace ethosu::interpose {

struct Libc {
  int (*open)(const char*, int, ...);
  int (*open64)(const char*, int, ...);
  int (*openat)(int, const char*, int, ...);
  int (*openat64)(int, const char*, int, ...);
  // glibc's _FORTIFY_SOURCE forms, __open_2 and the like.
  int (*open_2)(const char*, int);
  int (*open64_2)(const char*, int);
  int (*openat_2)(int, const char*, int);
  int (*openat64_2)(int, const char*, int);
  int (*close)(int);
  int (*close_range)(unsigned, unsigned, int);
  int (*dup)(int);
  int (*dup2)(int, int);
  int (*dup3)(int, int, int);
  int (*fcntl)(int, int, ...);
  int (*fcntl64)(int, int, ...);
  int (*ioctl)(int, unsigned long, ...);
  void* (*mmap)(void*, size_t, int, int, int, off_t);
  void* (*mmap64)(void*, size_t, int, int, int, off64_t);
  int (*munmap)(void*, size_t);
  ssize_t (*read)(int, void*, size_t);
  ssize_t (*write)(int, const void*, size_t);
  FILE* (*fopen)(const char*, const char*);
  FILE* (*fopen64)(const char*, const char*);
  int (*fstat)(int, struct stat*);
  int (*fstat64)(int, struct stat64*);
  int (*stat)(const char*, struct stat*);
  int (*stat64)(const char*, struct stat64*);
  int (*lstat)(const char*, struct stat*);
  int (*lstat64)(const char*, struct stat64*);
  int (*fstatat)(int, const char*, struct stat*, int);
  int (*fstatat64)(int, const char*, struct stat64*, int);
  int (*statx)(int, const char*, int, unsigned, struct statx*);
  int (*access)(const char*, int);
  int (*faccessat)(int, const char*, int, int);
  ssize_t (*readlink)(const char*, char*, size_t);
  ssize_t (*readlinkat)(int, const char*, char*, size_t);
  DIR* (*opendir)(const char*);
  struct dirent* (*readdir)(DIR*);
  struct dirent64* (*readdir64)(DIR*);
  void (*rewinddir)(DIR*);
  int (*closedir)(DIR*);
  int (*dirfd)(DIR*);
};

// Hidden: another preloaded library's table, looked up from that library, would take this one's place.
[[gnu::visibility("hidden")]] const Libc& libc();

}  // namespace ethosu::interpose
