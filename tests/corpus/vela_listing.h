// Vela's register listing (`--verbose-register-command-stream`) against the simulator's Vela-format disassembly.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "corpus/corpus_paths.h"
#include "isa/decoder.h"
#include "isa/disasm.h"

namespace ethosu::test {

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// Vela's listing holds one "Register-Level Command Stream: Output" section per NPU subgraph; each ends with the
// "Command stream length" line.
inline std::vector<std::vector<std::string>> vela_output_sections(const fs::path& file) {
  auto bytes = read_file(file);
  auto lines = lines_of(std::string(bytes.begin(), bytes.end()));
  std::vector<std::vector<std::string>> sections;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] != "Register-Level Command Stream: Output") continue;
    std::vector<std::string> sec;
    for (size_t j = i; j < lines.size(); ++j) {
      sec.push_back(lines[j]);
      if (lines[j].rfind("Command stream length = ", 0) == 0) break;
    }
    sections.push_back(sec);
  }
  return sections;
}

// The stream's Vela-format disassembly equals a section of the listing, line for line (with several NPU
// subgraphs, the section of the same length).
inline void expect_vela_listing(const std::vector<uint8_t>& stream, const fs::path& listing) {
  const auto ours = lines_of(isa::disassemble(isa::decode(stream), isa::DisasmFormat::VELA));
  const auto sections = vela_output_sections(listing);
  ASSERT_FALSE(sections.empty()) << "no Output section in " << listing;
  const std::vector<std::string>* theirs = nullptr;
  for (const auto& sec : sections)
    if (sec.back() == ours.back()) theirs = &sec;
  ASSERT_NE(theirs, nullptr) << "no Vela section has '" << ours.back() << "'";
  ASSERT_EQ(ours.size(), theirs->size());
  size_t mismatches = 0;
  for (size_t i = 0; i < ours.size(); ++i)
    if (ours[i] != (*theirs)[i] && ++mismatches <= 5)
      ADD_FAILURE() << "line " << i << "\n ours:   '" << ours[i] << "'\n theirs: '" << (*theirs)[i] << "'";
  EXPECT_EQ(mismatches, 0u);
}

// The same for Vela 5's C++ core, whose listing interleaves a comment line per operation (not in the stream) and
// may be preceded by Vela's warnings: its "Register command stream" header and command lines against ours.
inline void expect_vela_regor_listing(const std::vector<uint8_t>& stream, const fs::path& listing,
                                      isa::IsaVersion version) {
  const auto ours = lines_of(isa::disassemble(isa::decode(stream, version), isa::DisasmFormat::VELA_REGOR));
  const auto bytes = read_file(listing);
  std::vector<std::string> theirs;
  bool started = false;
  for (const std::string& l : lines_of(std::string(bytes.begin(), bytes.end()))) {
    started = started || l.rfind("Register command stream: ", 0) == 0;
    if (started && l.rfind("//", 0) != 0) theirs.push_back(l);
  }
  ASSERT_FALSE(theirs.empty()) << "no 'Register command stream' in " << listing;
  ASSERT_EQ(ours.size(), theirs.size());
  size_t mismatches = 0;
  for (size_t i = 0; i < ours.size(); ++i)
    if (ours[i] != theirs[i] && ++mismatches <= 5)
      ADD_FAILURE() << "line " << i << "\n ours:   '" << ours[i] << "'\n theirs: '" << theirs[i] << "'";
  EXPECT_EQ(mismatches, 0u);
}

}  // namespace ethosu::test
