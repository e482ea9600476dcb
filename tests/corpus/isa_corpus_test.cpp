// Conformance of the ISA tools over every corpus stream: decoding is clean, the Vela-format disassembly
// equals Vela's own listing line for line, and assembling the native disassembly gives back the bytes.
#include <gtest/gtest.h>

#include "corpus/corpus_paths.h"
#include "corpus/vela_listing.h"
#include "isa/assembler.h"
#include "isa/decoder.h"
#include "isa/disasm.h"

using namespace ethosu;
namespace fs = std::filesystem;

namespace {

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
  test::expect_vela_listing(bytes, GetParam() / "vela_cmdstream.txt");
}

TEST_P(IsaCorpus, AssembleOfDisassembleIsIdentity) {
  const auto bytes = test::read_file(GetParam() / "cmdstream.bin");
  const auto text = isa::disassemble(isa::decode(bytes));
  EXPECT_EQ(isa::assemble(text, test::case_label(GetParam())), bytes);
}

INSTANTIATE_TEST_SUITE_P(Corpus, IsaCorpus, ::testing::ValuesIn(test::cases_or_placeholder()), test::CaseName());

}  // namespace
