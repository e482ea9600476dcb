// The NXP /dev/ethosu0 kernel driver, in user space: the device, buffer, network and inference objects it hands
// out as file descriptors, its ioctls with the kernel's errno values, and the firmware behind it (one worker
// thread that runs inferences on the simulator in submission order).
//
// Contract: every fd the driver hands out is a real one (memfd for buffers, so mmap works natively; eventfd
// for inferences, readable-for-poll once the inference is done; eventfd for the device and networks), so
// poll/ppoll/select need no interposition. ioctl() returns what the kernel's ioctl would (>= 0, or -errno);
// user pointers are read and written through process_vm_readv/writev, so a bad pointer gives EFAULT instead of
// a crash (where those calls are forbidden, the pointers are trusted). Objects live while referenced, as with the kernel's krefs: a buffer closed by the user stays alive
// while a network or inference uses it. Quirks of NXP's driver that are kept: an unknown ioctl returns 0, and
// a failed copy of the request structure returns 0 for the ioctls where the kernel does so. Thread-safe; the
// simulator runs only on the worker thread.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace ethosu::nxp {

class Driver {
 public:
  // The process's driver (created on first use, never destroyed: its worker may outlive static destruction).
  static Driver& instance();

  // True when fd is one this driver handed out and the user has not closed. Cheap; safe before instance().
  static bool owns(int fd);

  // open("/dev/ethosu0", flags): a device fd, or -errno.
  int open_device(int flags);
  long ioctl(int fd, unsigned long cmd, void* arg);
  // The user closes fd: forget it (the object lives on while referenced). Returns whether fd was ours.
  bool forget(int fd);
  // mmap(length, offset) on fd: 0 when the kernel would allow it (the caller then maps the real fd), or -errno.
  int check_mmap(int fd, size_t length, off_t offset);

  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

 private:
  Driver();
  struct State;
  State& s_;
};

}  // namespace ethosu::nxp
