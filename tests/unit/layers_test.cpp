// Naming a stream's operations (host/run/layers.h): from a listing (exact, or refused when its count differs), and
// matched from a per-layer CSV through stripes and interleaved (cascaded) layers, with Vela 4's operators and
// without.
#include "host/run/layers.h"

#include <gtest/gtest.h>

#include "isa/assembler.h"
#include "isa/decoder.h"
#include "isa/operation.h"
#include "tests/unit/npu_streams.h"

namespace ethosu::host {
namespace {

// A 1x1 conv of 8x8x16 -> 8x8x16 (1024 x 16 = 16384 MACs) and a 1x1 max pool of 8x8x16 (1024 MACs).
std::string conv() { return npu::test::conv_1x1(144) + "NPU_OP_CONV\n"; }
std::string pool() { return npu::test::pool(8, 8, 8, 1, 0, 1, 0x2000) + "NPU_OP_POOL pooling_mode=MAX\n"; }
std::string dma() {
  return "NPU_SET_DMA0_SRC_REGION region=0\nNPU_SET_DMA0_SRC addr=0\nNPU_SET_DMA0_DST_REGION region=1\n"
         "NPU_SET_DMA0_DST addr=0x4000\nNPU_SET_DMA0_LEN length=16\nNPU_OP_DMA_START\n";
}

isa::Stream stream_of(const std::string& text) { return isa::decode(isa::assemble(text + "NPU_OP_STOP mask=1\n")); }

std::vector<uint32_t> offsets(const isa::Stream& s) {
  std::vector<uint32_t> out;
  isa::walk(s, [&](const isa::Event& e, const isa::StreamState&) {
    if (e.kind == isa::EventKind::OPERATION) out.push_back(e.command.offset);
  });
  return out;
}

CsvLayer layer(std::string name, std::string op, uint64_t macs, double cycles = 100) {
  CsvLayer l;
  l.name = std::move(name);
  l.operator_name = std::move(op);
  l.macs = macs;
  l.cycles = cycles;
  return l;
}

std::vector<std::string> names(const isa::Stream& s, const LayerNames& n) {
  std::vector<std::string> out;
  for (const uint32_t o : offsets(s)) out.push_back(n.names.count(o) ? n.names.at(o) : "-");
  return out;
}

TEST(LayerNames, FromAListingInOrderOrNotAtAll) {
  const isa::Stream s = stream_of(dma() + conv() + pool());
  VelaLayers v;
  v.listings = {{{"other", "", 0}}, {{"c", "", 0}, {"c", "", 0}, {"p", "", 0}}};
  EXPECT_EQ(names(s, name_layers(s, v)), (std::vector<std::string>{"c", "c", "p"}));
  v.listings.pop_back();
  const LayerNames none = name_layers(s, v);
  EXPECT_TRUE(none.names.empty());
  EXPECT_EQ(none.note, "Vela's register listing has 1 operations, the stream 3: no layer names");
}

TEST(LayerNames, CsvStripesCascadesAndFusedLayers) {
  // conv A in two stripes interleaved with pool P (a cascade), then conv B; the fused Relu takes nothing; the DMA
  // takes the layer of the kernel operation after it.
  const isa::Stream s = stream_of(dma() + conv() + pool() + conv() + pool() + dma() + conv());
  VelaLayers v;
  v.tables = {{layer("A", "Conv2DBias", 2 * 16384), layer("relu", "Relu", 0, 0), layer("P", "MaxPool", 2 * 1024),
              layer("B", "Conv2DBias", 16384)}};
  EXPECT_EQ(names(s, name_layers(s, v)), (std::vector<std::string>{"A", "A", "P", "A", "P", "B", "B"}));
}

TEST(LayerNames, Vela4OperatorsDecideWhereKindsCannot) {
  // Two pools in a row: by kind either could be either layer; Vela 4's operators tell them apart.
  const isa::Stream s = stream_of(pool() + pool());
  const std::vector<uint32_t> at = offsets(s);
  VelaLayers v;
  v.tables = {{layer("sum", "ReduceSum", 0), layer("max", "MaxPool", 0)}};
  v.listings = {{{"", "MaxPool", at[0]}, {"", "ReduceSum", at[1]}}};
  EXPECT_EQ(names(s, name_layers(s, v)), (std::vector<std::string>{"max", "sum"}));
  v.listings.clear();
  EXPECT_EQ(names(s, name_layers(s, v)), (std::vector<std::string>{"sum", "max"}));  // by order alone
}

}  // namespace
}  // namespace ethosu::host
