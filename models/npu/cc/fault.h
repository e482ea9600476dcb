// How a job ends badly: the faults the command controller reports, as the hardware reports them (the STATUS
// error bit, the AXI interface and channel of a bus error) and as people read them (where and what).
//
// Contract: plain C++. A Fault is made once, by the engine (engine.h) or the SystemC shell's command fetch, and
// the same value reaches the functional result, the NPU's STATUS (ControlRegisters::fault) and the report.
#pragma once

#include <cstdint>
#include <string>

#include "isa/access.h"

namespace ethosu::cc {

// LIMIT is the simulator's own refusal (see Limits, or an operation it does not model), not a hardware
// fault; STATUS shows it as a command parse error so that a driver sees the job fail.
enum class FaultKind : uint8_t { CMD_PARSE_ERROR, BUS_ERROR, WD_FAULT, LIMIT };
const char* fault_name(FaultKind k);

// STATUS.faulting_channel (and PMCAXI_CHAN.CH_SEL) values.
enum class Channel : uint8_t { RD_CMD = 0, RD_IFM = 1, RD_WEIGHTS = 2, RD_SCALE_BIAS = 3, RD_MEM2MEM = 4, WR_OFM = 8, WR_MEM2MEM = 9 };
Channel channel_of(isa::Access a);

struct Fault {
  FaultKind kind = FaultKind::CMD_PARSE_ERROR;
  uint32_t offset = 0;  // command offset in the stream
  std::string message;  // "0x000150: NPU_OP_ELEMENTWISE: IFM2 bytes [...) outside region 1 (1024 bytes)"
  unsigned port = 0;    // bus errors: the AXI interface (STATUS.faulting_interface)
  Channel channel = Channel::RD_CMD;

  // The driver's line: "bus error at 0x000150: ...".
  std::string text() const { return std::string(fault_name(kind)) + " at " + message; }
};

// Host resources a job may take. The NPU runs any stream to completion; these bounds keep a hostile or
// corrupt stream from taking hours or exhausting host memory, and are far above what a real network layer
// needs. An operation over a limit is not run: the job ends with a LIMIT fault.
struct Limits {
  // Element steps over the whole job: an operation's data effect (kernels::OpCost) plus
  // kTileWork per OFM tile for its timing, so that functional and timed runs refuse the same jobs.
  uint64_t work = uint64_t{1} << 36;
  uint64_t buffer_elements = uint64_t{1} << 28;  // any one host buffer; must stay below 2^31 (int indices)
  unsigned host_threads = 1;  // host threads one operation's kernels may use (results do not depend on it)
  static constexpr uint64_t kTileWork = 256;    // host time of one OFM tile's schedule, in element steps
  static constexpr size_t kMaxHazards = 1000;    // hazard notes kept per job; the count goes on

  template <typename Fields>
  void fields(Fields& f) {
    f.field("work_steps", work, "steps",
            "host work one job may take: element steps of its operations, 256 per OFM tile (a job over it ends "
            "with a simulation-limit fault)",
            {1, int64_t{1} << 50});
    f.field("buffer_elements", buffer_elements, "elements",
            "largest host buffer one operation may need (gathered IFM, weights, DMA source)", {1, int64_t{1} << 30});
    f.field("host_threads", host_threads, "threads",
            "host threads one operation's kernels may use, each on a band of OFM rows (outputs, cycles and reports "
            "do not depend on it)",
            {1, 64});
  }
};

}  // namespace ethosu::cc
