// The validator over every corpus stream: Vela's streams must fit the regions their manifests size, raise no
// error (none of them would be refused by the Linux driver), and their reads/writes must cover every input
// and output tensor the manifest lists.
#include <gtest/gtest.h>

#include <cctype>

#include <fstream>
#include <nlohmann/json.hpp>

#include "corpus/corpus_paths.h"
#include "host/formats/case.h"
#include "isa/decoder.h"
#include "isa/validator.h"

using namespace ethosu;
namespace fs = std::filesystem;

namespace {

class ValidatorCorpus : public ::testing::TestWithParam<fs::path> {
 protected:
  void SetUp() override {
    if (GetParam().empty()) GTEST_SKIP() << test::skip_message();
  }
};

isa::ValidatorOptions options_for(const host::CorpusCase& c) {
  isa::ValidatorOptions o;
  const auto v = isa::parse_variant(c.accelerator);
  EXPECT_TRUE(v.has_value()) << "unknown accelerator '" << c.accelerator << "'";
  o.variant = v.value_or(isa::Variant::U65_256);
  for (const auto& r : c.regions)
    if (r.index < isa::kRegionCount) o.region_size_bytes[r.index] = r.size_bytes;
  return o;
}

// Bytes of one row plus one pixel of an NHWC input tensor, from its manifest shape ([N,] H, W, C); 0 when
// the shape is not 4-D. A stride-2 kernel on an even-sized map never reads the last row and column, so
// that much of an input may lie beyond the highest byte the stream reads.
uint64_t unread_tail_allowance(const host::CorpusCase& c, const host::CaseTensor& t) {
  std::ifstream f(c.manifest);
  const auto m = nlohmann::json::parse(f);
  for (const char* key : {"inputs", "npu_inputs"}) {
    if (!m.contains(key)) continue;
    for (const auto& in : m[key]) {
      if (in.value("name", "") != t.name || !in.contains("shape") || in["shape"].size() != 4) continue;
      const auto& sh = in["shape"];
      const uint64_t rows = sh[0].get<uint64_t>() * sh[1].get<uint64_t>(), width = sh[2].get<uint64_t>();
      if (rows == 0 || width == 0) return 0;
      const uint64_t row = t.size_bytes / rows;
      return row + row / width;
    }
  }
  return 0;
}

// [offset, offset + size - slack) inside the extent.
::testing::AssertionResult covers(const isa::Extent& e, const host::CaseTensor& t, const char* what,
                                  uint64_t slack = 0) {
  const auto lo = static_cast<int64_t>(t.offset), hi = static_cast<int64_t>(t.offset + t.size_bytes);
  if (e.used && e.lowest <= lo && hi - static_cast<int64_t>(slack) <= e.end) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << " '" << t.name << "' region " << t.region << " bytes [" << lo
                                       << ", " << hi << ") not inside the stream's " << what << " extent ["
                                       << e.lowest << ", " << e.end << ")" << (e.used ? "" : " (none)");
}

TEST_P(ValidatorCorpus, FitsRegionsAndCoversTensors) {
  const host::CorpusCase c = host::load_case(GetParam());
  const isa::Stream s = isa::decode(test::read_file(c.command_stream));
  const isa::Report r = isa::validate(s, options_for(c));
  for (const auto& f : r.findings)
    if (f.severity == isa::Severity::ERROR) ADD_FAILURE() << f.message;
  for (const auto& f : r.findings)
    if (f.severity == isa::Severity::WARNING) ADD_FAILURE() << "warning: " << f.message;

  // Every region the stream touches is one the manifest sizes.
  for (unsigned reg = 0; reg < isa::kRegionCount; ++reg) {
    if (r.region_extent(reg).used) {
      EXPECT_NE(c.region(reg), nullptr) << "region " << reg << " has no size";
    }
  }

  if (r.operations == 0) {
    // A stream with no operation (reshape_i8): the output must be the input, aliased in place.
    for (const auto& out : c.outputs) {
      bool aliased = false;
      for (const auto& in : c.inputs)
        aliased |= in.region == out.region && in.offset == out.offset && in.size_bytes == out.size_bytes;
      EXPECT_TRUE(aliased) << "output '" << out.name << "' is written by no operation";
    }
    return;
  }
  for (const auto& in : c.inputs) EXPECT_TRUE(covers(r.reads(in.region), in, "read", unread_tail_allowance(c, in)));
  for (const auto& out : c.outputs) EXPECT_TRUE(covers(r.writes(out.region), out, "write"));
}

std::vector<fs::path> params() {
  auto cases = test::corpus_cases();
  if (cases.empty()) cases.emplace_back();  // one skipped instance that says why
  return cases;
}

std::string name_of(const ::testing::TestParamInfo<fs::path>& info) {
  if (info.param.empty()) return "no_data";
  std::string n = test::case_label(info.param);
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Corpus, ValidatorCorpus, ::testing::ValuesIn(params()), name_of);

}  // namespace
