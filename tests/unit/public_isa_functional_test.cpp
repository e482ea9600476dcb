// The public ISA tools and functional model (include/ethosu_sim/isa.h, functional.h), linked without SystemC.
#include <algorithm>

#include <gtest/gtest.h>

#include "ethosu_sim/error.h"
#include "ethosu_sim/functional.h"
#include "ethosu_sim/isa.h"
#include "tests/unit/npu_streams.h"

namespace ethosu_sim {
namespace {

// A 4x4x16 1x1 MAX pool from region 1 at 0 to region 2 at 0: a copy.
const std::string kPool = ethosu::npu::test::pool(4, 4, 4, 1, 0, 2, 0) + "NPU_OP_POOL pooling_mode=MAX\n" +
                          ethosu::npu::test::kStop;

TEST(PublicIsa, AssembleDecodeDisassembleRoundTrip) {
  const std::vector<uint8_t> stream = assemble(kPool);
  const DecodedStream d = decode(stream);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.commands.front().name, "NPU_SET_IFM_REGION");
  EXPECT_EQ(d.commands.front().text, "NPU_SET_IFM_REGION region=1");
  ASSERT_FALSE(d.commands.front().fields.empty());
  EXPECT_EQ(d.commands.front().fields[0].name, "region");
  EXPECT_EQ(d.commands.front().fields[0].value, 1);
  EXPECT_EQ(d.commands.back().name, "NPU_OP_STOP");
  EXPECT_EQ(assemble(disassemble(stream)), stream);
  EXPECT_NE(disassemble(stream, DisasmFormat::VELA).find("NPU_OP_POOL"), std::string::npos);
  // A word that is no command: decoded as such, with an error diagnostic naming its offset.
  std::vector<uint8_t> bad = stream;
  bad.insert(bad.begin(), {0xFF, 0x03, 0x00, 0x00});
  const DecodedStream b = decode(bad);
  EXPECT_FALSE(b.ok());
  EXPECT_TRUE(b.commands.front().name.empty());
  EXPECT_EQ(b.diagnostics.front().offset, 0u);
  EXPECT_THROW(assemble("NPU_SET_NOTHING x=1\n"), InputError);
}

TEST(PublicIsa, ValidateGivesExtentsAndFindings) {
  const std::vector<uint8_t> stream = assemble(kPool);
  const auto out_of_region_2 = [](const Validation& v) {
    return std::any_of(v.findings.begin(), v.findings.end(),
                       [](const Finding& f) { return f.error && f.category == "out-of-region" && f.region == 2; });
  };
  Validation v = validate(stream);
  EXPECT_FALSE(out_of_region_2(v)) << v.text;
  EXPECT_EQ(v.operations, 1u);
  EXPECT_TRUE(v.reads[1].used);
  EXPECT_EQ(v.reads[1].lowest, 0);
  EXPECT_EQ(v.reads[1].end, 256);
  EXPECT_EQ(v.writes[2].end, 256);
  EXPECT_FALSE(v.writes[1].used);
  ValidateOptions small;
  small.region_size_bytes[2] = 128;
  v = validate(stream, small);
  EXPECT_FALSE(v.ok());
  EXPECT_TRUE(out_of_region_2(v)) << v.text;
  EXPECT_NE(v.text.find("0x100"), std::string::npos);
  EXPECT_EQ(parse_variant("ethos-u65-512"), Variant::U65_512);
  EXPECT_EQ(parse_variant("ethos-u55-128"), Variant::U55_128);
  EXPECT_FALSE(parse_variant("ethos-u99-1"));
}

TEST(PublicFunctional, RunsOnTheCallersBuffersAndReportsFaults) {
  const std::vector<uint8_t> stream = assemble(kPool);
  std::vector<uint8_t> in(256), out(256);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i * 7 + 3);
  std::array<RegionBuffer, kRegionCount> regions{};
  regions[1] = {in.data(), in.size()};
  regions[2] = {out.data(), out.size()};
  FunctionalNpu npu;
  FunctionalResult r = npu.run(stream, regions);
  EXPECT_TRUE(r.completed);
  EXPECT_FALSE(r.fault);
  EXPECT_EQ(r.kernel_operations, 1u);
  EXPECT_EQ(out, in);
  EXPECT_EQ(r.status & 1u, 0u);  // STATUS.state: stopped
  // Region 2 too small: the NPU's bus error on AXI1 (REGIONCFG 0xAA8A), and nothing written past the buffer.
  std::vector<uint8_t> small(128, 0x55);
  regions[2] = {small.data(), small.size()};
  r = npu.run(stream, regions);
  EXPECT_FALSE(r.completed);
  ASSERT_TRUE(r.fault);
  EXPECT_NE(r.fault->find("bus error"), std::string::npos) << *r.fault;
  EXPECT_NE(r.status & (1u << 2), 0u) << std::hex << r.status;  // STATUS.bus_status
}

}  // namespace
}  // namespace ethosu_sim
