// The ISA tools and the validator over every case the family corpora compiled for a configuration the simulator
// has (corpus-u55/CASE/<accelerator>): the stream decodes cleanly on its configuration, its Vela-format
// disassembly equals Vela's listing, assembling the native disassembly gives back the bytes, and the validator
// finds nothing on its configuration and covers every output tensor with the stream's writes. (Runs and outputs:
// run_corpus_test; cycles: golden_corpus_test.)
#include <gtest/gtest.h>

#include "corpus/corpus_paths.h"
#include "corpus/vela_listing.h"
#include "host/formats/case.h"
#include "host/run/job.h"
#include "isa/assembler.h"
#include "isa/decoder.h"
#include "isa/disasm.h"
#include "isa/validator.h"

using namespace ethosu;
namespace fs = std::filesystem;

namespace {

class CompilationCorpus : public ::testing::TestWithParam<fs::path> {
 protected:
  void SetUp() override {
    if (GetParam().empty()) GTEST_SKIP() << test::skip_message();
  }
  const isa::Architecture& arch() const { return *isa::find_architecture(GetParam().filename().string()); }
};

std::vector<fs::path> params() {
  auto dirs = test::compilation_dirs();
  if (dirs.empty()) dirs.emplace_back();
  return dirs;
}

TEST_P(CompilationCorpus, DecodesCleanlyOnItsConfiguration) {
  const host::Job job = host::job_from_compilation(GetParam());
  const isa::Stream s = isa::decode(job.stream, arch());
  for (const auto& d : s.diagnostics) ADD_FAILURE() << d.message;
  EXPECT_FALSE(s.commands.empty());
}

TEST_P(CompilationCorpus, VelaFormatMatchesVelasListing) {
  test::expect_vela_regor_listing(host::job_from_compilation(GetParam()).stream, GetParam() / "vela_cmdstream.txt",
                                  arch().isa);
}

TEST_P(CompilationCorpus, AssembleOfDisassembleIsIdentity) {
  const std::vector<uint8_t> stream = host::job_from_compilation(GetParam()).stream;
  const isa::Stream decoded = isa::decode(stream, arch());
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(isa::assemble(isa::disassemble(decoded), test::case_label(GetParam())), stream);
}

TEST_P(CompilationCorpus, ValidatesOnItsConfigurationAndCoversTheOutputs) {
  if (const std::string why = test::not_validated_reason(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const host::Job job = host::job_from_compilation(GetParam());
  isa::ValidatorOptions o;
  o.variant = arch().variant;
  for (unsigned r = 0; r < isa::kRegionCount; ++r)
    if (!job.regions[r].empty()) o.region_size_bytes[r] = job.regions[r].size();
  const isa::Report report = isa::validate(isa::decode(job.stream, arch()), o);
  for (const auto& f : report.findings) ADD_FAILURE() << (f.severity == isa::Severity::ERROR ? "" : "warning: ") << f.message;
  for (const host::OutputSpec& out : job.outputs) {
    const isa::Extent e = report.writes(out.region);
    EXPECT_TRUE(e.used && e.lowest <= static_cast<int64_t>(out.offset) &&
                static_cast<int64_t>(out.offset + out.size_bytes) <= e.end)
        << "output '" << out.name << "' region " << out.region << " [" << out.offset << ", "
        << out.offset + out.size_bytes << ") not inside the writes [" << e.lowest << ", " << e.end << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, CompilationCorpus, ::testing::ValuesIn(params()), test::CaseName());

}  // namespace
