// The public ISA tools (include/ethosu_sim/isa.h) over the decoder, disassembler, assembler and validator.
#include "ethosu_sim/isa.h"

#include "isa/architecture.h"
#include "isa/assembler.h"
#include "isa/decoder.h"
#include "isa/disasm.h"
#include "isa/validator.h"

namespace ethosu_sim {

namespace {

namespace isa = ethosu::isa;

Extent extent_of(const isa::Extent& e) { return {e.used, e.lowest, e.end}; }

}  // namespace

bool DecodedStream::ok() const {
  for (const Diagnostic& d : diagnostics)
    if (d.error) return false;
  return true;
}

DecodedStream decode(const std::vector<uint8_t>& stream, Variant variant) {
  const isa::Stream s = isa::decode(stream, isa::architecture(variant));
  DecodedStream out;
  out.commands.reserve(s.commands.size());
  for (const isa::Command& c : s.commands) {
    Command pc;
    pc.offset = c.offset;
    pc.words = c.words;
    pc.word0 = c.word0();
    pc.payload = c.payload();
    if (c.info) {
      pc.name = std::string(c.info->name);
      for (const isa::FieldInfo& f : isa::fields_of(c.cmd(), s.version)) {
        const int64_t v = isa::value(c.bits, f);
        const std::string_view value_name = f.type == isa::FieldType::ENUM
                                                ? isa::enum_value_name(f.enum_id, static_cast<uint32_t>(v), s.version)
                                                : std::string_view{};
        pc.fields.push_back({std::string(f.name), v, std::string(value_name)});
      }
      pc.text = isa::command_text(c, s.version);
    }
    out.commands.push_back(std::move(pc));
  }
  for (const isa::Diagnostic& d : s.diagnostics)
    out.diagnostics.push_back({d.severity == isa::Severity::ERROR, d.offset, d.message});
  return out;
}

std::string disassemble(const std::vector<uint8_t>& stream, DisasmFormat format, Variant variant) {
  const isa::Architecture& arch = isa::architecture(variant);
  const isa::DisasmFormat vela = arch.isa == isa::IsaVersion::V1 ? isa::DisasmFormat::VELA : isa::DisasmFormat::VELA_REGOR;
  return isa::disassemble(isa::decode(stream, arch.isa), format == DisasmFormat::VELA ? vela : isa::DisasmFormat::NATIVE);
}

std::vector<uint8_t> assemble(const std::string& text, const std::string& source_name) {
  return isa::assemble(text, source_name);
}

bool Validation::ok() const {
  for (const Finding& f : findings)
    if (f.error) return false;
  return true;
}

Validation validate(const std::vector<uint8_t>& stream, const ValidateOptions& options) {
  isa::ValidatorOptions o;
  o.variant = options.variant;
  o.region_size_bytes = options.region_size_bytes;
  const isa::Report r = isa::validate(isa::decode(stream, isa::architecture(options.variant)), o);
  Validation out;
  for (unsigned region = 0; region < kRegionCount; ++region) {
    out.reads[region] = extent_of(r.reads(region));
    out.writes[region] = extent_of(r.writes(region));
  }
  for (const isa::Finding& f : r.findings)
    out.findings.push_back(
        {f.severity == isa::Severity::ERROR, isa::category_name(f.category), f.offset, f.operation, f.region, f.message});
  out.operations = r.operations;
  out.text = isa::render(r);
  return out;
}

}  // namespace ethosu_sim
