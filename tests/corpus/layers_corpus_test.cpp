// Layer names on the corpus (host/run/layers.h): Vela's register listing names every operation of every case;
// the per-layer CSV, matched without it, must name the same layer for nearly every operation (the listing is the
// truth the CSV matching is measured against), and Vela 4's listings of the U55/U85 corpora must parse with
// an operator for every operation. Skips without the data.
#include <gtest/gtest.h>

#include <iostream>

#include "corpus/corpus_paths.h"
#include "host/run/job.h"
#include "host/run/layers.h"
#include "isa/decoder.h"
#include "isa/operation.h"
#include "sim/files.h"

namespace ethosu::host {
namespace {

namespace fs = std::filesystem;

class LayersCorpus : public ::testing::TestWithParam<fs::path> {
 protected:
  void SetUp() override {
    if (GetParam().empty()) GTEST_SKIP() << test::skip_message();
  }
};

// The CSV's matching agrees with the listing on this share of the operations of every case, at least.
constexpr double kCsvAgreement = 0.99;

TEST_P(LayersCorpus, ListingNamesEveryOperationAndTheCsvAgrees) {
  const fs::path dir = GetParam();
  if (!fs::exists(dir / "vela_cmdstream.txt")) GTEST_SKIP() << "no register listing";
  const Job job = job_from_case(dir);
  const isa::Stream stream = isa::decode(job.stream);
  const LayerNames exact = name_layers(stream, vela_layers_from(dir / "vela_cmdstream.txt"));
  size_t operations = 0;
  isa::walk(stream,
            [&](const isa::Event& e, const isa::StreamState&) { operations += e.kind == isa::EventKind::OPERATION; });
  ASSERT_EQ(exact.names.size(), operations) << exact.note;
  EXPECT_EQ(job.layers, exact.names);  // the job loads the files beside the case

  if (!fs::exists(dir / "vela_per_layer.csv")) return;  // the single operators have no per-layer CSV
  const VelaLayers csv_only = vela_layers_from(dir / "vela_per_layer.csv");
  const LayerNames matched = name_layers(stream, csv_only);
  size_t same = 0;
  for (const auto& [offset, name] : exact.names) {
    const auto it = matched.names.find(offset);
    same += it != matched.names.end() && it->second == name;
  }
  std::cout << "[ layers   ] " << test::case_label(dir) << ": CSV matching names " << same << " of " << operations
            << " operations as the listing does\n";
  EXPECT_GE(double(same), kCsvAgreement * double(operations)) << matched.note;
}

struct CaseName {
  std::string operator()(const ::testing::TestParamInfo<fs::path>& p) const {
    std::string n = p.param.empty() ? "none" : test::case_label(p.param);
    for (char& c : n)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return n;
  }
};

INSTANTIATE_TEST_SUITE_P(Corpus, LayersCorpus, ::testing::ValuesIn(test::cases_or_placeholder()), CaseName());

// Vela 4's listings (the U55 and U85 corpora): an operator for every operation, at the offsets of its stream.
TEST(LayersCorpus, Vela4ListingsGiveAnOperatorPerOperation) {
  size_t listings = 0;
  for (const char* corpus : {"corpus-u55", "corpus-u85"}) {
    const fs::path root = test::shared_root() / corpus;
    if (!fs::is_directory(root)) continue;
    for (const auto& model : fs::directory_iterator(root)) {
      if (!model.is_directory()) continue;
      for (const auto& config : fs::directory_iterator(model.path())) {
        const fs::path listing = config.path() / "vela_cmdstream.txt";
        if (!fs::is_regular_file(listing)) continue;
        const VelaLayers v = vela_layers_from(listing);
        ASSERT_FALSE(v.listings.empty()) << listing;
        for (const auto& ops : v.listings)
          for (const ListedOperation& op : ops) EXPECT_FALSE(op.operator_name.empty()) << listing << " " << op.offset;
        const VelaLayers csv = vela_layers_from(config.path() / "vela_per_layer.csv");
        EXPECT_FALSE(csv.tables.empty()) << config.path();
        ++listings;
      }
    }
  }
  if (!listings) GTEST_SKIP() << "no U55/U85 corpus under " << test::shared_root();
}

}  // namespace
}  // namespace ethosu::host
