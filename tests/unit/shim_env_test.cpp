// The driver shims' environment variables: defaults, each variable's effect, and the errors that name it.
#include "host/backends/shim_env.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "sim/error.h"

namespace {

using ethosu::host::read_shim_settings;
using ethosu::host::ShimSettings;

ShimSettings read(const std::map<std::string, std::string>& env) {
  return read_shim_settings([&](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

std::string error_of(const std::map<std::string, std::string>& env) {
  try {
    read(env);
  } catch (const ethosu::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ShimEnv, DefaultsAreTheTimedImx93WithItsSram) {
  const ShimSettings s = read({});
  EXPECT_FALSE(s.request.variant);
  EXPECT_FALSE(s.request.system);
  EXPECT_FALSE(s.functional);
  EXPECT_FALSE(s.verbose);
  // The imx93 preset's SRAM (mem.sram.size_bytes) is what the driver reports.
  const auto config = ethosu::host::resolve_config({}, "ethos-u65-256");
  EXPECT_EQ(s.sram_size_bytes, static_cast<uint64_t>(config.param("mem.sram.size_bytes").as_int()));
  EXPECT_GT(s.sram_size_bytes, 0u);
}

TEST(ShimEnv, EachVariableLandsInTheRequest) {
  const ShimSettings s = read({{"ETHOSU_SIM_VARIANT", "ethos-u65-512"},
                               {"ETHOSU_SIM_SYSTEM", "arm-internal-default"},
                               {"ETHOSU_SIM_SET", "mem.axi1.read_latency_cycles=300;mem.axi1.write_latency_cycles=200"},
                               {"ETHOSU_SIM_FUNCTIONAL", "1"},
                               {"ETHOSU_SIM_VERBOSE", "1"},
                               {"ETHOSU_SIM_SRAM_SIZE", "256K"}});
  EXPECT_EQ(*s.request.variant, "ethos-u65-512");
  EXPECT_EQ(*s.request.system, "arm-internal-default");
  ASSERT_EQ(s.request.assignments.size(), 2u);
  EXPECT_EQ(s.request.assignments[1], "mem.axi1.write_latency_cycles=200");
  EXPECT_EQ(s.request.origin, "ETHOSU_SIM_SET");
  EXPECT_TRUE(s.functional);
  EXPECT_TRUE(s.verbose);
  EXPECT_EQ(s.sram_size_bytes, 256u * 1024);
}

TEST(ShimEnv, SramSizeSuffixesAndEmptyValues) {
  EXPECT_EQ(read({{"ETHOSU_SIM_SRAM_SIZE", "1M"}}).sram_size_bytes, 1u << 20);
  EXPECT_EQ(read({{"ETHOSU_SIM_SRAM_SIZE", "4096"}}).sram_size_bytes, 4096u);
  EXPECT_EQ(read({{"ETHOSU_SIM_SRAM_SIZE", "0"}}).sram_size_bytes, 0u);
  // An empty variable counts as unset.
  EXPECT_EQ(read({{"ETHOSU_SIM_SRAM_SIZE", ""}}).sram_size_bytes, read({}).sram_size_bytes);
  EXPECT_FALSE(read({{"ETHOSU_SIM_VARIANT", ""}}).request.variant);
}

TEST(ShimEnv, U55IsRefusedWithWhatTheShimsPresent) {
  // The driver interfaces the shims present have no U55: accel/ethosu takes architecture major 1 for a U65.
  const std::string u55 = error_of({{"ETHOSU_SIM_VARIANT", "ethos-u55-128"}});
  EXPECT_NE(u55.find("ETHOSU_SIM_VARIANT='ethos-u55-128'"), std::string::npos) << u55;
  EXPECT_NE(u55.find("ethos-u65-256, ethos-u65-512"), std::string::npos) << u55;
  EXPECT_EQ(*read({{"ETHOSU_SIM_VARIANT", "ethos-u65-512"}}).request.variant, "ethos-u65-512");
}

TEST(ShimEnv, BadValuesNameTheirVariable) {
  EXPECT_NE(error_of({{"ETHOSU_SIM_VARIANT", "ethos-u42"}}).find("ETHOSU_SIM_VARIANT"), std::string::npos);
  EXPECT_NE(error_of({{"ETHOSU_SIM_SRAM_SIZE", "12Q"}}).find("ETHOSU_SIM_SRAM_SIZE"), std::string::npos);
  EXPECT_NE(error_of({{"ETHOSU_SIM_SRAM_SIZE", "8192M"}}).find("32-bit"), std::string::npos);
  EXPECT_NE(error_of({{"ETHOSU_SIM_FUNCTIONAL", "yes"}}).find("ETHOSU_SIM_FUNCTIONAL"), std::string::npos);
  const std::string sys = error_of({{"ETHOSU_SIM_SYSTEM", "no-such-system"}});
  EXPECT_NE(sys.find("ETHOSU_SIM_SYSTEM"), std::string::npos);
  EXPECT_NE(sys.find("no-such-system"), std::string::npos);
  EXPECT_NE(error_of({{"ETHOSU_SIM_SET", "no.such.parameter=1"}}).find("no.such.parameter"), std::string::npos);
  EXPECT_NE(error_of({{"ETHOSU_SIM_CONFIG", "/nonexistent/sim.cfg"}}).find("/nonexistent/sim.cfg"), std::string::npos);
}

}  // namespace
