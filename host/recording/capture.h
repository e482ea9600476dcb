// Capture and replay of one submission: what a driver handed the NPU (command stream, region buffers,
// register set-up, PMU selection, configuration) and what came back (region bytes, STATUS, PMU counts).
//
// Contract: write_capture() stores a Capture as a folder (format described in host/recording/CAPTURE.md, version 2) that
// read_capture() reads back exactly; read_capture() also reads version 1 and checks everything a hand-edited or
// truncated folder can get wrong, throwing ethosu::InputError naming the file and the problem. A capture obeys the
// limits of a job (host/run/job.h: 4 GiB a region, 8 GiB of stream and buffers together), checked from its
// manifest before anything is read; its files must lie in its folder, after symbolic links, as a case folder's
// must; zero-filled regions cost nothing until a run needs them (capture_job()). CaptureWriter
// writes the same folder file by file, straight from the caller's memory, for recorders that must not hold
// copies of a job's buffers. replay() runs a capture's submission on the simulator with its recorded
// configuration and compares the results with the recorded ones. The shims write a capture per submission when
// ETHOSU_SIM_CAPTURE=DIR is set (capture_dir_from_env); libethosu-record.so writes recordings made on hardware
// (on_hardware) under ETHOSU_RECORD_DIR.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "isa/architecture.h"
#include "isa/access.h"

namespace ethosu::sim {
class Config;
}

namespace ethosu::host {

struct Job;
struct RunOptions;
struct RunOutcome;

// The NPU's identity as the Linux driver's DEV_QUERY answers it.
struct NpuIdentity {
  uint32_t id = 0;      // the ID register
  uint32_t config = 0;  // the CONFIG register (MACs per cycle, SHRAM size, ...)
  uint32_t sram_size_bytes = 0;
};

// An inference through NXP's /dev/ethosu0 as its client made it. The firmware, not the driver, turns it into an
// NPU submission, so a recording keeps what the client gave and got, and replay hands it to the firmware's
// emulation (host/backends/nxp/nxp_inference.h).
struct InferenceRecord {
  uint32_t type = 0;                          // INFERENCE_CREATE's inference_type: 1 OP, anything else MODEL
  std::vector<uint8_t> network;               // the network buffer's data
  // Each IFM buffer's bytes as the firmware reads them: OP mode from its offset to its capacity, MODEL mode its
  // data; data_bytes its size (BUFFER_SET's).
  std::vector<std::vector<uint8_t>> ifms;
  std::vector<uint64_t> ifm_data_bytes;
  std::vector<uint64_t> ofm_free_bytes;       // each OFM buffer's room after its data
  std::array<uint32_t, 4> pmu_event_indices{};  // PMU configuration as the client gave it (pmu_ethosu.h indices)
  bool pmu_cycle_count = false;
  // What came back: INFERENCE_STATUS's status (0 OK, 1 ERROR, ...), the IFM buffers the inference changed (empty
  // for the others), and the bytes it appended to each OFM buffer.
  uint32_t status = 0;
  std::vector<std::vector<uint8_t>> ifms_after;
  std::vector<std::vector<uint8_t>> ofms_appended;
};

struct Capture {
  std::string source;                      // who submitted: "linux-accel", "nxp-ethosu", "cli", ...
  // Recorded on a board by libethosu-record.so: the results are the hardware's, and what its driver does not
  // report is marked as not recorded below. Otherwise every result is the simulator's.
  bool on_hardware = false;
  std::string variant = isa::variant_name(isa::kDefaultVariant);
  std::vector<uint8_t> stream;             // the bare command stream the NPU fetched
  // Region buffers as handed to the NPU before the run; an absent region is empty. sram_region names the
  // region that is the NPU's on-chip SRAM (the Linux driver's region 2 when sram_size > 0), if any. A region of
  // zeros may be given by its size alone instead (zero_regions_bytes, its buffer then empty): read_capture()
  // keeps a zero-filled region so, and capture_job() allocates it only as far as the stream reaches.
  std::array<std::vector<uint8_t>, isa::kRegionCount> regions_before;
  std::array<uint64_t, isa::kRegionCount> zero_regions_bytes{};
  std::optional<uint32_t> sram_region;
  // Register set-up the driver made.
  uint32_t regioncfg = 0xAA8A;
  std::array<uint32_t, 4> axi_limits{0x1F3F00B0, 0x1F3F00B0, 0x1F3F0002, 0x1F3F0002};
  std::array<uint16_t, isa::kMaxEventCounters> pmu_events{};    // hardware event ids programmed into PMEVTYPER0-3 (0 = unused)
  bool timed = true;                       // false: the functional-only mode ran
  // Run-time parameters by hierarchical name (the non-default part of the resolved configuration).
  std::map<std::string, std::string> parameters;
  // What came back.
  std::array<std::vector<uint8_t>, isa::kRegionCount> regions_after;  // only the regions the stream writes; others empty
  uint32_t status = 0;                     // STATUS as the driver read it in its IRQ handler
  uint64_t cycle_counter = 0;
  std::array<uint32_t, isa::kMaxEventCounters> event_counters{};
  // Which results were recorded: a board's driver reports less than the simulator (Linux accel: no STATUS,
  // counters only when a perfmon counted the job; NXP: no STATUS, the counters the client asked for).
  bool status_recorded = true;
  bool cycle_counter_recorded = true;
  bool event_counters_recorded = true;
  std::optional<uint64_t> wall_ns;          // the job's wall-clock time as the client saw it (hardware recordings)
  std::optional<NpuIdentity> device;        // what DEV_QUERY answered (Linux accel)
  // An NXP /dev/ethosu0 inference: then it, not stream and regions, is the submission.
  std::optional<InferenceRecord> inference;

  // Region r's size before the run, zero-filled or not.
  uint64_t region_before_bytes(unsigned r) const {
    return regions_before[r].empty() ? zero_regions_bytes[r] : regions_before[r].size();
  }
};

// The job of an NPU-level capture (not an inference), named `name`: its stream and region buffers, a zero-filled
// region allocated only up to the end of the bytes the stream reaches (isa::validate's extents: the stream never
// touches the rest, so the run is the same) and read as zeros beyond.
Job capture_job(const Capture& capture, const std::string& name);

void write_capture(const std::filesystem::path& dir, const Capture& capture);

// Writes a capture folder file by file from the caller's memory (no copy is made): each add_* writes one file and
// notes its size and CRC-32; finish() writes capture.json from `metadata`'s other fields and the files added,
// last, so that an interrupted capture reads as incomplete. Throws InputError for a folder write_capture()
// would refuse and for files that cannot be written. A before-region of zeros may be added without a file.
class CaptureWriter {
 public:
  explicit CaptureWriter(std::filesystem::path dir);
  const std::filesystem::path& dir() const { return dir_; }

  void add_stream(const uint8_t* data, size_t size_bytes);
  void add_region(unsigned region, bool after, const uint8_t* data, size_t size_bytes);
  void add_zero_region(unsigned region, uint64_t size_bytes);
  void add_network(const uint8_t* data, size_t size_bytes);
  void add_ifm(unsigned index, bool after, const uint8_t* data, size_t size_bytes, uint64_t data_bytes = 0);
  void add_ofm_appended(unsigned index, const uint8_t* data, size_t size_bytes);
  // True when the IFM file already written for `index` holds exactly these bytes (a recorder's test for
  // "unchanged" without keeping a copy).
  bool ifm_before_equals(unsigned index, const uint8_t* data, size_t size_bytes) const;
  void finish(const Capture& metadata);

  struct File {
    std::string name;
    uint64_t size_bytes = 0;
    uint32_t crc = 0;
    bool zero_filled = false;  // no file: size_bytes zeros
    uint64_t data_bytes = 0;   // IFMs: the buffer's size
  };

 private:
  File write(const std::string& name, const uint8_t* data, size_t size_bytes);
  std::filesystem::path dir_;
  std::optional<File> stream_, network_;
  std::array<std::optional<File>, isa::kRegionCount> before_, after_;
  std::vector<std::optional<File>> ifms_, ifms_after_, ofms_;
};
// Throws InputError when write_capture() would refuse `dir` (not a folder, or a folder holding files that are
// not a capture's). Front ends call it before running, so that a bad folder costs no simulation.
void check_capture_dir(const std::filesystem::path& dir);
Capture read_capture(const std::filesystem::path& dir);

// The folder for the next capture under $ETHOSU_SIM_CAPTURE (a fresh numbered subfolder), or nothing when
// the variable is unset or empty.
std::optional<std::filesystem::path> capture_dir_from_env(const std::string& source);
// A fresh numbered subfolder ROOT/NNNN-source, numbered after the highest one present (created atomically, so
// processes sharing ROOT never get the same one); `variable` names where ROOT came from in errors.
std::filesystem::path next_capture_dir(const std::filesystem::path& root, const std::string& source,
                                       const std::string& variable);
// The configuration an NPU's CONFIG register names: the one whose whole word it is, else the one of its product and
// log2 MACs per cycle; or nothing.
std::optional<std::string> variant_of_config(uint32_t config);
// CRC-32 as zlib computes it, continued from `crc` (0 to start).
uint32_t crc32(const uint8_t* data, size_t size_bytes, uint32_t crc = 0);

struct ReplayResult {
  bool identical = false;      // outputs, STATUS and counters all equal to the recorded ones
  std::vector<std::string> differences;  // one line per difference, naming what and where
  // The part of `differences` about what the client reads back: the regions the stream writes and, across
  // models, whether the run completed.
  std::vector<std::string> output_differences;
  std::optional<std::string> fault;  // the replay's NPU fault, if it faulted
  Capture replayed;            // what this run produced (same inputs, new results)
};
ReplayResult replay(const Capture& capture);

// What-if replays: the recorded submission on another machine or model. Cycle and event counter differences are
// then expected, and listed like any other.
struct ReplayOptions {
  // Run the functional model instead of the recorded mode: compares the region bytes and whether the run
  // completed (STATUS.cmd_end_reached and no error bit), not the STATUS bits or counters (it has neither).
  bool functional = false;
  std::optional<std::filesystem::path> config_file;  // "name = value" lines over the recorded parameters
  std::vector<std::string> assignments;  // "name=value" over the recorded parameters and the file
};
ReplayResult replay(const Capture& capture, const ReplayOptions& options);
// Throws the InputError replay() would throw before running (a timed replay of AXI limits the simulator's host
// does not program, parameters or assignments that do not resolve), so that a front end replaying several
// captures can refuse a bad one before running any.
void check_replay(const Capture& capture, const ReplayOptions& options);
// The configuration replay() runs with: the recorded parameters, then options' file and assignments.
sim::Config replay_configuration(const Capture& capture, const ReplayOptions& options);

// For writers of captures. The part of a resolved configuration that differs from make_config()'s defaults, as
// Capture::parameters holds it (values in the registry's text form).
std::map<std::string, std::string> capture_parameters(const sim::Config& config);
// A capture of one run_job(): regions_before are the job's region buffers as submitted, `job` is the job after
// the run (its buffers hold the results), options/config/outcome how it ran and what came back. regions_after
// keeps the regions the stream writes (OFM and DMA destinations, as isa::validate finds them); sram_region is the
// first region with a buffer that REGIONCFG puts on AXI0, the on-chip SRAM.
Capture capture_run(const std::string& source, const std::array<std::vector<uint8_t>, isa::kRegionCount>& regions_before,
                    const Job& job, const RunOptions& options, const RunOutcome& outcome, const sim::Config& config);

}  // namespace ethosu::host
