#include "sim/config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "sim/error.h"
#include "tests/unit/input_errors.h"

namespace ethosu::sim {
namespace {

using ethosu::testing::input_error_of;

class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cfg_.declare_int("npu.mac.per_core", 256, "MACs/cycle", "MACs per core", 32, 256);
    cfg_.declare_int("mem.axi1.read_latency_cycles", 500, "cycles", "read latency", 0, 1000000);
    cfg_.declare_int("mem.axi1.write_latency_cycles", 250, "cycles", "write latency", 0, 1000000);
    cfg_.declare_int("system.clock_hz", 1000000000, "Hz", "NPU clock", 1);
    cfg_.declare_double("mem.axi1.bytes_per_cycle", 12.0, "bytes/cycle", "bandwidth", 0.0, 1024.0);
    cfg_.declare_bool("sim.trace.enabled", false, "write a trace");
    cfg_.declare_string("npu.variant", "ethos-u65-256", "variant", {"ethos-u65-256", "ethos-u65-512"});
  }
  // The InputError message of `f`, or "" when it does not throw one.
  Config cfg_;
};

TEST_F(ConfigTest, DefaultsAndTypedAccess) {
  const Param& p = cfg_.param("npu.mac.per_core");
  EXPECT_EQ(p.as_int(), 256);
  EXPECT_EQ(p.source(), Source::DEFAULT);
  EXPECT_EQ(p.unit(), "MACs/cycle");
  EXPECT_DOUBLE_EQ(p.as_double(), 256.0);
  EXPECT_THROW(p.as_string(), std::logic_error);
  EXPECT_FALSE(cfg_.param("sim.trace.enabled").as_bool());
}

TEST_F(ConfigTest, ReferenceSeesLaterValues) {
  const Param& p = cfg_.param("mem.axi1.read_latency_cycles");
  for (int i = 0; i < 50; ++i) cfg_.declare_int("extra.p" + std::to_string(i), i, "", "");  // grows the storage
  cfg_.set("mem.axi1.read_latency_cycles", "640", Source::CLI, "--set");
  EXPECT_EQ(p.as_int(), 640);
}

// A copy is a registry of its own: setting one leaves the other, and the copy's parameters are its own objects.
TEST_F(ConfigTest, CopiesAreIndependent) {
  Config copy = cfg_;
  copy.set("mem.axi1.read_latency_cycles", "900", Source::CLI, "--set");
  EXPECT_EQ(copy.param("mem.axi1.read_latency_cycles").as_int(), 900);
  EXPECT_EQ(cfg_.param("mem.axi1.read_latency_cycles").as_int(), 500);
  EXPECT_NE(&copy.param("npu.mac.per_core"), &cfg_.param("npu.mac.per_core"));
  Config assigned;
  assigned = copy;
  copy.set("mem.axi1.read_latency_cycles", "700", Source::CLI, "--set");
  EXPECT_EQ(assigned.param("mem.axi1.read_latency_cycles").as_int(), 900);
  EXPECT_EQ(assigned.params().size(), cfg_.params().size());
}

TEST_F(ConfigTest, ValueSyntax) {
  cfg_.set("system.clock_hz", "800e6", Source::CLI, "");
  EXPECT_EQ(cfg_.param("system.clock_hz").as_int(), 800000000);
  cfg_.set("system.clock_hz", "1G", Source::CLI, "");
  EXPECT_EQ(cfg_.param("system.clock_hz").as_int(), 1000000000);
  cfg_.set("mem.axi1.read_latency_cycles", "0x20", Source::CLI, "");
  EXPECT_EQ(cfg_.param("mem.axi1.read_latency_cycles").as_int(), 32);
  cfg_.set("mem.axi1.read_latency_cycles", "2Ki", Source::CLI, "");
  EXPECT_EQ(cfg_.param("mem.axi1.read_latency_cycles").as_int(), 2048);
  cfg_.set("mem.axi1.bytes_per_cycle", " 3.75 ", Source::CLI, "");
  EXPECT_DOUBLE_EQ(cfg_.param("mem.axi1.bytes_per_cycle").as_double(), 3.75);
  cfg_.set("sim.trace.enabled", "on", Source::CLI, "");
  EXPECT_TRUE(cfg_.param("sim.trace.enabled").as_bool());
  cfg_.set_value("mem.axi1.bytes_per_cycle", int64_t{4}, Source::PRESET, "p");
  EXPECT_DOUBLE_EQ(cfg_.param("mem.axi1.bytes_per_cycle").as_double(), 3.75);  // CLI still wins
}

TEST_F(ConfigTest, UnknownNameListsCloseNames) {
  const std::string msg = input_error_of([&] { cfg_.set("npu.mac.per_cor", "128", Source::CLI, "--set"); });
  EXPECT_NE(msg.find("--set: unknown parameter 'npu.mac.per_cor'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("npu.mac.per_core"), std::string::npos) << msg;
  // Right leaf, wrong component: still suggested.
  const std::string leaf = input_error_of([&] { cfg_.param("mem.axi0.write_latency_cycles"); });
  EXPECT_NE(leaf.find("mem.axi1.write_latency_cycles"), std::string::npos) << leaf;
  const std::string none = input_error_of([&] { cfg_.param("zzz.qqq"); });
  EXPECT_NE(none.find("no parameter has a similar name"), std::string::npos) << none;
}

TEST_F(ConfigTest, WrongTypeAndRangeAreInputErrors) {
  EXPECT_NE(input_error_of([&] { cfg_.set("npu.mac.per_core", "many", Source::CLI, "x"); }).find("takes an integer (MACs/cycle)"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { cfg_.set("npu.mac.per_core", "1.5", Source::CLI, "x"); }).find("got '1.5'"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { cfg_.set("npu.mac.per_core", "512", Source::CLI, "x"); }).find("out of range [32, 256]"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { cfg_.set("mem.axi1.bytes_per_cycle", "inf", Source::CLI, "x"); }), "");
  EXPECT_NE(input_error_of([&] { cfg_.set("sim.trace.enabled", "maybe", Source::CLI, "x"); }), "");
  EXPECT_NE(input_error_of([&] { cfg_.set("npu.variant", "ethos-u55-64", Source::CLI, "x"); }).find("not one of"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { cfg_.set_value("npu.variant", int64_t{3}, Source::PRESET, "x"); }), "");
  EXPECT_NE(input_error_of([&] { cfg_.set_assignment("npu.mac.per_core", Source::CLI, "--set"); }).find("name=value"),
            std::string::npos);
  EXPECT_EQ(cfg_.param("npu.mac.per_core").as_int(), 256);  // failed sets change nothing
}

TEST_F(ConfigTest, LayersAndClear) {
  cfg_.set_assignment("npu.mac.per_core=128", Source::CLI, "--set");
  cfg_.set("npu.mac.per_core", "64", Source::PRESET, "tiny");
  const Param& p = cfg_.param("npu.mac.per_core");
  EXPECT_EQ(p.as_int(), 128);
  EXPECT_EQ(p.source(), Source::CLI);
  cfg_.clear(Source::CLI);
  EXPECT_EQ(p.as_int(), 64);
  EXPECT_EQ(p.source(), Source::PRESET);
  EXPECT_EQ(p.origin(), "tiny");
  cfg_.clear(Source::PRESET);
  EXPECT_EQ(p.as_int(), 256);
  EXPECT_EQ(p.source(), Source::DEFAULT);
}

TEST_F(ConfigTest, FileFormatWithSections) {
  cfg_.load_text(
      "# a comment\n"
      "; another\n"
      "npu.variant = ethos-u65-512   # trailing comment\n"
      "\n"
      "[mem.axi1]\n"
      "read_latency_cycles = 400\n"
      "  write_latency_cycles=200\n"
      "[]\n"
      "system.clock_hz = 800e6\n",
      "sys.cfg");
  EXPECT_EQ(cfg_.param("npu.variant").as_string(), "ethos-u65-512");
  EXPECT_EQ(cfg_.param("mem.axi1.read_latency_cycles").as_int(), 400);
  EXPECT_EQ(cfg_.param("mem.axi1.write_latency_cycles").as_int(), 200);
  EXPECT_EQ(cfg_.param("mem.axi1.write_latency_cycles").origin(), "sys.cfg:7");
  EXPECT_EQ(cfg_.param("system.clock_hz").as_int(), 800000000);
  EXPECT_EQ(cfg_.param("system.clock_hz").source(), Source::FILE);
}

TEST_F(ConfigTest, FileErrorsNameTheLine) {
  EXPECT_NE(input_error_of([&] { cfg_.load_text("\n[mem.axi1]\nread_latncy_cycles = 1\n", "a.cfg"); })
                .find("a.cfg:3: unknown parameter 'mem.axi1.read_latncy_cycles'; did you mean "
                      "mem.axi1.read_latency_cycles"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { cfg_.load_text("npu.mac.per_core 4\n", "b.cfg"); }).find("b.cfg:1: expected"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { cfg_.load_text("[npu.mac\n", "c.cfg"); }).find("c.cfg:1:"), std::string::npos);
  EXPECT_NE(input_error_of([&] { cfg_.load_text("[npu..mac]\n", "d.cfg"); }).find("d.cfg:1: invalid section"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { cfg_.load_text("npu.mac.per_core=64\n[npu.mac]\nper_core=32\n", "e.cfg"); })
                .find("e.cfg:3: parameter 'npu.mac.per_core' already set on line 1"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { cfg_.load_file("/nonexistent/x.cfg"); }).find("config file /nonexistent/x.cfg: no such file"), std::string::npos);
}

TEST_F(ConfigTest, DeclarationErrorsAreLogicErrors) {
  EXPECT_THROW(cfg_.declare_int("npu.mac.per_core", 1, "", ""), std::logic_error);
  EXPECT_THROW(cfg_.declare_int("NoDots", 1, "", ""), std::logic_error);
  EXPECT_THROW(cfg_.declare_int("a.b", 5, "", "", 0, 4), std::logic_error);
  EXPECT_THROW(cfg_.declare_string("a.c", "x", "", {"y"}), std::logic_error);
  EXPECT_THROW(cfg_.set("npu.mac.per_core", "64", Source::DEFAULT, ""), std::logic_error);
}

TEST_F(ConfigTest, JsonHasEveryParameterWithSource) {
  cfg_.set("mem.axi1.read_latency_cycles", "600", Source::CLI, "--set");
  cfg_.set("npu.variant", "ethos-u65-512", Source::PRESET, "u65-512");
  const nlohmann::json j = cfg_.to_json();
  EXPECT_EQ(j.size(), cfg_.params().size());
  EXPECT_EQ(j.size(), 7u);
  const auto& lat = j.at("mem.axi1.read_latency_cycles");
  EXPECT_EQ(lat.at("value"), 600);
  EXPECT_EQ(lat.at("unit"), "cycles");
  EXPECT_EQ(lat.at("source"), "cli");
  EXPECT_EQ(lat.at("origin"), "--set");
  EXPECT_EQ(j.at("npu.variant").at("source"), "preset");
  EXPECT_EQ(j.at("npu.mac.per_core").at("source"), "default");
  EXPECT_EQ(j.at("npu.mac.per_core").at("type"), "int");
  EXPECT_TRUE(j.at("mem.axi1.bytes_per_cycle").at("value").is_number_float());
  EXPECT_TRUE(j.at("sim.trace.enabled").at("value").is_boolean());
}

TEST_F(ConfigTest, AnIntMayNameOneValueOutsideItsRangeByAWord) {
  cfg_.declare_int_word("mem.sram.size_bytes", 1024, "bytes", "SRAM", 0, 1 << 20, "unbounded", -1);
  EXPECT_EQ(cfg_.param("mem.sram.size_bytes").range_text(), "[0, 1048576] or unbounded");
  cfg_.set("mem.sram.size_bytes", "unbounded", Source::CLI, "--set");
  EXPECT_EQ(cfg_.param("mem.sram.size_bytes").as_int(), -1);
  EXPECT_EQ(cfg_.param("mem.sram.size_bytes").value_text(), "unbounded");
  cfg_.set("mem.sram.size_bytes", "0", Source::CLI, "--set");
  EXPECT_EQ(cfg_.param("mem.sram.size_bytes").value_text(), "0");
  // The word's value is reachable only by the word.
  EXPECT_NE(input_error_of([&] { cfg_.set("mem.sram.size_bytes", "-1", Source::CLI, "--set"); }).find("takes an integer or unbounded"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { cfg_.set("mem.sram.size_bytes", "unbonded", Source::CLI, "--set"); })
                .find("takes an integer or unbounded"),
            std::string::npos);
  EXPECT_THROW(cfg_.declare_int_word("x.y", 0, "", "", 0, 10, "none", 5), std::logic_error);
}

}  // namespace
}  // namespace ethosu::sim
