// Assembler: the NATIVE text form (isa/disasm.h) to command-stream bytes.
//
// Syntax, one statement per line; ';' or '#' starts a comment:
//   NPU_SET_IFM_PRECISION activation_type=SIGNED activation_precision=B8   fields by name, any order;
//                                      enum fields take the enum's value names, others integers
//                                      (decimal, 0x hex, negative for signed fields); omitted fields are 0
//   NPU_OP_STOP mask=0xffff
//   .word 0x00004000 0x00000010        raw 32-bit words (what the disassembler writes for invalid words)
//   .byte 0x01                         raw bytes (only after the last word)
//   .isa 2                             the command set of what follows: 1 (Ethos-U55/U65) or 2 (Ethos-U85);
//                                      before the first command (default: `version`)
// Errors throw ethosu::InputError "<source>:<line>: <what>".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "isa/isa.h"

namespace ethosu::isa {

// `version_used`, if given, receives the command set the text was assembled with.
std::vector<uint8_t> assemble(std::string_view text, const std::string& source_name = "<input>",
                              IsaVersion version = IsaVersion::V1, IsaVersion* version_used = nullptr);

}  // namespace ethosu::isa
