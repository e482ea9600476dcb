#include "sim/host_threads.h"

#include <algorithm>
#include <exception>
#include <future>
#include <vector>

// Boost.Asio's thread pool: idle threads sleep rather than spin (an OpenMP runtime's default), and each part's
// future carries its exception back to the caller.
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

namespace ethosu::sim {

struct HostThreads::Pool {
  explicit Pool(unsigned count) : threads(count) {}
  boost::asio::thread_pool threads;
};

HostThreads::HostThreads(unsigned threads) : threads_(std::max(1u, threads)) {}

HostThreads::~HostThreads() = default;

void HostThreads::run(unsigned parts, const std::function<void(unsigned part)>& work) {
  if (threads_ == 1 || parts <= 1) {
    for (unsigned part = 0; part < parts; ++part) work(part);
    return;
  }
  if (!pool_) pool_ = std::make_unique<Pool>(threads_ - 1);
  std::vector<std::future<void>> others;
  others.reserve(parts - 1);
  for (unsigned part = 1; part < parts; ++part) {
    std::packaged_task<void()> task([&work, part] { work(part); });
    others.push_back(task.get_future());
    boost::asio::post(pool_->threads, std::move(task));
  }
  std::exception_ptr first;
  try {
    work(0);
  } catch (...) {
    first = std::current_exception();
  }
  // Every part must finish before `work` (and what it refers to) goes out of scope.
  for (std::future<void>& f : others) {
    try {
      f.get();
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

}  // namespace ethosu::sim
