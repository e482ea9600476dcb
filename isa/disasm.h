// Disassembler: decoded commands to text.
//
// NATIVE is the project's assembly language (see isa/assembler.h): one command per line, symbolic
// command, field and enum names, then a comment with the raw words in the layout of Vela's listing
// (offset: payload param code) and the param value. Words that are not a valid command are written as
// `.word` directives so that assemble(disassemble(x)) == x for every stream; a version-2 stream starts with `.isa 2`.
// VELA reproduces the "Register-Level Command Stream: Output" section of the --verbose-register-command-stream
// print of Vela's Python core (Vela 4 and older) exactly; VELA_REGOR the "Register command stream" print of its C++
// core (Vela 5's default), but for the comment line Vela writes before each operation, which the stream does not
// hold.
#pragma once

#include <string>

#include "isa/decoder.h"

namespace ethosu::isa {

enum class DisasmFormat { NATIVE, VELA, VELA_REGOR };

std::string disassemble(const Stream& s, DisasmFormat format = DisasmFormat::NATIVE);

// One command in NATIVE syntax without the trailing comment, e.g. "NPU_SET_IFM_REGION region=1".
std::string command_text(const Command& c, IsaVersion version);

// The Vela listing line for one command (no newline), in the Python core's layout (version 1 only) or the C++
// core's.
std::string vela_line(const Command& c);
std::string vela_regor_line(const Command& c, IsaVersion version);

}  // namespace ethosu::isa
