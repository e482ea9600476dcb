// Copies between the shim and the client's memory through user pointers taken from ioctl arguments, the way
// the kernel's copy_from_user/copy_to_user do: a pointer into unmapped memory fails (the ioctl returns
// EFAULT) instead of crashing the client inside the shim.
//
// Contract: both return false when any byte of [address, address + size) is not readable (writable) by the
// process; size 0 always succeeds. They use process_vm_readv/writev on the process itself; where the kernel
// refuses those calls (seccomp, no ptrace permission) they fall back to a plain copy, which cannot catch
// a bad pointer.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ethosu::accel {

bool copy_from_user(void* to, uint64_t from_address, size_t size);
bool copy_to_user(uint64_t to_address, const void* from, size_t size);

}  // namespace ethosu::accel
