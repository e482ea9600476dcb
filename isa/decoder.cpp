#include "isa/decoder.h"

#include "sim/text.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace ethosu::isa {

const char* problem_name(Problem p) {
  switch (p) {
    case Problem::EMPTY: return "empty";
    case Problem::SIZE_NOT_WORDS: return "size-not-words";
    case Problem::TOO_LONG: return "too-long";
    case Problem::UNKNOWN_OPCODE: return "unknown-opcode";
    case Problem::RESERVED_CONTROL: return "reserved-control";
    case Problem::RESERVED_HEADER: return "reserved-header-bits";
    case Problem::RESERVED_BITS: return "reserved-bits";
    case Problem::ILLEGAL_VALUE: return "illegal-value";
    case Problem::TRUNCATED: return "truncated";
    case Problem::MISSING_STOP: return "missing-stop";
    case Problem::AFTER_STOP: return "after-stop";
  }
  return "?";
}

std::string hex_offset(uint32_t offset) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%06x", offset);
  return buf;
}

bool Stream::ok() const { return error_count() == 0; }

size_t Stream::error_count() const {
  return static_cast<size_t>(std::count_if(diagnostics.begin(), diagnostics.end(),
                                           [](const Diagnostic& d) { return d.severity == Severity::ERROR; }));
}

const Diagnostic* Stream::first_error() const {
  const Diagnostic* first = nullptr;
  for (const auto& d : diagnostics)
    if (d.severity == Severity::ERROR && (!first || d.offset < first->offset)) first = &d;
  return first;
}

namespace {

// A stream of junk has a problem in every word: past this many, the list only says how many it leaves out.
constexpr size_t kMaxDiagnostics = 1000;

void add(std::vector<Diagnostic>& out, Severity s, Problem p, uint32_t offset, const std::string& what) {
  if (out.size() < kMaxDiagnostics) {
    out.push_back({s, p, offset, hex_offset(offset) + ": " + what});
  } else if (out.size() == kMaxDiagnostics) {
    out.push_back({Severity::WARNING, p, offset,
                   hex_offset(offset) + ": more problems from here on are not listed (the first " +
                       std::to_string(kMaxDiagnostics) + " are)"});
  }
}

using sim::hex;

}  // namespace

void check_fields(const Command& c, IsaVersion version, std::vector<Diagnostic>& out) {
  const std::string_view name = c.info->name;
  if (uint64_t extra = c.bits & reserved_mask(c.cmd(), version))
    add(out, Severity::ERROR, Problem::RESERVED_BITS, c.offset,
        std::string(name) + ": reserved bits " + hex(extra) + " are set (param " + hex(c.param()) + ")");
  for (const auto& f : fields_of(c.cmd(), version)) {
    if (f.type != FieldType::ENUM) continue;
    int64_t v = value(c.bits, f);
    if (!fits(f, v, version))
      add(out, Severity::ERROR, Problem::ILLEGAL_VALUE, c.offset,
          std::string(name) + ": " + std::string(f.name) + " = " + std::to_string(v) + " is not a defined " +
              std::string(enum_name(f.enum_id)) + " value");
  }
}

Stream decode(const uint8_t* data, size_t size_bytes, IsaVersion version) {
  Stream s;
  s.version = version;
  s.size_bytes = size_bytes;
  auto& diag = s.diagnostics;
  if (size_bytes == 0) {
    add(diag, Severity::ERROR, Problem::EMPTY, 0, "empty command stream (no NPU_OP_STOP)");
    return s;
  }
  if (size_bytes % 4) {
    s.trailing_bytes.assign(data + (size_bytes & ~size_t{3}), data + size_bytes);
    add(diag, Severity::ERROR, Problem::SIZE_NOT_WORDS, static_cast<uint32_t>(size_bytes & ~size_t{3}),
        "stream size " + std::to_string(size_bytes) + " bytes is not a multiple of 4; the last " +
            std::to_string(size_bytes % 4) + " byte(s) are ignored");
  }
  if (size_bytes > kMaxStreamBytes) {
    // The NPU does not parse such a stream at all, so its words are not decoded either: a junk file of any
    // size costs nothing.
    add(diag, Severity::ERROR, Problem::TOO_LONG, 0,
        "stream is " + std::to_string(size_bytes) + " bytes, over the 16 MiB QSIZE limit; not decoded");
    return s;
  }

  const size_t nwords = size_bytes / 4;
  auto word = [&](size_t i) {
    uint32_t w;
    std::memcpy(&w, data + 4 * i, 4);  // little-endian host assumed (x86-64, aarch64)
    return w;
  };
  s.commands.reserve(nwords);
  bool stopped = false;
  for (size_t i = 0; i < nwords;) {
    Command c;
    c.offset = static_cast<uint32_t>(4 * i);
    uint32_t w0 = word(i);
    c.bits = w0;
    const uint32_t control = (w0 >> kControlShift) & 3;
    if (stopped) {
      add(diag, Severity::WARNING, Problem::AFTER_STOP, c.offset,
          std::to_string(nwords - i) + " word(s) after NPU_OP_STOP are never executed");
      stopped = false;  // report once
    }
    if (control > 1) {
      add(diag, Severity::ERROR, Problem::RESERVED_CONTROL, c.offset,
          "word " + hex(w0) + " has reserved control value " + std::to_string(control));
      s.commands.push_back(c);
      ++i;
      continue;
    }
    const uint16_t code = static_cast<uint16_t>((control ? kCmd1Flag : 0) | (w0 & kOpcodeMask));
    c.info = find_command(code, version);
    if (!c.info) {
      add(diag, Severity::ERROR, Problem::UNKNOWN_OPCODE, c.offset,
          "unknown " + std::string(control ? "cmd1" : "cmd0") + " opcode " + hex(w0 & kOpcodeMask) + " (word " +
              hex(w0) + ")");
      // An unknown cmd1 still owns its payload word: skipping it keeps later offsets in step.
      if (control && i + 1 < nwords) {
        c.bits |= static_cast<uint64_t>(word(i + 1)) << 32;
        c.words = 2;
      }
      s.commands.push_back(c);
      i += c.words;
      continue;
    }
    if (control) {
      if (i + 1 >= nwords) {
        add(diag, Severity::ERROR, Problem::TRUNCATED, c.offset,
            std::string(c.info->name) + ": cmd1 payload word missing at the end of the stream");
        c.info = nullptr;
        s.commands.push_back(c);
        break;
      }
      c.bits |= static_cast<uint64_t>(word(i + 1)) << 32;
      c.words = 2;
    }
    if (w0 & kReservedHeaderMask)
      add(diag, Severity::ERROR, Problem::RESERVED_HEADER, c.offset,
          std::string(c.info->name) + ": reserved header bits 13:10 set (word " + hex(w0) + ")");
    check_fields(c, version, diag);
    if (c.info->cmd == Cmd::NPU_OP_STOP && !stopped) stopped = true;
    s.commands.push_back(c);
    i += c.words;
  }
  const bool ends_with_stop =
      !s.commands.empty() && s.commands.back().info && s.commands.back().info->cmd == Cmd::NPU_OP_STOP;
  const bool has_stop = std::any_of(s.commands.begin(), s.commands.end(),
                                    [](const Command& c) { return c.info && c.info->cmd == Cmd::NPU_OP_STOP; });
  if (!has_stop)
    add(diag, Severity::ERROR, Problem::MISSING_STOP, static_cast<uint32_t>(nwords * 4),
        "no NPU_OP_STOP: the stream ends without one");
  else if (!ends_with_stop && !std::any_of(diag.begin(), diag.end(),
                                           [](const Diagnostic& d) { return d.problem == Problem::AFTER_STOP; }))
    add(diag, Severity::WARNING, Problem::AFTER_STOP, static_cast<uint32_t>(nwords * 4),
        "the last command is not NPU_OP_STOP");
  return s;
}

Stream decode(const std::vector<uint8_t>& bytes, IsaVersion version) {
  return decode(bytes.data(), bytes.size(), version);
}

std::vector<Diagnostic> architecture_problems(const Stream& s, const Architecture& arch) {
  std::vector<Diagnostic> out;
  for (const Command& c : s.commands) {
    if (!c.info) continue;
    const std::string name(c.info->name);
    if (!arch.has_command(c.cmd())) {
      add(out, Severity::ERROR, Problem::UNKNOWN_OPCODE, c.offset, name + " does not exist on the " + arch.describe());
      continue;
    }
    for (const auto& f : fields_of(c.cmd(), arch.isa)) {
      if (f.location == Location::ADDR40 && arch.address_bits < 40) {
        const uint64_t v = static_cast<uint64_t>(value(c.bits, f));
        if (v >> arch.address_bits)
          add(out, Severity::ERROR, Problem::RESERVED_BITS, c.offset,
              name + ": " + std::string(f.name) + " " + hex(v) + " is wider than the " + arch.describe() + "'s " +
                  std::to_string(arch.address_bits) + "-bit addresses");
      }
      if (f.type == FieldType::ENUM && f.enum_id == EnumId::dma_stride_mode &&
          value(c.bits, f) >= static_cast<int64_t>(arch.dma_dimensions))
        add(out, Severity::ERROR, Problem::ILLEGAL_VALUE, c.offset,
            name + ": " + std::string(f.name) + " = " + std::to_string(value(c.bits, f)) + ": the " + arch.describe() +
                "'s DMA has " + std::to_string(arch.dma_dimensions) + "-D stride modes only");
    }
  }
  return out;
}

Stream decode(const uint8_t* data, size_t size_bytes, const Architecture& arch) {
  Stream s = decode(data, size_bytes, arch.isa);
  for (Diagnostic& d : architecture_problems(s, arch)) s.diagnostics.push_back(std::move(d));
  return s;
}

Stream decode(const std::vector<uint8_t>& bytes, const Architecture& arch) {
  return decode(bytes.data(), bytes.size(), arch);
}

}  // namespace ethosu::isa
