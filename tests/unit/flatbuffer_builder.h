// Test helper: writes small TFLite flatbuffers and COP1 payloads byte by byte, so the host-format tests and
// the fuzz seed generator need neither the flatbuffers library nor shared data.
//
// Objects are written front to back: a table is written (vtable first, then the table), then the objects
// it refers to, and the references are patched, so every uoffset points forward as the format requires.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ethosu::testing {

using Bytes = std::vector<uint8_t>;
// Writes one object at the end of the buffer and returns its position.
using Ref = std::function<size_t(Bytes&)>;

inline void put(Bytes& b, size_t pos, uint64_t v, unsigned n) {
  for (unsigned i = 0; i < n; ++i) b[pos + i] = static_cast<uint8_t>(v >> (8 * i));
}
inline size_t append(Bytes& b, uint64_t v, unsigned n) {
  const size_t pos = b.size();
  b.resize(pos + n);
  put(b, pos, v, n);
  return pos;
}
inline void align(Bytes& b, size_t a) {
  while (b.size() % a != 0) b.push_back(0);
}

// One table field: an inline scalar of `size` bytes, or a reference.
struct Field {
  unsigned index;
  unsigned size;
  uint64_t value;
  Ref ref;
};
inline Field scalar(unsigned index, unsigned size, uint64_t value) { return {index, size, value, nullptr}; }
inline Field ref(unsigned index, Ref r) { return {index, 4, 0, std::move(r)}; }

inline Ref table(std::vector<Field> fields) {
  return [fields = std::move(fields)](Bytes& b) {
    unsigned slots = 0;
    for (const Field& f : fields) slots = std::max(slots, f.index + 1);
    std::vector<uint16_t> offsets(slots, 0);
    uint16_t inline_bytes = 4;  // the soffset to the vtable
    for (const Field& f : fields) {
      while (inline_bytes % f.size != 0) ++inline_bytes;
      offsets[f.index] = inline_bytes;
      inline_bytes = static_cast<uint16_t>(inline_bytes + f.size);
    }
    align(b, 4);
    const size_t vtable = append(b, 4 + 2 * slots, 2);
    append(b, inline_bytes, 2);
    for (const uint16_t o : offsets) append(b, o, 2);
    align(b, 8);
    const size_t pos = b.size();
    b.resize(pos + inline_bytes);
    put(b, pos, static_cast<uint32_t>(pos - vtable), 4);
    for (const Field& f : fields) {
      if (!f.ref) put(b, pos + offsets[f.index], f.value, f.size);
    }
    for (const Field& f : fields) {
      if (!f.ref) continue;
      const size_t target = f.ref(b);
      put(b, pos + offsets[f.index], target - (pos + offsets[f.index]), 4);
    }
    return pos;
  };
}

inline Ref string(std::string s) {
  return [s = std::move(s)](Bytes& b) {
    align(b, 4);
    const size_t pos = append(b, s.size(), 4);
    b.insert(b.end(), s.begin(), s.end());
    b.push_back(0);
    return pos;
  };
}

// Vector of little-endian scalars of `size` bytes each.
inline Ref scalars(std::vector<uint64_t> values, unsigned size) {
  return [values = std::move(values), size](Bytes& b) {
    align(b, 4);
    while ((b.size() + 4) % size != 0) b.push_back(0);  // element alignment
    const size_t pos = append(b, values.size(), 4);
    for (const uint64_t v : values) append(b, v, size);
    return pos;
  };
}
inline Ref ints(const std::vector<int32_t>& values) {
  std::vector<uint64_t> raw;
  for (const int32_t v : values) raw.push_back(static_cast<uint32_t>(v));
  return scalars(std::move(raw), 4);
}
inline Ref ubytes(const Bytes& values) { return scalars(std::vector<uint64_t>(values.begin(), values.end()), 1); }

inline Ref refs(std::vector<Ref> items) {
  return [items = std::move(items)](Bytes& b) {
    align(b, 4);
    const size_t pos = append(b, items.size(), 4);
    b.resize(b.size() + 4 * items.size());
    for (size_t i = 0; i < items.size(); ++i) {
      const size_t slot = pos + 4 + 4 * i;
      put(b, slot, items[i](b) - slot, 4);
    }
    return pos;
  };
}

// A whole file: root offset, "TFL3", root table.
inline Bytes finish(const Ref& root) {
  Bytes b(8, 0);
  std::memcpy(b.data() + 4, "TFL3", 4);
  put(b, 0, root(b), 4);
  return b;
}

// ---- TFLite schema objects (field numbers from schema.fbs) ----

struct TensorSpec {
  std::string name;
  int type = 3;  // UINT8
  std::vector<int32_t> shape;
  uint32_t buffer = 0;
  std::vector<float> scale;
  std::vector<int64_t> zero_point;
  int32_t quantized_dimension = 0;
  bool is_variable = false;
};

inline Ref tensor(const TensorSpec& t) {
  std::vector<Field> f = {ref(0, ints(t.shape)), scalar(1, 1, static_cast<uint8_t>(t.type)), scalar(2, 4, t.buffer),
                          ref(3, string(t.name))};
  if (!t.scale.empty() || !t.zero_point.empty()) {
    std::vector<uint64_t> scale_bits, zp;
    for (const float s : t.scale) {
      uint32_t bits;
      std::memcpy(&bits, &s, 4);
      scale_bits.push_back(bits);
    }
    for (const int64_t z : t.zero_point) zp.push_back(static_cast<uint64_t>(z));
    f.push_back(ref(4, table({ref(2, scalars(scale_bits, 4)), ref(3, scalars(zp, 8)),
                              scalar(6, 4, static_cast<uint32_t>(t.quantized_dimension))})));
  }
  if (t.is_variable) f.push_back(scalar(5, 1, 1));
  return table(std::move(f));
}

struct OperatorSpec {
  uint32_t opcode_index = 0;
  std::vector<int32_t> inputs, outputs;
  Bytes custom_options;
};

inline Ref op(const OperatorSpec& o) {
  std::vector<Field> f = {scalar(0, 4, o.opcode_index), ref(1, ints(o.inputs)), ref(2, ints(o.outputs))};
  if (!o.custom_options.empty()) f.push_back(ref(5, ubytes(o.custom_options)));
  return table(std::move(f));
}

struct OpcodeSpec {
  int32_t builtin_code = 32;  // CUSTOM
  std::string custom_code;
  bool deprecated_only = false;  // write only deprecated_builtin_code, as old converters did
};

inline Ref opcode(const OpcodeSpec& c) {
  std::vector<Field> f;
  f.push_back(scalar(0, 1, static_cast<uint8_t>(std::min(c.builtin_code, 127))));
  if (!c.custom_code.empty()) f.push_back(ref(1, string(c.custom_code)));
  if (!c.deprecated_only) f.push_back(scalar(3, 4, static_cast<uint32_t>(c.builtin_code)));
  return table(std::move(f));
}

struct SubgraphSpec {
  std::string name = "main";
  std::vector<TensorSpec> tensors;
  std::vector<OperatorSpec> operators;
  std::vector<int32_t> inputs, outputs;
};

// A buffer either inline or, with `external`, as offset/size into data appended after the flatbuffer.
struct BufferSpec {
  Bytes data;
  bool external = false;
};

struct ModelSpec {
  uint32_t version = 3;
  std::string description;
  std::vector<OpcodeSpec> opcodes;
  std::vector<SubgraphSpec> subgraphs;
  std::vector<BufferSpec> buffers;
  std::vector<std::pair<std::string, uint32_t>> metadata;
};

inline Bytes build_model(const ModelSpec& m) {
  // External buffers need their final file offset; the flatbuffer is built once with placeholders to learn
  // its size, then again with the offsets, which have a fixed width so the size does not change.
  const auto build = [&](size_t data_start) {
    std::vector<Ref> codes, subgraphs, buffers, metadata;
    for (const OpcodeSpec& c : m.opcodes) codes.push_back(opcode(c));
    for (const SubgraphSpec& s : m.subgraphs) {
      std::vector<Ref> tensors, ops;
      for (const TensorSpec& t : s.tensors) tensors.push_back(tensor(t));
      for (const OperatorSpec& o : s.operators) ops.push_back(op(o));
      subgraphs.push_back(table({ref(0, refs(tensors)), ref(1, ints(s.inputs)), ref(2, ints(s.outputs)),
                                 ref(3, refs(ops)), ref(4, string(s.name))}));
    }
    size_t offset = data_start;
    for (const BufferSpec& bs : m.buffers) {
      if (bs.external) {
        buffers.push_back(table({scalar(1, 8, offset), scalar(2, 8, bs.data.size())}));
        offset += bs.data.size();
      } else {
        buffers.push_back(bs.data.empty() ? table({}) : table({ref(0, ubytes(bs.data))}));
      }
    }
    for (const auto& [name, index] : m.metadata) metadata.push_back(table({ref(0, string(name)), scalar(1, 4, index)}));
    std::vector<Field> model = {scalar(0, 4, m.version), ref(1, refs(codes)), ref(2, refs(subgraphs)),
                                ref(4, refs(buffers)), ref(6, refs(metadata))};
    if (!m.description.empty()) model.push_back(ref(3, string(m.description)));
    return finish(table(std::move(model)));
  };
  Bytes file = build(2);  // any offset > 1 gives the same layout
  file = build(file.size());
  for (const BufferSpec& bs : m.buffers) {
    if (bs.external) file.insert(file.end(), bs.data.begin(), bs.data.end());
  }
  return file;
}

inline Bytes words_to_bytes(const std::vector<uint32_t>& words) {
  Bytes b;
  for (const uint32_t w : words) append(b, w, 4);
  return b;
}

// Vela's layout: COP1, OPTIMIZER_CONFIG (U65-256 CONFIG/ID), 3 NOPs, COMMAND_STREAM tag, the stream.
inline Bytes cop1_payload(const std::vector<uint32_t>& stream, uint32_t config_word = 0x10003008) {
  const auto n = static_cast<uint32_t>(stream.size());
  std::vector<uint32_t> w = {0x31504F43, 0x00100001, config_word, 0x10060000, 5, 5, 5,
                             0x02u | ((n >> 16) & 0xFF) << 8 | (n & 0xFFFF) << 16};
  w.insert(w.end(), stream.begin(), stream.end());
  return words_to_bytes(w);
}

// A Vela-like model: operator 0 (ethos-u) with payload, flash, scratch, scratch_fast, one input, one output,
// and the OfflineMemoryAllocation metadata placing the input at arena offset 64 and the output at 0.
inline ModelSpec vela_like_model(const std::vector<uint32_t>& stream, const Bytes& flash, int32_t scratch_bytes,
                                 int32_t scratch_fast_bytes) {
  ModelSpec m;
  m.opcodes = {{32, "ethos-u", false}};
  SubgraphSpec s;
  s.tensors = {
      {"cs", 3, {static_cast<int32_t>(4 * stream.size() + 32)}, 1, {}, {}, 0, false},
      {"flash", 3, {static_cast<int32_t>(flash.size())}, 2, {}, {}, 0, false},
      {"scratch", 3, {scratch_bytes}, 0, {}, {}, 0, false},
      {"scratch_fast", 3, {scratch_fast_bytes}, 0, {}, {}, 0, false},
      {"ifm", 9, {1, 4, 4, 2}, 0, {0.5f}, {-3}, 0, false},
      {"ofm", 9, {1, 2, 2, 2}, 0, {0.25f}, {7}, 0, false},
  };
  s.operators = {{0, {0, 1, 2, 3, 4}, {5}, {1, 4, 1}}};
  s.inputs = {4};
  s.outputs = {5};
  m.subgraphs = {s};
  const Bytes plan = words_to_bytes({0, 1, 6, static_cast<uint32_t>(-1), static_cast<uint32_t>(-1), 0,
                                     static_cast<uint32_t>(-1), 64, 0});
  m.buffers = {{{}, false}, {cop1_payload(stream), false}, {flash, false}, {plan, false}};
  m.metadata = {{"OfflineMemoryAllocation", 3}};
  return m;
}

}  // namespace ethosu::testing
