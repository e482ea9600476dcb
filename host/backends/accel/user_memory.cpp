#include "host/backends/accel/user_memory.h"

#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ethosu::accel {

namespace {

// process_vm_* may move fewer bytes than asked (it stops at the first unmapped page); loop until done or
// failed. -1: the kernel refused the call itself, so the caller falls back.
int transfer(bool write, void* local, uint64_t remote, size_t size) {
  auto* p = static_cast<uint8_t*>(local);
  while (size > 0) {
    iovec l{p, size};
    iovec r{reinterpret_cast<void*>(static_cast<uintptr_t>(remote)), size};
    const ssize_t n =
        write ? process_vm_writev(getpid(), &l, 1, &r, 1, 0) : process_vm_readv(getpid(), &l, 1, &r, 1, 0);
    if (n < 0) return (errno == EFAULT || errno == ENOMEM) ? 0 : -1;
    if (n == 0) return 0;
    p += n;
    remote += static_cast<uint64_t>(n);
    size -= static_cast<size_t>(n);
  }
  return 1;
}

}  // namespace

bool copy_from_user(void* to, uint64_t from_address, size_t size) {
  if (size == 0) return true;
  if (from_address == 0) return false;
  const int r = transfer(false, to, from_address, size);
  if (r >= 0) return r == 1;
  std::memcpy(to, reinterpret_cast<const void*>(static_cast<uintptr_t>(from_address)), size);
  return true;
}

bool copy_to_user(uint64_t to_address, const void* from, size_t size) {
  if (size == 0) return true;
  if (to_address == 0) return false;
  const int r = transfer(true, const_cast<void*>(from), to_address, size);
  if (r >= 0) return r == 1;
  std::memcpy(reinterpret_cast<void*>(static_cast<uintptr_t>(to_address)), from, size);
  return true;
}

}  // namespace ethosu::accel
