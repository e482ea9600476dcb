// A defensive reader of TFLite model files (the flatbuffer of TensorFlow's schema.fbs, identifier "TFL3").
//
// Contract: parse_tflite() reads the flatbuffer wire format by hand and decodes only what the simulator
// host needs (tensors, operators, buffers, metadata). Every offset, length and index is checked against the
// file before it is followed, and the total decoded size is bounded by a budget proportional to the file
// size, so a truncated, garbage or hostile file throws ethosu::InputError (naming the file, the table field
// and the byte offset) instead of crashing, looping or allocating without bound. Indices in the result are
// validated: tensor.buffer < buffers.size(), operator opcode and tensor indices are in range (-1 is kept
// for omitted optional operator inputs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ethosu::host {

// TensorType values of the TFLite schema used by callers; other values are carried through unchanged.
enum class TfliteType : int {
  FLOAT32 = 0, FLOAT16 = 1, INT32 = 2, UINT8 = 3, INT64 = 4, STRING = 5, BOOL = 6, INT16 = 7, COMPLEX64 = 8,
  INT8 = 9, FLOAT64 = 10, COMPLEX128 = 11, UINT64 = 12, RESOURCE = 13, VARIANT = 14, UINT32 = 15, UINT16 = 16,
  INT4 = 17, BFLOAT16 = 18,
};

// BuiltinOperator value of CUSTOM: the operator is identified by TfliteOperator::custom_code instead.
inline constexpr int32_t kTfliteBuiltinCustom = 32;

struct TfliteTensor {
  std::string name;
  int type = 0;  // TfliteType value
  std::vector<int32_t> shape;
  uint32_t buffer = 0;  // index into TfliteModel::buffers; buffer 0 is the schema's empty sentinel
  std::vector<float> scale;
  std::vector<int64_t> zero_point;
  int32_t quantized_dimension = 0;
  bool is_variable = false;
};

struct TfliteOperator {
  uint32_t opcode_index = 0;
  int32_t builtin_code = 0;  // max(deprecated_builtin_code, builtin_code), as TFLite resolves it
  std::string custom_code;   // from the operator code; empty for builtins
  std::vector<int32_t> inputs, outputs;  // tensor indices; -1 = omitted optional input
  std::vector<uint8_t> custom_options;   // inline vector or the large_custom_options_offset/size range
};

struct TfliteSubgraph {
  std::string name;
  std::vector<TfliteTensor> tensors;
  std::vector<TfliteOperator> operators;
  std::vector<int32_t> inputs, outputs;
};

struct TfliteModel {
  uint32_t version = 0;
  std::string description;  // Model.description ("Vela 3.10.0 Optimised" for Vela's output)
  std::vector<TfliteSubgraph> subgraphs;
  std::vector<std::vector<uint8_t>> buffers;  // inline data or the offset/size range after the flatbuffer
  std::vector<std::pair<std::string, uint32_t>> metadata;  // name, buffer index

  // Throws InputError when index is not a buffer of this model.
  const std::vector<uint8_t>& buffer(uint32_t index) const;
};

TfliteModel parse_tflite(const std::vector<uint8_t>& file, const std::string& what_for_messages);

// Element size in bits of a TensorType (INT4 = 4); nullopt for types without a fixed size (STRING,
// RESOURCE, VARIANT) and unknown values.
std::optional<uint32_t> tflite_type_bits(int type);

// Byte size of a tensor: product of the shape times the element size, rounded up to whole bytes. Throws
// InputError for negative (dynamic) dimensions, types without a fixed size, or sizes beyond 2^48 bytes.
uint64_t tflite_tensor_bytes(const TfliteTensor& tensor, const std::string& what_for_messages);

// Upper-case TFLite name of a builtin operator code ("CONV_2D"); empty when the code is not in the table.
std::string_view tflite_builtin_name(int32_t builtin_code);

// Vela's "OfflineMemoryAllocation" metadata, as TFLite Micro reads it: int32 words version (0), subgraph
// count, tensor count, then one arena byte offset per tensor, numbered across all subgraphs in order
// (subgraph 0's tensors first); -1 = not planned offline.
struct OfflineMemoryAllocation {
  uint32_t version = 0;
  uint32_t subgraph_count = 0;
  std::vector<int32_t> offsets;

  // Arena offset of tensor `tensor` of subgraph `subgraph`, nullopt when unplanned (-1).
  std::optional<uint32_t> offset_of(const TfliteModel& model, uint32_t subgraph, uint32_t tensor) const;
};

// nullopt when the model has no such metadata; InputError when it is malformed or its tensor count does
// not match the model.
std::optional<OfflineMemoryAllocation> read_offline_memory_allocation(const TfliteModel& model,
                                                                      const std::string& what_for_messages);

}  // namespace ethosu::host
