// Conformance of the ISA tools over every corpus stream: decoding is clean, the Vela-format disassembly
// equals Vela's own listing line for line, and assembling the native disassembly gives back the bytes.
#include <gtest/gtest.h>

#include <sstream>

#include "corpus/corpus_paths.h"
#include "isa/assembler.h"
#include "isa/decoder.h"
#include "isa/disasm.h"

using namespace ethosu;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// Vela's listing holds one "Register-Level Command Stream: Output" section per NPU subgraph; each
// ends with the "Command stream length" line.
std::vector<std::vector<std::string>> vela_output_sections(const fs::path& file) {
  auto bytes = test::read_file(file);
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

class IsaCorpus : public ::testing::TestWithParam<fs::path> {
 protected:
  void SetUp() override {
    if (GetParam().empty()) GTEST_SKIP() << test::skip_message();
  }
};

TEST_P(IsaCorpus, DecodesCleanly) {
  const auto bytes = test::read_file(GetParam() / "cmdstream.bin");
  const auto s = isa::decode(bytes);
  for (const auto& d : s.diagnostics) ADD_FAILURE() << d.message;
  EXPECT_FALSE(s.commands.empty());
}

TEST_P(IsaCorpus, VelaFormatMatchesVelasListing) {
  const auto bytes = test::read_file(GetParam() / "cmdstream.bin");
  const auto ours = lines_of(isa::disassemble(isa::decode(bytes), isa::DisasmFormat::VELA));
  const auto sections = vela_output_sections(GetParam() / "vela_cmdstream.txt");
  ASSERT_FALSE(sections.empty()) << "no Output section in vela_cmdstream.txt";
  // With several NPU subgraphs the case's stream is the section of the same length.
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

TEST_P(IsaCorpus, AssembleOfDisassembleIsIdentity) {
  const auto bytes = test::read_file(GetParam() / "cmdstream.bin");
  const auto text = isa::disassemble(isa::decode(bytes));
  EXPECT_EQ(isa::assemble(text, test::case_label(GetParam())), bytes);
}

INSTANTIATE_TEST_SUITE_P(Corpus, IsaCorpus, ::testing::ValuesIn(test::cases_or_placeholder()), test::CaseName());

}  // namespace
