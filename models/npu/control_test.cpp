#include <gtest/gtest.h>

#include "isa/registers.h"
#include "models/npu/control.h"

using namespace ethosu;
using ethosu::isa::Reg;
using ethosu::npu::HostAction;

namespace {
uint16_t off(Reg r, unsigned i = 0) { return isa::reg_at(r, i); }
uint32_t rd(const npu::ControlRegisters& c, uint16_t o) {
  uint32_t v = 0;
  EXPECT_TRUE(c.read(o, v));
  return v;
}
HostAction wr(npu::ControlRegisters& c, uint16_t o, uint32_t v) {
  HostAction a;
  EXPECT_TRUE(c.write(o, v, a));
  return a;
}
}  // namespace

TEST(ControlRegisters, IdentityPerVariant) {
  npu::ControlRegisters c(isa::Variant::U65_256);
  EXPECT_EQ(rd(c, off(Reg::ID)), 0x10066001u);
  EXPECT_EQ(rd(c, off(Reg::CONFIG)), 0x10003008u);  // matches Vela's COP1 config word for U65-256
  c.set_variant(isa::Variant::U65_512);
  EXPECT_EQ(rd(c, off(Reg::CONFIG)), 0x10006009u);
  EXPECT_EQ(rd(c, off(Reg::STATUS)), 0u);  // stopped, reset done
  EXPECT_EQ(rd(c, off(Reg::CMD)), 0xCu);
}

TEST(ControlRegisters, FortyBitAddressRegisters) {
  npu::ControlRegisters c(isa::Variant::U65_256);
  wr(c, off(Reg::BASEP, 3), 0x89ABCDEF);
  wr(c, off(Reg::BASEP, 3) + 4, 0xFFFFFF12);
  EXPECT_EQ(c.basep(3), 0x1289ABCDEFull);
  EXPECT_EQ(rd(c, off(Reg::BASEP, 3) + 4), 0x12u);
  wr(c, off(Reg::QBASE), 0x1000);
  wr(c, off(Reg::QBASE) + 4, 0x01);
  EXPECT_EQ(c.qbase(), 0x100001000ull);
}

TEST(ControlRegisters, RunStopAndIrq) {
  npu::ControlRegisters c(isa::Variant::U65_256);
  EXPECT_EQ(wr(c, off(Reg::CMD), 1), HostAction::RUN);
  c.set_running(true);
  EXPECT_EQ(wr(c, off(Reg::CMD), 1), HostAction::NONE);  // already running
  c.stop_reached(0xFFFF);
  EXPECT_EQ(rd(c, off(Reg::STATUS)), 0xFFFF0022u);  // irq_raised, cmd_end_reached, history
  EXPECT_TRUE(c.irq());
  wr(c, off(Reg::CMD), 2);
  EXPECT_FALSE(c.irq());
  EXPECT_EQ(rd(c, off(Reg::STATUS)), 0xFFFF0020u);
  wr(c, off(Reg::CMD), 0x00F00000);  // clear_irq_history bits 16..31 of CMD clear history bits
  EXPECT_EQ(rd(c, off(Reg::STATUS)), 0xFF0F0020u);
  wr(c, off(Reg::QSIZE), 64);  // QSIZE written while stopped clears cmd_end_reached
  EXPECT_EQ(rd(c, off(Reg::STATUS)) & 0x20u, 0u);
}

TEST(ControlRegisters, FaultsLatchUntilReset) {
  npu::ControlRegisters c(isa::Variant::U65_256);
  c.set_running(true);
  c.fault({cc::FaultKind::BUS_ERROR, 0, "", 1, cc::Channel::WR_OFM});
  const uint32_t s = rd(c, off(Reg::STATUS));
  EXPECT_EQ(s & 1u, 0u);         // halted
  EXPECT_EQ(s & 4u, 4u);         // bus_status
  EXPECT_EQ((s >> 11) & 1u, 1u);  // faulting_interface M1
  EXPECT_EQ((s >> 12) & 0xFu, 8u);  // OFM write channel
  EXPECT_TRUE(c.irq());
  wr(c, off(Reg::CMD), 2);
  EXPECT_TRUE(c.faulted());
  EXPECT_EQ(wr(c, off(Reg::CMD), 1), HostAction::NONE);  // no start while an error is latched
  EXPECT_EQ(wr(c, off(Reg::RESET), 2), HostAction::SOFT_RESET);
  c.reset();
  EXPECT_FALSE(c.faulted());
  EXPECT_EQ(rd(c, off(Reg::PROT)), 2u);  // the requested non-secure level is active
  EXPECT_EQ(c.basep(0), 0u);
}

TEST(ControlRegisters, WeightDecoderFaultPerFamily) {
  npu::ControlRegisters u65(isa::Variant::U65_256), u85(isa::Variant::U85_256);
  for (npu::ControlRegisters* c : {&u65, &u85}) {
    c->set_running(true);
    c->fault({cc::FaultKind::WD_FAULT, 0, "", 0, cc::Channel::RD_WEIGHTS});
    EXPECT_TRUE(c->faulted());
  }
  EXPECT_EQ(rd(u65, off(Reg::STATUS)) & 0x92u, 0x82u);  // irq_raised, wd_fault
  // The U85 has no wd_fault: bit 7 stays clear (reserved), the fault shows as cmd_parse_error.
  const uint32_t s = rd(u85, isa::reg_at(Reg::STATUS, 0, isa::RegisterMap::U85));
  EXPECT_EQ(s & 0x92u, 0x12u);
}

TEST(ControlRegisters, RegionPorts) {
  npu::ControlRegisters c(isa::Variant::U65_256);
  wr(c, off(Reg::REGIONCFG), 0x0000AA8A);  // the Linux driver's value
  EXPECT_EQ(c.region_port(0), 1u);
  EXPECT_EQ(c.region_port(2), 0u);
  EXPECT_EQ(c.region_limiter(1), 2u);
  wr(c, off(Reg::QCONFIG), 2);
  EXPECT_EQ(c.command_port(), 1u);
}
