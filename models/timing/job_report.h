// What one job measured: the NPU's totals, one record per operation, the PMU, the blocks' statistics.
// Filled by the timed NPU model, written by host/report as JSON and as a summary table.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "isa/access.h"
#include "sim/host_time.h"

namespace ethosu::timing {

// Bytes moved on one AXI port, per traffic class.
struct PortTraffic {
  std::array<uint64_t, isa::kAccessCount> read_bytes{};
  std::array<uint64_t, isa::kAccessCount> write_bytes{};
  uint64_t read(isa::Access a) const { return read_bytes[static_cast<size_t>(a)]; }
  uint64_t written(isa::Access a) const { return write_bytes[static_cast<size_t>(a)]; }
};

// Why a unit waited, in cycles.
// CMD_FETCH: the CC waiting for command-stream bytes; DMA_QUEUE: NPU_OP_DMA_START waiting for a queue slot;
// WRITE_RESPONSE: NPU_OP_STOP waiting for the last OFM write responses.
enum class Stall : uint8_t { BLOCKDEP, SHRAM_RECONFIG, MAC_WAIT_IFM, MAC_WAIT_WEIGHTS, MAC_WAIT_ACC, AO_WAIT_ACC, AO_WAIT_OB,
                             DMA_WAIT, KERNEL_WAIT, CMD_FETCH, WRITE_RESPONSE, DMA_QUEUE };
inline constexpr size_t kStallKinds = 12;
const char* stall_name(Stall s);

struct OpRecord {
  uint32_t offset = 0;           // stream offset of the NPU_OP_* command
  std::string kind;              // "CONV", "DEPTHWISE", "POOL.MAX", "ELEMENTWISE.ADD", "DMA"
  std::array<uint32_t, 3> ofm_shape{};   // H, W, C
  std::array<uint32_t, 3> block{};       // OFM block H, W, C
  uint64_t blocks = 0;
  uint64_t start_cycle = 0, end_cycle = 0;  // from the job's start (the CMD write that started it)
  uint64_t cycles() const { return end_cycle - start_cycle; }
  uint64_t macs = 0;
  uint64_t mac_busy_cycles = 0, ao_busy_cycles = 0, wd_busy_cycles = 0;
  double mac_utilisation = 0;    // macs / (cycles * MACs per cycle)
  std::array<PortTraffic, 2> ports{};  // AXI0, AXI1
  std::array<uint64_t, kStallKinds> stall_cycles{};
};

// One statistic of a block over the job (sim::Stats, as the block registered it).
struct StatValue {
  uint64_t value = 0;
  std::string unit, description;
};

struct JobReport {
  // Operations listed one by one at most; the totals and statistics count them all.
  static constexpr size_t kMaxListedOps = 100000;

  uint64_t total_cycles = 0;
  double clock_hz = 0;
  std::vector<OpRecord> ops;
  uint64_t ops_not_listed = 0;
  std::map<std::string, uint64_t> pmu;  // event name -> value, PMCCNTR included
  std::array<PortTraffic, 2> ports{};
  // The command controller's own waits: NPU_OP_DMA_WAIT, a full DMA queue, NPU_OP_KERNEL_WAIT and a full TSU
  // (KERNEL_WAIT), command fetch, and the write responses NPU_OP_STOP waits for.
  std::array<uint64_t, kStallKinds> cc_stall_cycles{};
  std::map<std::string, StatValue> stats;  // by path: "npu.mac.active_cycles", ...
  uint64_t stat(const std::string& path) const {
    const auto it = stats.find(path);
    return it == stats.end() ? 0 : it->second.value;
  }
  std::vector<std::string> hazards;     // reads of DMA destinations the stream had not waited for (the first 1000)
  std::string status;                   // "ok" or the fault
  // Host wall time (steady clock) of the stream's run, and its parts (sim/host_time.h). For speed reports.
  double host_total_seconds = 0;
  sim::HostSeconds host;
};

}  // namespace ethosu::timing
