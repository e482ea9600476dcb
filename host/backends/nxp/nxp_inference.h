// What NXP's Cortex-M33 firmware does with one INFERENCE_REQ, on the simulator: turn the network buffer and the
// IFM/OFM buffers into a job, run it on the configured machine, and say what goes back into the buffers and what
// the response carries (status, PMU counts, cycle count). Also the firmware's NETWORK_INFO answer.
//
// Contract: run_inference() takes a copy of the network's data and reads the IFM buffers through the request's
// reader, only as much of each as the inference uses: a per-tensor input whole, the arena up to the end of what
// the stream and the CPU operators reach (isa::validate's extents), the layout's header and entries; at most
// kMaxJobRegionBytes in all (more ends in ERROR before it is read). What the inference changed comes back as the
// arena's bytes before and after, of which a writer copies back only those that differ (sim/byte_runs.h), as the
// NPU and the firmware write nothing else. Any malformed network, layout or buffer set gives status ERROR with a
// message naming the problem (as the firmware would reject it), never an exception. Semantics (spec 06 §5.4):
//  * MODEL: the network is a Vela-compiled .tflite whose graph is one `ethos-u` operator. Either the IFM
//    buffers hold the graph inputs, one per buffer with exactly their sizes, and OFM buffers are given (Arm's
//    libethosu and inference_runner: the firmware copies them into and out of its own arena), or ifm[0] is the
//    tensor arena with the inputs at the offsets of Vela's offline plan (NXP's lf-6.x libethosu Interpreter),
//    optionally followed by one buffer per input that is copied in first. OFM buffers, when given, one per graph
//    output, receive the outputs after their data. A model compiled with separate I/O regions (COP2) keeps its
//    inputs and outputs in regions 3 and 4, so it takes the per-tensor buffers only.
//  * OP: the network is the COP1 or COP2 payload of one `ethos-u` operator (NXP's TFLite delegate); ifm[0] = arena
//    (region 1), ifm[1] = layout, optional ifm[2] = flash (region 0, else the arena); region 2 is the
//    firmware's fast memory, sized by the layout's base_addr_size[2]. The firmware takes these buffers as
//    pointers, so each reaches from its offset to its capacity (older delegates leave their size 0). An OFM
//    buffer, when given, is the profiling buffer: it receives one QreadEvent, the state at the end of the job.
//  The payload must be compiled for the NPU the shim simulates (the core driver checks the optimizer config).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "host/backends/nxp/ethosu_nxp_uapi.h"
#include "host/backends/shim_env.h"
#include "host/recording/capture.h"

namespace ethosu::nxp {

struct InferenceRequest {
  uint32_t inference_type = INFERENCE_MODEL;  // anything but INFERENCE_OP is MODEL, as in the kernel
  std::vector<uint8_t> network;               // the network buffer's data; empty for an index network
  bool network_is_index = false;
  // Each IFM buffer as the firmware reaches it from its offset: ifm_window_bytes of it (to its capacity, or its
  // size when set), of which read_ifm(k, n) returns the first n (n at most the window; it throws InputError when
  // the buffer cannot be read). ifm_sizes: each buffer's size (its data is the first size bytes).
  std::vector<uint64_t> ifm_window_bytes;
  std::vector<uint64_t> ifm_sizes;
  std::function<std::vector<uint8_t>(size_t ifm, uint64_t bytes)> read_ifm;
  std::vector<uint64_t> ofm_free_bytes;       // each OFM buffer's room after its data
  PmuConfig pmu{};

  // IFM buffers held in memory (a recording, a test): each is its window, and its size unless ifm_sizes says.
  void hold_ifms(std::vector<std::vector<uint8_t>> ifms);
};

// The first bytes of ifm[0], the arena, before and after an inference that wrote it (the NPU, the CPU operators,
// the reset of variable tensors); the rest of the buffer is untouched.
struct ArenaChange {
  std::vector<uint8_t> before, after;
};

struct InferenceResult {
  uint32_t status = STATUS_ERROR;
  std::string message;                              // why, when status is not OK
  std::optional<ArenaChange> arena;                 // when ifm[0] is the arena
  // Where the arena holds results, as [begin, end) byte offsets: OP mode the bytes the stream may write (its OFM
  // and DMA destinations), MODEL mode the graph outputs at their arena offsets (the rest is the firmware's working
  // memory); what the client itself wrote in the arena meanwhile is not the inference's.
  std::vector<std::pair<uint64_t, uint64_t>> arena_results;
  std::vector<std::vector<uint8_t>> ofm_appended;   // bytes to append to each OFM buffer (grows its size)
  PmuConfig pmu_config{};
  PmuCounts pmu_count{};
  std::optional<host::Capture> capture;             // the submission as the NPU saw it (when it ran)
};

InferenceResult run_inference(const InferenceRequest& request, const host::ShimSettings& settings);

// The firmware's NETWORK_INFO reply for a network buffer's data: the graph's inputs and outputs of a .tflite,
// nothing (counts 0) for a driver payload (OP-mode networks); nullopt when the firmware cannot read the buffer
// (the kernel then fails the ioctl with EBADF).
std::optional<NetworkInfoV2> network_info(const std::vector<uint8_t>& network);

// The CAPABILITIES reply of the i.MX 93 firmware for the simulated NPU variant.
DeviceCapabilities capabilities(const host::ShimSettings& settings);

}  // namespace ethosu::nxp
