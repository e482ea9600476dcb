#include "sim/stats.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace ethosu::sim {
namespace {

TEST(StatsTest, CountersAccumulateThroughHeldReferences) {
  Stats stats;
  Counter& active = stats.counter("mac.active", "cycles");
  for (int i = 0; i < 40; ++i) stats.counter("filler.c" + std::to_string(i), "events");  // grows the storage
  ++active;
  active += 4;
  active.add(5);
  EXPECT_EQ(active.value(), 10u);
  ASSERT_NE(stats.find("mac.active"), nullptr);
  EXPECT_EQ(stats.find("mac.active")->value(), 10u);
  EXPECT_EQ(stats.find("mac.idle"), nullptr);
}

TEST(StatsTest, SamePathSameCounter) {
  Stats stats;
  Counter& a = stats.counter("mem.axi0.read_bytes", "bytes");
  Counter& b = stats.counter("mem.axi0.read_bytes", "bytes");
  EXPECT_EQ(&a, &b);
  EXPECT_THROW(stats.counter("mem.axi0.read_bytes", "beats"), std::logic_error);
  EXPECT_THROW(stats.counter("nodot", "bytes"), std::logic_error);
  EXPECT_THROW(stats.counter("Mac.active", "cycles"), std::logic_error);
  EXPECT_THROW(stats.counter("mac.active", ""), std::logic_error);
}

TEST(StatsTest, ResetZeroesAll) {
  Stats stats;
  Counter& a = stats.counter("dma.read_bytes", "bytes");
  Counter& b = stats.counter("wd.stall_cycles", "cycles");
  a += 7;
  b += 9;
  stats.reset();
  EXPECT_EQ(a.value(), 0u);
  EXPECT_EQ(b.value(), 0u);
  ++a;
  EXPECT_EQ(a.value(), 1u);
}

TEST(StatsTest, JsonGroupsByComponent) {
  Stats stats;
  stats.counter("mem.axi0.read_bytes", "bytes") += 4096;
  stats.counter("mem.axi0.write_bytes", "bytes") += 16;
  stats.counter("mac.active", "cycles") += 3;
  const nlohmann::json j = stats.to_json();
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j.at("mem.axi0").at("read_bytes").at("value"), 4096u);
  EXPECT_EQ(j.at("mem.axi0").at("read_bytes").at("unit"), "bytes");
  EXPECT_EQ(j.at("mem.axi0").at("write_bytes").at("value"), 16u);
  EXPECT_EQ(j.at("mac").at("active").at("value"), 3u);
  const auto list = stats.counters();
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0]->path(), "mac.active");  // sorted
}

}  // namespace
}  // namespace ethosu::sim
