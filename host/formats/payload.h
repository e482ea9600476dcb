// Vela's driver payloads (COP1, and Vela 5's COP2) and the files a user may hand the simulator.
//
// Contract: parse_driver_payload() decodes a COP1 payload's driver actions (spec 06 §3) or a COP2 payload's
// entries and returns the one command stream it carries, with its byte offset and length checked against the
// payload; make_driver_payload() writes either format around a stream, as Vela does. read_npu_file()
// classifies any file as a bare command stream, a driver payload or a .tflite model; for a model it
// describes every `ethos-u` custom operator (payload, flash, scratch sizes, NPU input/output tensors with
// their offline-planned offsets and regions) and every operator left on the CPU. Malformed input throws
// ethosu::InputError naming the file, the problem and the byte offset.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "host/formats/tflite.h"
#include "isa/isa.h"

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
  uint32_t product = 0;  // 0 = U55, 1 = U65, 2 = U85
  uint32_t arch_major = 0, arch_minor = 0, arch_patch = 0;

  // Vela's accelerator name for this configuration ("ethos-u65-256"); throws InputError when the product
  // is not an Ethos-U55, U65 or U85.
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

// COP1: driver actions after the FourCC (Vela <= 4, and Vela 5 by default). COP2 (Vela 5's
// --cop-format COP2): a 16-byte header (FourCC, version 1.0, 64-bit length of the entries) and entries of
// (32-bit type, 32-bit length, data); the COMMAND_STREAM entry (type 1) holds a "VEUM" metadata block
// (CONFIG and ID words, addressing mode, staging bytes) and then the stream, 16-byte aligned.
enum class PayloadFormat : uint8_t { COP1, COP2 };

// The regions Vela 5 gives a custom operator's inputs and outputs with --separate-io-regions (its base
// pointer indices InputTensor and OutputTensor); without it they live in the arena, region 1.
inline constexpr uint32_t kSeparateInputRegion = 3;
inline constexpr uint32_t kSeparateOutputRegion = 4;

struct DriverPayload {
  PayloadFormat format = PayloadFormat::COP1;
  std::vector<DriverAction> actions;       // COP1 only
  std::optional<OptimizerConfig> config;  // COP1: the OPTIMIZER_CONFIG action; COP2: the VEUM metadata
  bool separate_io_regions = false;        // COP2 local addressing: inputs in region 3, outputs in region 4
  uint64_t staging_bytes = 0;              // COP2: the fast scratch (region 2) the stream uses
  uint64_t command_stream_offset_bytes = 0;
  uint64_t command_stream_length_bytes = 0;
  std::vector<uint8_t> command_stream;  // the payload bytes at that offset and length
};

// COP1: requires a whole number of words, at most one OPTIMIZER_CONFIG and exactly one non-empty
// COMMAND_STREAM (Vela emits one; the simulator runs one stream per job). COP2: version 1.x, entries inside the
// length the header gives, exactly one COMMAND_STREAM entry with VEUM metadata 1.x and a non-empty whole number
// of stream words; other entry types are refused (their meaning is not public).
DriverPayload parse_driver_payload(const std::vector<uint8_t>& payload, const std::string& what_for_messages);

// A payload around `stream` (whole 32-bit words) as Vela writes it: COP1 with OPTIMIZER_CONFIG 0.1, NOPs and the
// COMMAND_STREAM action; COP2 with the VEUM metadata (network-wide or, with separate_io_regions, local
// addressing) and 0xFF padding to the stream.
std::vector<uint8_t> make_driver_payload(const std::vector<uint8_t>& stream, PayloadFormat format,
                                         uint32_t config_word, uint32_t id_word, bool separate_io_regions = false,
                                         uint64_t staging_bytes = 0);

// The CONFIG word Vela writes for a variant: the configuration's CONFIG register (isa/architecture.h); and the ID
// word Vela's Python core writes (architecture 1.0.6, nothing else).
uint32_t vela_config_word(const std::string& variant);
inline constexpr uint32_t kVelaIdWord = 0x10060000;

enum class NpuFileKind { COMMAND_STREAM, DRIVER_PAYLOAD, TFLITE };

// A driver payload by its first word ("COP1" or "COP2"), .tflite by "TFL3" at bytes 4..7, otherwise a bare
// command stream, which must be a non-empty whole number of words.
NpuFileKind classify_npu_file(const std::vector<uint8_t>& file, const std::string& what_for_messages);

struct NpuTensor {
  int32_t tensor_index = -1;  // in the operator's subgraph
  std::string name;
  int type = 0;  // TfliteType value
  std::vector<int32_t> shape;
  uint64_t size_bytes = 0;
  // OfflineMemoryAllocation entry, an offset in `region`; nullopt when absent or unplanned.
  std::optional<uint32_t> arena_offset;
  uint32_t region = 1;  // the arena, or region 3 (inputs) / 4 (outputs) with separate I/O regions
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
  // The same tensors in the order a TFLite user gives and gets them: the subgraph's inputs (outputs) first, in
  // graph order, then the operator's others (variable state tensors) in operator order.
  std::vector<NpuTensor> model_inputs;
  std::vector<NpuTensor> model_outputs;
  // Bytes regions 3 and 4 need with separate I/O regions: the end of the last input / output.
  uint64_t input_region_bytes = 0, output_region_bytes = 0;
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
  std::vector<uint8_t> command_stream;  // the bare stream, or the payload's stream; empty for .tflite
  std::optional<DriverPayload> payload;  // driver payloads only
  std::optional<VelaModel> model;        // .tflite only
};

NpuFile read_npu_file(const std::vector<uint8_t>& file, const std::string& what_for_messages);

// The largest file that can hold a bare command stream or a driver payload: the NPU's 16 MiB QSIZE limit on the
// stream, and room for a payload's header and other driver actions [I: Vela's take a few dozen bytes].
inline constexpr uint64_t kMaxStreamFileBytes = isa::kMaxStreamBytes + (uint64_t{1} << 20);
// A file for read_npu_file(), read with the bound of its kind, which its first bytes tell: a .tflite model up to
// 4 GiB (its weights), a bare stream or a driver payload up to kMaxStreamFileBytes. A larger stream file is refused
// from its size before any of it is read (InputError naming the file, its size and the QSIZE limit).
std::vector<uint8_t> read_npu_file_bytes(const std::filesystem::path& path);

}  // namespace ethosu::host
