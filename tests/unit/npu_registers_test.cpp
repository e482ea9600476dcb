// The NPU's register file, IRQ line and fault behaviour (spec 02), driven by a stimulus module straight
// through Platform::npu.apb, without host/driver: reset values, soft reset, run/stop, NPU_OP_IRQ, parse,
// bus and weight-decoder faults, QREAD, the PMU against the NPU's own report, 40-bit BASEP and reads
// in the middle of a run.
//
// SystemC elaborates once per process: the platform and the stimulus are built once (env()) and each
// test runs one script in the stimulus thread with sc_start().
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "isa/assembler.h"
#include "isa/registers.h"
#include "models/platform/platform.h"
#include "tests/unit/npu_streams.h"
#include "tests/unit/apb_stimulus.h"

namespace ethosu::npu {
namespace {

using npu::JobReport;
using npu::OpRecord;
using npu::Stall;

using isa::Reg;
using isa::RegField;
using sc_core::SC_NS;
using sc_core::sc_time;

constexpr uint64_t kSramBase = 0x2000'0000;   // AXI0
constexpr uint64_t kDramBase = 0x8000'0000;   // AXI1
constexpr uint64_t kStreamAddr = kDramBase;   // command streams live in DRAM
constexpr uint64_t kDramRegion = kDramBase + 0x10000;
constexpr uint32_t kCmdKeep = 0xC;            // CMD clock/power Q-channel enables, as drivers keep them
constexpr uint32_t kLimits = 0x1F3F0000;      // AXI_LIMITn: 64 B split, 64 reads, 32 writes outstanding

uint16_t off(Reg r, unsigned i = 0) { return isa::reg_at(r, i); }
uint16_t plus(uint16_t offset, unsigned bytes) { return static_cast<uint16_t>(offset + bytes); }
uint32_t bit(RegField f) { return isa::reg_field_mask(f); }

using Stimulus = ethosu::testing::ApbStimulus;

// Reads a register from an SC_METHOD, where a wait() is an error (E519): the access must not wait.
SC_MODULE(MethodReader) {
  tlm::tlm_fw_transport_if<>* apb = nullptr;
  sc_core::sc_event go;
  uint16_t offset = 0;
  uint32_t value = 0;
  tlm::tlm_response_status response = tlm::TLM_INCOMPLETE_RESPONSE;
  SC_CTOR(MethodReader) {
    SC_METHOD(read);
    sensitive << go;
    dont_initialize();
  }
  void read() {
    tlm::tlm_generic_payload gp;
    sc_core::sc_time delay(10, SC_NS);
    gp.set_read();
    gp.set_address(offset);
    gp.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
    gp.set_data_length(4);
    gp.set_streaming_width(4);
    apb->b_transport(gp, delay);
    response = gp.get_response_status();
  }
};

struct Env {
  platform::Platform platform{"platform"};
  Stimulus stim{"stim"};
  MethodReader method{"method"};
  Env() {
    method.apb = platform.npu.apb.get_base_export().operator->();
    stim.apb.bind(platform.npu.apb);
    stim.irq.bind(platform.irq);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
  void run(std::function<void(Stimulus&)> s) {
    stim.script = std::move(s);
    stim.go.notify(sc_core::SC_ZERO_TIME);
    sc_core::sc_start();
    stim.script = nullptr;
  }
};

Env& env() {
  static Env e;
  return e;
}

// Buffers of one job mapped into the memories for the length of a test.
struct Mapping {
  std::vector<uint8_t> stream, sram = std::vector<uint8_t>(4096), dram = std::vector<uint8_t>(4096);
  explicit Mapping(const std::string& text, npu::NpuConfig cfg = {}) : stream(isa::assemble(text)) {
    auto& p = env().platform;
    platform::configure(p, cfg);
    p.sram.unmap_all();
    p.dram.unmap_all();
    p.dram.map(kStreamAddr, stream.data(), stream.size());
    p.sram.map(kSramBase, sram.data(), sram.size());
    p.dram.map(kDramRegion, dram.data(), dram.size());
  }
  ~Mapping() {
    env().platform.sram.unmap_all();
    env().platform.dram.unmap_all();
  }
};

// Soft reset and the set-up every run needs: region 1 on AXI0 (SRAM), region 2 on AXI1 (DRAM), the
// stream fetched on AXI1, limiters open.
void setup(Stimulus& s, const Mapping& m) {
  s.wr(off(Reg::RESET), 2);
  s.wr(off(Reg::CMD), kCmdKeep);
  s.wr(off(Reg::QCONFIG), 2);
  s.wr(off(Reg::REGIONCFG), (2u << 4) | (0u << 2));  // region 1 -> M0, region 2 -> M1
  for (unsigned i = 0; i < 4; ++i) s.wr(plus(off(Reg::AXI_LIMIT0), 4 * i), kLimits);
  s.wr(off(Reg::BASEP, 1), static_cast<uint32_t>(kSramBase));
  s.wr(off(Reg::BASEP, 2), static_cast<uint32_t>(kDramRegion));
  s.wr(off(Reg::QBASE), static_cast<uint32_t>(kStreamAddr));
  s.wr(off(Reg::QSIZE), static_cast<uint32_t>(m.stream.size()));
}

// A MAX pool with a 1x1 kernel over H x W x 16 int8 in one block: copies the IFM at region `in` offset 0
// to region `out` offset `ofm`. Needs no weights or scales.
std::string pool(unsigned h, unsigned w, unsigned in = 1, unsigned out = 1, unsigned ofm = 0x800) {
  return test::pool(h, w, w, in, 0, out, ofm) + "NPU_OP_POOL pooling_mode=MAX\n";
}

// Byte offset of the first command after `prefix` (the assembler emits exactly these words).
uint32_t offset_after(const std::string& prefix) { return static_cast<uint32_t>(isa::assemble(prefix).size()); }

// One APB access with the payload's every knob, from the stimulus thread straight into the NPU's socket.
struct Access {
  tlm::tlm_command command = tlm::TLM_READ_COMMAND;
  uint64_t address = 0;
  unsigned length = 4, streaming_width = 4;
  std::vector<unsigned char> byte_enables;  // none when empty
  sc_time delay = sc_core::SC_ZERO_TIME;
};
Access make_access(tlm::tlm_command command, uint64_t address, unsigned length = 4, unsigned streaming_width = 4,
                   std::vector<unsigned char> byte_enables = {}, sc_time delay = sc_core::SC_ZERO_TIME) {
  Access a;
  a.command = command;
  a.address = address;
  a.length = length;
  a.streaming_width = streaming_width;
  a.byte_enables = std::move(byte_enables);
  a.delay = delay;
  return a;
}
tlm::tlm_response_status apb_access(const Access& a, uint32_t& data) {
  tlm::tlm_generic_payload gp;
  unsigned char buffer[8] = {};
  std::memcpy(buffer, &data, 4);
  gp.set_command(a.command);
  gp.set_address(a.address);
  gp.set_data_ptr(buffer);
  gp.set_data_length(a.length);
  gp.set_streaming_width(a.streaming_width);
  std::vector<unsigned char> enables = a.byte_enables;
  if (!a.byte_enables.empty()) {
    gp.set_byte_enable_ptr(enables.data());
    gp.set_byte_enable_length(static_cast<unsigned>(enables.size()));
  }
  sc_time delay = a.delay;
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  env().platform.npu.apb.get_base_export()->b_transport(gp, delay);
  EXPECT_EQ(delay, a.delay) << "the NPU adds no time of its own and waits for none";
  std::memcpy(&data, buffer, 4);
  return gp.get_response_status();
}

uint64_t summed_mac_busy(const JobReport& r) {
  return std::accumulate(r.ops.begin(), r.ops.end(), uint64_t{0},
                         [](uint64_t a, const OpRecord& o) { return a + o.mac_busy_cycles; });
}

TEST(NpuRegisters, ResetValues) {
  env().run([](Stimulus& s) {
    s.wr(off(Reg::RESET), 0);
    EXPECT_EQ(s.rd(off(Reg::ID)), 0x10066001u);
    EXPECT_EQ(s.rd(off(Reg::CONFIG)), 0x10003008u);  // U65-256: 256 MACs, 48 KiB SHRAM, product U65
    // The model's reset completes at once, so reset_status already reads 0: nothing else is set.
    EXPECT_EQ(s.rd(off(Reg::STATUS)), 0u);
    EXPECT_EQ(s.rd(off(Reg::CMD)), 0xCu);
    EXPECT_EQ(s.rd(off(Reg::QREAD)), 0u);
    EXPECT_EQ(s.rd(off(Reg::PROT)), 0u);
    EXPECT_EQ(s.rd(off(Reg::PMCR)), 0x2000u);  // num_event_cnt = 4, read-only
    EXPECT_EQ(s.rd(off(Reg::PID0)), 0x81u);
    EXPECT_EQ(s.rd(off(Reg::CID3)), 0xB1u);
    EXPECT_EQ(s.rd(0x030), 0u);  // an undecoded hole
    EXPECT_FALSE(s.irq.read());
  });
}

TEST(NpuRegisters, ConfigFollowsTheVariant) {
  const npu::NpuConfig dual = npu::npu_config(isa::Variant::U65_512);
  platform::configure(env().platform, dual);
  uint32_t config = 0;
  env().run([&](Stimulus& s) { config = s.rd(off(Reg::CONFIG)); });
  EXPECT_EQ(config, 0x10006009u);  // 512 MACs, 96 KiB SHRAM
  platform::configure(env().platform, {});
  env().run([&](Stimulus& s) { config = s.rd(off(Reg::CONFIG)); });
  EXPECT_EQ(config, 0x10003008u);
}

TEST(NpuRegisters, U55IdentifiesItselfRunsItsCommandsAndRefusesTheU65s) {
  const npu::NpuConfig u55 = npu::npu_config(isa::Variant::U55_128);
  const std::string body = pool(1, 1) + "NPU_SET_USER_DEFINED0 user_reg=0xCAFE\nNPU_SET_USER_DEFINED7 user_reg=7\n";
  {
    Mapping m(body + "NPU_OP_STOP mask=0x1\n", u55);
    std::fill(m.sram.begin(), m.sram.begin() + 16, 5);
    env().run([&](Stimulus& s) {
      s.wr(off(Reg::RESET), 0);
      EXPECT_EQ(s.rd(off(Reg::ID)), 0x10104201u);      // architecture 1.1.0, r2p0 (ethosu55_interface.h)
      EXPECT_EQ(s.rd(off(Reg::CONFIG)), 0x00001807u);  // product U55, 128 MACs, 24 KiB SHRAM
      setup(s, m);
      s.wr(off(Reg::CMD), kCmdKeep | 1);
      ASSERT_TRUE(s.wait_irq());
      EXPECT_EQ(s.rd(off(Reg::STATUS)) & bit(RegField::STATUS_cmd_parse_error), 0u);
      // USER_DEFINEDn mirror into 32-bit registers 4 bytes apart.
      EXPECT_EQ(s.rd(0xB80), 0xCAFEu);
      EXPECT_EQ(s.rd(0xB9C), 7u);
    });
    EXPECT_EQ(m.sram[0x800], 5);
  }
  {
    // PARALLEL_MODE is a U65 command: a U55 faults on it as on any unknown opcode.
    Mapping m(pool(1, 1) + "NPU_SET_PARALLEL_MODE parallel_mode=0\n" + pool(1, 1, 1, 1, 0x900) + "NPU_OP_STOP mask=0x1\n",
              u55);
    std::fill(m.sram.begin(), m.sram.begin() + 16, 9);
    env().run([&](Stimulus& s) {
      setup(s, m);
      s.wr(off(Reg::CMD), kCmdKeep | 1);
      ASSERT_TRUE(s.wait_irq());
      EXPECT_NE(s.rd(off(Reg::STATUS)) & bit(RegField::STATUS_cmd_parse_error), 0u);
      EXPECT_EQ(s.rd(off(Reg::QREAD)), offset_after(pool(1, 1)));
      s.wr(off(Reg::RESET), 2);
    });
    EXPECT_EQ(m.sram[0x800], 9);
    EXPECT_EQ(m.sram[0x900], 0);
  }
  {
    // And a U65 faults on USER_DEFINEDn; its mirror offsets read 0.
    Mapping m(body + "NPU_OP_STOP mask=0x1\n");
    env().run([&](Stimulus& s) {
      setup(s, m);
      s.wr(off(Reg::CMD), kCmdKeep | 1);
      ASSERT_TRUE(s.wait_irq());
      EXPECT_NE(s.rd(off(Reg::STATUS)) & bit(RegField::STATUS_cmd_parse_error), 0u);
      EXPECT_EQ(s.rd(0xB80), 0u);
      s.wr(off(Reg::RESET), 2);
    });
  }
  platform::configure(env().platform, {});
}

TEST(NpuRegisters, SoftResetRestoresResetValuesAndSetsProt) {
  env().run([](Stimulus& s) {
    s.wr(off(Reg::LOCK), 0x1234);
    s.wr(off(Reg::REGIONCFG), 0xAA8A);
    s.wr(off(Reg::QBASE), 0x1000);
    s.wr(off(Reg::QSIZE), 64);
    s.wr(off(Reg::AXI_LIMIT2), kLimits);
    s.wr(off(Reg::BASEP, 5), 0x4000);
    s.wr(off(Reg::PMEVTYPER, 1), 0x30);
    s.wr(off(Reg::CMD), 0x0);
    s.wr(off(Reg::RESET), 3);  // privileged, non-secure
    EXPECT_EQ(s.rd(off(Reg::STATUS)) & bit(RegField::STATUS_reset_status), 0u);
    EXPECT_EQ(s.rd(off(Reg::PROT)), 3u);
    EXPECT_EQ(s.rd(off(Reg::LOCK)), 0u);
    EXPECT_EQ(s.rd(off(Reg::REGIONCFG)), 0u);
    EXPECT_EQ(s.rd(off(Reg::QBASE)), 0u);
    EXPECT_EQ(s.rd(off(Reg::QSIZE)), 0u);
    EXPECT_EQ(s.rd(off(Reg::AXI_LIMIT2)), 0u);
    EXPECT_EQ(s.rd(off(Reg::BASEP, 5)), 0u);
    EXPECT_EQ(s.rd(off(Reg::PMEVTYPER, 1)), 0u);
    EXPECT_EQ(s.rd(off(Reg::CMD)), 0xCu);
    s.wr(off(Reg::RESET), 2);  // the Linux driver's request: user, non-secure
    EXPECT_EQ(s.rd(off(Reg::PROT)), 2u);
  });
}

TEST(NpuRegisters, Basep40Bit) {
  env().run([](Stimulus& s) {
    s.wr(off(Reg::BASEP, 7), 0xFFFF'FFF0);
    s.wr(plus(off(Reg::BASEP, 7), 4), 0xFFFF'FFFF);  // only address bits 39:32 exist
    EXPECT_EQ(s.rd(off(Reg::BASEP, 7)), 0xFFFF'FFF0u);
    EXPECT_EQ(s.rd(plus(off(Reg::BASEP, 7), 4)), 0xFFu);
    EXPECT_EQ(s.rd(plus(off(Reg::BASEP, 6), 4)), 0u);  // the neighbour is untouched
    s.wr(plus(off(Reg::QBASE), 4), 0x1AB);
    EXPECT_EQ(s.rd(plus(off(Reg::QBASE), 4)), 0xABu);
  });
}

TEST(NpuRegisters, RunToStopRaisesIrqAndStatusClears) {
  const std::string body = pool(2, 2);
  Mapping m(body + "NPU_OP_STOP mask=0x8001\n");
  std::iota(m.sram.begin(), m.sram.begin() + 64, int8_t{-20});
  const uint32_t stop_offset = offset_after(body);
  env().run([&](Stimulus& s) {
    setup(s, m);
    s.wr(off(Reg::CMD), kCmdKeep | 1);
    ASSERT_TRUE(s.wait_irq());
    const uint32_t st = s.rd(off(Reg::STATUS));
    EXPECT_EQ(st, bit(RegField::STATUS_cmd_end_reached) | bit(RegField::STATUS_irq_raised) | (0x8001u << 16));
    EXPECT_EQ(isa::get(st, RegField::STATUS_state), 0u);  // STOPPED
    EXPECT_EQ(s.rd(off(Reg::QREAD)), stop_offset);
    EXPECT_EQ(s.rd(off(Reg::CMD)), kCmdKeep | 1);  // CMD reads back the last write
    // clear_irq drops the line and irq_raised only.
    s.wr(off(Reg::CMD), kCmdKeep | 2);
    s.idle(1);
    EXPECT_FALSE(s.irq.read());
    EXPECT_EQ(s.rd(off(Reg::STATUS)), bit(RegField::STATUS_cmd_end_reached) | (0x8001u << 16));
    // clear_irq_history clears the chosen mask bits.
    s.wr(off(Reg::CMD), kCmdKeep | (0x8000u << 16));
    EXPECT_EQ(s.rd(off(Reg::STATUS)) >> 16, 0x0001u);
    // A new QBASE/QSIZE while stopped: cmd_end_reached clears.
    s.wr(off(Reg::QSIZE), static_cast<uint32_t>(m.stream.size()));
    EXPECT_EQ(s.rd(off(Reg::STATUS)) & bit(RegField::STATUS_cmd_end_reached), 0u);
  });
  // The pool copied the 2x2x16 IFM.
  EXPECT_TRUE(std::equal(m.sram.begin(), m.sram.begin() + 64, m.sram.begin() + 0x800));
  EXPECT_EQ(env().platform.npu.report().status, "ok");
}

TEST(NpuRegisters, QbaseWriteClearsCmdEndReached) {
  Mapping m(pool(1, 1) + "NPU_OP_STOP mask=0x1\n");
  env().run([&](Stimulus& s) {
    setup(s, m);
    s.wr(off(Reg::CMD), kCmdKeep | 1);
    ASSERT_TRUE(s.wait_irq());
    EXPECT_NE(s.rd(off(Reg::STATUS)) & bit(RegField::STATUS_cmd_end_reached), 0u);
    s.wr(off(Reg::QBASE), static_cast<uint32_t>(kStreamAddr));
    EXPECT_EQ(s.rd(off(Reg::STATUS)) & bit(RegField::STATUS_cmd_end_reached), 0u);
  });
}

TEST(NpuRegisters, OpIrqRaisesTheLineAndKeepsRunning) {
  // A short pool, NPU_OP_IRQ, then a long pool (16x16x16) before the stop.
  const std::string first = pool(1, 1) + "NPU_OP_IRQ mask=0x0002\n";
  Mapping m(first + pool(16, 16, 2, 2, 0x0) + "NPU_OP_STOP mask=0x0100\n");
  env().run([&](Stimulus& s) {
    setup(s, m);
    s.wr(off(Reg::CMD), kCmdKeep | 1);
    ASSERT_TRUE(s.wait_irq());
    const uint64_t irq_cycle = s.now();
    uint32_t st = s.rd(off(Reg::STATUS));
    EXPECT_EQ(isa::get(st, RegField::STATUS_state), 1u);  // still RUNNING
    EXPECT_NE(st & bit(RegField::STATUS_irq_raised), 0u);
    EXPECT_EQ(st & bit(RegField::STATUS_cmd_end_reached), 0u);
    EXPECT_EQ(st >> 16, 0x0002u);
    s.wr(off(Reg::CMD), kCmdKeep | 2);
    s.idle(1);
    EXPECT_FALSE(s.irq.read());
    ASSERT_TRUE(s.wait_irq());  // the stop's interrupt comes later
    EXPECT_GT(s.now(), irq_cycle);
    st = s.rd(off(Reg::STATUS));
    EXPECT_EQ(st >> 16, 0x0102u);  // both masks accumulated
    EXPECT_NE(st & bit(RegField::STATUS_cmd_end_reached), 0u);
  });
  EXPECT_EQ(env().platform.npu.report().ops.size(), 2u);
}

TEST(NpuRegisters, StatusAndQreadInTheMiddleOfARun) {
  const std::string body = pool(16, 16, 2, 2, 0x0);
  Mapping m(body + "NPU_OP_STOP mask=0x1\n");
  env().run([&](Stimulus& s) {
    setup(s, m);
    const uint64_t start = s.now();
    s.wr(off(Reg::CMD), kCmdKeep | 1);
    s.idle(100);
    const uint32_t st = s.rd(off(Reg::STATUS));
    EXPECT_EQ(isa::get(st, RegField::STATUS_state), 1u) << "RUNNING 100 cycles into the run";
    EXPECT_EQ(st & bit(RegField::STATUS_irq_raised), 0u);
    EXPECT_FALSE(s.irq.read());
    EXPECT_LE(s.rd(off(Reg::QREAD)), offset_after(body));
    ASSERT_TRUE(s.wait_irq());
    EXPECT_EQ(s.now() - start, env().platform.npu.report().total_cycles);
    EXPECT_GT(s.now() - start, 100u);
    EXPECT_EQ(isa::get(s.rd(off(Reg::STATUS)), RegField::STATUS_state), 0u);
  });
}

TEST(NpuRegisters, UnknownOpcodeIsAParseErrorUntilReset) {
  const std::string first = pool(1, 1);
  // 0x0FF is no CMD0 opcode; the second pool must not run.
  Mapping m(first + ".word 0x000000FF\n" + pool(1, 1, 1, 1, 0x900) + "NPU_OP_STOP mask=0x1\n");
  std::fill(m.sram.begin(), m.sram.begin() + 16, 7);
  env().run([&](Stimulus& s) {
    setup(s, m);
    s.wr(off(Reg::CMD), kCmdKeep | 1);
    ASSERT_TRUE(s.wait_irq());
    const uint32_t st = s.rd(off(Reg::STATUS));
    EXPECT_NE(st & bit(RegField::STATUS_cmd_parse_error), 0u);
    EXPECT_NE(st & bit(RegField::STATUS_irq_raised), 0u);
    EXPECT_EQ(st & bit(RegField::STATUS_cmd_end_reached), 0u);
    EXPECT_EQ(isa::get(st, RegField::STATUS_state), 0u);
    EXPECT_EQ(s.rd(off(Reg::QREAD)), offset_after(first));
    // A start is ignored while the error is latched, even after clear_irq.
    s.wr(off(Reg::CMD), kCmdKeep | 2);
    s.wr(off(Reg::CMD), kCmdKeep | 1);
    s.idle(100000);
    EXPECT_FALSE(s.irq.read());
    EXPECT_NE(s.rd(off(Reg::STATUS)) & bit(RegField::STATUS_cmd_parse_error), 0u);
    // Reset clears it.
    s.wr(off(Reg::RESET), 2);
    EXPECT_EQ(s.rd(off(Reg::STATUS)), 0u);
  });
  EXPECT_EQ(m.sram[0x800], 7);   // the first pool ran
  EXPECT_EQ(m.sram[0x900], 0);   // the second did not
  EXPECT_EQ(env().platform.npu.report().ops.size(), 1u);
}

TEST(NpuRegisters, OfmOutsideItsRegionIsABusErrorOnThatPort) {
  // Region 2 (AXI1) holds 4096 bytes; the OFM at 0x2000 is beyond it.
  Mapping m(pool(1, 1, 1, 2, 0x2000) + "NPU_OP_STOP mask=0x1\n");
  env().run([&](Stimulus& s) {
    setup(s, m);
    s.wr(off(Reg::CMD), kCmdKeep | 1);
    ASSERT_TRUE(s.wait_irq());
    const uint32_t st = s.rd(off(Reg::STATUS));
    EXPECT_NE(st & bit(RegField::STATUS_bus_status), 0u);
    EXPECT_EQ(isa::get(st, RegField::STATUS_faulting_interface), 1u);  // M1
    EXPECT_EQ(isa::get(st, RegField::STATUS_faulting_channel), 8u);    // OFM write
    EXPECT_EQ(st & bit(RegField::STATUS_cmd_end_reached), 0u);
    s.wr(off(Reg::RESET), 2);
    EXPECT_EQ(s.rd(off(Reg::STATUS)), 0u);
  });
}

TEST(NpuRegisters, IfmOutsideItsRegionIsABusErrorOnThatPort) {
  // Region 3 is unmapped: BASEP3 = 0 on AXI0, where no memory is.
  Mapping m(pool(1, 1, 3, 1) + "NPU_OP_STOP mask=0x1\n");
  env().run([&](Stimulus& s) {
    setup(s, m);
    s.wr(off(Reg::CMD), kCmdKeep | 1);
    ASSERT_TRUE(s.wait_irq());
    const uint32_t st = s.rd(off(Reg::STATUS));
    EXPECT_NE(st & bit(RegField::STATUS_bus_status), 0u);
    EXPECT_EQ(isa::get(st, RegField::STATUS_faulting_interface), 0u);  // M0
    EXPECT_EQ(isa::get(st, RegField::STATUS_faulting_channel), 1u);    // IFM read
  });
}

TEST(NpuRegisters, CorruptWeightStreamIsAWdFault) {
  // A 1x1 conv whose weight stream starts with the reserved ZDIV value 5.
  Mapping m(
      "NPU_SET_IFM_REGION region=1\nNPU_SET_IFM_PRECISION activation_type=SIGNED\n"
      "NPU_SET_OFM_REGION region=1\nNPU_SET_OFM_BASE0 addr=0x20\nNPU_SET_OFM_PRECISION activation_type=SIGNED\n"
      "NPU_SET_WEIGHT_REGION region=2\nNPU_SET_WEIGHT_LENGTH length=16\n"
      "NPU_SET_SCALE_REGION region=2\nNPU_SET_SCALE_BASE addr=0x100\nNPU_SET_SCALE_LENGTH length=16\n"
      "NPU_OP_CONV\nNPU_OP_STOP mask=0x1\n");
  m.dram[0] = 0x05;
  env().run([&](Stimulus& s) {
    setup(s, m);
    s.wr(off(Reg::CMD), kCmdKeep | 1);
    ASSERT_TRUE(s.wait_irq());
    const uint32_t st = s.rd(off(Reg::STATUS));
    EXPECT_NE(st & bit(RegField::STATUS_wd_fault), 0u);
    EXPECT_EQ(st & (bit(RegField::STATUS_bus_status) | bit(RegField::STATUS_cmd_end_reached)), 0u);
  });
  EXPECT_NE(env().platform.npu.report().status.find("weight decoder fault"), std::string::npos);
}

// PMCCNTR counts every cycle from the PMCR enable to the read: the idle cycles before the start, the
// run (the report's total_cycles, start to IRQ) and the idle cycles after it, exactly. MAC_ACTIVE
// counts the report's MAC busy cycles.
TEST(NpuRegisters, PmuCountsTheRunExactly) {
  Mapping m(pool(16, 16, 2, 2, 0x0) + "NPU_OP_STOP mask=0x1\n");
  constexpr uint64_t kIdleBefore = 1234, kIdleAfter = 567, kIdleBeforeEnable = 3000;
  uint64_t cycles = 0, run_cycles = 0;
  uint32_t mac_active = 0;
  env().run([&](Stimulus& s) {
    setup(s, m);
    s.wr(off(Reg::PMEVTYPER, 0), static_cast<uint32_t>(isa::PmuEvent::MAC_ACTIVE));
    s.wr(off(Reg::PMCNTENSET), (1u << 31) | 1u);
    // Cycles before the enable must not count.
    s.idle(kIdleBeforeEnable);
    s.wr(off(Reg::PMCR), 7);  // enable, both counters reset
    const uint64_t enabled = s.now();
    s.idle(kIdleBefore);
    const uint64_t start = s.now();
    s.wr(off(Reg::CMD), kCmdKeep | 1);
    ASSERT_TRUE(s.wait_irq());
    run_cycles = s.now() - start;
    s.idle(kIdleAfter);
    cycles = s.rd(off(Reg::PMCCNTR)) | (uint64_t{s.rd(plus(off(Reg::PMCCNTR), 4))} << 32);
    mac_active = s.rd(off(Reg::PMEVCNTR, 0));
    EXPECT_EQ(s.now() - enabled, cycles);
  });
  const JobReport& r = env().platform.npu.report();
  EXPECT_EQ(run_cycles, r.total_cycles);
  EXPECT_EQ(cycles, kIdleBefore + r.total_cycles + kIdleAfter);
  EXPECT_GT(summed_mac_busy(r), 0u);
  EXPECT_EQ(mac_active, summed_mac_busy(r));
}

TEST(NpuRegisters, PmuOverflowRaisesTheIrq) {
  Mapping m(pool(16, 16, 2, 2, 0x0) + "NPU_OP_STOP mask=0x1\n");
  env().run([&](Stimulus& s) {
    setup(s, m);
    s.wr(off(Reg::PMEVTYPER, 2), static_cast<uint32_t>(isa::PmuEvent::MAC_ACTIVE));
    s.wr(off(Reg::PMCNTENSET), 1u << 2);
    s.wr(off(Reg::PMINTSET), 1u << 2);
    s.wr(off(Reg::PMCR), 1);
    s.wr(off(Reg::PMEVCNTR, 2), 0xFFFF'FFF0);  // wraps after 16 MAC cycles
    s.wr(off(Reg::CMD), kCmdKeep | 1);
    ASSERT_TRUE(s.wait_irq());
    uint32_t st = s.rd(off(Reg::STATUS));
    EXPECT_NE(st & bit(RegField::STATUS_pmu_irq_raised), 0u);
    EXPECT_NE(st & bit(RegField::STATUS_irq_raised), 0u);
    EXPECT_EQ(s.rd(off(Reg::PMOVSSET)), 1u << 2);
    EXPECT_LT(s.rd(off(Reg::PMEVCNTR, 2)), 0xFFFF'FFF0u);  // wrapped
    // The PMU's request is a level: clear the overflow flag, then the IRQ.
    s.wr(off(Reg::PMOVSCLR), 1u << 2);
    s.wr(off(Reg::CMD), kCmdKeep | 2);
    s.idle(1);
    EXPECT_FALSE(s.irq.read());
    st = s.rd(off(Reg::STATUS));
    EXPECT_EQ(st & (bit(RegField::STATUS_pmu_irq_raised) | bit(RegField::STATUS_irq_raised)), 0u);
  });
}

TEST(NpuRegisters, PmuOverflowWhileIdleRaisesTheIrqWhenItHappens) {
  env().run([&](Stimulus& s) {
    s.wr(off(Reg::RESET), 2);
    s.wr(off(Reg::CMD), kCmdKeep);
    s.wr(off(Reg::PMCR), 1);
    // The 48-bit cycle counter 1000 cycles before it wraps, counting with its interrupt enabled.
    s.wr(off(Reg::PMCCNTR), 0xFFFF'FFFFu - 999);
    s.wr(plus(off(Reg::PMCCNTR), 4), 0xFFFF);
    s.wr(off(Reg::PMCNTENSET), PmuRegisters::kCycleBit);
    s.wr(off(Reg::PMINTSET), PmuRegisters::kCycleBit);
    uint64_t t0 = s.now();
    ASSERT_TRUE(s.wait_irq(5000));
    EXPECT_EQ(s.now() - t0, 1000u);
    EXPECT_EQ(s.rd(off(Reg::PMOVSSET)), PmuRegisters::kCycleBit);
    EXPECT_NE(s.rd(off(Reg::STATUS)) & bit(RegField::STATUS_pmu_irq_raised), 0u);
    s.wr(off(Reg::PMINTCLR), PmuRegisters::kCycleBit);
    s.wr(off(Reg::PMOVSCLR), PmuRegisters::kCycleBit);
    s.wr(off(Reg::CMD), kCmdKeep | 2);
    s.idle(1);
    EXPECT_FALSE(s.irq.read());
    // An event counter of NPU_IDLE cycles, 500 before it wraps.
    s.wr(off(Reg::PMEVTYPER, 0), static_cast<uint32_t>(isa::PmuEvent::NPU_IDLE));
    s.wr(off(Reg::PMEVCNTR, 0), 0xFFFF'FFFFu - 499);
    s.wr(off(Reg::PMCNTENSET), 1);
    s.wr(off(Reg::PMINTSET), 1);
    t0 = s.now();
    ASSERT_TRUE(s.wait_irq(5000));
    EXPECT_EQ(s.now() - t0, 500u);
    EXPECT_EQ(s.rd(off(Reg::PMOVSSET)), 1u);
    // A counter of an event that does not happen while idle never fires.
    s.wr(off(Reg::PMOVSCLR), 1);
    s.wr(off(Reg::CMD), kCmdKeep | 2);
    s.idle(1);
    s.wr(off(Reg::PMEVTYPER, 0), static_cast<uint32_t>(isa::PmuEvent::MAC_ACTIVE));
    s.wr(off(Reg::PMEVCNTR, 0), 0xFFFF'FFFFu);
    EXPECT_FALSE(s.wait_irq(100000));
    s.wr(off(Reg::PMCR), 0);
  });
}

TEST(NpuRegisters, PmuWithoutInterruptEnableLeavesOnlyTheStopIrq) {
  Mapping m(pool(16, 16, 2, 2, 0x0) + "NPU_OP_STOP mask=0x1\n");
  env().run([&](Stimulus& s) {
    setup(s, m);
    s.wr(off(Reg::PMEVTYPER, 2), static_cast<uint32_t>(isa::PmuEvent::MAC_ACTIVE));
    s.wr(off(Reg::PMCNTENSET), 1u << 2);
    s.wr(off(Reg::PMCR), 1);
    s.wr(off(Reg::PMEVCNTR, 2), 0xFFFF'FFF0);
    s.wr(off(Reg::CMD), kCmdKeep | 1);
    ASSERT_TRUE(s.wait_irq());
    EXPECT_EQ(s.rd(off(Reg::PMOVSSET)), 1u << 2);
    EXPECT_EQ(s.rd(off(Reg::STATUS)) & bit(RegField::STATUS_pmu_irq_raised), 0u);
  });
}


// libsystemc's main() is unused (GoogleTest's runs the tests) but the library needs the symbol.
extern "C" int sc_main(int, char**) { return 0; }

TEST(NpuRegistersTlm, ReadFromAnScMethod) {
  MethodReader& m = env().method;
  m.offset = off(Reg::ID);
  m.value = 0;
  m.go.notify(sc_time(5, SC_NS));
  sc_core::sc_start(sc_time(20, SC_NS));
  EXPECT_EQ(m.response, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(m.value, 0x10066001u);
}

TEST(NpuRegistersTlm, ByteEnables) {
  env().run([](Stimulus& s) {
    s.wr(off(Reg::RESET), 0);
    const std::vector<unsigned char> all(4, TLM_BYTE_ENABLED);
    uint32_t v = 0x12345678;
    EXPECT_EQ(apb_access(make_access(tlm::TLM_WRITE_COMMAND, off(Reg::QSIZE), 4, 4, all), v), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(s.rd(off(Reg::QSIZE)), 0x12345678u);
    v = 0;
    EXPECT_EQ(apb_access(make_access(tlm::TLM_READ_COMMAND, off(Reg::QSIZE), 4, 4, all), v), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v, 0x12345678u);
    // A write strobe on bytes 1 and 3 changes those bytes only; a two-byte pattern repeats over the word.
    v = 0xAABBCCDD;
    EXPECT_EQ(apb_access(make_access(tlm::TLM_WRITE_COMMAND, off(Reg::QSIZE), 4, 4, {TLM_BYTE_DISABLED, TLM_BYTE_ENABLED}), v),
              tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(s.rd(off(Reg::QSIZE)), 0xAA34CC78u);
    // A read leaves the disabled lanes of the initiator's buffer alone.
    v = 0xFFFFFFFF;
    EXPECT_EQ(apb_access(make_access(tlm::TLM_READ_COMMAND, off(Reg::QSIZE), 4, 4, {TLM_BYTE_ENABLED, TLM_BYTE_ENABLED,
                                                                         TLM_BYTE_DISABLED, TLM_BYTE_DISABLED}), v),
              tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v, 0xFFFFCC78u);
  });
}

TEST(NpuRegistersTlm, StandardErrorResponses) {
  env().run([](Stimulus&) {
    uint32_t v = 0;
    EXPECT_EQ(apb_access(make_access(tlm::TLM_READ_COMMAND, 0x1000), v), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(apb_access(make_access(tlm::TLM_READ_COMMAND, 0x006), v), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(apb_access(make_access(tlm::TLM_READ_COMMAND, 0x004, 8, 8), v), tlm::TLM_BURST_ERROR_RESPONSE);
    EXPECT_EQ(apb_access(make_access(tlm::TLM_READ_COMMAND, 0x004, 4, 2), v), tlm::TLM_BURST_ERROR_RESPONSE);
    // A byte-enable pointer with no length is no pattern at all.
    tlm::tlm_generic_payload gp;
    unsigned char enable = TLM_BYTE_ENABLED;
    sc_time delay = sc_core::SC_ZERO_TIME;
    gp.set_read();
    gp.set_address(0x004);
    gp.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
    gp.set_data_length(4);
    gp.set_streaming_width(4);
    gp.set_byte_enable_ptr(&enable);
    gp.set_byte_enable_length(0);
    env().platform.npu.apb.get_base_export()->b_transport(gp, delay);
    EXPECT_EQ(gp.get_response_status(), tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    EXPECT_EQ(apb_access(make_access(tlm::TLM_IGNORE_COMMAND, 0x004), v), tlm::TLM_OK_RESPONSE);
  });
}

// An access takes effect at its annotated time: a CMD run annotated 1000 ns ahead starts the stream then.
TEST(NpuRegistersTlm, AccessTakesEffectAtItsAnnotatedTime) {
  Mapping m(pool(4, 4) + test::kStop);
  uint64_t written = 0, irq = 0;
  env().run([&](Stimulus& s) {
    setup(s, m);
    uint32_t run = kCmdKeep | 1;
    written = s.now();
    EXPECT_EQ(apb_access(make_access(tlm::TLM_WRITE_COMMAND, off(Reg::CMD), 4, 4, {}, sc_time(1000, SC_NS)), run),
              tlm::TLM_OK_RESPONSE);
    ASSERT_TRUE(s.wait_irq());
    irq = s.now();
  });
  EXPECT_EQ(irq - env().platform.npu.report().total_cycles, written + 1000)
      << "the job ran from the annotated time of the CMD write to its IRQ";
}

}  // namespace
}  // namespace ethosu::npu

namespace ethosu::npu {
namespace {

// A job of about 8000 cycles (ports at the default 16 B/cycle): DMAs inside region 2, one after the other.
std::string long_dma_job() {
  std::string text = "NPU_SET_DMA0_SRC_REGION region=2\nNPU_SET_DMA0_DST_REGION region=2\nNPU_SET_DMA0_SRC addr=0\n"
                     "NPU_SET_DMA0_DST addr=2048\nNPU_SET_DMA0_LEN length=2048\n";
  for (int i = 0; i < 40; ++i) text += "NPU_OP_DMA_START\nNPU_OP_DMA_WAIT k=0\n";
  return text + test::kStop;
}

// Reset in the middle of a job, by RESET (soft) or by the reset input (hard): the job ends there, raises no IRQ,
// and the next job runs exactly as it runs alone.
class NpuReset : public ::testing::TestWithParam<bool> {};

TEST_P(NpuReset, AbortsTheRunningJob) {
  const bool pin = GetParam();
  const std::string second = pool(4, 4) + test::kStop;
  uint64_t solo_cycles = 0;
  std::vector<uint8_t> solo_output;
  {
    Mapping m(second);
    std::iota(m.sram.begin(), m.sram.begin() + 256, uint8_t{1});
    env().run([&](Stimulus& s) {
      setup(s, m);
      s.wr(off(Reg::CMD), kCmdKeep | 1);
      ASSERT_TRUE(s.wait_irq());
    });
    solo_cycles = env().platform.npu.report().total_cycles;
    solo_output.assign(m.sram.begin() + 0x800, m.sram.begin() + 0x900);
  }
  auto first = std::make_unique<Mapping>(long_dma_job());
  env().run([&](Stimulus& s) {
    setup(s, *first);
    s.wr(off(Reg::CMD), kCmdKeep | 1);
    s.idle(3000);
    ASSERT_FALSE(s.irq.read());
    EXPECT_EQ(isa::get(s.rd(off(Reg::STATUS)), RegField::STATUS_state), 1u);
    if (pin) {
      env().platform.reset.write(true);
      s.idle(1);
      env().platform.reset.write(false);
      s.idle(1);
    } else {
      s.wr(off(Reg::RESET), 0);
    }
    EXPECT_EQ(isa::get(s.rd(off(Reg::STATUS)), RegField::STATUS_state), 0u);
    EXPECT_FALSE(s.wait_irq(50'000)) << "the aborted job raised its IRQ";
    EXPECT_EQ(s.rd(off(Reg::STATUS)), 0u);
  });
  EXPECT_NE(env().platform.npu.report().status.find("aborted by reset"), std::string::npos)
      << env().platform.npu.report().status;
  // The next job, on the same platform, as it runs alone.
  first.reset();
  Mapping next(second);
  std::iota(next.sram.begin(), next.sram.begin() + 256, uint8_t{1});
  auto& p = env().platform;
  env().run([&](Stimulus& s) {
    setup(s, next);
    s.wr(off(Reg::CMD), kCmdKeep | 1);
    ASSERT_TRUE(s.wait_irq());
    EXPECT_NE(s.rd(off(Reg::STATUS)) & bit(RegField::STATUS_cmd_end_reached), 0u);
  });
  EXPECT_EQ(p.npu.report().status, "ok");
  EXPECT_EQ(p.npu.report().total_cycles, solo_cycles);
  EXPECT_EQ(std::vector<uint8_t>(next.sram.begin() + 0x800, next.sram.begin() + 0x900), solo_output);
}

INSTANTIATE_TEST_SUITE_P(SoftAndPin, NpuReset, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& i) { return i.param ? "ResetInput" : "ResetRegister"; });

}  // namespace
}  // namespace ethosu::npu
