#include "host/formats/tflite.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "sim/error.h"

namespace ethosu::host {
namespace {

// Decoded output may exceed the file by this much at most (plus one file size). Honest models decode to
// less than their own size; the budget stops hostile files whose tables all point at one large vector
// from expanding quadratically.
constexpr uint64_t kBudgetSlackBytes = uint64_t{16} << 20;

constexpr char kIdentifier[] = "TFL3";

// Field slots of the schema tables read here (index = declaration order in schema.fbs).
namespace model_field {
constexpr unsigned version = 0, operator_codes = 1, subgraphs = 2, description = 3, buffers = 4, metadata = 6;
}
namespace opcode_field {
constexpr unsigned deprecated_builtin_code = 0, custom_code = 1, builtin_code = 3;
}
namespace subgraph_field {
constexpr unsigned tensors = 0, inputs = 1, outputs = 2, operators = 3, name = 4;
}
namespace tensor_field {
constexpr unsigned shape = 0, type = 1, buffer = 2, name = 3, quantization = 4, is_variable = 5;
}
namespace quant_field {
constexpr unsigned scale = 2, zero_point = 3, quantized_dimension = 6;
}
namespace operator_field {
constexpr unsigned opcode_index = 0, inputs = 1, outputs = 2, custom_options = 5, large_custom_options_offset = 9,
                   large_custom_options_size = 10;
}
namespace buffer_field {
constexpr unsigned data = 0, offset = 1, size = 2;
}
namespace metadata_field {
constexpr unsigned name = 0, buffer = 1;
}

struct Table {
  uint64_t pos = 0;
  uint64_t vtable = 0;
  uint16_t vtable_bytes = 0;
  uint16_t object_bytes = 0;
  const char* type = "";
};

struct Vec {
  uint64_t data = 0;  // first element
  uint32_t count = 0;
};

// Reads the flatbuffer wire format: little-endian scalars, uoffset (u32, forward) references, tables
// found through a signed offset to their vtable. `where` strings are only formatted on failure.
class FlatReader {
 public:
  FlatReader(const std::vector<uint8_t>& file, const std::string& what)
      : file_(file), what_(what), budget_bytes_(uint64_t{file.size()} + kBudgetSlackBytes) {}

  [[noreturn]] void fail(uint64_t pos, const char* type, const char* field, const std::string& problem) const {
    std::string where = type;
    if (field[0] != '\0') where += std::string(".") + field;
    throw InputError(what_ + ": " + where + " at byte " + std::to_string(pos) + ": " + problem);
  }

  uint64_t size() const { return file_.size(); }

  void check_range(uint64_t pos, uint64_t len, const char* type, const char* field) const {
    if (pos > file_.size() || len > file_.size() - pos) {
      fail(pos, type, field,
           std::to_string(len) + " bytes run past the end of the file (" + std::to_string(file_.size()) +
               " bytes)");
    }
  }

  uint64_t load(uint64_t pos, unsigned bytes, const char* type, const char* field) const {
    check_range(pos, bytes, type, field);
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; ++i) v |= uint64_t{file_[pos + i]} << (8 * i);
    return v;
  }
  uint32_t u32(uint64_t pos, const char* type, const char* field) const {
    return static_cast<uint32_t>(load(pos, 4, type, field));
  }

  void charge(uint64_t bytes, uint64_t pos, const char* type, const char* field) {
    if (bytes > budget_bytes_) {
      fail(pos, type, field,
           "decoded model would exceed " + std::to_string(file_.size() + kBudgetSlackBytes) +
               " bytes: the file reuses the same data implausibly often");
    }
    budget_bytes_ -= bytes;
  }

  Table table(uint64_t pos, const char* type) {
    const auto soffset = static_cast<int32_t>(u32(pos, type, ""));
    const int64_t vtable = static_cast<int64_t>(pos) - soffset;
    if (vtable < 0 || static_cast<uint64_t>(vtable) + 4 > file_.size()) {
      fail(pos, type, "", "vtable offset " + std::to_string(soffset) + " points outside the file");
    }
    Table t;
    t.pos = pos;
    t.vtable = static_cast<uint64_t>(vtable);
    t.vtable_bytes = static_cast<uint16_t>(load(t.vtable, 2, type, "(vtable)"));
    t.object_bytes = static_cast<uint16_t>(load(t.vtable + 2, 2, type, "(vtable)"));
    t.type = type;
    if (t.vtable_bytes < 4 || t.vtable_bytes % 2 != 0) {
      fail(t.vtable, type, "(vtable)", "vtable size " + std::to_string(t.vtable_bytes) + " is not an even number >= 4");
    }
    check_range(t.vtable, t.vtable_bytes, type, "(vtable)");
    if (t.object_bytes < 4) fail(pos, type, "", "table size " + std::to_string(t.object_bytes) + " is below 4");
    check_range(pos, t.object_bytes, type, "");
    return t;
  }

  // Absolute position of a field of `bytes` inline bytes; 0 when the field is absent (byte 0 holds the
  // root offset, so no field can live there).
  uint64_t field(const Table& t, unsigned index, unsigned bytes, const char* name) const {
    const uint64_t slot = 4 + 2 * uint64_t{index};
    if (slot + 2 > t.vtable_bytes) return 0;
    const auto off = static_cast<uint16_t>(load(t.vtable + slot, 2, t.type, name));
    if (off == 0) return 0;
    if (off < 4 || uint64_t{off} + bytes > t.object_bytes) {
      fail(t.pos, t.type, name,
           "field at table offset " + std::to_string(off) + " (" + std::to_string(bytes) +
               " bytes) lies outside the table's " + std::to_string(t.object_bytes) + " bytes");
    }
    return t.pos + off;
  }

  uint64_t unsigned_field(const Table& t, unsigned index, unsigned bytes, const char* name, uint64_t def) const {
    const uint64_t pos = field(t, index, bytes, name);
    return pos == 0 ? def : load(pos, bytes, t.type, name);
  }
  int64_t signed_field(const Table& t, unsigned index, unsigned bytes, const char* name, int64_t def) const {
    const uint64_t pos = field(t, index, bytes, name);
    if (pos == 0) return def;
    const uint64_t raw = load(pos, bytes, t.type, name);
    const unsigned shift = 64 - 8 * bytes;
    return static_cast<int64_t>(raw << shift) >> shift;  // sign-extend
  }

  // Target of a reference (uoffset) field; 0 when absent.
  uint64_t ref(const Table& t, unsigned index, const char* name) const {
    const uint64_t pos = field(t, index, 4, name);
    return pos == 0 ? 0 : follow(pos, t.type, name);
  }
  uint64_t follow(uint64_t pos, const char* type, const char* name) const {
    const uint64_t target = pos + u32(pos, type, name);
    if (target >= file_.size()) {
      fail(pos, type, name, "offset to byte " + std::to_string(target) + " points past the end of the file");
    }
    return target;
  }

  Vec vec(const Table& t, unsigned index, unsigned elem_bytes, const char* name) const {
    const uint64_t pos = ref(t, index, name);
    if (pos == 0) return {};
    const uint32_t count = u32(pos, t.type, name);
    check_range(pos + 4, uint64_t{count} * elem_bytes, t.type, name);
    return {pos + 4, count};
  }

  Table table_at(const Vec& v, uint32_t i, const char* type, const Table& parent, const char* name) {
    charge(sizeof(Table) + 64, v.data, parent.type, name);  // every decoded object costs, even when shared
    return table(follow(v.data + 4 * uint64_t{i}, parent.type, name), type);
  }

  std::string string_at(uint64_t pos, const char* type, const char* name) {
    const uint32_t len = u32(pos, type, name);
    check_range(pos + 4, uint64_t{len} + 1, type, name);
    if (file_[pos + 4 + len] != 0) fail(pos, type, name, "string of " + std::to_string(len) + " bytes is not NUL-terminated");
    charge(len, pos, type, name);
    return std::string(reinterpret_cast<const char*>(file_.data() + pos + 4), len);
  }
  std::string string(const Table& t, unsigned index, const char* name) {
    const uint64_t pos = ref(t, index, name);
    return pos == 0 ? std::string() : string_at(pos, t.type, name);
  }

  // Vector of little-endian scalars of `bytes` each, converted by `convert(raw)`.
  template <typename T, typename Convert>
  std::vector<T> scalars(const Table& t, unsigned index, unsigned bytes, const char* name, Convert convert) {
    const Vec v = vec(t, index, bytes, name);
    charge(uint64_t{v.count} * sizeof(T), v.data, t.type, name);
    std::vector<T> out;
    out.reserve(v.count);
    for (uint32_t i = 0; i < v.count; ++i) out.push_back(convert(load(v.data + uint64_t{i} * bytes, bytes, t.type, name)));
    return out;
  }
  std::vector<int32_t> int32s(const Table& t, unsigned index, const char* name) {
    return scalars<int32_t>(t, index, 4, name, [](uint64_t raw) { return static_cast<int32_t>(static_cast<uint32_t>(raw)); });
  }

  std::vector<uint8_t> bytes_at(uint64_t pos, uint64_t len, const char* type, const char* name) {
    check_range(pos, len, type, name);
    charge(len, pos, type, name);
    return std::vector<uint8_t>(file_.begin() + static_cast<std::ptrdiff_t>(pos),
                                file_.begin() + static_cast<std::ptrdiff_t>(pos + len));
  }
  std::vector<uint8_t> ubytes(const Table& t, unsigned index, const char* name) {
    const Vec v = vec(t, index, 1, name);
    return bytes_at(v.data, v.count, t.type, name);
  }

  // Out-of-flatbuffer data (Buffer.offset/size, Operator.large_custom_options_*): offsets 0 and 1 mean
  // "not used" in the schema (1 is the placeholder writers use before the final offset is known).
  std::vector<uint8_t> external_bytes(const Table& t, unsigned offset_index, unsigned size_index, const char* name) {
    const uint64_t offset = unsigned_field(t, offset_index, 8, name, 0);
    const uint64_t size = unsigned_field(t, size_index, 8, name, 0);
    if (offset <= 1) return {};
    if (offset > file_.size() || size > file_.size() - offset) {
      fail(t.pos, t.type, name,
           "external data at offset " + std::to_string(offset) + " size " + std::to_string(size) +
               " runs past the end of the file (" + std::to_string(file_.size()) + " bytes)");
    }
    return bytes_at(offset, size, t.type, name);
  }

 private:
  const std::vector<uint8_t>& file_;
  const std::string& what_;
  uint64_t budget_bytes_;
};

float float_from_bits(uint64_t raw) {
  const auto bits = static_cast<uint32_t>(raw);
  float f;
  static_assert(sizeof f == sizeof bits);
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

struct OperatorCode {
  int32_t builtin_code = 0;
  std::string custom_code;
};

TfliteTensor read_tensor(FlatReader& r, const Table& t) {
  TfliteTensor tensor;
  tensor.shape = r.int32s(t, tensor_field::shape, "shape");
  tensor.type = static_cast<int>(r.signed_field(t, tensor_field::type, 1, "type", 0));
  tensor.buffer = static_cast<uint32_t>(r.unsigned_field(t, tensor_field::buffer, 4, "buffer", 0));
  tensor.name = r.string(t, tensor_field::name, "name");
  tensor.is_variable = r.unsigned_field(t, tensor_field::is_variable, 1, "is_variable", 0) != 0;
  if (const uint64_t q = r.ref(t, tensor_field::quantization, "quantization")) {
    const Table qt = r.table(q, "QuantizationParameters");
    tensor.scale = r.scalars<float>(qt, quant_field::scale, 4, "scale", float_from_bits);
    tensor.zero_point = r.scalars<int64_t>(qt, quant_field::zero_point, 8, "zero_point",
                                           [](uint64_t raw) { return static_cast<int64_t>(raw); });
    tensor.quantized_dimension =
        static_cast<int32_t>(r.signed_field(qt, quant_field::quantized_dimension, 4, "quantized_dimension", 0));
  }
  return tensor;
}

TfliteOperator read_operator(FlatReader& r, const Table& t, const std::vector<OperatorCode>& codes) {
  TfliteOperator op;
  op.opcode_index = static_cast<uint32_t>(r.unsigned_field(t, operator_field::opcode_index, 4, "opcode_index", 0));
  if (op.opcode_index >= codes.size()) {
    r.fail(t.pos, t.type, "opcode_index",
           "operator code " + std::to_string(op.opcode_index) + " does not exist (model has " +
               std::to_string(codes.size()) + ")");
  }
  op.builtin_code = codes[op.opcode_index].builtin_code;
  op.custom_code = codes[op.opcode_index].custom_code;
  op.inputs = r.int32s(t, operator_field::inputs, "inputs");
  op.outputs = r.int32s(t, operator_field::outputs, "outputs");
  op.custom_options = r.ubytes(t, operator_field::custom_options, "custom_options");
  if (op.custom_options.empty()) {
    op.custom_options = r.external_bytes(t, operator_field::large_custom_options_offset,
                                         operator_field::large_custom_options_size, "large_custom_options_offset");
  }
  return op;
}

void check_tensor_indices(FlatReader& r, const Table& t, const char* name, const std::vector<int32_t>& indices,
                          size_t tensor_count, bool allow_omitted) {
  for (const int32_t i : indices) {
    if ((i == -1 && allow_omitted) || (i >= 0 && static_cast<size_t>(i) < tensor_count)) continue;
    r.fail(t.pos, t.type, name,
           "tensor index " + std::to_string(i) + " is out of range (subgraph has " + std::to_string(tensor_count) +
               " tensors)");
  }
}

TfliteSubgraph read_subgraph(FlatReader& r, const Table& t, const std::vector<OperatorCode>& codes) {
  TfliteSubgraph sg;
  sg.name = r.string(t, subgraph_field::name, "name");
  const Vec tensors = r.vec(t, subgraph_field::tensors, 4, "tensors");
  sg.tensors.reserve(tensors.count);
  for (uint32_t i = 0; i < tensors.count; ++i) {
    sg.tensors.push_back(read_tensor(r, r.table_at(tensors, i, "Tensor", t, "tensors")));
  }
  sg.inputs = r.int32s(t, subgraph_field::inputs, "inputs");
  sg.outputs = r.int32s(t, subgraph_field::outputs, "outputs");
  check_tensor_indices(r, t, "inputs", sg.inputs, sg.tensors.size(), false);
  check_tensor_indices(r, t, "outputs", sg.outputs, sg.tensors.size(), false);
  const Vec ops = r.vec(t, subgraph_field::operators, 4, "operators");
  sg.operators.reserve(ops.count);
  for (uint32_t i = 0; i < ops.count; ++i) {
    const Table ot = r.table_at(ops, i, "Operator", t, "operators");
    sg.operators.push_back(read_operator(r, ot, codes));
    check_tensor_indices(r, ot, "inputs", sg.operators.back().inputs, sg.tensors.size(), true);
    check_tensor_indices(r, ot, "outputs", sg.operators.back().outputs, sg.tensors.size(), false);
  }
  return sg;
}

}  // namespace

const std::vector<uint8_t>& TfliteModel::buffer(uint32_t index) const {
  if (index >= buffers.size()) {
    throw InputError("buffer index " + std::to_string(index) + " is out of range (model has " +
                     std::to_string(buffers.size()) + " buffers)");
  }
  return buffers[index];
}

TfliteModel parse_tflite(const std::vector<uint8_t>& file, const std::string& what) {
  FlatReader r(file, what);
  if (file.size() < 8) {
    throw InputError(what + ": " + std::to_string(file.size()) + " bytes is too short for a TFLite model (at least 8)");
  }
  if (std::memcmp(file.data() + 4, kIdentifier, 4) != 0) {
    throw InputError(what + ": bytes 4..7 are not the TFLite identifier \"TFL3\"");
  }
  const Table root = r.table(r.follow(0, "Model", "(root)"), "Model");
  TfliteModel model;
  model.version = static_cast<uint32_t>(r.unsigned_field(root, model_field::version, 4, "version", 0));
  model.description = r.string(root, model_field::description, "description");

  std::vector<OperatorCode> codes;
  const Vec code_vec = r.vec(root, model_field::operator_codes, 4, "operator_codes");
  codes.reserve(code_vec.count);
  for (uint32_t i = 0; i < code_vec.count; ++i) {
    const Table ct = r.table_at(code_vec, i, "OperatorCode", root, "operator_codes");
    const auto deprecated =
        static_cast<int32_t>(r.signed_field(ct, opcode_field::deprecated_builtin_code, 1, "deprecated_builtin_code", 0));
    const auto builtin = static_cast<int32_t>(r.signed_field(ct, opcode_field::builtin_code, 4, "builtin_code", 0));
    codes.push_back({std::max(deprecated, builtin), r.string(ct, opcode_field::custom_code, "custom_code")});
  }

  const Vec buffer_vec = r.vec(root, model_field::buffers, 4, "buffers");
  model.buffers.reserve(buffer_vec.count);
  for (uint32_t i = 0; i < buffer_vec.count; ++i) {
    const Table bt = r.table_at(buffer_vec, i, "Buffer", root, "buffers");
    std::vector<uint8_t> data = r.ubytes(bt, buffer_field::data, "data");
    std::vector<uint8_t> external = r.external_bytes(bt, buffer_field::offset, buffer_field::size, "offset");
    if (!data.empty() && !external.empty()) r.fail(bt.pos, bt.type, "data", "buffer has both inline data and an offset");
    model.buffers.push_back(data.empty() ? std::move(external) : std::move(data));
  }

  const Vec sg_vec = r.vec(root, model_field::subgraphs, 4, "subgraphs");
  model.subgraphs.reserve(sg_vec.count);
  for (uint32_t i = 0; i < sg_vec.count; ++i) {
    model.subgraphs.push_back(read_subgraph(r, r.table_at(sg_vec, i, "SubGraph", root, "subgraphs"), codes));
    for (const TfliteTensor& tensor : model.subgraphs.back().tensors) {
      if (tensor.buffer >= model.buffers.size()) {
        throw InputError(what + ": subgraph " + std::to_string(i) + " tensor \"" + tensor.name + "\" uses buffer " +
                         std::to_string(tensor.buffer) + " but the model has " + std::to_string(model.buffers.size()) +
                         " buffers");
      }
    }
  }

  const Vec md_vec = r.vec(root, model_field::metadata, 4, "metadata");
  for (uint32_t i = 0; i < md_vec.count; ++i) {
    const Table mt = r.table_at(md_vec, i, "Metadata", root, "metadata");
    std::string name = r.string(mt, metadata_field::name, "name");
    const auto index = static_cast<uint32_t>(r.unsigned_field(mt, metadata_field::buffer, 4, "buffer", 0));
    if (index >= model.buffers.size()) {
      r.fail(mt.pos, mt.type, "buffer",
             "metadata \"" + name + "\" uses buffer " + std::to_string(index) + " but the model has " +
                 std::to_string(model.buffers.size()) + " buffers");
    }
    model.metadata.emplace_back(std::move(name), index);
  }
  return model;
}

std::optional<uint32_t> tflite_type_bits(int type) {
  switch (static_cast<TfliteType>(type)) {
    case TfliteType::BOOL:
    case TfliteType::UINT8:
    case TfliteType::INT8: return 8;
    case TfliteType::INT4: return 4;
    case TfliteType::FLOAT16:
    case TfliteType::BFLOAT16:
    case TfliteType::INT16:
    case TfliteType::UINT16: return 16;
    case TfliteType::FLOAT32:
    case TfliteType::INT32:
    case TfliteType::UINT32: return 32;
    case TfliteType::INT64:
    case TfliteType::UINT64:
    case TfliteType::FLOAT64:
    case TfliteType::COMPLEX64: return 64;
    case TfliteType::COMPLEX128: return 128;
    case TfliteType::STRING:
    case TfliteType::RESOURCE:
    case TfliteType::VARIANT: break;
  }
  return std::nullopt;
}

uint64_t tflite_tensor_bytes(const TfliteTensor& tensor, const std::string& what) {
  constexpr uint64_t kMaxBytes = uint64_t{1} << 48;  // far beyond any NPU address space (40 bits)
  const std::optional<uint32_t> bits = tflite_type_bits(tensor.type);
  if (!bits) {
    throw InputError(what + ": tensor \"" + tensor.name + "\" has type " + std::to_string(tensor.type) +
                     ", which has no fixed element size");
  }
  uint64_t elements = 1;
  for (const int32_t dim : tensor.shape) {
    if (dim < 0) {
      throw InputError(what + ": tensor \"" + tensor.name + "\" has a dynamic dimension (" + std::to_string(dim) + ")");
    }
    if (dim != 0 && elements > kMaxBytes / static_cast<uint64_t>(dim)) {
      throw InputError(what + ": tensor \"" + tensor.name + "\" is larger than 2^48 bytes");
    }
    elements *= static_cast<uint64_t>(dim);
  }
  const uint64_t bytes = (elements * *bits + 7) / 8;  // elements <= 2^48, so no overflow
  if (bytes > kMaxBytes) throw InputError(what + ": tensor \"" + tensor.name + "\" is larger than 2^48 bytes");
  return bytes;
}

std::string_view tflite_builtin_name(int32_t code) {
  // BuiltinOperator values 0..126 (those below PLACEHOLDER_FOR_GREATER_OP_CODES).
  static constexpr std::array<std::string_view, 127> kNames = {
      "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D", "DEPTH_TO_SPACE", "DEQUANTIZE",
      "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED", "HASHTABLE_LOOKUP", "L2_NORMALIZATION", "L2_POOL_2D",
      "LOCAL_RESPONSE_NORMALIZATION", "LOGISTIC", "LSH_PROJECTION", "LSTM", "MAX_POOL_2D", "MUL", "RELU",
      "RELU_N1_TO_1", "RELU6", "RESHAPE", "RESIZE_BILINEAR", "RNN", "SOFTMAX", "SPACE_TO_DEPTH", "SVDF", "TANH",
      "CONCAT_EMBEDDINGS", "SKIP_GRAM", "CALL", "CUSTOM", "EMBEDDING_LOOKUP_SPARSE", "PAD",
      "UNIDIRECTIONAL_SEQUENCE_RNN", "GATHER", "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND", "TRANSPOSE", "MEAN", "SUB",
      "DIV", "SQUEEZE", "UNIDIRECTIONAL_SEQUENCE_LSTM", "STRIDED_SLICE", "BIDIRECTIONAL_SEQUENCE_RNN", "EXP",
      "TOPK_V2", "SPLIT", "LOG_SOFTMAX", "DELEGATE", "BIDIRECTIONAL_SEQUENCE_LSTM", "CAST", "PRELU", "MAXIMUM",
      "ARG_MAX", "MINIMUM", "LESS", "NEG", "PADV2", "GREATER", "GREATER_EQUAL", "LESS_EQUAL", "SELECT", "SLICE",
      "SIN", "TRANSPOSE_CONV", "SPARSE_TO_DENSE", "TILE", "EXPAND_DIMS", "EQUAL", "NOT_EQUAL", "LOG", "SUM", "SQRT",
      "RSQRT", "SHAPE", "POW", "ARG_MIN", "FAKE_QUANT", "REDUCE_PROD", "REDUCE_MAX", "PACK", "LOGICAL_OR",
      "ONE_HOT", "LOGICAL_AND", "LOGICAL_NOT", "UNPACK", "REDUCE_MIN", "FLOOR_DIV", "REDUCE_ANY", "SQUARE",
      "ZEROS_LIKE", "FILL", "FLOOR_MOD", "RANGE", "RESIZE_NEAREST_NEIGHBOR", "LEAKY_RELU", "SQUARED_DIFFERENCE",
      "MIRROR_PAD", "ABS", "SPLIT_V", "UNIQUE", "CEIL", "REVERSE_V2", "ADD_N", "GATHER_ND", "COS", "WHERE", "RANK",
      "ELU", "REVERSE_SEQUENCE", "MATRIX_DIAG", "QUANTIZE", "MATRIX_SET_DIAG", "ROUND", "HARD_SWISH", "IF", "WHILE",
      "NON_MAX_SUPPRESSION_V4", "NON_MAX_SUPPRESSION_V5", "SCATTER_ND", "SELECT_V2", "DENSIFY", "SEGMENT_SUM",
      "BATCH_MATMUL",
  };
  if (code < 0 || static_cast<size_t>(code) >= kNames.size()) return {};
  return kNames[static_cast<size_t>(code)];
}

std::optional<uint32_t> OfflineMemoryAllocation::offset_of(const TfliteModel& model, uint32_t subgraph,
                                                           uint32_t tensor) const {
  size_t global = tensor;
  for (uint32_t i = 0; i < subgraph && i < model.subgraphs.size(); ++i) global += model.subgraphs[i].tensors.size();
  if (subgraph >= model.subgraphs.size() || tensor >= model.subgraphs[subgraph].tensors.size() ||
      global >= offsets.size()) {
    throw InputError("OfflineMemoryAllocation: no entry for subgraph " + std::to_string(subgraph) + " tensor " +
                     std::to_string(tensor));
  }
  const int32_t offset = offsets[global];
  if (offset < 0) return std::nullopt;
  return static_cast<uint32_t>(offset);
}

std::optional<OfflineMemoryAllocation> read_offline_memory_allocation(const TfliteModel& model,
                                                                      const std::string& what) {
  constexpr char kName[] = "OfflineMemoryAllocation";
  const auto it = std::find_if(model.metadata.begin(), model.metadata.end(),
                               [&](const auto& m) { return m.first == kName; });
  if (it == model.metadata.end()) return std::nullopt;
  const std::vector<uint8_t>& data = model.buffer(it->second);
  const std::string where = what + ": metadata " + kName + " (buffer " + std::to_string(it->second) + ")";
  if (data.size() % 4 != 0 || data.size() < 12) {
    throw InputError(where + ": " + std::to_string(data.size()) +
                     " bytes is not a whole number of int32 words with a 3-word header");
  }
  std::vector<int32_t> words(data.size() / 4);
  for (size_t i = 0; i < words.size(); ++i) {
    words[i] = static_cast<int32_t>(uint32_t{data[4 * i]} | uint32_t{data[4 * i + 1]} << 8 |
                                    uint32_t{data[4 * i + 2]} << 16 | uint32_t{data[4 * i + 3]} << 24);
  }
  OfflineMemoryAllocation plan;
  plan.version = static_cast<uint32_t>(words[0]);
  plan.subgraph_count = static_cast<uint32_t>(words[1]);
  const auto tensor_count = static_cast<uint32_t>(words[2]);
  if (plan.version != 0) throw InputError(where + ": byte 0: unsupported version " + std::to_string(words[0]));
  if (plan.subgraph_count != model.subgraphs.size()) {
    throw InputError(where + ": byte 4: subgraph count " + std::to_string(words[1]) + " but the model has " +
                     std::to_string(model.subgraphs.size()));
  }
  size_t model_tensors = 0;
  for (const TfliteSubgraph& sg : model.subgraphs) model_tensors += sg.tensors.size();
  if (tensor_count != words.size() - 3 || tensor_count != model_tensors) {
    throw InputError(where + ": byte 8: tensor count " + std::to_string(words[2]) + ", but it holds " +
                     std::to_string(words.size() - 3) + " offsets and the model has " + std::to_string(model_tensors) +
                     " tensors");
  }
  plan.offsets.assign(words.begin() + 3, words.end());
  for (size_t i = 0; i < plan.offsets.size(); ++i) {
    if (plan.offsets[i] < -1) {
      throw InputError(where + ": byte " + std::to_string(12 + 4 * i) + ": negative offset " +
                       std::to_string(plan.offsets[i]));
    }
  }
  return plan;
}

}  // namespace ethosu::host
