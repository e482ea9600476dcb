// Vela's layer files (host/formats/vela_layers.h): both listing flavours, the per-layer CSV of Vela 3 and 4
// (quoted names), several subgraphs, and refusals naming the file.
#include "host/formats/vela_layers.h"

#include <gtest/gtest.h>

#include "sim/error.h"

namespace ethosu::host {
namespace {

TEST(VelaLayers, Vela3ListingNamesOperationsInOrder) {
  const std::string text =
      "Register-Level Command Stream: Input\n"
      "0 Dma name=w_npu_buffer, src=(region=0, address=0x0, length=16), dest=(region=2): <DMA: name=net/conv1;fold, "
      "in=w, out=b box=<Box [0] - [1]>>\n"
      "1 Conv2D name=net/conv1;fold: <NpuStripe: name=net/conv1;fold, ifm_box=<Box [0] - [1]>>\n"
      "      IFM: h=13,w=112,c=6, region=1\n"
      "2 FullyConnected Conv2D name=net/fc: <NpuStripe: name=net/fc>\n"
      "Register-Level Command Stream: Output\n"
      "0x000000:          0000 0123 - cmd0.NPU_SET_PARALLEL_MODE         0\n"
      "Register-Level Command Stream: Input\n"
      "0 MaxPool name=second/pool: <NpuStripe: name=second/pool>\n";
  const VelaLayers v = read_vela_layers(text, "x.txt");
  ASSERT_EQ(v.listings.size(), 2u);
  ASSERT_EQ(v.listings[0].size(), 3u);
  EXPECT_EQ(v.listings[0][0].layer, "net/conv1;fold");  // a DMA: the layer it serves
  EXPECT_EQ(v.listings[0][1].layer, "net/conv1;fold");
  EXPECT_EQ(v.listings[0][2].layer, "net/fc");
  EXPECT_EQ(v.listings[1][0].layer, "second/pool");
  EXPECT_TRUE(v.listing_names_layers());
  EXPECT_TRUE(v.tables.empty());
}

TEST(VelaLayers, Vela4ListingGivesOperatorsAtOffsets) {
  const std::string text =
      "Warning: No system configuration specified.\n"
      "Register command stream: 30 words\n"
      "  Offset: Payload Param Code - Command                        Param, Fields\n"
      "// DMA src: OffChipFlash:ReadOnly, address: 0x0, dest: Sram, length: 624\n"
      "0x000000:          0000 0130 - NPU_SET_DMA0_SRC_REGION            0, region = 0\n"
      "0x000020:          0000 0010 - NPU_OP_DMA_START                   0\n"
      "// Conv2D , subOps:[  Relu6 ], size=1,1 stride=1,1\n"
      "0x000144:          0000 0011 - NPU_OP_DMA_WAIT                    0, k = 0\n"
      "0x000148:          0000 0002 - NPU_OP_CONV                        0\n"
      "0x000170:          ffff 0000 - NPU_OP_STOP                    65535, mask = 65535\n";
  const VelaLayers v = read_vela_layers(text, "x.txt");
  ASSERT_EQ(v.listings.size(), 1u);
  ASSERT_EQ(v.listings[0].size(), 2u);
  EXPECT_EQ(v.listings[0][0].operator_name, "DMA");
  EXPECT_EQ(v.listings[0][0].offset, 0x20u);
  EXPECT_EQ(v.listings[0][1].operator_name, "Conv2D");  // the wait between comment and operation is skipped
  EXPECT_EQ(v.listings[0][1].offset, 0x148u);
  EXPECT_FALSE(v.listing_names_layers());
}

TEST(VelaLayers, PerLayerCsvOfBothVersions) {
  const VelaLayers v3 = read_vela_layers(
      "TFLite_operator,NNG Operator,SRAM Usage,Peak%,Op Cycles,Network%,NPU,SRAM AC,DRAM AC,OnFlash AC,OffFlash AC,"
      "MAC Count,Network%,Util%,Name\n"
      "CONV_2D,Conv2DBias,313472,81.7,898867.2,21.4,304083.0,25088.0,898867.2,0.0,0.0,14450688,4.7,6.2,\"a/b,c;d\"\n",
      "v3.csv");
  ASSERT_EQ(v3.tables.size(), 1u);
  ASSERT_EQ(v3.tables[0].size(), 1u);
  const CsvLayer& conv = v3.tables[0][0];
  EXPECT_EQ(conv.name, "a/b,c;d");
  EXPECT_EQ(conv.operator_name, "Conv2DBias");
  EXPECT_EQ(conv.macs, 14450688u);
  EXPECT_DOUBLE_EQ(conv.cycles, 898867.2);
  EXPECT_TRUE(conv.on_npu);
  const VelaLayers v4 = read_vela_layers(
      "Original Operator,NNG Operator,Target,Staging Usage,Peak% (Staging),Op Cycles,Network% (cycles),NPU,SRAM AC,"
      "DRAM AC,OnFlash AC,OffFlash AC,MAC Count,Network% (MAC),Util% (MAC),Name\n"
      "Softmax,MaxPool,NPU,32,10.0,134,14.8,134,12,0,0,0,10,50.0,0.05,ifm_softmax_0\n"
      "Softmax,LUT,NPU,0,0.0,0,0.0,0,0,0,0,0,0,0.0,100,ifm_softmax_2\n"
      "Reshape,Reshape,CPU,0,0.0,0,0.0,0,0,0,0,0,0,0.0,0,r\n"
      "\n"
      "Original Operator,NNG Operator,Target,Staging Usage,Peak% (Staging),Op Cycles,Network% (cycles),NPU,SRAM AC,"
      "DRAM AC,OnFlash AC,OffFlash AC,MAC Count,Network% (MAC),Util% (MAC),Name\n"
      "Add,Add,NPU,32,10.0,134,14.8,134,12,0,0,0,0,50.0,0.05,second\n",
      "v4.csv");
  ASSERT_EQ(v4.tables.size(), 2u);  // a split model: a table per subgraph
  ASSERT_EQ(v4.tables[0].size(), 3u);
  EXPECT_EQ(v4.tables[0][1].cycles, 0.0);
  EXPECT_FALSE(v4.tables[0][2].on_npu);
  EXPECT_EQ(v4.tables[1][0].name, "second");
}

TEST(VelaLayers, RefusalsNameTheFile) {
  EXPECT_THROW(read_vela_layers("hello\n", "some.txt"), InputError);
  try {
    read_vela_layers("NNG Operator,Name\nConv2D,x\n", "bad.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.csv: a per-layer CSV without a 'MAC Count' column"), std::string::npos);
  }
  EXPECT_THROW(read_vela_layers("NNG Operator,Name,MAC Count,Op Cycles\nConv2D,x,many,1\n", "bad.csv"), InputError);
  EXPECT_THROW(read_vela_layers("NNG Operator,Name,MAC Count,Op Cycles\nConv2D,x\n", "short.csv"), InputError);
  EXPECT_THROW(read_vela_layers("Register command stream: 3 words\n// Conv2D ,\n0xzz: 1 - NPU_OP_CONV\n", "x.txt"),
               InputError);
}

}  // namespace
}  // namespace ethosu::host
