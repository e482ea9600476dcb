// Host threads for the parts of one operation. The callers split an operation's data effect into parts that
// write disjoint bytes and read none of them, so running the parts at once leaves the same bytes as running
// them in turn.
#pragma once

#include <functional>
#include <memory>

namespace ethosu::sim {

class HostThreads {
 public:
  // At most `threads` parts run at once (1: every part on the calling thread, and no thread is started).
  explicit HostThreads(unsigned threads);
  ~HostThreads();
  HostThreads(const HostThreads&) = delete;
  HostThreads& operator=(const HostThreads&) = delete;

  unsigned threads() const { return threads_; }

  // Runs work(0) .. work(parts - 1) and returns when all are done: part 0 on the calling thread, the others on
  // threads - 1 pool threads, started on the first call that needs them. When parts throw, the exception of
  // the lowest-numbered one is rethrown here, after every part has finished.
  void run(unsigned parts, const std::function<void(unsigned part)>& work);

 private:
  struct Pool;
  unsigned threads_;
  std::unique_ptr<Pool> pool_;
};

}  // namespace ethosu::sim
