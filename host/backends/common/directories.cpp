// The directory stream entry points (interposer.h), for a shim that lists a directory of its own: opendir(),
// readdir(), readdir64(), rewinddir(), closedir(), dirfd().
#include <dirent.h>

#include "host/backends/common/dispatch.h"

using namespace ethosu::interpose;

extern "C" {

DIR* opendir(const char* name) {
  return ask_or_pass_on([&] { return interposer().opendir(name); }, [&] { return libc().opendir(name); });
}

struct dirent* readdir(DIR* dir) {
  return ask_or_pass_on([&] { return interposer().readdir(dir); }, [&] { return libc().readdir(dir); });
}

struct dirent64* readdir64(DIR* dir) {
  return ask_or_pass_on([&] { return interposer().readdir64(dir); }, [&] { return libc().readdir64(dir); });
}

void rewinddir(DIR* dir) noexcept {
  const int saved = errno;
  if (interposer().rewinddir(dir)) return;
  errno = saved;
  libc().rewinddir(dir);
}

int closedir(DIR* dir) {
  return ask_or_pass_on([&] { return interposer().closedir(dir); }, [&] { return libc().closedir(dir); });
}

int dirfd(DIR* dir) noexcept {
  return ask_or_pass_on([&] { return interposer().dirfd(dir); }, [&] { return libc().dirfd(dir); });
}

}  // extern "C"
