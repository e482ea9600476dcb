// disasm and asm.
#include <iostream>

#include "host/cli/args.h"
#include "host/cli/commands.h"
#include "host/cli/inputs.h"
#include "sim/files.h"
#include "host/formats/payload.h"
#include "isa/architecture.h"
#include "isa/assembler.h"
#include "isa/disasm.h"
#include "sim/error.h"

namespace ethosu::cli {

const char* const kDisasmHelp =
    "usage: ethosu-sim disasm FILE [--format native|vela|vela-python|vela-regor] [--variant NAME] [-o OUT]\n"
    "\n"
    "Disassembles an Ethos-U55/U65/U85 command stream. FILE may be a bare stream (little-endian words), a stream\n"
    "that starts with Vela's COP1 or COP2 driver payload, or a Vela-compiled .tflite (every ethos-u operator).\n"
    "\n"
    "  --format native   (default) the assembler's text: one command per line with field and enum\n"
    "                    names, and the raw words as a comment; 'ethosu-sim asm' reads it back\n"
    "  --format vela     the layout of Vela's --verbose-register-command-stream print of the Vela that wrote\n"
    "                    the payload: vela-regor for Vela 5, unless the header carries the ID word of Vela's\n"
    "                    Python core (architecture 1.0.6 alone) or there is no header: vela-python\n"
    "  --format vela-python  the 'Register-Level Command Stream: Output' section of Vela 4 and older (its Python\n"
    "                    core)\n"
    "  --format vela-regor   the 'Register command stream' print of Vela 5's C++ core, with each command's\n"
    "                    fields (not the comment line Vela writes before each operation)\n"
    "  --variant NAME    decode with that configuration's command set (the U85's differs from the U55's\n"
    "                    and U65's); default: the one a payload's header names, else ethos-u65-256\n"
    "  -o, --output OUT  write to OUT instead of standard output\n"
    "\n"
    "The native text of a U85 stream starts with '.isa 2'. Decoder problems (unknown opcodes, truncation, missing NPU_OP_STOP, reserved or illegal values) are\n"
    "printed to standard error; the exit status is then 1.\n";

const char* const kAsmHelp =
    "usage: ethosu-sim asm FILE.txt -o OUT.bin [--payload COP1|COP2 [--variant NAME | --config-word HEX]\n"
    "                                           [--separate-io-regions] [--staging-bytes N]]\n"
    "\n"
    "Assembles the text form that 'ethosu-sim disasm' writes into a command stream.\n"
    "One statement per line; ';' or '#' starts a comment:\n"
    "  NPU_SET_IFM_PRECISION activation_type=SIGNED activation_precision=B8\n"
    "      a command by name, then field=value in any order; enum fields take value names, others\n"
    "      integers (decimal, 0x hex, negative for signed fields); omitted fields are 0\n"
    "  .word 0x00004000 0x10     raw 32-bit words\n"
    "  .byte 0x01                raw bytes, only at the end\n"
    "  .isa 2                    the U85's command set (1: the U55's and U65's), before the first command\n"
    "The result is checked with the decoder; problems are printed as warnings.\n"
    "\n"
    "  --payload COP1|COP2     wrap the stream in a driver payload as Vela writes it (COP1: Vela <= 4 and\n"
    "                          Vela 5's default; COP2: Vela 5's --cop-format COP2)\n"
    "  --variant NAME          the payload's target (default ethos-u65-256): its CONFIG and ID words in the\n"
    "                          header, and its command set where the text has no .isa line\n"
    "  --config-word HEX       the CONFIG word to write instead (0x00003008 is the product-0 word of\n"
    "                          Vela 3.2 and older)\n"
    "  --separate-io-regions   COP2 with local addressing: inputs in region 3, outputs in region 4\n"
    "  --staging-bytes N       COP2: the fast scratch size to record (default 0)\n";

int run_disasm(const std::vector<std::string>& argv) {
  Args a(argv, {{"--format", "", true, false}, {"--variant", "", true, false}, {"--output", "-o", true, false}});
  a.expect_positionals(1, 1, "FILE");
  const std::optional<isa::Variant> named = variant_option(a);
  const std::string fmt = a.value("--format").value_or("native");
  if (fmt != "native" && fmt != "vela" && fmt != "vela-python" && fmt != "vela-regor")
    throw UsageError("--format must be native, vela, vela-python or vela-regor, not '" + fmt + "'");
  const auto format_of = [&](const StreamInput& st) {
    if (fmt == "native") return isa::DisasmFormat::NATIVE;
    if (fmt == "vela-python") return isa::DisasmFormat::VELA;
    if (fmt == "vela-regor") return isa::DisasmFormat::VELA_REGOR;
    return st.payload_id && *st.payload_id != host::kVelaIdWord ? isa::DisasmFormat::VELA_REGOR
                                                                : isa::DisasmFormat::VELA;
  };

  const auto streams = load_streams(a.positionals()[0]);
  std::string text;
  int status = 0;
  for (const auto& st : streams) {
    const isa::DisasmFormat format = format_of(st);
    if (streams.size() > 1 || !st.label.empty())
      text += (format == isa::DisasmFormat::NATIVE ? "; " : "") + st.label + "\n";
    const auto decoded = isa::decode(st.bytes, isa_of(st, named));
    text += isa::disassemble(decoded, format);
    for (const auto& d : decoded.diagnostics) {
      std::cerr << st.origin << ": " << (d.severity == isa::Severity::ERROR ? "error: " : "warning: ") << d.message
                << "\n";
      if (d.severity == isa::Severity::ERROR) status = 1;
    }
  }
  if (auto out = a.value("--output")) sim::write_text_file(*out, text);
  else std::cout << text;
  return status;
}

int run_asm(const std::vector<std::string>& argv) {
  Args a(argv, {{"--output", "-o", true, false},
                {"--payload", "", true, false},
                {"--variant", "", true, false},
                {"--config-word", "", true, false},
                {"--separate-io-regions", "", false, false},
                {"--staging-bytes", "", true, false}});
  a.expect_positionals(1, 1, "FILE.txt");
  const auto out = a.value("--output");
  if (!out) throw UsageError("missing -o OUT.bin");
  const auto& in = a.positionals()[0];
  const auto src = sim::read_file(in, 256u << 20);
  const std::optional<isa::Variant> named = variant_option(a);
  const isa::Architecture& target = isa::architecture(named.value_or(isa::kDefaultVariant));
  isa::IsaVersion version = target.isa;
  const auto bytes =
      isa::assemble(std::string_view(reinterpret_cast<const char*>(src.data()), src.size()), in, target.isa, &version);
  const auto decoded = isa::decode(bytes, version);
  for (const auto& d : decoded.diagnostics) std::cerr << in << ": warning: " << d.message << "\n";
  const auto payload = a.value("--payload");
  if (!payload) {
    if (a.value("--variant") || a.value("--config-word") || a.flag("--separate-io-regions") ||
        a.value("--staging-bytes"))
      throw UsageError("--variant, --config-word, --separate-io-regions and --staging-bytes go with --payload");
    sim::write_file(*out, bytes);
    return 0;
  }
  if (*payload != "COP1" && *payload != "COP2") throw UsageError("--payload must be COP1 or COP2, not '" + *payload + "'");
  const auto format = *payload == "COP2" ? host::PayloadFormat::COP2 : host::PayloadFormat::COP1;
  if (format == host::PayloadFormat::COP1 && (a.flag("--separate-io-regions") || a.value("--staging-bytes")))
    throw UsageError("--separate-io-regions and --staging-bytes need --payload COP2");
  if (a.value("--variant") && a.value("--config-word")) throw UsageError("give --variant or --config-word, not both");
  if (bytes.size() % 4) throw InputError(in + ": a payload holds whole 32-bit words; the text ends in .byte data");
  uint32_t config_word = 0;
  if (auto word = a.value("--config-word")) {
    const uint64_t v = parse_size(*word, "--config-word");
    if (v > 0xFFFFFFFF) throw UsageError("--config-word: " + *word + " is wider than 32 bits");
    config_word = static_cast<uint32_t>(v);
  } else {
    try {
      config_word = host::vela_config_word(a.value("--variant").value_or(isa::variant_name(isa::kDefaultVariant)));
    } catch (const InputError& e) {
      throw UsageError(std::string("--variant: ") + e.what());
    }
  }
  const uint64_t staging = a.value("--staging-bytes") ? parse_size(*a.value("--staging-bytes"), "--staging-bytes") : 0;
  // The ID word as the Vela for that configuration writes it: Vela 4's Python core's for the U55 and U65, Vela 5's
  // (the U85's ID with its status field clear) for the U85.
  const uint32_t id_word = target.isa == isa::IsaVersion::V1 ? host::kVelaIdWord : (target.id & ~0xFu);
  sim::write_file(*out, host::make_driver_payload(bytes, format, config_word, id_word, a.flag("--separate-io-regions"),
                                                   staging));
  return 0;
}

}  // namespace ethosu::cli
