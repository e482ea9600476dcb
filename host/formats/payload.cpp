#include "host/formats/payload.h"

#include "isa/architecture.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include "sim/error.h"
#include "sim/files.h"
#include "sim/text.h"

namespace ethosu::host {
namespace {

constexpr uint32_t kCop1FourCC = 0x31504F43;  // "COP1" read as a little-endian word
constexpr uint32_t kCop2FourCC = 0x32504F43;  // "COP2"
constexpr uint32_t kVeumFourCC = 0x4D554556;  // "VEUM", COP2's command-stream metadata
constexpr uint32_t kCop2CommandStreamEntry = 1;
constexpr uint32_t kCop2NetworkWideAddressing = 1;
constexpr uint32_t kCop2LocalAddressing = 2;
constexpr char kEthosuCustomCode[] = "ethos-u";

// The CONFIG and ID layouts come from the register table, the one description of the register map.
struct RegisterField {
  std::string_view reg;
  std::string_view field;
  uint32_t lsb;
  uint32_t width;
};
constexpr RegisterField kRegisterFields[] = {
#define ISA_REGISTER_FIELD(r, f, lsb, width, maps) {#r, #f, (lsb), (width)},
#include "isa/registers.def"
};

constexpr RegisterField register_field(std::string_view reg, std::string_view field) {
  for (const RegisterField& f : kRegisterFields) {
    if (f.reg == reg && f.field == field) return f;
  }
  throw std::logic_error("register field missing from isa/registers.def");  // fails the constant evaluation
}

constexpr uint32_t get(uint32_t word, RegisterField f) {
  return static_cast<uint32_t>((uint64_t{word} >> f.lsb) & ((uint64_t{1} << f.width) - 1));
}

constexpr RegisterField kConfigMacs = register_field("CONFIG", "macs_per_cc");
constexpr RegisterField kConfigCmdStreamVersion = register_field("CONFIG", "cmd_stream_version");
constexpr RegisterField kConfigShramSize = register_field("CONFIG", "shram_size");
constexpr RegisterField kConfigCustomDma = register_field("CONFIG", "custom_dma");
constexpr RegisterField kConfigProduct = register_field("CONFIG", "product");
constexpr RegisterField kIdArchMajor = register_field("ID", "arch_major_rev");
constexpr RegisterField kIdArchMinor = register_field("ID", "arch_minor_rev");
constexpr RegisterField kIdArchPatch = register_field("ID", "arch_patch_rev");

using sim::hex_word;

uint32_t word_at(const std::vector<uint8_t>& b, uint64_t pos) {
  return uint32_t{b[pos]} | uint32_t{b[pos + 1]} << 8 | uint32_t{b[pos + 2]} << 16 | uint32_t{b[pos + 3]} << 24;
}

uint64_t dword_at(const std::vector<uint8_t>& b, uint64_t pos) {
  return uint64_t{word_at(b, pos)} | uint64_t{word_at(b, pos + 4)} << 32;
}

void put_word(std::vector<uint8_t>& b, uint32_t w) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(w >> (8 * i)));
}

OptimizerConfig decode_config(uint32_t param, uint32_t config_word, uint32_t id_word) {
  OptimizerConfig c;
  c.release = param & 0xF;
  c.patch = (param >> 4) & 0xF;
  c.config_word = config_word;
  c.id_word = id_word;
  c.macs_per_cc_log2 = get(config_word, kConfigMacs);
  c.cmd_stream_version = get(config_word, kConfigCmdStreamVersion);
  c.shram_size_kib = get(config_word, kConfigShramSize);
  c.custom_dma = get(config_word, kConfigCustomDma) != 0;
  c.product = get(config_word, kConfigProduct);
  c.arch_major = get(id_word, kIdArchMajor);
  c.arch_minor = get(id_word, kIdArchMinor);
  c.arch_patch = get(id_word, kIdArchPatch);
  return c;
}

std::string tensor_label(const TfliteSubgraph& sg, int32_t index) {
  return "tensor " + std::to_string(index) + " \"" + sg.tensors[static_cast<size_t>(index)].name + "\"";
}

EthosuOperator describe_ethosu(const VelaModel& vm, uint32_t sg_index, uint32_t op_index, const std::string& what) {
  const TfliteSubgraph& sg = vm.model.subgraphs[sg_index];
  const TfliteOperator& op = sg.operators[op_index];
  const std::string where =
      what + ": subgraph " + std::to_string(sg_index) + " operator " + std::to_string(op_index) + " (ethos-u)";
  if (op.inputs.size() < 4) {
    throw InputError(where + ": has " + std::to_string(op.inputs.size()) +
                     " inputs; needs command stream, flash, scratch and scratch_fast (4)");
  }
  if (op.inputs[0] < 0) throw InputError(where + ": input 0 (command stream) is omitted");

  EthosuOperator e;
  e.subgraph = sg_index;
  e.operator_index = op_index;
  const TfliteTensor& cs = sg.tensors[static_cast<size_t>(op.inputs[0])];
  e.payload_bytes = vm.model.buffer(cs.buffer);
  e.payload = parse_driver_payload(e.payload_bytes, where + " input 0, " + tensor_label(sg, op.inputs[0]));
  if (op.inputs[1] >= 0) e.flash = vm.model.buffer(sg.tensors[static_cast<size_t>(op.inputs[1])].buffer);
  if (op.inputs[2] >= 0) e.scratch_bytes = tflite_tensor_bytes(sg.tensors[static_cast<size_t>(op.inputs[2])], where);
  if (op.inputs[3] >= 0) {
    e.scratch_fast_bytes = tflite_tensor_bytes(sg.tensors[static_cast<size_t>(op.inputs[3])], where);
  }

  const auto io_tensor = [&](int32_t index, const char* role, size_t position, uint32_t region) {
    if (index < 0) throw InputError(where + ": " + role + " " + std::to_string(position) + " is omitted");
    const TfliteTensor& t = sg.tensors[static_cast<size_t>(index)];
    NpuTensor n;
    n.tensor_index = index;
    n.name = t.name;
    n.type = t.type;
    n.shape = t.shape;
    n.size_bytes = tflite_tensor_bytes(t, where);
    if (vm.offline_plan) n.arena_offset = vm.offline_plan->offset_of(vm.model, sg_index, static_cast<uint32_t>(index));
    n.region = region;
    return n;
  };
  // With separate I/O regions the offsets count from the start of the input and output regions.
  const bool separate = e.payload.separate_io_regions;
  const uint32_t in_region = separate ? kSeparateInputRegion : 1, out_region = separate ? kSeparateOutputRegion : 1;
  for (size_t i = 4; i < op.inputs.size(); ++i) e.inputs.push_back(io_tensor(op.inputs[i], "input", i, in_region));
  for (size_t i = 0; i < op.outputs.size(); ++i) e.outputs.push_back(io_tensor(op.outputs[i], "output", i, out_region));
  const auto region_end = [](const std::vector<NpuTensor>& ts) {
    uint64_t end = 0;
    for (const NpuTensor& t : ts) end = std::max(end, t.arena_offset.value_or(0) + t.size_bytes);
    return end;
  };
  if (separate) e.input_region_bytes = region_end(e.inputs), e.output_region_bytes = region_end(e.outputs);
  const auto in_model_order = [](const std::vector<NpuTensor>& ts, const std::vector<int32_t>& graph) {
    std::vector<NpuTensor> out;
    for (int32_t g : graph)
      for (const NpuTensor& t : ts)
        if (t.tensor_index == g) out.push_back(t);
    for (const NpuTensor& t : ts)
      if (std::find(graph.begin(), graph.end(), t.tensor_index) == graph.end()) out.push_back(t);
    return out;
  };
  e.model_inputs = in_model_order(e.inputs, sg.inputs);
  e.model_outputs = in_model_order(e.outputs, sg.outputs);
  return e;
}

}  // namespace

std::string OptimizerConfig::accelerator() const {
  if (product > static_cast<uint32_t>(isa::Product::U85))
    throw InputError("OPTIMIZER_CONFIG: CONFIG word " + hex_word(config_word) + " names unknown product " +
                     std::to_string(product));
  return isa::accelerator_name(static_cast<isa::Product>(product), uint32_t{1} << macs_per_cc_log2);
}

namespace {

DriverPayload parse_cop1(const std::vector<uint8_t>& payload, const std::string& what) {
  if (payload.size() % 4 != 0) {
    throw InputError(what + ": " + std::to_string(payload.size()) + " bytes is not a whole number of 32-bit words");
  }
  DriverPayload out;
  bool have_stream = false;
  uint64_t pos = 4;
  while (pos < payload.size()) {
    DriverAction a;
    a.byte_offset = pos;
    a.tag = word_at(payload, pos);
    a.param = a.tag >> 16;
    const uint32_t command = a.tag & 0xFF;
    const std::string at = what + ": driver action at byte " + std::to_string(pos) + " (tag " + hex_word(a.tag) + ")";
    switch (command) {
      case static_cast<uint32_t>(DriverActionType::OPTIMIZER_CONFIG):
        if (payload.size() - pos < 12) throw InputError(at + ": OPTIMIZER_CONFIG needs 2 more words; the payload ends");
        if (out.config) throw InputError(at + ": second OPTIMIZER_CONFIG");
        a.config = decode_config(a.param, word_at(payload, pos + 4), word_at(payload, pos + 8));
        out.config = a.config;
        pos += 12;
        break;
      case static_cast<uint32_t>(DriverActionType::COMMAND_STREAM): {
        // 24-bit length in words: bits 15:8 of the tag are length bits 23:16, the param its bits 15:0.
        const uint64_t words = (uint64_t{(a.tag >> 8) & 0xFF} << 16) | a.param;
        a.stream_offset_bytes = pos + 4;
        a.stream_length_bytes = 4 * words;
        if (have_stream) throw InputError(at + ": second COMMAND_STREAM (only one stream per payload is supported)");
        if (words == 0) throw InputError(at + ": COMMAND_STREAM of length 0");
        if (a.stream_length_bytes > payload.size() - a.stream_offset_bytes) {
          throw InputError(at + ": COMMAND_STREAM of " + std::to_string(words) + " words (" +
                           std::to_string(a.stream_length_bytes) + " bytes) runs past the payload end (" +
                           std::to_string(payload.size()) + " bytes)");
        }
        have_stream = true;
        out.command_stream_offset_bytes = a.stream_offset_bytes;
        out.command_stream_length_bytes = a.stream_length_bytes;
        out.command_stream.assign(payload.begin() + static_cast<std::ptrdiff_t>(a.stream_offset_bytes),
                                  payload.begin() + static_cast<std::ptrdiff_t>(a.stream_offset_bytes +
                                                                                a.stream_length_bytes));
        pos = a.stream_offset_bytes + a.stream_length_bytes;
        break;
      }
      case static_cast<uint32_t>(DriverActionType::READ_APB):
      case static_cast<uint32_t>(DriverActionType::DUMP_SHRAM):
      case static_cast<uint32_t>(DriverActionType::NOP):
        pos += 4;  // single-word actions; READ_APB's register/count live in the param
        break;
      default:
        throw InputError(at + ": unknown driver action command " + std::to_string(command));
    }
    a.type = static_cast<DriverActionType>(command);
    out.actions.push_back(std::move(a));
  }
  if (!have_stream) throw InputError(what + ": COP1 payload has no COMMAND_STREAM action");
  return out;
}

DriverPayload parse_cop2(const std::vector<uint8_t>& payload, const std::string& what) {
  if (payload.size() < 16) throw InputError(what + ": COP2 payload of " + std::to_string(payload.size()) +
                                            " bytes is shorter than its 16-byte header");
  const uint32_t version = word_at(payload, 4);
  if ((version & 0xFFFF) != 1)
    throw InputError(what + ": byte 4: COP2 version " + std::to_string(version & 0xFFFF) + "." +
                     std::to_string(version >> 16) + " (only 1.x is known)");
  const uint64_t length = dword_at(payload, 8);
  if (length > payload.size() - 16)
    throw InputError(what + ": byte 8: COP2 entries of " + std::to_string(length) + " bytes run past the payload end (" +
                     std::to_string(payload.size()) + " bytes)");
  DriverPayload out;
  out.format = PayloadFormat::COP2;
  bool have_stream = false;
  const uint64_t end = 16 + length;
  for (uint64_t pos = 16; pos < end;) {
    const std::string at = what + ": COP2 entry at byte " + std::to_string(pos);
    if (end - pos < 8) throw InputError(at + ": entry header runs past the entries' end");
    const uint32_t type = word_at(payload, pos), size = word_at(payload, pos + 4);
    const uint64_t data = pos + 8;
    if (size > end - data)
      throw InputError(at + ": " + std::to_string(size) + " bytes of data run past the entries' end (byte " +
                       std::to_string(end) + ")");
    if (type != kCop2CommandStreamEntry)
      throw InputError(at + ": unknown entry type " + std::to_string(type) + " (only COMMAND_STREAM, 1, is known)");
    if (have_stream) throw InputError(at + ": second COMMAND_STREAM (only one stream per payload is supported)");
    if (size < 4 + 16) throw InputError(at + ": COMMAND_STREAM entry of " + std::to_string(size) +
                                        " bytes has no room for its metadata");
    const uint64_t meta_length = word_at(payload, data);
    const uint64_t meta = data + 4;
    if (meta_length < 16 || meta_length > size - 4)
      throw InputError(at + ": metadata length " + std::to_string(meta_length) + " outside the entry (" +
                       std::to_string(size) + " bytes)");
    if (word_at(payload, meta) != kVeumFourCC)
      throw InputError(what + ": byte " + std::to_string(meta) + ": command-stream metadata without the VEUM FourCC");
    const uint32_t meta_version = word_at(payload, meta + 4);
    if ((meta_version & 0xFFFF) != 1)
      throw InputError(what + ": byte " + std::to_string(meta + 4) + ": VEUM version " +
                       std::to_string(meta_version & 0xFFFF) + " (only 1.x is known)");
    const uint64_t fields = word_at(payload, meta + 8);
    if (fields < 12 || fields > meta_length - 12)
      throw InputError(what + ": byte " + std::to_string(meta + 8) + ": VEUM data of " + std::to_string(fields) +
                       " bytes, needs 12 to " + std::to_string(meta_length - 12));
    out.config = decode_config(0, word_at(payload, meta + 12), word_at(payload, meta + 16));
    const uint32_t addressing = word_at(payload, meta + 20);
    if (addressing != kCop2NetworkWideAddressing && addressing != kCop2LocalAddressing)
      throw InputError(what + ": byte " + std::to_string(meta + 20) + ": unknown addressing mode " +
                       std::to_string(addressing));
    out.separate_io_regions = addressing == kCop2LocalAddressing;
    if (fields >= 20) out.staging_bytes = dword_at(payload, meta + 24);
    out.command_stream_offset_bytes = meta + meta_length;
    out.command_stream_length_bytes = data + size - out.command_stream_offset_bytes;
    if (out.command_stream_length_bytes == 0 || out.command_stream_length_bytes % 4)
      throw InputError(at + ": command stream of " + std::to_string(out.command_stream_length_bytes) +
                       " bytes is not a non-empty whole number of 32-bit words");
    out.command_stream.assign(payload.begin() + static_cast<std::ptrdiff_t>(out.command_stream_offset_bytes),
                              payload.begin() + static_cast<std::ptrdiff_t>(data + size));
    have_stream = true;
    pos = data + size;
  }
  if (!have_stream) throw InputError(what + ": COP2 payload has no COMMAND_STREAM entry");
  return out;
}

}  // namespace

DriverPayload parse_driver_payload(const std::vector<uint8_t>& payload, const std::string& what) {
  const uint32_t fourcc = payload.size() >= 4 ? word_at(payload, 0) : 0;
  if (fourcc == kCop1FourCC) return parse_cop1(payload, what);
  if (fourcc == kCop2FourCC) return parse_cop2(payload, what);
  throw InputError(what + ": byte 0: does not start with a driver payload FourCC (COP1 or COP2)");
}

std::vector<uint8_t> make_driver_payload(const std::vector<uint8_t>& stream, PayloadFormat format,
                                         uint32_t config_word, uint32_t id_word, bool separate_io_regions,
                                         uint64_t staging_bytes) {
  const uint64_t words = stream.size() / 4;
  std::vector<uint8_t> p;
  if (format == PayloadFormat::COP1) {
    put_word(p, kCop1FourCC);
    put_word(p, 0x00100001);  // OPTIMIZER_CONFIG, release 0 patch 1
    put_word(p, config_word);
    put_word(p, id_word);
    while ((p.size() + 4) % 16) put_word(p, static_cast<uint32_t>(DriverActionType::NOP));
    put_word(p, static_cast<uint32_t>(DriverActionType::COMMAND_STREAM) | static_cast<uint32_t>((words >> 16) & 0xFF) << 8 |
                    static_cast<uint32_t>(words & 0xFFFF) << 16);
  } else {
    constexpr uint64_t kStreamStart = 64;  // header 16, entry 8, metadata 4 + 32 (VEUM header and data, padding)
    const uint64_t length = kStreamStart - 16 + stream.size();
    put_word(p, kCop2FourCC);
    put_word(p, 1);  // version 1.0
    put_word(p, static_cast<uint32_t>(length));
    put_word(p, static_cast<uint32_t>(length >> 32));
    put_word(p, kCop2CommandStreamEntry);
    put_word(p, static_cast<uint32_t>(kStreamStart - 24 + stream.size()));
    put_word(p, static_cast<uint32_t>(kStreamStart - 28));  // metadata bytes up to the stream
    put_word(p, kVeumFourCC);
    put_word(p, 1);   // version 1.0
    put_word(p, 20);  // CONFIG, ID, addressing, 64-bit staging bytes
    put_word(p, config_word);
    put_word(p, id_word);
    put_word(p, separate_io_regions ? kCop2LocalAddressing : kCop2NetworkWideAddressing);
    put_word(p, static_cast<uint32_t>(staging_bytes));
    put_word(p, static_cast<uint32_t>(staging_bytes >> 32));
    while (p.size() < kStreamStart) p.push_back(0xFF);
  }
  p.insert(p.end(), stream.begin(), stream.end());
  return p;
}

uint32_t vela_config_word(const std::string& variant) {
  const isa::Architecture* a = isa::find_architecture(variant);
  if (!a) throw InputError("unknown NPU variant '" + variant + "'; known: " + isa::variant_names());
  return a->config;
}

NpuFileKind classify_npu_file(const std::vector<uint8_t>& file, const std::string& what) {
  if (file.empty()) throw InputError(what + ": file is empty");
  if (file.size() >= 4 && (word_at(file, 0) == kCop1FourCC || word_at(file, 0) == kCop2FourCC))
    return NpuFileKind::DRIVER_PAYLOAD;
  if (file.size() >= 8 && std::memcmp(file.data() + 4, "TFL3", 4) == 0) return NpuFileKind::TFLITE;
  if (file.size() % 4 != 0) {
    throw InputError(what + ": " + std::to_string(file.size()) +
                     " bytes is not a driver payload, not a .tflite model, and not a whole number of 32-bit "
                     "command words");
  }
  return NpuFileKind::COMMAND_STREAM;
}

VelaModel describe_vela_model(const std::vector<uint8_t>& file, const std::string& what) {
  VelaModel vm;
  vm.model = parse_tflite(file, what);
  vm.offline_plan = read_offline_memory_allocation(vm.model, what);
  for (uint32_t s = 0; s < vm.model.subgraphs.size(); ++s) {
    const TfliteSubgraph& sg = vm.model.subgraphs[s];
    for (uint32_t o = 0; o < sg.operators.size(); ++o) {
      const TfliteOperator& op = sg.operators[o];
      if (op.builtin_code == kTfliteBuiltinCustom && op.custom_code == kEthosuCustomCode) {
        vm.ethosu_operators.push_back(describe_ethosu(vm, s, o, what));
        vm.operator_names.push_back(std::string("CUSTOM:") + kEthosuCustomCode);
        continue;
      }
      CpuOperator cpu{s, o, op.builtin_code, {}};
      if (op.builtin_code == kTfliteBuiltinCustom) {
        cpu.name = "CUSTOM:" + op.custom_code;
      } else if (const std::string_view name = tflite_builtin_name(op.builtin_code); !name.empty()) {
        cpu.name = name;
      } else {
        cpu.name = "BUILTIN_" + std::to_string(op.builtin_code);
      }
      vm.operator_names.push_back(cpu.name);
      vm.cpu_operators.push_back(std::move(cpu));
    }
  }
  return vm;
}

std::vector<uint8_t> read_npu_file_bytes(const std::filesystem::path& path) {
  const sim::FileHead head = sim::read_file_head(path, 8);
  const bool model = head.bytes.size() == 8 && std::memcmp(head.bytes.data() + 4, "TFL3", 4) == 0;
  if (!model && head.size_bytes > kMaxStreamFileBytes)
    throw InputError(path.string() + ": " + std::to_string(head.size_bytes) +
                     " bytes, over the 16 MiB QSIZE limit of a command stream (and its driver payload's header); "
                     "not read");
  return sim::read_file(path, model ? uint64_t{1} << 32 : kMaxStreamFileBytes);
}

NpuFile read_npu_file(const std::vector<uint8_t>& file, const std::string& what) {
  NpuFile f;
  f.kind = classify_npu_file(file, what);
  switch (f.kind) {
    case NpuFileKind::COMMAND_STREAM: f.command_stream = file; break;
    case NpuFileKind::DRIVER_PAYLOAD:
      f.payload = parse_driver_payload(file, what);
      f.command_stream = f.payload->command_stream;
      break;
    case NpuFileKind::TFLITE: f.model = describe_vela_model(file, what); break;
  }
  return f;
}

}  // namespace ethosu::host
