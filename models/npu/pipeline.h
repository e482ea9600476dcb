// The per-OFM-block pipeline of a kernel operation: when each block's IFM fetch, weight fetch and decode,
// MAC work, output stage and OFM write happen, given the units' and AXI ports' previous bookings.
//
// Contract: plain C++ (no SystemC). schedule() walks the op's blocks in traversal order and books each
// stage on the unit that does it, with the hardware's double buffering as the only coupling between
// blocks: the IFM buffer (IB0/IB1) of block i is free when the MAC (or, for elementwise, the AO) has
// consumed block i-2; the weight buffer is refilled for block i while the MAC works on block i-1, the WD
// decoding the weight stream as it arrives (from its first burst, finishing no earlier than its last); the
// accumulator buffers (ACC0/ACC1) free when the AO has drained block i-2; the output buffers (OB0/OB1)
// free when the OFM write of block i-2 is done. Units keep their free-at times across operations, so
// consecutive operations overlap as far as these buffers and BLOCKDEP allow. The memory side is charged
// on the AXI port timing of the region each access uses.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "isa/operation.h"
#include "models/mem/axi_timing.h"
#include "models/npu/job_report.h"
#include "models/timing/block_work.h"

namespace ethosu::npu {

// One hardware unit's occupancy: free-at bookkeeping and busy cycles.
struct Unit {
  uint64_t free_at = 0;
  uint64_t busy_cycles = 0;
  // Books `cycles` of work that may start at `ready`; returns the end cycle.
  uint64_t run(uint64_t ready, uint64_t cycles) {
    const uint64_t start = ready > free_at ? ready : free_at;
    free_at = start + cycles;
    busy_cycles += cycles;
    return free_at;
  }
};

// The units a kernel operation uses, and the memory ports.
struct PipelineUnits {
  Unit* wd = nullptr;
  Unit* mac = nullptr;
  Unit* ao = nullptr;
  std::array<mem::AxiPortTiming*, 2> ports{};  // AXI0, AXI1
  std::array<unsigned, 8> region_port{};       // REGIONCFG: port of each region
  std::array<unsigned, 8> region_limiter{};    // and its limiter within the port (0 or 1)
};

struct OpTiming {
  uint64_t start_cycle = 0;       // first stage of the first block
  uint64_t end_cycle = 0;         // last OFM write of the last block done
  uint64_t writes_acknowledged_cycle = 0;  // the last OFM write response back (what NPU_OP_STOP waits for)
  std::vector<uint64_t> block_done;  // per block: its OFM write done (for BLOCKDEP of the next op)
  uint64_t macs = 0;
  uint64_t mac_busy = 0, ao_busy = 0, wd_busy = 0;
  std::array<uint64_t, kStallKinds> stalls{};
  std::array<PortTraffic, 2> ports{};
};

// When each stage of one block ran, for traces.
struct BlockStages {
  uint64_t ifm_start, ifm_done;  // IFM (and IFM2) fetch into the input buffer
  uint64_t wd_start, wd_end;     // weight decode (equal when the op has no weights)
  uint64_t mac_start, mac_end;   // equal for elementwise (no MAC work)
  uint64_t ao_start, ao_end;
  uint64_t ofm_done;             // OFM written back
};

// Schedules op, whose first block may start reading its IFM at `ready`. With `stages`, also records
// every block's stage times (tracing only: it costs a vector entry per block).
OpTiming schedule(const isa::Operation& op, const timing::OpWork& work, uint64_t ready, PipelineUnits& units,
                  std::vector<BlockStages>* stages = nullptr);

}  // namespace ethosu::npu
