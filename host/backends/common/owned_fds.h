// Which file descriptors of the process a driver shim handed out, answerable without a lock.
//
// Contract: contains() is lock-free for descriptors below 65536 (an atomic flag each) and takes a private mutex
// only for larger ones, so the interposed close/read/write/ioctl/mmap of every descriptor in the process can ask
// it cheaply and never wait behind a shim's work. set() marks or clears one descriptor; clear_range() clears
// [first, last] (close_range). It knows nothing about what the descriptors are: the shims keep that themselves.
#pragma once

#include <array>
#include <atomic>
#include <mutex>
#include <set>

namespace ethosu::host {

class OwnedFds {
 public:
  bool contains(int fd) const;
  void set(int fd, bool owned);
  void clear_range(unsigned first, unsigned last);

 private:
  static constexpr int kFast = 1 << 16;
  std::array<std::atomic<bool>, kFast> fast_{};
  mutable std::mutex slow_mutex_;
  std::set<int> slow_;
};

}  // namespace ethosu::host
