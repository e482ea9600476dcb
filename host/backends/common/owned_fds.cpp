#include "host/backends/common/owned_fds.h"

#include <algorithm>

namespace ethosu::host {

bool OwnedFds::contains(int fd) const {
  if (fd < 0) return false;
  if (fd < kFast) return fast_[static_cast<size_t>(fd)].load(std::memory_order_acquire);
  std::lock_guard<std::mutex> lock(slow_mutex_);
  return slow_.count(fd) != 0;
}

void OwnedFds::set(int fd, bool owned) {
  if (fd < 0) return;
  if (fd < kFast) {
    fast_[static_cast<size_t>(fd)].store(owned, std::memory_order_release);
    return;
  }
  std::lock_guard<std::mutex> lock(slow_mutex_);
  if (owned)
    slow_.insert(fd);
  else
    slow_.erase(fd);
}

void OwnedFds::clear_range(unsigned first, unsigned last) {
  const unsigned fast_end = std::min<unsigned>(last, kFast - 1);
  for (unsigned fd = first; fd <= fast_end && fd < kFast; ++fd) fast_[fd].store(false, std::memory_order_release);
  std::lock_guard<std::mutex> lock(slow_mutex_);
  slow_.erase(slow_.lower_bound(static_cast<int>(std::min<unsigned>(first, 0x7FFFFFFF))),
              slow_.upper_bound(static_cast<int>(std::min<unsigned>(last, 0x7FFFFFFF))));
}

}  // namespace ethosu::host
