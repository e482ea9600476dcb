// read() and write() (interposer.h), for a shim whose descriptors answer them otherwise than their real files.
#include <unistd.h>

#include "host/backends/common/dispatch.h"

using namespace ethosu::interpose;

extern "C" {

ssize_t read(int fd, void* buf, size_t count) {
  return ask_or_pass_on([&] { return interposer().read(fd, buf, count); }, [&] { return libc().read(fd, buf, count); });
}

ssize_t write(int fd, const void* buf, size_t count) {
  return ask_or_pass_on([&] { return interposer().write(fd, buf, count); },
                        [&] { return libc().write(fd, buf, count); });
}

}  // extern "C"
