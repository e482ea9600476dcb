#include "sim/host_threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace ethosu::sim {
namespace {

TEST(HostThreads, RunsEveryPartOnce) {
  for (unsigned threads : {1u, 2u, 4u})
    for (unsigned parts : {0u, 1u, 2u, 3u, 7u}) {
      HostThreads pool(threads);
      std::vector<std::atomic<int>> runs(parts);
      pool.run(parts, [&](unsigned part) { ++runs[part]; });
      for (unsigned i = 0; i < parts; ++i) EXPECT_EQ(runs[i], 1) << threads << " threads, part " << i << " of " << parts;
    }
}

TEST(HostThreads, OneThreadRunsEverythingOnTheCaller) {
  HostThreads pool(1);
  std::vector<std::thread::id> ids(3);
  pool.run(3, [&](unsigned part) { ids[part] = std::this_thread::get_id(); });
  for (const auto& id : ids) EXPECT_EQ(id, std::this_thread::get_id());
}

TEST(HostThreads, PartsRunAtOnce) {
  // Each part waits until both have started: this finishes only if they run on two threads.
  HostThreads pool(2);
  std::atomic<int> started{0};
  std::vector<std::thread::id> ids(2);
  pool.run(2, [&](unsigned part) {
    ids[part] = std::this_thread::get_id();
    ++started;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (started < 2 && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
  });
  EXPECT_EQ(started, 2);
  EXPECT_EQ(ids[0], std::this_thread::get_id());
  EXPECT_NE(ids[1], std::this_thread::get_id());
}

TEST(HostThreads, ZeroThreadsMeansOne) { EXPECT_EQ(HostThreads(0).threads(), 1u); }

TEST(HostThreads, RethrowsTheLowestPartsExceptionAfterAllFinish) {
  HostThreads pool(3);
  std::atomic<bool> slow_part_done{false};
  try {
    pool.run(4, [&](unsigned part) {
      if (part == 3) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        slow_part_done = true;
      }
      if (part == 2) throw std::runtime_error("part 2");
      if (part == 1) throw std::runtime_error("part 1");
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "part 1");
  }
  EXPECT_TRUE(slow_part_done);
  // The pool still works afterwards.
  std::atomic<int> runs{0};
  pool.run(3, [&](unsigned) { ++runs; });
  EXPECT_EQ(runs, 3);
}

TEST(HostThreads, CallersPartThrowingStillWaitsForTheOthers) {
  HostThreads pool(2);
  std::atomic<bool> other_done{false};
  EXPECT_THROW(pool.run(2,
                        [&](unsigned part) {
                          if (part == 0) throw std::logic_error("part 0");
                          std::this_thread::sleep_for(std::chrono::milliseconds(50));
                          other_done = true;
                        }),
               std::logic_error);
  EXPECT_TRUE(other_done);
}

TEST(HostThreads, ManyRunsReuseThePool) {
  HostThreads pool(2);
  std::mutex m;
  std::set<std::thread::id> ids;
  int64_t sum = 0;
  for (int i = 0; i < 200; ++i)
    pool.run(2, [&](unsigned part) {
      const std::lock_guard<std::mutex> lock(m);
      ids.insert(std::this_thread::get_id());
      sum += part + 1;
    });
  EXPECT_EQ(sum, 200 * 3);
  EXPECT_EQ(ids.size(), 2u);  // the caller and one pool thread, every time
}

}  // namespace
}  // namespace ethosu::sim
