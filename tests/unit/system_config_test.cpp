#include "host/config/system_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "host/config/config.h"
#include "models/npu/npu_config.h"
#include "sim/error.h"
#include "tests/unit/input_errors.h"

namespace ethosu::host {
namespace {

using ethosu::testing::input_error_of;

using sim::Source;

// Vela's system configs give bandwidths as clock scales of the NPU's AXI width: 16 bytes on the U65.
constexpr unsigned kU65AxiBytes = 16;

// Every parameter, the NPU's and the system's.
sim::Config declared() { return make_config(); }

TEST(SystemConfigTest, Imx93PresetFigures) {
  const Machine m = preset("imx93");
  EXPECT_DOUBLE_EQ(m.system.core_clock_hz, 1e9);
  EXPECT_EQ(m.system.axi_port[0], MemArea::SRAM);
  EXPECT_EQ(m.system.axi_port[1], MemArea::DRAM);
  const MemTiming& sram = m.system.port_timing(0);
  const MemTiming& dram = m.system.port_timing(1);
  EXPECT_DOUBLE_EQ(sram.clock_scale, 1.0);
  EXPECT_EQ(sram.burst_bytes, 32);
  EXPECT_EQ(sram.read_latency_cycles, 32);
  EXPECT_EQ(sram.write_latency_cycles, 32);
  EXPECT_DOUBLE_EQ(dram.clock_scale, 0.234375);
  EXPECT_DOUBLE_EQ(16.0 * dram.clock_scale * m.system.core_clock_hz, 3.75e9);  // 3.75 GB/s
  EXPECT_EQ(dram.burst_bytes, 128);
  EXPECT_EQ(dram.read_latency_cycles, 500);
  EXPECT_EQ(dram.write_latency_cycles, 250);
  EXPECT_EQ(m.memory_mode.arena_cache_size_bytes, 384u * 1024);
  EXPECT_EQ(region_ports(m.memory_mode), (std::array<unsigned, isa::kRegionCount>{1, 1, 0, 1, 1, 1, 1, 1}));
}

TEST(SystemConfigTest, Imx93At800MHzKeepsDramBandwidthAndNanoseconds) {
  const Machine m = preset("imx93-800mhz");
  EXPECT_DOUBLE_EQ(m.system.core_clock_hz, 800e6);
  const MemTiming& dram = m.system.port_timing(1);
  EXPECT_DOUBLE_EQ(16.0 * dram.clock_scale * m.system.core_clock_hz, 3.75e9);
  EXPECT_EQ(dram.read_latency_cycles, 400);
  EXPECT_EQ(dram.write_latency_cycles, 200);
  EXPECT_DOUBLE_EQ(m.system.port_timing(0).clock_scale, 1.0);
}

TEST(SystemConfigTest, ArmInternalDefaultIsClientServerWithDedicatedSram) {
  const Machine m = preset("arm-internal-default");
  EXPECT_DOUBLE_EQ(m.system.core_clock_hz, 1e9);
  EXPECT_DOUBLE_EQ(m.system.port_timing(1).clock_scale, 0.75);
  EXPECT_EQ(m.system.port_timing(1).read_latency_cycles, 500);
  EXPECT_EQ(m.memory_mode.const_port, 1u);
  EXPECT_EQ(m.memory_mode.arena_port, 1u);
  EXPECT_EQ(m.memory_mode.cache_port, 0u);
  EXPECT_EQ(m.memory_mode.arena_cache_size_bytes, 393216u);
  EXPECT_NE(input_error_of([] { preset("imx95"); }).find("imx93"), std::string::npos);
}

TEST(SystemConfigTest, ArmSystemConfigsAndMemoryModes) {
  const VelaIni ini;
  struct Expect {
    const char* name;
    double clock_hz, axi1_scale;
    MemArea axi1;
    int64_t axi1_read, axi1_write;
  };
  for (const Expect& e : {Expect{"Ethos_U65_Embedded", 500e6, 0.0625, MemArea::OFF_CHIP_FLASH, 64, 64},
                          Expect{"Ethos_U65_Mid_End", 500e6, 0.46875, MemArea::DRAM, 500, 250},
                          Expect{"Ethos_U65_High_End", 1e9, 0.234375, MemArea::DRAM, 500, 250},
                          Expect{"Ethos_U65_Client_Server", 1e9, 0.75, MemArea::DRAM, 500, 250}}) {
    const SystemConfig sc = ini.system_config(e.name);
    EXPECT_DOUBLE_EQ(sc.core_clock_hz, e.clock_hz) << e.name;
    EXPECT_EQ(sc.axi_port[1], e.axi1) << e.name;
    EXPECT_DOUBLE_EQ(sc.port_timing(1).clock_scale, e.axi1_scale) << e.name;
    EXPECT_EQ(sc.port_timing(1).burst_bytes, 128) << e.name;
    EXPECT_EQ(sc.port_timing(1).read_latency_cycles, e.axi1_read) << e.name;
    EXPECT_EQ(sc.port_timing(1).write_latency_cycles, e.axi1_write) << e.name;
    EXPECT_EQ(sc.port_timing(0).burst_bytes, 32) << e.name;
  }
  const MemoryMode shared = ini.memory_mode("Shared_Sram");
  EXPECT_EQ(region_ports(shared), (std::array<unsigned, isa::kRegionCount>{1, 0, 0, 1, 1, 1, 1, 1}));
  EXPECT_EQ(shared.arena_cache_size_bytes, 0u);  // unbounded
  // Sram_Only: Vela moves constants to AXI1 as on-chip flash with the SRAM's timing.
  const Machine only = ini.machine("Ethos_U65_High_End", "Sram_Only");
  EXPECT_EQ(region_ports(only.memory_mode), (std::array<unsigned, isa::kRegionCount>{1, 0, 0, 1, 1, 1, 1, 1}));
  EXPECT_EQ(only.system.axi_port[1], MemArea::ON_CHIP_FLASH);
  EXPECT_EQ(only.system.port_timing(1).read_latency_cycles, 32);
  EXPECT_DOUBLE_EQ(only.system.port_timing(1).clock_scale, 1.0);
  // Vela rejects an arena on flash.
  EXPECT_NE(input_error_of([&] { ini.machine("Ethos_U65_Embedded", "Dedicated_Sram"); }).find("arena (region 1)"),
            std::string::npos);
  EXPECT_NO_THROW(ini.machine("Ethos_U65_Embedded", "Shared_Sram"));
}

constexpr const char* kUserIni = R"(; user's system
[System_Config.Base]
core_clock=1.2e9
axi0_port=Sram
axi1_port=Dram
SRAM_Clock_Scale = 0.5
Sram_burst_length=64
Sram_read_latency=16
Sram_write_latency=20
Dram_clock_scale: 0.5
Dram_burst_length=256
Dram_read_latency=300
Dram_write_latency=150
OffChipFlash_read_latency=99

# overrides two keys, inherits the rest
[System_Config.Derived]
inherit=System_Config.Base
Dram_read_latency=350
core_clock=2e9

[System_Config.FromBuiltin]
inherit=System_Config.Ethos_U65_High_End
Dram_clock_scale=0.5

[Memory_Mode.Big]
inherit=Memory_Mode.Dedicated_Sram
arena_cache_size=1048576

[Memory_Mode.Dedicated_Sram]
arena_cache_size=131072
)";

TEST(SystemConfigTest, UserIniWithInheritanceAndEveryKeyKind) {
  VelaIni ini;
  ini.add_text(kUserIni, "user.ini");
  const SystemConfig d = ini.system_config("Derived");
  EXPECT_DOUBLE_EQ(d.core_clock_hz, 2e9);
  EXPECT_DOUBLE_EQ(d.port_timing(0).clock_scale, 0.5);  // key names are case-insensitive
  EXPECT_EQ(d.port_timing(0).burst_bytes, 64);
  EXPECT_EQ(d.port_timing(0).read_latency_cycles, 16);
  EXPECT_EQ(d.port_timing(0).write_latency_cycles, 20);
  EXPECT_DOUBLE_EQ(d.port_timing(1).clock_scale, 0.5);  // `:` delimiter
  EXPECT_EQ(d.port_timing(1).burst_bytes, 256);
  EXPECT_EQ(d.port_timing(1).read_latency_cycles, 350);  // own key wins over the inherited one
  EXPECT_EQ(d.port_timing(1).write_latency_cycles, 150);
  EXPECT_EQ(d.timing[static_cast<size_t>(MemArea::OFF_CHIP_FLASH)].read_latency_cycles, 0);  // not on a port
  const SystemConfig fb = ini.system_config("FromBuiltin");
  EXPECT_DOUBLE_EQ(fb.port_timing(1).clock_scale, 0.5);
  EXPECT_EQ(fb.port_timing(1).read_latency_cycles, 500);
  // A user section of a built-in name merges over it, and sections inheriting it see the merge.
  EXPECT_EQ(ini.memory_mode("Dedicated_Sram").arena_cache_size_bytes, 131072u);
  EXPECT_EQ(ini.memory_mode("Dedicated_Sram").arena_port, 1u);
  const MemoryMode big = ini.memory_mode("Big");
  EXPECT_EQ(big.arena_cache_size_bytes, 1048576u);
  EXPECT_EQ(big.cache_port, 0u);

  sim::Config c = declared();
  apply_machine(c, ini.machine("Derived", "Big"), kU65AxiBytes, Source::FILE, "user.ini");
  EXPECT_EQ(c.param("system.clock_hz").as_int(), 2000000000);
  EXPECT_DOUBLE_EQ(c.param("mem.axi1.bytes_per_cycle").as_double(), 8.0);
  EXPECT_EQ(c.param("mem.axi1.read_latency_cycles").as_int(), 350);
  EXPECT_EQ(c.param("mem.sram.size_bytes").as_int(), 1048576);
  EXPECT_EQ(c.param("system.memory_mode").as_string(), "Big");
  EXPECT_EQ(c.param("mem.axi1.read_latency_cycles").source(), Source::FILE);
}

// Arm's vela.ini of Vela 5.1: outstanding-transaction limits per memory, and AXI port counts for the U85.
constexpr char kVela51Ini[] = R"(
[System_Config.Ethos_U65_High_End_51]
core_clock=1e9
axi0_port=Sram
axi1_port=Dram
Sram_clock_scale=1.0
Sram_burst_length=32
Sram_read_latency=32
Sram_write_latency=32
Sram_max_reads=16
Sram_max_writes=16
Dram_clock_scale=0.234375
Dram_burst_length=128
Dram_read_latency=500
Dram_write_latency=250
Dram_max_reads=24
Dram_max_writes=12
Dram_ports_used=2
[System_Config.TooMany]
inherit=System_Config.Ethos_U65_High_End_51
Dram_max_writes=33
)";

TEST(SystemConfigTest, Vela51KeysMapToTheAxiLimitsOrWarn) {
  VelaIni ini;
  ini.add_text(kVela51Ini, "vela51.ini");
  const SystemConfig sc = ini.system_config("Ethos_U65_High_End_51");
  EXPECT_EQ(sc.port_timing(0).max_reads, 16);
  EXPECT_EQ(sc.port_timing(0).max_writes, 16);
  EXPECT_EQ(sc.port_timing(1).max_reads, 24);
  EXPECT_EQ(sc.port_timing(1).max_writes, 12);
  sim::Config c = declared();
  apply_machine(c, ini.machine("Ethos_U65_High_End_51", "Shared_Sram"), kU65AxiBytes, Source::PRESET, "vela51");
  EXPECT_EQ(c.param("mem.axi0.max_outstanding_reads").as_int(), 16);
  // <memory>_ports_used multiplies the memory's bandwidth, as Vela 5's regor_set_system_config does, and its
  // outstanding transactions (Vela's ChannelBW): 2 ports of 24 reads and 12 writes each.
  EXPECT_EQ(c.param("mem.axi1.max_outstanding_reads").as_int(), 48);
  EXPECT_EQ(c.param("mem.axi1.max_outstanding_writes").as_int(), 24);
  EXPECT_EQ(sc.port_timing(1).ports_used, 2);
  EXPECT_DOUBLE_EQ(c.param("mem.axi1.bytes_per_cycle").as_double(), 0.234375 * kU65AxiBytes * 2);
  EXPECT_TRUE(ini.ignored_keys("Ethos_U65_High_End_51", "Shared_Sram").empty());
  EXPECT_NE(input_error_of([&] { ini.system_config("TooMany"); })
                .find("vela51.ini:21: dram_max_writes: expected 0 to 32 outstanding transactions, got '33'"),
            std::string::npos);
  // The built-in (Vela 3.10) sections set no limits: the U65's own stay.
  sim::Config d = declared();
  apply_machine(d, VelaIni().machine("Ethos_U65_High_End", "Dedicated_Sram"), kU65AxiBytes, Source::PRESET, "builtin");
  EXPECT_EQ(d.param("mem.axi1.max_outstanding_reads").as_int(), 64);
  EXPECT_TRUE(VelaIni().ignored_keys("Ethos_U65_High_End", "Dedicated_Sram").empty());
}

TEST(SystemConfigTest, U85SystemConfigsAndDefaultMemoryMode) {
  // Vela 5.1's default for the U85: Ethos_U85_SYS_DRAM_Mid (1 GHz; SRAM on 2 ports of 16 bytes, DRAM 0.75 x 16
  // bytes on one) with Dedicated_Sram_384KB.
  const Machine m = VelaIni().machine("Ethos_U85_SYS_DRAM_Mid", "Dedicated_Sram_384KB");
  EXPECT_DOUBLE_EQ(m.system.core_clock_hz, 1e9);
  EXPECT_DOUBLE_EQ(m.system.port_timing(0).bytes_per_cycle(16), 32.0);
  EXPECT_DOUBLE_EQ(m.system.port_timing(1).bytes_per_cycle(16), 12.0);
  EXPECT_EQ(m.system.port_timing(0).burst_bytes, 64);
  EXPECT_EQ(m.memory_mode.arena_cache_size_bytes, 393216u);
  EXPECT_EQ(m.memory_mode.arena_port, 1u);
  EXPECT_DOUBLE_EQ(VelaIni().system_config("Ethos_U85_SYS_DRAM_High").port_timing(1).bytes_per_cycle(16), 24.0);
  EXPECT_TRUE(VelaIni().ignored_keys("Ethos_U85_SYS_Flash_Low", "Dedicated_Sram_384KB").empty());
  // The SRAM's two ports take 8 outstanding reads each; DRAM_High's two DRAM ports of 64 reads are capped at the
  // AXI model's 64.
  sim::Config c = declared();
  apply_machine(c, m, 16, Source::PRESET, "u85");
  EXPECT_EQ(c.param("mem.axi0.max_outstanding_reads").as_int(), 16);
  EXPECT_EQ(c.param("mem.axi0.max_outstanding_writes").as_int(), 16);
  EXPECT_EQ(c.param("mem.axi1.max_outstanding_reads").as_int(), 64);
  sim::Config high = declared();
  apply_machine(high, VelaIni().machine("Ethos_U85_SYS_DRAM_High", "Dedicated_Sram_384KB"), 16, Source::PRESET, "u85");
  EXPECT_EQ(high.param("mem.axi1.max_outstanding_reads").as_int(), 64);
  EXPECT_EQ(high.param("mem.axi1.max_outstanding_writes").as_int(), 32);
}

TEST(SystemConfigTest, U85ReadBuffersBecomeThePortsPerClassLimits) {
  // The architecture's read buffers per channel (16-byte words) on every AXI port, by traffic class; the U65's
  // ports have none.
  const npu::NpuConfig c = npu::npu_config(isa::Variant::U85_128);
  for (const axi::AxiPortParams& port : c.axi) {
    EXPECT_EQ(port.read_buffer_bytes[static_cast<size_t>(isa::Access::IFM)], 104u * 16);
    EXPECT_EQ(port.read_buffer_bytes[static_cast<size_t>(isa::Access::IFM2)], 64u * 16);
    EXPECT_EQ(port.read_buffer_bytes[static_cast<size_t>(isa::Access::WEIGHTS)], 128u * 16);
    EXPECT_EQ(port.read_buffer_bytes[static_cast<size_t>(isa::Access::OFM)], 0u);
  }
  for (const axi::AxiPortParams& port : npu::npu_config(isa::Variant::U65_256).axi)
    for (uint32_t b : port.read_buffer_bytes) EXPECT_EQ(b, 0u);
}

TEST(SystemConfigTest, IniFromFile) {
  const auto path = std::filesystem::temp_directory_path() / ("ethosu_vela_" + std::to_string(::getpid()) + ".ini");
  std::ofstream(path) << kUserIni;
  VelaIni ini;
  ini.add_file(path);
  std::filesystem::remove(path);
  EXPECT_EQ(ini.system_config("Base").port_timing(1).read_latency_cycles, 300);
  EXPECT_NE(input_error_of([&] { ini.add_file(path); }).find("no such file"), std::string::npos);
}

TEST(SystemConfigTest, MalformedIniLinesNameFileAndLine) {
  const auto err = [](const char* text) {
    return input_error_of([&] {
      VelaIni ini;
      ini.add_text(text, "bad.ini");
    });
  };
  EXPECT_NE(err("[System_Config.A]\ncore_clock\n").find("bad.ini:2: expected 'key=value'"), std::string::npos);
  EXPECT_NE(err("core_clock=1e9\n").find("bad.ini:1: key outside any [section]"), std::string::npos);
  EXPECT_NE(err("[System_Config.A\n").find("bad.ini:1: malformed section header"), std::string::npos);
  EXPECT_NE(err("[System_Config.A]\n  core_clock=1\n").find("bad.ini:2: indented line"), std::string::npos);
  EXPECT_NE(err("[A]\nx=1\n[A]\n").find("bad.ini:3: section [A] repeats line 1"), std::string::npos);
  EXPECT_NE(err("[A]\nx=1\nX=2\n").find("bad.ini:3: key 'x' repeats bad.ini:2"), std::string::npos);
  EXPECT_NE(err("[A]\n=2\n").find("bad.ini:2: missing key"), std::string::npos);
  EXPECT_NE(err("[DEFAULT]\n").find("bad.ini:1: a [DEFAULT]"), std::string::npos);
}

TEST(SystemConfigTest, BadValuesAndLinksNameFileAndLine) {
  VelaIni ini;
  ini.add_text(
      "[System_Config.Typo]\ninherit=System_Config.Ethos_U65_High_End\nDram_read_latancy=5\n"
      "[System_Config.BadPort]\ninherit=System_Config.Ethos_U65_High_End\naxi1_port=DRAM\n"
      "[System_Config.BadNum]\ninherit=System_Config.Ethos_U65_High_End\nDram_read_latency=5 ; note\n"
      "[System_Config.NoClock]\naxi0_port=Sram\naxi1_port=Dram\n"
      "[System_Config.Loop1]\ninherit=System_Config.Loop2\n"
      "[System_Config.Loop2]\ninherit=System_Config.Loop1\n"
      "[System_Config.Dangling]\ninherit=System_Config.Nowhere\n"
      "[Memory_Mode.BadArea]\ninherit=Memory_Mode.Dedicated_Sram\nconst_mem_area=Axi2\n",
      "v.ini");
  // A key no Vela writes is ignored with a warning naming the nearest one.
  EXPECT_EQ(ini.system_config("Typo").port_timing(1).read_latency_cycles, 500);
  const auto typo = ini.ignored_keys("Typo", "Dedicated_Sram");
  ASSERT_EQ(typo.size(), 1u);
  EXPECT_EQ(typo[0], "v.ini:3: dram_read_latancy is ignored: no Vela key of that name; did you mean dram_read_latency?");
  EXPECT_NE(input_error_of([&] { ini.system_config("BadPort"); }).find("v.ini:6: axi1_port: expected one of Sram, Dram"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { ini.system_config("BadNum"); }).find("v.ini:9: dram_read_latency: expected a non-negative"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { ini.system_config("NoClock"); }).find("does not set core_clock"), std::string::npos);
  EXPECT_NE(input_error_of([&] { ini.system_config("Loop1"); }).find("makes a cycle"), std::string::npos);
  EXPECT_NE(input_error_of([&] { ini.system_config("Dangling"); }).find("v.ini:18: inherit: section [System_Config.Nowhere]"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { ini.memory_mode("BadArea"); }).find("v.ini:21: const_mem_area: expected one of Axi0, Axi1"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { ini.system_config("Nope"); }).find("Ethos_U65_High_End"), std::string::npos);
}

TEST(SystemConfigTest, ParametersDefaultToImx93AndTakePresets) {
  sim::Config c = declared();
  EXPECT_EQ(c.param("npu.variant").as_string(), "ethos-u65-256");
  EXPECT_EQ(c.param("npu.cores").as_int(), 1);
  EXPECT_EQ(c.param("npu.mac.per_core").as_int(), 256);
  EXPECT_EQ(c.param("system.clock_hz").as_int(), 1000000000);
  EXPECT_EQ(c.param("mem.axi0.memory").as_string(), "sram");
  EXPECT_DOUBLE_EQ(c.param("mem.axi0.bytes_per_cycle").as_double(), 16.0);
  EXPECT_DOUBLE_EQ(c.param("mem.axi1.bytes_per_cycle").as_double(), 3.75);
  EXPECT_EQ(c.param("mem.axi1.burst_bytes").as_int(), 128);
  EXPECT_EQ(c.param("mem.axi1.write_latency_cycles").as_int(), 250);
  EXPECT_EQ(c.param("mem.axi1.max_outstanding_reads").as_int(), 64);
  EXPECT_EQ(c.param("mem.axi1.max_outstanding_writes").as_int(), 32);
  EXPECT_EQ(c.param("mem.sram.size_bytes").as_int(), 393216);
  EXPECT_EQ(c.param("regions.2.port").as_int(), 0);
  EXPECT_EQ(c.param("regions.7.port").as_int(), 1);

  apply_machine(c, preset("arm-internal-default"), kU65AxiBytes, Source::PRESET, "arm-internal-default");
  c.set("mem.axi1.read_latency_cycles", "700", Source::CLI, "--set");
  EXPECT_DOUBLE_EQ(c.param("mem.axi1.bytes_per_cycle").as_double(), 12.0);
  EXPECT_EQ(c.param("mem.axi1.bytes_per_cycle").origin(), "arm-internal-default");
  EXPECT_EQ(c.param("mem.axi1.read_latency_cycles").as_int(), 700);
  // Swapping presets between jobs keeps the command-line value.
  c.clear(Source::PRESET);
  apply_machine(c, preset("imx93-800mhz"), kU65AxiBytes, Source::PRESET, "imx93-800mhz");
  EXPECT_EQ(c.param("system.clock_hz").as_int(), 800000000);
  EXPECT_DOUBLE_EQ(c.param("mem.axi1.bytes_per_cycle").as_double(), 4.6875);
  EXPECT_EQ(c.param("mem.axi1.read_latency_cycles").as_int(), 700);

  npu::apply_variant(c, isa::Variant::U65_512, Source::PRESET, "ethos-u65-512");
  EXPECT_EQ(c.param("npu.cores").as_int(), 2);
  EXPECT_EQ(c.param("npu.variant").as_string(), "ethos-u65-512");
  MachineRequest unknown;
  unknown.variant = "ethos-u99-1";
  EXPECT_NE(input_error_of([&] { resolve_config(unknown, "ethos-u65-256"); }).find("unknown NPU variant"),
            std::string::npos);
}

TEST(SystemConfigTest, BothVelaInternalDefaultsHaveNamesAndTheBareNameIsRefused) {
  const Machine arm = preset("arm-internal-default");
  const Machine nxp = preset("nxp-internal-default");
  EXPECT_DOUBLE_EQ(16.0 * arm.system.port_timing(1).clock_scale * arm.system.core_clock_hz, 12e9);
  EXPECT_DOUBLE_EQ(16.0 * nxp.system.port_timing(1).clock_scale * nxp.system.core_clock_hz, 3.75e9);
  EXPECT_EQ(nxp.memory_mode.arena_cache_size_bytes, 393216u);
  const std::string refused = input_error_of([] { preset("internal-default"); });
  EXPECT_NE(refused.find("did you mean arm-internal-default or nxp-internal-default"), std::string::npos) << refused;
  MachineRequest r;
  r.system = "internal-default";
  EXPECT_NE(input_error_of([&] { resolve_config(r, "ethos-u65-256"); }).find("nxp-internal-default"),
            std::string::npos);
  // A vela.ini that defines it (as NXP's does) is taken as it is.
  char path[] = "/tmp/ethosu_internal_default_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << "[System_Config.internal-default]\ninherit=System_Config.Ethos_U65_Mid_End\n";
  r.vela_ini = {path};
  EXPECT_EQ(resolve_config(r, "ethos-u65-256").param("system.clock_hz").as_int(), 500000000);
  std::remove(path);
  EXPECT_NE(input_error_of([] {
              MachineRequest typo;
              typo.system = "imx39";
              resolve_config(typo, "ethos-u65-256");
            }).find("did you mean imx93?"),
            std::string::npos);
}

TEST(SystemConfigTest, AnyPresetTakesAnyMemoryMode) {
  MachineRequest r;
  r.system = "imx93";
  r.memory_mode = "Shared_Sram";
  const sim::Config shared = resolve_config(r, "ethos-u65-256");
  EXPECT_EQ(shared.param("system.memory_mode").as_string(), "Shared_Sram");
  EXPECT_EQ(shared.param("regions.1.port").as_int(), 0);  // the arena in SRAM
  EXPECT_EQ(shared.param("regions.0.port").as_int(), 1);
  EXPECT_EQ(shared.param("mem.sram.size_bytes").value_text(), "unbounded");  // Vela's: no arena_cache_size
  EXPECT_DOUBLE_EQ(shared.param("mem.axi1.bytes_per_cycle").as_double(), 3.75);  // still the i.MX 93's DRAM
  // A memory mode alone applies to the configuration's default system.
  MachineRequest mode_only;
  mode_only.memory_mode = "Sram_Only";
  const sim::Config sram_only = resolve_config(mode_only, "ethos-u65-256");
  EXPECT_EQ(sram_only.param("system.config").as_string(), "imx93");
  EXPECT_EQ(sram_only.param("mem.axi1.memory").as_string(), "on_chip_flash");  // Vela's adjustment
  EXPECT_EQ(sram_only.param("regions.1.port").as_int(), 0);
  MachineRequest u55;
  u55.system = "corstone-300";
  u55.memory_mode = "Dedicated_Sram";
  // Corstone-300's AXI1 is flash: Vela refuses the arena there.
  EXPECT_NE(input_error_of([&] { resolve_config(u55, "ethos-u55-128"); }).find("the arena (region 1) must be on SRAM or DRAM"),
            std::string::npos);
}

TEST(SystemConfigTest, NoSramIsAMemoryModeAndZeroBytes) {
  MachineRequest r;
  r.memory_mode = "No_Sram";
  const sim::Config c = resolve_config(r, "ethos-u65-256");
  EXPECT_EQ(c.param("mem.sram.size_bytes").as_int(), 0);
  for (unsigned region = 0; region < isa::kRegionCount; ++region)
    EXPECT_EQ(c.param("regions." + std::to_string(region) + ".port").as_int(), 1) << region;
  EXPECT_EQ(regioncfg(c), 0xAAAAu);
  const auto names = VelaIni().memory_mode_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "No_Sram"), names.end());
}

}  // namespace
}  // namespace ethosu::host
