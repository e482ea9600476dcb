// The entry points that copy descriptors (interposer.h), for a shim that keeps a table of its own: dup(), dup2(),
// dup3(), fcntl() with F_DUPFD or F_DUPFD_CLOEXEC (Mesa's os_dupfd_cloexec copies a device descriptor so).
#include <fcntl.h>
#include <unistd.h>

#include <cstdarg>

#include "host/backends/common/dispatch.h"

using namespace ethosu::interpose;

namespace {

// dup2(from, to) and dup3() close `to` first: the shim hears it while `to` still names what it named.
void replacing(int from, int to) {
  if (to >= 0 && to != from) notify([&] { interposer().replacing(to); });
}

// The next definition made `copy` from `fd`, or failed (-1), or was a dup2(fd, fd), which copies nothing.
int copied(int fd, int copy) {
  if (copy >= 0 && copy != fd) notify([&] { interposer().duplicated(fd, copy); });
  return copy;
}

// fcntl() by the next definition. The argument is passed on as the pointer-sized value it was read as (int and
// pointer arguments travel alike in registers on the LP64 ABIs this runs on).
int fcntl_through(int (*next)(int, int, ...), int fd, int cmd, void* arg) {
  const int r = next(fd, cmd, arg);
  return cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC ? copied(fd, r) : r;
}

}  // namespace

extern "C" {

int dup(int fd) noexcept { return copied(fd, libc().dup(fd)); }

int dup2(int from, int to) noexcept {
  replacing(from, to);
  return copied(from, libc().dup2(from, to));
}

int dup3(int from, int to, int flags) noexcept {
  replacing(from, to);
  return copied(from, libc().dup3(from, to, flags));
}

int fcntl(int fd, int cmd, ...) {
  va_list args;
  va_start(args, cmd);
  void* arg = va_arg(args, void*);
  va_end(args);
  return fcntl_through(libc().fcntl, fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...) {
  va_list args;
  va_start(args, cmd);
  void* arg = va_arg(args, void*);
  va_end(args);
  return fcntl_through(libc().fcntl64, fd, cmd, arg);
}

}  // extern "C"
