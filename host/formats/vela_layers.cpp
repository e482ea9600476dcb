#include "host/formats/vela_layers.h"

#include <charconv>
#include <string_view>

#include "sim/error.h"

namespace ethosu::host {

namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// The text between `after` and the first `until` that follows it, or nothing.
std::string between(std::string_view line, std::string_view after, std::string_view until) {
  const size_t a = line.find(after);
  if (a == std::string_view::npos) return {};
  const size_t from = a + after.size();
  const size_t b = line.find(until, from);
  return std::string(line.substr(from, b == std::string_view::npos ? std::string_view::npos : b - from));
}

std::vector<std::string_view> lines_of(const std::string& text) {
  std::vector<std::string_view> lines;
  std::string_view rest = text;
  while (!rest.empty()) {
    const size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  return lines;
}

// Vela 3: each "Register-Level Command Stream: Input" section lists a subgraph's operations, one line each that
// starts with its number: "7 Conv2D name=<layer>: <NpuStripe: ...>",
// "3 Dma name=<tensor>, ...: <DMA: name=<layer>, ...>".
std::vector<std::vector<ListedOperation>> vela3_listings(const std::vector<std::string_view>& lines) {
  std::vector<std::vector<ListedOperation>> listings;
  bool in_input = false;
  for (const std::string_view line : lines) {
    if (starts_with(line, "Register-Level Command Stream: ")) {
      in_input = line == "Register-Level Command Stream: Input";
      if (in_input) listings.emplace_back();
      continue;
    }
    if (!in_input || line.empty() || line[0] < '0' || line[0] > '9') continue;
    const size_t space = line.find(' ');
    if (space == std::string_view::npos) continue;
    ListedOperation op;
    const std::string_view kind = line.substr(space + 1);
    op.layer = starts_with(kind, "Dma ") ? between(line, "<DMA: name=", ", in=") : between(line, " name=", ": <");
    listings.back().push_back(std::move(op));
  }
  return listings;
}

// The NPU_OP_* commands that are operations (the others wait, stop, interrupt or mask the PMU).
bool operation_command(std::string_view command) {
  return starts_with(command, "NPU_OP_") && !starts_with(command, "NPU_OP_STOP") &&
         !starts_with(command, "NPU_OP_IRQ") && !starts_with(command, "NPU_OP_DMA_WAIT") &&
         !starts_with(command, "NPU_OP_KERNEL_WAIT") && !starts_with(command, "NPU_OP_PMU_MASK");
}

// Vela 4: "// <operator> ..." before each operation's commands ("0x000148: ... - NPU_OP_CONV ..."); a new
// "Register command stream: N words" starts another subgraph.
std::vector<std::vector<ListedOperation>> vela4_listings(const std::vector<std::string_view>& lines,
                                                        const std::string& what) {
  std::vector<std::vector<ListedOperation>> listings;
  std::string pending;  // the operator of the last comment, until its operation's command
  for (const std::string_view line : lines) {
    if (starts_with(line, "Register command stream: ")) {
      listings.emplace_back();
      pending.clear();
    } else if (starts_with(line, "// ")) {
      const std::string_view body = line.substr(3);
      pending = std::string(body.substr(0, body.find_first_of(" ,:")));
    } else if (starts_with(line, "0x") && !pending.empty()) {
      const size_t dash = line.find(" - ");
      if (dash == std::string_view::npos) continue;
      std::string_view command = line.substr(dash + 3);
      if (starts_with(command, "cmd0.") || starts_with(command, "cmd1.")) command.remove_prefix(5);
      if (!operation_command(command)) continue;
      ListedOperation op;
      op.operator_name = std::move(pending);
      pending.clear();
      const std::string_view hex = line.substr(2, line.find(':') - 2);  // "0x000148: ..."
      const auto parsed = std::from_chars(hex.data(), hex.data() + hex.size(), op.offset, 16);
      if (hex.empty() || parsed.ec != std::errc() || parsed.ptr != hex.data() + hex.size())
        throw InputError(what + ": no stream offset in the register listing line '" + std::string(line) + "'");
      if (listings.empty()) listings.emplace_back();
      listings.back().push_back(std::move(op));
    }
  }
  return listings;
}

// One CSV record's fields (RFC 4180 quoting within the line).
std::vector<std::string> csv_fields(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

std::vector<std::vector<CsvLayer>> csv_tables(const std::vector<std::string_view>& lines, const std::string& what) {
  std::vector<std::vector<CsvLayer>> tables;
  std::vector<std::string> header;
  int op = -1, name = -1, macs = -1, cycles = -1, target = -1;
  const auto column = [&](std::string_view wanted, bool required) {
    for (size_t k = 0; k < header.size(); ++k)
      if (header[k] == wanted) return static_cast<int>(k);
    if (required) throw InputError(what + ": a per-layer CSV without a '" + std::string(wanted) + "' column");
    return -1;
  };
  for (size_t n = 0; n < lines.size(); ++n) {
    if (lines[n].empty()) continue;
    const std::vector<std::string> f = csv_fields(lines[n]);
    if (lines[n].find("NNG Operator") != std::string_view::npos) {  // a header: the next subgraph's table
      header = f;
      op = column("NNG Operator", true), name = column("Name", true), macs = column("MAC Count", true);
      cycles = column("Op Cycles", true), target = column("Target", false);
      tables.emplace_back();
      continue;
    }
    if (f.size() != header.size())
      throw InputError(what + ": line " + std::to_string(n + 1) + " has " + std::to_string(f.size()) +
                       " fields, its header " + std::to_string(header.size()));
    CsvLayer l;
    l.name = f[name];
    l.operator_name = f[op];
    try {
      l.macs = std::stoull(f[macs]);
      l.cycles = std::stod(f[cycles]);
    } catch (const std::exception&) {
      throw InputError(what + ": line " + std::to_string(n + 1) + ": MAC count '" + f[macs] + "' or cycles '" +
                       f[cycles] + "' is not a number");
    }
    l.on_npu = target < 0 || f[target] == "NPU";
    tables.back().push_back(std::move(l));
  }
  return tables;
}

}  // namespace

bool VelaLayers::listing_names_layers() const {
  for (const auto& listed : listings)
    for (const ListedOperation& op : listed)
      if (!op.layer.empty()) return true;
  return false;
}

VelaLayers read_vela_layers(const std::string& text, const std::string& what) {
  const std::vector<std::string_view> lines = lines_of(text);
  VelaLayers out;
  if (text.find("Register-Level Command Stream: Input") != std::string::npos) {
    out.listings = vela3_listings(lines);
  } else if (text.find("Register command stream: ") != std::string::npos) {
    out.listings = vela4_listings(lines, what);
  } else if (!lines.empty() && lines.front().find("NNG Operator") != std::string_view::npos) {
    out.tables = csv_tables(lines, what);
  } else {
    throw InputError(what + ": neither Vela's register listing (--verbose-register-command-stream) nor its "
                            "per-layer CSV (--verbose-performance)");
  }
  return out;
}

}  // namespace ethosu::host
