// The public C++ API used as a C++ user would, carelessly: moved-from objects stay valid, as standard types do
// (include/ethosu_sim/run.h, config.h). They once crashed on any call.
#include <gtest/gtest.h>

#include <utility>

#include "ethosu_sim/config.h"
#include "ethosu_sim/run.h"
#include "tests/unit/npu_streams.h"

namespace ethosu_sim {
namespace {

TEST(PublicApiRobustness, AMovedFromJobIsAnEmptyJob) {
  std::array<std::vector<uint8_t>, kRegionCount> regions{};
  regions[1].assign(64, 0);
  Job job = Job::from_stream(assemble(ethosu::npu::test::kStop), regions);
  Job moved = std::move(job);
  EXPECT_FALSE(moved.stream().empty());
  // NOLINTBEGIN(bugprone-use-after-move): the point of the test
  EXPECT_TRUE(job.stream().empty());
  EXPECT_EQ(job.name(), "");
  EXPECT_TRUE(job.outputs().empty());
  EXPECT_TRUE(job.region(1).empty());
  EXPECT_TRUE(std::as_const(job).region(1).empty());
  EXPECT_TRUE(compare_outputs(job).empty());
  EXPECT_THROW(job.output_bytes(0), std::out_of_range);
  const Job copy = job;  // a copy of the empty job is empty too
  EXPECT_TRUE(copy.stream().empty());
  // Running it is a fault of its empty stream, on both models.
  for (bool timed : {true, false}) {
    RunOptions o;
    o.timed = timed;
    const RunResult r = run(job, o);
    EXPECT_FALSE(r.completed);
    ASSERT_TRUE(r.fault);
    EXPECT_NE(r.fault->find("empty command stream"), std::string::npos) << *r.fault;
  }
  // It can be given a job again.
  job = std::move(moved);
  EXPECT_TRUE(run(job).completed);
  // NOLINTEND(bugprone-use-after-move)
}

TEST(PublicApiRobustness, AMovedFromConfigKeepsItsValues) {
  Config c;
  c.set("mem.axi1.read_latency_cycles", "900");
  const Config moved = std::move(c);
  EXPECT_EQ(moved.get("mem.axi1.read_latency_cycles"), "900");
  // NOLINTBEGIN(bugprone-use-after-move): the point of the test
  EXPECT_EQ(c.get("mem.axi1.read_latency_cycles"), "900");
  EXPECT_EQ(c.variant(), "ethos-u65-256");
  EXPECT_FALSE(c.parameters().empty());
  EXPECT_FALSE(c.to_json().empty());
  c.set("mem.axi1.read_latency_cycles", "100");
  EXPECT_EQ(c.get("mem.axi1.read_latency_cycles"), "100");
  EXPECT_EQ(moved.get("mem.axi1.read_latency_cycles"), "900");
  Config target;
  target = std::move(c);
  EXPECT_EQ(c.regioncfg(), 0xAA8Au);
  RunOptions o;
  o.config = std::move(target);
  EXPECT_EQ(target.get("mem.axi1.read_latency_cycles"), "100");
  // NOLINTEND(bugprone-use-after-move)
}

}  // namespace
}  // namespace ethosu_sim
