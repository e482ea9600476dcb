#include "host/payload.h"

#include <cstring>
#include <stdexcept>
#include <string_view>

#include "sim/error.h"

namespace ethosu::host {
namespace {

constexpr uint32_t kCop1FourCC = 0x31504F43;  // "COP1" read as a little-endian word
constexpr char kEthosuCustomCode[] = "ethos-u";

// The CONFIG and ID layouts come from the register table, the one description of the register map.
struct RegisterField {
  std::string_view reg;
  std::string_view field;
  uint32_t lsb;
  uint32_t width;
};
constexpr RegisterField kRegisterFields[] = {
#define ISA_REGISTER_FIELD(r, f, lsb, width) {#r, #f, (lsb), (width)},
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

std::string hex(uint32_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s = "0x";
  for (int shift = 28; shift >= 0; shift -= 4) s += kDigits[(v >> shift) & 0xF];
  return s;
}

uint32_t word_at(const std::vector<uint8_t>& b, uint64_t pos) {
  return uint32_t{b[pos]} | uint32_t{b[pos + 1]} << 8 | uint32_t{b[pos + 2]} << 16 | uint32_t{b[pos + 3]} << 24;
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
  e.payload = parse_cop1(e.payload_bytes, where + " input 0, " + tensor_label(sg, op.inputs[0]));
  if (op.inputs[1] >= 0) e.flash = vm.model.buffer(sg.tensors[static_cast<size_t>(op.inputs[1])].buffer);
  if (op.inputs[2] >= 0) e.scratch_bytes = tflite_tensor_bytes(sg.tensors[static_cast<size_t>(op.inputs[2])], where);
  if (op.inputs[3] >= 0) {
    e.scratch_fast_bytes = tflite_tensor_bytes(sg.tensors[static_cast<size_t>(op.inputs[3])], where);
  }

  const auto io_tensor = [&](int32_t index, const char* role, size_t position) {
    if (index < 0) throw InputError(where + ": " + role + " " + std::to_string(position) + " is omitted");
    const TfliteTensor& t = sg.tensors[static_cast<size_t>(index)];
    NpuTensor n;
    n.tensor_index = index;
    n.name = t.name;
    n.type = t.type;
    n.shape = t.shape;
    n.size_bytes = tflite_tensor_bytes(t, where);
    if (vm.offline_plan) n.arena_offset = vm.offline_plan->offset_of(vm.model, sg_index, static_cast<uint32_t>(index));
    return n;
  };
  for (size_t i = 4; i < op.inputs.size(); ++i) e.inputs.push_back(io_tensor(op.inputs[i], "input", i));
  for (size_t i = 0; i < op.outputs.size(); ++i) e.outputs.push_back(io_tensor(op.outputs[i], "output", i));
  return e;
}

}  // namespace

std::string OptimizerConfig::accelerator() const {
  const std::string macs = std::to_string(uint32_t{1} << macs_per_cc_log2);
  switch (product) {
    case 0: return "ethos-u55-" + macs;
    case 1: return "ethos-u65-" + macs;
    default: throw InputError("OPTIMIZER_CONFIG: CONFIG word " + hex(config_word) + " names unknown product " +
                              std::to_string(product));
  }
}

DriverPayload parse_cop1(const std::vector<uint8_t>& payload, const std::string& what) {
  if (payload.size() < 4 || word_at(payload, 0) != kCop1FourCC) {
    throw InputError(what + ": byte 0: does not start with the COP1 driver payload FourCC");
  }
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
    const std::string at = what + ": driver action at byte " + std::to_string(pos) + " (tag " + hex(a.tag) + ")";
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

NpuFileKind classify_npu_file(const std::vector<uint8_t>& file, const std::string& what) {
  if (file.empty()) throw InputError(what + ": file is empty");
  if (file.size() >= 4 && word_at(file, 0) == kCop1FourCC) return NpuFileKind::COP1_PAYLOAD;
  if (file.size() >= 8 && std::memcmp(file.data() + 4, "TFL3", 4) == 0) return NpuFileKind::TFLITE;
  if (file.size() % 4 != 0) {
    throw InputError(what + ": " + std::to_string(file.size()) +
                     " bytes is not a COP1 payload, not a .tflite model, and not a whole number of 32-bit command "
                     "words");
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

NpuFile read_npu_file(const std::vector<uint8_t>& file, const std::string& what) {
  NpuFile f;
  f.kind = classify_npu_file(file, what);
  switch (f.kind) {
    case NpuFileKind::COMMAND_STREAM: f.command_stream = file; break;
    case NpuFileKind::COP1_PAYLOAD:
      f.payload = parse_cop1(file, what);
      f.command_stream = f.payload->command_stream;
      break;
    case NpuFileKind::TFLITE: f.model = describe_vela_model(file, what); break;
  }
  return f;
}

}  // namespace ethosu::host
