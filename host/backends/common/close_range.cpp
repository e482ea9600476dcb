// close_range() (interposer.h), for a shim whose table must not keep descriptors closed in bulk: their numbers
// come back for other files.
#include <unistd.h>

#include "host/backends/common/dispatch.h"

using namespace ethosu::interpose;

extern "C" int close_range(unsigned first, unsigned last, int flags) noexcept {
  const int r = libc().close_range(first, last, flags);
  if (r == 0 && !(flags & CLOSE_RANGE_CLOEXEC)) notify([&] { interposer().closed_range(first, last); });
  return r;
}
