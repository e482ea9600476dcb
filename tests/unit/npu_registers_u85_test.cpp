// The register file the NPU presents on APB follows its configuration: an Ethos-U85 answers at the U85's offsets
// (PMU and debug status 0x1000 up, 8 event counters, MEM_ATTR and AXI_SRAM/AXI_EXT where the U65 has AXI_LIMITn)
// with the U85's values, and the U65 map comes back unchanged when the NPU is configured as a U65 again.
#include <cstdint>
#include <functional>

#include <gtest/gtest.h>

#include "isa/architecture.h"
#include "isa/registers.h"
#include "models/npu/npu_config.h"
#include "models/platform/platform.h"
#include "tests/unit/apb_stimulus.h"

namespace {

using namespace ethosu;
using Stimulus = ethosu::testing::ApbStimulus;
using isa::Reg;
using isa::RegField;
using isa::RegisterMap;

constexpr isa::Variant kU85 = isa::Variant::U85_256;

uint16_t u85(Reg r, unsigned i = 0) { return isa::reg_at(r, i, RegisterMap::U85); }
uint16_t u65(Reg r, unsigned i = 0) { return isa::reg_at(r, i, RegisterMap::U65); }

struct Env {
  platform::Platform platform{"platform"};
  Stimulus stim{"stim"};
  Env() {
    stim.apb.bind(platform.npu.apb);
    stim.irq.bind(platform.irq);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
  void run(isa::Variant v, std::function<void(Stimulus&)> s) {
    platform::configure(platform, npu::npu_config(v));
    stim.script = std::move(s);
    stim.go.notify(sc_core::SC_ZERO_TIME);
    sc_core::sc_start();
    stim.script = nullptr;
  }
  // The response to a read at `offset`, without the stimulus's check that it is OK.
  tlm::tlm_response_status probe(uint16_t offset) {
    uint32_t v = 0;
    tlm::tlm_generic_payload gp;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    gp.set_read();
    gp.set_address(offset);
    gp.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
    gp.set_data_length(4);
    gp.set_streaming_width(4);
    platform.npu.apb.get_base_export()->b_transport(gp, delay);
    return gp.get_response_status();
  }
};

Env& env() {
  static Env e;
  return e;
}

TEST(NpuRegistersU85, IdentificationAndControlPage) {
  const isa::Architecture& arch = isa::architecture(kU85);
  env().run(kU85, [&](Stimulus& s) {
    EXPECT_EQ(s.rd(u85(Reg::ID)), 0x20007001u);  // arch 2.0.0, product 7, r0p0 status 1
    EXPECT_EQ(s.rd(u85(Reg::CONFIG)), arch.config);
    EXPECT_EQ(isa::get(s.rd(u85(Reg::CONFIG)), RegField::CONFIG_product), 2u);
    EXPECT_EQ(s.rd(u85(Reg::PID0)), 0x82u);
    EXPECT_EQ(s.rd(u85(Reg::CFG_SRAM_CAP)), 0x21F3Fu);
    // MEM_ATTR0-3 and AXI_SRAM/AXI_EXT hold what the driver writes; 0x40 is MEM_ATTR0, not AXI_LIMIT0.
    for (unsigned i = 0; i < 4; ++i) s.wr(u85(Reg::MEM_ATTR, i), i < 2 ? 0x00 : 0xB7);
    s.wr(u85(Reg::AXI_SRAM), 0x00021F3F);
    s.wr(u85(Reg::AXI_EXT), 0x00020F0B);
    EXPECT_EQ(s.rd(0x040), 0x00u);
    EXPECT_EQ(s.rd(u85(Reg::MEM_ATTR, 2)), 0xB7u);
    EXPECT_EQ(s.rd(u85(Reg::AXI_SRAM)), 0x00021F3Fu);
    EXPECT_EQ(s.rd(u85(Reg::AXI_EXT)), 0x00020F0Bu);
    // LOCK (0x2C) and the U65's debug core/block selectors are holes on the U85.
    s.wr(u65(Reg::LOCK), 0x1234);
    EXPECT_EQ(s.rd(u65(Reg::LOCK)), 0u);
    s.wr(u85(Reg::BASEP, 7) + 4, 0xFFFFFFFF);
    EXPECT_EQ(s.rd(u85(Reg::BASEP, 7) + 4), 0xFFu);  // 40-bit addresses
  });
}

TEST(NpuRegistersU85, PmuAtPlus0x1000WithEightCounters) {
  env().run(kU85, [&](Stimulus& s) {
    EXPECT_EQ(u85(Reg::PMCR), 0x1180);
    EXPECT_EQ(isa::get(s.rd(u85(Reg::PMCR)), RegField::PMCR_num_event_cnt), 8u);
    EXPECT_EQ(s.rd(u65(Reg::PMCR)), 0u);  // the U65's PMCR offset is a hole on the U85
    EXPECT_EQ(u85(Reg::PMEVTYPER, 7), 0x139C);
    s.wr(u85(Reg::PMEVTYPER, 7), 0x11);
    EXPECT_EQ(s.rd(u85(Reg::PMEVTYPER, 7)), 0x11u);
    s.wr(u85(Reg::PMCNTENSET), 0xFFFFFFFF);
    EXPECT_EQ(s.rd(u85(Reg::PMCNTENSET)), 0x800000FFu);  // 8 counters and the cycle counter
    s.wr(u85(Reg::PMCLUT), 0x00050001);
    EXPECT_EQ(s.rd(u85(Reg::PMCLUT)), 0x00050001u);
    // CYCLE counts on counter 7 while the PMU is enabled; an id that is not a U85 event (the U65's
    // MAC_ACTIVE_8BIT) counts nothing.
    s.wr(u85(Reg::PMEVTYPER, 6), static_cast<uint32_t>(isa::PmuEvent::MAC_ACTIVE_8BIT));
    s.wr(u85(Reg::PMCR), 7);
    s.idle(1000);
    s.wr(u85(Reg::PMCR), 0);
    EXPECT_GT(s.rd(u85(Reg::PMEVCNTR, 7)), 0u);
    EXPECT_EQ(s.rd(u85(Reg::PMEVCNTR, 6)), 0u);
    s.wr(u85(Reg::PMCNTENCLR), 0xFFFFFFFF);
  });
  EXPECT_EQ(env().probe(0x13FC), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(env().probe(0x1400), tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

TEST(NpuRegistersU85, U65MapUnchangedAfterwards) {
  env().run(isa::Variant::U65_256, [&](Stimulus& s) {
    EXPECT_EQ(isa::get(s.rd(u65(Reg::ID)), RegField::ID_arch_major_rev), 1u);
    EXPECT_EQ(s.rd(u65(Reg::PMCR)), 0x2000u);  // 4 counters
    s.wr(u65(Reg::AXI_LIMIT0), 0x1F3F0002);
    EXPECT_EQ(s.rd(u65(Reg::AXI_LIMIT0)), 0x1F3F0002u);
  });
  EXPECT_EQ(env().probe(0x1180), tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

}  // namespace

// GoogleTest's main runs the tests; SystemC's library still needs the symbol.
extern "C" int sc_main(int, char**) { return 0; }
