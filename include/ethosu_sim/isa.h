// The Ethos-U65 command stream as data: decode, disassemble, assemble and validate, without SystemC. Part of
// the public API (include/ethosu_sim), library EthosuSim::isa. The same tools as `ethosu-sim disasm`, `asm`
// and `validate` on a bare command stream.
//
// Contract: decode() is total: every word of the input belongs to exactly one Command, in order, and every
// malformation is a Diagnostic naming its offset. disassemble() writes the project's assembler text (one
// command per line, fields by name, then the raw words as a comment; words that are no valid command as
// `.word`), so that assemble(disassemble(x)) == x for any x, or Vela's "Register-Level Command Stream"
// listing. assemble() throws ethosu_sim::InputError "<source>:<line>: <what>". validate() walks the stream
// as the Linux accel/ethosu driver's validator does, with the programmer's model's exact access geometry:
// the bytes each region's reads and writes reach, and every problem the hardware or the driver would refuse.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ethosu_sim {

// The Ethos-U configurations the simulator models, by Vela's accelerator names: ethos-u55-32/64/128/256,
// ethos-u65-256/512 and ethos-u85-128/256/512/1024/2048.
enum class Variant : uint8_t { U65_256, U65_512, U55_32, U55_64, U55_128, U55_256, U85_128, U85_256, U85_512, U85_1024, U85_2048 };
inline constexpr Variant kDefaultVariant = Variant::U65_256;  // the i.MX 93's
std::optional<Variant> parse_variant(const std::string& name);  // "ethos-u55-128", ...
const char* variant_name(Variant v);

inline constexpr size_t kRegionCount = 8;  // base-pointer regions
// PMU event counters (PMEVCNTRn) of the widest configuration: 4 on the U55 and U65, 8 on the U85.
inline constexpr size_t kMaxEventCounters = 8;

struct Field {
  std::string name;         // as the assembler spells it: "activation_precision"
  int64_t value = 0;        // sign-extended for signed fields
  std::string value_name;   // an enumerated field's value name ("B8"), else empty
};

struct Command {
  uint32_t offset = 0;       // bytes from the start of the stream
  unsigned words = 1;        // 32-bit words it covers
  uint32_t word0 = 0, payload = 0;  // payload: the second word of a two-word command, else 0
  std::string name;          // "NPU_SET_IFM_REGION"; empty for words that are no valid command
  std::vector<Field> fields;
  std::string text;          // the assembler line without its comment
};

struct Diagnostic {
  bool error = true;  // false: a warning (the stream still runs)
  uint32_t offset = 0;
  std::string message;  // "0x000148: NPU_SET_ACTIVATION: activation_function = 7 is not ..."
};

struct DecodedStream {
  std::vector<Command> commands;
  std::vector<Diagnostic> diagnostics;
  bool ok() const;  // no error: the NPU would run the whole stream
};

// `variant` selects the command set (the U55's and U65's, or the U85's) and the configuration's own rules.
DecodedStream decode(const std::vector<uint8_t>& stream, Variant variant = kDefaultVariant);

// VELA: the listing of the Vela that targets the configuration (Vela 4's Python core for the U55 and U65, Vela 5's
// C++ core for the U85).
enum class DisasmFormat { NATIVE, VELA };
std::string disassemble(const std::vector<uint8_t>& stream, DisasmFormat format = DisasmFormat::NATIVE,
                        Variant variant = kDefaultVariant);

// The text's `.isa 2` line selects the U85's command set, as disassemble() writes it for a U85 stream.
std::vector<uint8_t> assemble(const std::string& text, const std::string& source_name = "<input>");

struct ValidateOptions {
  Variant variant = kDefaultVariant;
  std::array<std::optional<uint64_t>, kRegionCount> region_size_bytes{};  // unknown sizes are not checked
};

// Bytes [lowest, end) of a region, relative to its base.
struct Extent {
  bool used = false;
  int64_t lowest = 0, end = 0;
};

struct Finding {
  bool error = true;     // false: a warning
  std::string category;  // "decode", "out-of-region", "shram", "unsupported", "geometry", "alignment", "linux",
                         // "linux-version" (one Linux validator version rejects it, another accepts)
  uint32_t offset = 0;   // the command's stream offset
  std::string operation; // "NPU_OP_CONV"
  int region = -1;       // -1 when no region applies
  std::string message;   // one line, starting with the hex offset
};

struct Validation {
  std::array<Extent, kRegionCount> reads{}, writes{};  // per region: IFM, IFM2, weights, scales, DMA source / OFM, DMA destination
  std::vector<Finding> findings;
  size_t operations = 0;  // kernel operations and DMAs walked
  std::string text;       // the report `ethosu-sim validate` prints
  bool ok() const;        // no error finding
};

Validation validate(const std::vector<uint8_t>& stream, const ValidateOptions& options = {});

}  // namespace ethosu_sim
