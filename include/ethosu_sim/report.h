// What one job on the timed NPU measured: totals, one record per operation, traffic per AXI port and traffic
// class, stalls by cause, the PMU as a driver reads it and every block's statistics. Part of the public API
// (include/ethosu_sim); the NPU fills it (ethosu_sim::Npu::report()), ethosu_sim::run() returns it and
// report_json() writes it as the CLI's `--report` file. Plain data, no SystemC.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ethosu_sim {

// The classes of memory traffic the NPU makes: the stream's own data accesses, then the command fetch.
enum class Access : uint8_t { IFM, IFM2, OFM, WEIGHTS, SCALES, DMA_SRC, DMA_DST, CMD };
inline constexpr size_t kAccessCount = 8;
const char* access_name(Access a);  // for people: "IFM", "weights", "DMA-src", "command"
const char* access_key(Access a);   // for reports and scripts: "ifm", "weights", "dma_src", "cmd"

// Bytes moved on one AXI port, per traffic class (indexed by Access).
struct PortTraffic {
  std::array<uint64_t, kAccessCount> read_bytes{};
  std::array<uint64_t, kAccessCount> write_bytes{};
  uint64_t read(Access a) const { return read_bytes[static_cast<size_t>(a)]; }
  uint64_t written(Access a) const { return write_bytes[static_cast<size_t>(a)]; }
};

// Why a unit waited, in cycles. CMD_FETCH: the command controller waiting for command-stream bytes;
// DMA_QUEUE: NPU_OP_DMA_START waiting for a queue slot; WRITE_RESPONSE: NPU_OP_STOP waiting for the last
// write responses.
enum class Stall : uint8_t { BLOCKDEP, SHRAM_RECONFIG, MAC_WAIT_IFM, MAC_WAIT_WEIGHTS, MAC_WAIT_ACC, AO_WAIT_ACC, AO_WAIT_OB,
                             DMA_WAIT, KERNEL_WAIT, CMD_FETCH, WRITE_RESPONSE, DMA_QUEUE };
inline constexpr size_t kStallKinds = 12;
const char* stall_name(Stall s);  // "blockdep", "mac_wait_ifm", ...

// What an operation was doing in a cycle charged to it alone (JobReport's breakdown): the first that applies.
enum class OpTime : uint8_t {
  MAC,          // the MAC array working on one of its tiles
  AO,           // the output unit working on one of its tiles
  WD,           // the weight decoder decoding its weights
  IFM_READ,     // waiting for IFM (and IFM2) bytes
  WEIGHT_READ,  // waiting for weight or scale bytes
  OFM_WRITE,    // waiting for OFM bytes to be written
  DMA,          // a DMA copying
  IDLE,         // none of these: between its stages
};
inline constexpr size_t kOpTimeKinds = 8;
const char* op_time_name(OpTime t);  // "mac", "ao", "wd", "ifm_read", "weight_read", "ofm_write", "dma", "idle"

// One kernel operation or DMA of the stream.
struct OpRecord {
  uint32_t offset = 0;                   // stream offset of the NPU_OP_* command
  std::string kind;                      // "CONV", "DEPTHWISE", "POOL.MAX", "ELEMENTWISE.ADD", "DMA"
  std::string layer;                     // the compiled network's layer, from Vela's files; empty when not known
  std::array<uint32_t, 3> ofm_shape{};   // H, W, C
  // The OFM in tiles of block_config (H, W, C: the OFM block the stream sets, Vela's "block config"), `tiles` of
  // them.
  std::array<uint32_t, 3> block_config{};
  uint64_t tiles = 0;
  uint64_t start_cycle = 0, end_cycle = 0;  // from the job's start (the CMD write that started it)
  uint64_t cycles() const { return end_cycle - start_cycle; }
  uint64_t macs = 0;
  uint64_t mac_busy_cycles = 0, ao_busy_cycles = 0, wd_busy_cycles = 0;
  double mac_utilisation = 0;            // macs / (cycles * MACs per cycle)
  std::array<PortTraffic, 2> ports{};    // AXI0, AXI1
  // The MAC's and AO's waits inside the operation (MAC_WAIT_*, AO_WAIT_*), indexed by Stall.
  std::array<uint64_t, kStallKinds> stall_cycles{};
  // How long the command controller held the operation back before its start (BLOCKDEP, SHRAM_RECONFIG), indexed
  // by Stall: the same cycles as the controller's waits of those causes.
  std::array<uint64_t, kStallKinds> held_cycles{};
  // The cycles charged to this operation alone (JobReport::total_cycles' breakdown), by what it was doing.
  std::array<uint64_t, kOpTimeKinds> exclusive_cycles{};  // indexed by OpTime
  uint64_t exclusive() const {
    uint64_t sum = 0;
    for (const uint64_t c : exclusive_cycles) sum += c;
    return sum;
  }
};

// One statistic of a block over the job.
struct StatValue {
  uint64_t value = 0;
  std::string unit, description;
};

// Host time of one job's run, for speed reports: the wall time (steady clock) of the stream's run in the NPU
// model and its parts, each measured by a few clock readings per operation or DMA. What no part covers (stream
// decoding and checks, SystemC, the driver model) is the rest. It varies from run to run; nothing else does.
struct HostSeconds {
  double total = 0;
  double weights = 0;  // the operations' weight and scale streams: decoding, or the weight cache's lookup
  double kernels = 0;  // the operations' bit-exact kernels
  double dma = 0;      // DMA copies
  double timing = 0;   // the timing of operations and DMAs (block work, pipeline, AXI ports)
};

struct JobReport {
  // Operations listed one by one at most; the totals and statistics count them all.
  static constexpr size_t kMaxListedOps = 100000;

  uint64_t total_cycles = 0;  // from the CMD write that started the stream to its end (NPU cycles)
  double clock_hz = 0;
  std::vector<OpRecord> ops;
  uint64_t ops_not_listed = 0;
  std::map<std::string, uint64_t> pmu;  // PMU event name -> value as the event counters hold it, PMCCNTR included
  std::array<PortTraffic, 2> ports{};   // AXI0, AXI1
  // The command controller's own waits: NPU_OP_DMA_WAIT, a full DMA queue, NPU_OP_KERNEL_WAIT and a full TSU
  // (KERNEL_WAIT), command fetch, and the write responses NPU_OP_STOP waits for.
  std::array<uint64_t, kStallKinds> cc_stall_cycles{};
  // total_cycles broken down, each cycle charged once: to the oldest operation in flight then (kernel or DMA, in
  // stream order), by what it was doing (OpRecord::exclusive_cycles, summed here over every operation, listed or
  // not), or, when no operation is in flight, to the command controller, by what it was doing: reading commands or
  // waiting (by cause). sum(op_time_cycles) + controller_parse_cycles + sum(controller_wait_cycles) == total_cycles
  // for every job that ends at NPU_OP_STOP or an NPU fault.
  std::array<uint64_t, kOpTimeKinds> op_time_cycles{};
  uint64_t controller_parse_cycles = 0;
  std::array<uint64_t, kStallKinds> controller_wait_cycles{};
  std::map<std::string, StatValue> stats;  // by path: "npu.mac.active_cycles", ...
  uint64_t stat(const std::string& path) const {  // 0 for a statistic the model does not keep
    const auto it = stats.find(path);
    return it == stats.end() ? 0 : it->second.value;
  }
  std::vector<std::string> hazards;        // reads of DMA destinations the stream had not waited for (the first 1000)
  std::string status;                      // "ok" or the fault
  HostSeconds host;
};

}  // namespace ethosu_sim
