// The per-OFM-block pipeline of a kernel operation: how the WD, MAC and AO hand each block to the next
// through the NPU's double buffers, with the memory side on the AXI ports. Plain C++ (no SystemC).
//
// Contract: schedule() walks the op's blocks in traversal order (npu::OfmTiles), asks each block's own
// model for its work (the MAC's MacWork, the WD's and AO's timing), and books each stage on the unit that
// does it. The coupling between blocks is the hardware's double buffering only: the IFM buffer (IB0/IB1) of
// block i is free when the MAC (or, for elementwise, the AO) has consumed block i-2; the weight buffer is
// refilled for block i while the MAC works on block i-1, the WD decoding the weight stream as it arrives
// (from its first burst, finishing no earlier than its last); the accumulator buffers (ACC0/ACC1) free when
// the AO has drained block i-2; the output buffers (OB0/OB1) free when the OFM write of block i-2 is done.
// Units keep their free-at times across operations, so consecutive operations overlap as far as these
// buffers and the CC's gates allow. Every access is charged on the AXI port timing of the region it uses,
// under the traffic class of what it moves; nothing else counts bytes. Memory per call is constant in the
// number of blocks.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "isa/operation.h"
#include "models/npu/cc/timeline.h"
#include "models/npu/axi/axi_timing.h"
#include "models/npu/ao/ao_timing.h"
#include "models/npu/job_report.h"
#include "models/npu/mac/mac_timing.h"
#include "models/npu/tiles.h"
#include "models/npu/wd/wd_timing.h"

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

// Transaction mode: a region's transfers go on the bus as the runs of region offsets they are (tiles.h); the
// bus books them on the port and answers when they complete.
class RegionBus {
 public:
  virtual ~RegionBus() = default;
  virtual axi::Completion read(unsigned region, uint64_t request_cycle, const std::vector<ByteRun>& runs,
                               isa::Access client) = 0;
  virtual axi::Completion write(unsigned region, uint64_t request_cycle, const std::vector<ByteRun>& runs,
                                isa::Access client) = 0;
};

// Which AXI port timing and limiter each region's accesses use (REGIONCFG), and the latency the platform
// adds to them (the DMI grant's, include/ethosu_sim/npu.h). With a `bus` (transaction mode) the blocks give it
// their transfers' runs instead of byte counts.
struct AxiMap {
  std::array<axi::AxiPortTiming*, 2> ports{};  // AXI0, AXI1
  std::array<unsigned, 8> region_port{};
  std::array<unsigned, 8> region_limiter{};  // within the port: 0 or 1
  std::array<uint32_t, 8> region_read_latency{}, region_write_latency{};  // cycles
  axi::AxiPortTiming& port_of(unsigned region) const { return *ports[region_port[region & 7]]; }
  unsigned limiter_of(unsigned region) const { return region_limiter[region & 7]; }

  // One transfer of `region`'s on its port (axi::AxiPortTiming).
  axi::Completion read(unsigned region, uint64_t request_cycle, uint64_t bytes, uint32_t run_bytes,
                       isa::Access client) const {
    return port_of(region).read(request_cycle, bytes, run_bytes, client, limiter_of(region),
                                region_read_latency[region & 7]);
  }
  axi::Completion write(unsigned region, uint64_t request_cycle, uint64_t bytes, uint32_t run_bytes,
                        isa::Access client) const {
    return port_of(region).write(request_cycle, bytes, run_bytes, client, limiter_of(region),
                                 region_write_latency[region & 7]);
  }
  axi::Completion write_behind(unsigned region, const axi::Completion& read, uint64_t bytes, uint32_t run_bytes,
                               isa::Access client) const {
    return port_of(region).write_behind(read, bytes, run_bytes, client, limiter_of(region),
                                        region_write_latency[region & 7]);
  }
  // Transaction mode: the same over the runs the bytes are in.
  axi::Completion write_behind(unsigned region, const axi::Completion& read, const std::vector<ByteRun>& runs,
                               isa::Access client) const;

  RegionBus* bus = nullptr;
};

// The blocks a kernel operation uses: their timing parameters and their units.
struct PipelineBlocks {
  const npu::MacTiming* mac_timing = nullptr;
  const npu::WdTiming* wd_timing = nullptr;
  const npu::AoTiming* ao_timing = nullptr;
  Unit* wd = nullptr;
  Unit* mac = nullptr;
  Unit* ao = nullptr;
  AxiMap axi;
};

struct OpTiming {
  uint64_t start_cycle = 0;       // first stage of the first block
  cc::KernelTimes times;          // end, last write response, the last blocks' done cycles
  uint64_t macs = 0;
  uint64_t mac_busy = 0, ao_busy = 0, wd_busy = 0;
  uint64_t decoded_weights = 0;
  std::array<uint64_t, npu::kStallKinds> stalls{};
};

// When each stage of one tile ran, for traces and the exclusive time breakdown (cc/time_breakdown.h).
struct TileStages {
  uint64_t ifm_start, ifm_done;          // IFM (and IFM2) fetch into the input buffer
  uint64_t weights_start, weights_done;  // weight fetch, from its request to its last byte (equal when none)
  uint64_t scales_done;                  // scale fetch, requested at ifm_start (equal to it when none)
  uint64_t wd_start, wd_end;             // weight decode, to when the MAC has the tile's last weights (equal when none)
  uint64_t wd_busy_end;                  // the WD's own work ends (wd_start when none)
  uint64_t mac_start, mac_end;           // equal for elementwise (no MAC work); mac_end after the last weights
  uint64_t mac_busy_end;                 // the MAC's own work ends, without waiting for weights
  uint64_t ao_start, ao_end;
  uint64_t ofm_done;                     // OFM written back
};

// Receives each tile's stages as schedule() books them, in traversal order. Every stage of a tile begins no
// earlier than the earliest stage of the tile before it.
class TileSink {
 public:
  virtual ~TileSink() = default;
  virtual void tile(const TileStages& s) = 0;
};

// Keeps every tile's stages (traces, tests): a vector entry per tile.
struct TileRecorder : TileSink {
  std::vector<TileStages> stages;
  void tile(const TileStages& s) override { stages.push_back(s); }
};

// Schedules op, whose first block may start reading its IFM at `ready`, handing each tile's stages to `sink`
// when one is given.
// `weights`: an Ethos-U85 operation's weights as measured (zero fraction, distinct values), which set its weight
// decoders' rate; without them the decoders run at their rate for dense weights.
OpTiming schedule(const isa::Operation& op, uint64_t ready, PipelineBlocks& blocks, TileSink* sink = nullptr,
                  const WeightStreamU85* weights = nullptr);

}  // namespace ethosu::npu
