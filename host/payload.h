// Vela's COP1 driver payload and the files a user may hand the simulator.
//
// Contract: parse_cop1() decodes the driver actions of a COP1 payload (spec 06 §3) and returns the one
// command stream it carries, with its byte offset and length checked against the payload. read_npu_file()
// classifies any file as a bare command stream, a COP1 payload or a .tflite model; for a model it
// describes every `ethos-u` custom operator (payload, flash, scratch sizes, NPU input/output tensors with
// their offline-planned arena offsets) and every operator left on the CPU. Malformed input throws
// ethosu::InputError naming the file, the problem and the byte offset.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "host/tflite.h"

namespace ethosu::host {

// Driver action commands (bits 7:0 of a tag word).
enum class DriverActionType : uint8_t {
  OPTIMIZER_CONFIG = 0x01,
  COMMAND_STREAM = 0x02,
  READ_APB = 0x03,
  DUMP_SHRAM = 0x04,
  NOP = 0x05,
};

// The CONFIG and ID register values Vela compiled for, decoded with the register field table.
struct OptimizerConfig {
  uint32_t release = 0;  // tag param bits 3:0
  uint32_t patch = 0;    // tag param bits 7:4
  uint32_t config_word = 0;
  uint32_t id_word = 0;
  uint32_t macs_per_cc_log2 = 0;
  uint32_t cmd_stream_version = 0;
  uint32_t shram_size_kib = 0;
  bool custom_dma = false;
  uint32_t product = 0;  // 0 = U55, 1 = U65
  uint32_t arch_major = 0, arch_minor = 0, arch_patch = 0;

  // Vela's accelerator name for this configuration ("ethos-u65-256"); throws InputError when the product
  // is not an Ethos-U55/U65.
  std::string accelerator() const;
};

struct DriverAction {
  DriverActionType type = DriverActionType::NOP;
  uint64_t byte_offset = 0;  // of the tag word in the payload
  uint32_t tag = 0;
  uint32_t param = 0;  // tag bits 31:16
  std::optional<OptimizerConfig> config;  // OPTIMIZER_CONFIG only
  uint64_t stream_offset_bytes = 0;       // COMMAND_STREAM only
  uint64_t stream_length_bytes = 0;       // COMMAND_STREAM only
};

struct DriverPayload {
  std::vector<DriverAction> actions;
  std::optional<OptimizerConfig> config;  // the OPTIMIZER_CONFIG action, when present
  uint64_t command_stream_offset_bytes = 0;
  uint64_t command_stream_length_bytes = 0;
  std::vector<uint8_t> command_stream;  // the payload bytes at that offset and length
};

// Requires the "COP1" word, a whole number of words, at most one OPTIMIZER_CONFIG and exactly one non-empty
// COMMAND_STREAM (Vela emits one; the simulator runs one stream per job).
DriverPayload parse_cop1(const std::vector<uint8_t>& payload, const std::string& what_for_messages);

enum class NpuFileKind { COMMAND_STREAM, COP1_PAYLOAD, TFLITE };

// COP1 by its first word, .tflite by "TFL3" at bytes 4..7, otherwise a bare command stream, which must be a
// non-empty whole number of words.
NpuFileKind classify_npu_file(const std::vector<uint8_t>& file, const std::string& what_for_messages);

struct NpuTensor {
  int32_t tensor_index = -1;  // in the operator's subgraph
  std::string name;
  int type = 0;  // TfliteType value
  std::vector<int32_t> shape;
  uint64_t size_bytes = 0;
  std::optional<uint32_t> arena_offset;  // OfflineMemoryAllocation entry; nullopt when absent or unplanned
};

// One `ethos-u` custom operator. Inputs 0..3 are the payload, flash, scratch and scratch_fast tensors;
// an omitted (-1) flash or scratch tensor reads as empty / 0 bytes.
struct EthosuOperator {
  uint32_t subgraph = 0;
  uint32_t operator_index = 0;
  DriverPayload payload;  // decoded from input 0's buffer
  std::vector<uint8_t> payload_bytes;
  std::vector<uint8_t> flash;  // region 0: input 1's buffer
  uint64_t scratch_bytes = 0;       // region 1: input 2's size
  uint64_t scratch_fast_bytes = 0;  // region 2: input 3's size
  std::vector<NpuTensor> inputs;    // operator inputs 4..
  std::vector<NpuTensor> outputs;
};

// An operator that stays on the CPU: any builtin, or a custom operator other than `ethos-u`.
struct CpuOperator {
  uint32_t subgraph = 0;
  uint32_t operator_index = 0;
  int32_t builtin_code = 0;
  std::string name;  // "CONV_2D", "BUILTIN_200" outside the name table, "CUSTOM:<code>" for custom ops
};

struct VelaModel {
  TfliteModel model;
  std::optional<OfflineMemoryAllocation> offline_plan;
  std::vector<EthosuOperator> ethosu_operators;  // in subgraph, then execution order
  std::vector<CpuOperator> cpu_operators;
  // Every operator, in order: "CUSTOM:ethos-u" or the CpuOperator name (the format of Vela's op lists).
  std::vector<std::string> operator_names;
};

VelaModel describe_vela_model(const std::vector<uint8_t>& file, const std::string& what_for_messages);

struct NpuFile {
  NpuFileKind kind = NpuFileKind::COMMAND_STREAM;
  std::vector<uint8_t> command_stream;  // the bare stream, or the COP1 payload's stream; empty for .tflite
  std::optional<DriverPayload> payload;  // COP1 only
  std::optional<VelaModel> model;        // .tflite only
};

NpuFile read_npu_file(const std::vector<uint8_t>& file, const std::string& what_for_messages);

}  // namespace ethosu::host
