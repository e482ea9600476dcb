// Decoder: command-stream bytes to typed commands, with every malformation reported by offset.
//
// Contract: decode() is total. Every word of the input belongs to exactly one Command, in order; a word
// that is no valid command (unknown opcode, reserved control value, cmd1 cut off by the end of the buffer)
// becomes a Command with info == nullptr so that tools can still show it. Problems are listed in
// Stream::diagnostics (the first 1000, then one note that more are left out); the stream is executable only
// when no diagnostic is an error. A stream over the 16 MiB QSIZE limit is one TOO_LONG error and no commands:
// the NPU never parses it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "isa/architecture.h"
#include "isa/isa.h"

namespace ethosu::isa {

struct Command {
  uint32_t offset = 0;               // bytes from the start of the stream
  uint64_t bits = 0;                 // first word in bits 31:0, payload word in bits 63:32
  const CommandInfo* info = nullptr; // nullptr: not a valid command (see the diagnostics)
  uint8_t words = 1;                 // words this entry covers in the stream

  uint32_t word0() const { return static_cast<uint32_t>(bits); }
  uint32_t payload() const { return static_cast<uint32_t>(bits >> 32); }
  uint16_t param() const { return static_cast<uint16_t>(bits >> kParamShift); }
  uint16_t code() const { return static_cast<uint16_t>(bits); }  // first halfword
  Cmd cmd() const { return info->cmd; }
  int64_t get(Field f) const { return isa::get(bits, f); }
};

enum class Severity : uint8_t { ERROR, WARNING };

enum class Problem : uint8_t {
  EMPTY,               // no words at all
  SIZE_NOT_WORDS,      // byte size not a multiple of 4
  TOO_LONG,            // longer than the 16 MiB QSIZE limit
  UNKNOWN_OPCODE,      // opcode not defined in the command set (or the configuration)
  RESERVED_CONTROL,    // control bits 15:14 = 2 or 3
  RESERVED_HEADER,     // bits 13:10 set
  RESERVED_BITS,       // param/payload bits that no field defines are set
  ILLEGAL_VALUE,       // enum field with a value the hardware does not define
  TRUNCATED,           // cmd1 whose payload word is missing
  MISSING_STOP,        // the stream does not end with NPU_OP_STOP
  AFTER_STOP,          // words after the first NPU_OP_STOP (the NPU never reads them)
};

const char* problem_name(Problem p);

struct Diagnostic {
  Severity severity = Severity::ERROR;
  Problem problem = Problem::EMPTY;
  uint32_t offset = 0;
  std::string message;  // "0x000148: NPU_SET_ACTIVATION: activation_function = 7 is not ..."
};

struct Stream {
  IsaVersion version = IsaVersion::V1;  // the command set it was decoded with
  std::vector<Command> commands;
  std::vector<Diagnostic> diagnostics;
  size_t size_bytes = 0;
  std::vector<uint8_t> trailing_bytes;  // the 1..3 bytes after the last whole word, if any

  bool ok() const;  // no ERROR diagnostic
  size_t error_count() const;
  // The error at the lowest offset (where the NPU's parser stops), or nullptr.
  const Diagnostic* first_error() const;
};

// Without an architecture: every command of one command set (version 1, the U55's and U65's, unless named; for
// tools that show any stream). With one: its command set and what that configuration refuses
// (architecture_problems), as its NPU would.
Stream decode(const uint8_t* data, size_t size_bytes, IsaVersion version = IsaVersion::V1);
Stream decode(const std::vector<uint8_t>& bytes, IsaVersion version = IsaVersion::V1);
Stream decode(const uint8_t* data, size_t size_bytes, const Architecture& arch);
Stream decode(const std::vector<uint8_t>& bytes, const Architecture& arch);
// The errors of a decoded stream on one configuration: commands it does not have (UNKNOWN_OPCODE), address bits
// beyond its address width (RESERVED_BITS), DMA stride modes it does not have (ILLEGAL_VALUE).
std::vector<Diagnostic> architecture_problems(const Stream& s, const Architecture& arch);

// Checks one well-formed command's fields (reserved bits, enum values); appends diagnostics.
void check_fields(const Command& c, IsaVersion version, std::vector<Diagnostic>& out);

std::string hex_offset(uint32_t offset);  // "0x000148"

}  // namespace ethosu::isa
