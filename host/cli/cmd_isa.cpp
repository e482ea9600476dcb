// disasm and asm.
#include <iostream>

#include "host/cli/args.h"
#include "host/cli/commands.h"
#include "host/cli/inputs.h"
#include "host/file_io.h"
#include "isa/assembler.h"
#include "isa/disasm.h"

namespace ethosu::cli {

const char* const kDisasmHelp =
    "usage: ethosu-sim disasm FILE [--format native|vela] [-o OUT]\n"
    "\n"
    "Disassembles an Ethos-U65 command stream. FILE may be a bare stream (little-endian words), a stream\n"
    "that starts with Vela's COP1 driver payload, or a Vela-compiled .tflite (every ethos-u operator).\n"
    "\n"
    "  --format native   (default) the assembler's text: one command per line with field and enum\n"
    "                    names, and the raw words as a comment; 'ethosu-sim asm' reads it back\n"
    "  --format vela     the layout of the 'Register-Level Command Stream: Output' section of\n"
    "                    Vela's --verbose-register-command-stream print\n"
    "  -o, --output OUT  write to OUT instead of standard output\n"
    "\n"
    "Decoder problems (unknown opcodes, truncation, missing NPU_OP_STOP, reserved or illegal values) are\n"
    "printed to standard error; the exit status is then 1.\n";

const char* const kAsmHelp =
    "usage: ethosu-sim asm FILE.txt -o OUT.bin\n"
    "\n"
    "Assembles the text form that 'ethosu-sim disasm' writes into a command stream.\n"
    "One statement per line; ';' or '#' starts a comment:\n"
    "  NPU_SET_IFM_PRECISION activation_type=SIGNED activation_precision=B8\n"
    "      a command by name, then field=value in any order; enum fields take value names, others\n"
    "      integers (decimal, 0x hex, negative for signed fields); omitted fields are 0\n"
    "  .word 0x00004000 0x10     raw 32-bit words\n"
    "  .byte 0x01                raw bytes, only at the end\n"
    "The result is checked with the decoder; problems are printed as warnings.\n";

int run_disasm(const std::vector<std::string>& argv) {
  Args a(argv, {{"--format", "", true, false}, {"--output", "-o", true, false}});
  a.expect_positionals(1, 1, "FILE");
  const std::string fmt = a.value("--format").value_or("native");
  if (fmt != "native" && fmt != "vela") throw UsageError("--format must be native or vela, not '" + fmt + "'");
  const auto format = fmt == "vela" ? isa::DisasmFormat::VELA : isa::DisasmFormat::NATIVE;

  const auto streams = load_streams(a.positionals()[0]);
  std::string text;
  int status = 0;
  for (const auto& st : streams) {
    if (streams.size() > 1 || !st.label.empty())
      text += (format == isa::DisasmFormat::VELA ? "" : "; ") + st.label + "\n";
    const auto decoded = isa::decode(st.bytes);
    text += isa::disassemble(decoded, format);
    for (const auto& d : decoded.diagnostics) {
      std::cerr << st.origin << ": " << (d.severity == isa::Severity::ERROR ? "error: " : "warning: ") << d.message
                << "\n";
      if (d.severity == isa::Severity::ERROR) status = 1;
    }
  }
  if (auto out = a.value("--output")) host::write_text_file(*out, text);
  else std::cout << text;
  return status;
}

int run_asm(const std::vector<std::string>& argv) {
  Args a(argv, {{"--output", "-o", true, false}});
  a.expect_positionals(1, 1, "FILE.txt");
  const auto out = a.value("--output");
  if (!out) throw UsageError("missing -o OUT.bin");
  const auto& in = a.positionals()[0];
  const auto src = host::read_file(in, 256u << 20);
  const auto bytes = isa::assemble(std::string_view(reinterpret_cast<const char*>(src.data()), src.size()), in);
  const auto decoded = isa::decode(bytes);
  for (const auto& d : decoded.diagnostics) std::cerr << in << ": warning: " << d.message << "\n";
  host::write_file(*out, bytes);
  return 0;
}

}  // namespace ethosu::cli
