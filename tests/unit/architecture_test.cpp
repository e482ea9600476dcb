#include <gtest/gtest.h>

#include <set>

#include "isa/architecture.h"
#include "isa/pmu_event_text.h"
#include "isa/registers.h"

using namespace ethosu::isa;

TEST(Architecture, EveryVariantHasOneDescriptionFoundByNameAndConfig) {
  std::set<uint32_t> configs;
  for (Variant v : variants()) {
    const Architecture& a = architecture(v);
    EXPECT_EQ(a.variant, v);
    EXPECT_EQ(a.name, variant_name(v));
    EXPECT_EQ(parse_variant(std::string(a.name)), v);
    EXPECT_EQ(find_architecture(a.name), &a);
    EXPECT_EQ(from_config_register(a.config), &a) << a.name;
    EXPECT_EQ(find_architecture(a.product, a.macs()), &a) << a.name;
    EXPECT_EQ(accelerator_name(a.product, a.macs()), a.name);
    EXPECT_TRUE(configs.insert(a.config).second) << a.name << ": CONFIG shared with another configuration";
  }
  EXPECT_EQ(find_architecture("ethos-u55-512"), nullptr);
  EXPECT_EQ(accelerator_name(Product::U55, 512), "ethos-u55-512");
  EXPECT_EQ(accelerator_name(Product::U85, 4096), "ethos-u85-4096");
  EXPECT_EQ(find_architecture(Product::U65, 128), nullptr);
}

TEST(Architecture, ConfigAndIdRegistersAsTheDriversReadThem) {
  // CONFIG: product 31:28, SHRAM KiB 15:8, log2(MACs per cycle) 3:0 (ethosu55/65_interface.h); the values are the
  // headers Vela 5.1 writes for each target.
  EXPECT_EQ(architecture(Variant::U55_32).config, 0x00001005u);
  EXPECT_EQ(architecture(Variant::U55_64).config, 0x00001006u);
  EXPECT_EQ(architecture(Variant::U55_128).config, 0x00001807u);
  EXPECT_EQ(architecture(Variant::U55_256).config, 0x00003008u);
  EXPECT_EQ(architecture(Variant::U65_256).config, 0x10003008u);
  EXPECT_EQ(architecture(Variant::U65_512).config, 0x10006009u);
  // The U85: product 2, stream version 1, log2 of AXI SRAM/EXT ports and weight decoders (configs in Vela's table).
  EXPECT_EQ(architecture(Variant::U85_128).config, 0x20000117u);
  EXPECT_EQ(architecture(Variant::U85_256).config, 0x20000118u);
  EXPECT_EQ(architecture(Variant::U85_512).config, 0x20001119u);
  EXPECT_EQ(architecture(Variant::U85_1024).config, 0x2000251Au);
  EXPECT_EQ(architecture(Variant::U85_2048).config, 0x2000261Bu);
  EXPECT_EQ(architecture(Variant::U85_256).id, 0x20007001u);  // architecture 2.0.0, product 7, r0p0
  // ID: the U55's default (architecture 1.1.0, r2p0), the i.MX 93's U65 (1.0.6, r0p0).
  EXPECT_EQ(architecture(Variant::U55_128).id, 0x10104201u);
  EXPECT_EQ(architecture(Variant::U65_256).id, 0x10066001u);
  for (Variant v : variants()) {
    const Architecture& a = architecture(v);
    EXPECT_EQ(get(a.config, RegField::CONFIG_product), static_cast<uint32_t>(a.product));
    EXPECT_EQ(1u << get(a.config, RegField::CONFIG_macs_per_cc), a.macs());
    if (a.product == Product::U85) {
      EXPECT_EQ(1u << get(a.config, RegField::U85_CONFIG_num_wd), a.weight_decoders);
      EXPECT_EQ(1u << get(a.config, RegField::U85_CONFIG_num_axi_sram), a.axi_sram_ports);
      EXPECT_EQ(1u << get(a.config, RegField::U85_CONFIG_num_axi_ext), a.axi_ext_ports);
    } else {
      EXPECT_EQ(get(a.config, RegField::CONFIG_shram_size), a.shram_banks * a.cores);
    }
  }
}

// Micro-blocks as width, height, depth (architecture_features.py's Block(2, 1, 8) for the U55-128).
TEST(Architecture, U55ConfigurationsFromVelasTables) {
  struct Expected {
    Variant v;
    unsigned macs;
    MicroBlock ublock;
    unsigned shram_kib, elementwise_units;
    bool lut_reserved;
  };
  for (const Expected& e : {Expected{Variant::U55_32, 32, {1, 1, 4}, 16, 1, false},
                            Expected{Variant::U55_64, 64, {1, 1, 8}, 16, 2, false},
                            Expected{Variant::U55_128, 128, {2, 1, 8}, 24, 4, true},
                            Expected{Variant::U55_256, 256, {2, 2, 8}, 48, 8, true}}) {
    const Architecture& a = architecture(e.v);
    SCOPED_TRACE(std::string(a.name));
    EXPECT_EQ(a.product, Product::U55);
    EXPECT_EQ(a.macs(), e.macs);
    EXPECT_EQ(a.ofm_ublock.w, e.ublock.w);
    EXPECT_EQ(a.ofm_ublock.h, e.ublock.h);
    EXPECT_EQ(a.ofm_ublock.d, e.ublock.d);
    EXPECT_EQ(a.shram_bytes(), e.shram_kib * 1024u);
    EXPECT_EQ(a.elementwise_units, e.elementwise_units);
    EXPECT_EQ(a.lut_banks_reserved, e.lut_reserved);
    EXPECT_EQ(a.address_bits, 32u);
    EXPECT_EQ(a.axi_bytes_per_beat, 8u);
    EXPECT_EQ(a.dma_queue_depth, 1u);
  }
  const Architecture& u65 = architecture(Variant::U65_256);
  EXPECT_EQ(u65.address_bits, 40u);
  EXPECT_EQ(u65.axi_bytes_per_beat, 16u);
  EXPECT_EQ(u65.dma_queue_depth, 2u);
  EXPECT_EQ(architecture(Variant::U65_512).cores, 2u);
}

TEST(Architecture, U85ConfigurationsFromVelasTables) {
  // Micro-blocks as ACC_FORMAT.microblock names them (height x width), each width x height x depth with depth =
  // MACs / (8 x height x width).
  const Architecture& u256 = architecture(Variant::U85_256);
  EXPECT_EQ(u256.isa, IsaVersion::V2);
  ASSERT_EQ(u256.microblocks.size(), 3u);
  EXPECT_EQ(u256.microblocks[0].first, enums::microblock::U1X2);
  EXPECT_EQ(u256.microblocks[0].second.w, 2u);
  EXPECT_EQ(u256.microblocks[0].second.h, 1u);
  EXPECT_EQ(u256.microblocks[0].second.d, 16u);
  EXPECT_EQ(u256.microblocks[2].first, enums::microblock::U2X2);
  EXPECT_EQ(u256.microblocks[2].second.d, 8u);
  const Architecture& u2048 = architecture(Variant::U85_2048);
  EXPECT_EQ(u2048.weight_decoders, 4u);
  EXPECT_EQ(u2048.axi_sram_ports, 4u);
  EXPECT_EQ(u2048.buffers.acc_bytes, 131072u);
  EXPECT_EQ(u2048.microblocks.back().second.d, 16u);  // U4X4: 4 x 4 x 16
  // Read buffers per channel (16-byte words): the IFM's grows 104 -> 256 from the 128 to the 1024.
  EXPECT_EQ(architecture(Variant::U85_128).read_buffer_words.ifm, 104u);
  EXPECT_EQ(architecture(Variant::U85_1024).read_buffer_words.weights, 416u);
  EXPECT_EQ(u2048.read_buffer_words.scales, 16u);
  EXPECT_EQ(architecture(Variant::U65_256).read_buffer_words.ifm, 0u);
  for (Variant v : {Variant::U85_128, Variant::U85_256, Variant::U85_512, Variant::U85_1024, Variant::U85_2048}) {
    const Architecture& a = architecture(v);
    EXPECT_EQ(a.dma_queue_depth, 4u);
    EXPECT_EQ(a.address_bits, 40u);
    EXPECT_EQ(a.buffers.lut_bytes, 2048u);
    EXPECT_EQ(a.shram_banks, 0u);
    for (const auto& [m, b] : a.microblocks) EXPECT_EQ(b.w * b.h * b.d * 8, a.macs()) << a.name;
  }
}

TEST(Architecture, LutBanksAreReservedOnlyAboveSixteenBanks) {
  // A 16-bank U55 lends the LUT's two banks to an operation without a LUT (Vela's ethos_u55.hpp).
  const Architecture& small = architecture(Variant::U55_32);
  EXPECT_EQ(small.usable_banks(false), 16u);
  EXPECT_EQ(small.usable_banks(true), 14u);
  const Architecture& big = architecture(Variant::U55_256);
  EXPECT_EQ(big.usable_banks(false), 46u);
  EXPECT_EQ(big.usable_banks(true), 46u);
}

TEST(Architecture, CommandSetsDifferByProduct) {
  const Architecture& u55 = architecture(Variant::U55_64);
  const Architecture& u65 = architecture(Variant::U65_256);
  for (Cmd c : {Cmd::NPU_SET_PARALLEL_MODE, Cmd::NPU_SET_DMA0_SKIP0, Cmd::NPU_SET_DMA0_SKIP1, Cmd::NPU_SET_WEIGHT1_BASE,
                Cmd::NPU_SET_WEIGHT1_LENGTH, Cmd::NPU_SET_SCALE1_BASE, Cmd::NPU_SET_SCALE1_LENGTH}) {
    EXPECT_FALSE(u55.has_command(c));
    EXPECT_TRUE(u65.has_command(c));
  }
  for (Cmd c : {Cmd::NPU_SET_USER_DEFINED0, Cmd::NPU_SET_USER_DEFINED7}) {
    EXPECT_TRUE(u55.has_command(c));
    EXPECT_FALSE(u65.has_command(c));
  }
  for (Cmd c : {Cmd::NPU_OP_CONV, Cmd::NPU_SET_IFM_BASE0, Cmd::NPU_OP_STOP}) {
    EXPECT_TRUE(u55.has_command(c));
    EXPECT_TRUE(u65.has_command(c));
  }
}

TEST(Architecture, ConfigMismatchNamesWhatTheDriverCompares) {
  const Architecture& u55_128 = architecture(Variant::U55_128);
  EXPECT_FALSE(config_mismatch(u55_128, u55_128.config));
  const auto macs = config_mismatch(u55_128, architecture(Variant::U55_256).config);
  ASSERT_TRUE(macs);
  EXPECT_NE(macs->find("macs_per_cc"), std::string::npos) << *macs;
  const auto product = config_mismatch(u55_128, architecture(Variant::U65_256).config);
  ASSERT_TRUE(product);
  EXPECT_NE(product->find("product"), std::string::npos) << *product;
  // The SHRAM size is not compared (the core driver does not).
  const uint32_t other_shram = set(u55_128.config, RegField::CONFIG_shram_size, 32);
  EXPECT_FALSE(config_mismatch(u55_128, other_shram));
}

// A stream's reach is walked on the configuration of its product with the most cores: the U65-512 for a U65, the
// configuration itself for the single-core U55 and U85.
TEST(Architecture, MostCoresStaysInTheProduct) {
  EXPECT_EQ(most_cores(Variant::U65_256), Variant::U65_512);
  EXPECT_EQ(most_cores(Variant::U65_512), Variant::U65_512);
  EXPECT_EQ(most_cores(Variant::U55_128), Variant::U55_128);
  EXPECT_EQ(most_cores(Variant::U85_512), Variant::U85_512);
}

TEST(PmuEventText, NamesAndIdsOfTheConfigurationsFamily) {
  const Architecture& u65 = architecture(Variant::U65_256);
  const Architecture& u85 = architecture(Variant::U85_256);
  ASSERT_NE(pmu_event_from_text(u65, "MAC_ACTIVE"), nullptr);
  EXPECT_EQ(pmu_event_from_text(u65, "ETHOSU_PMU_MAC_ACTIVE"), pmu_event_from_text(u65, "MAC_ACTIVE"));
  EXPECT_EQ(pmu_event_from_text(u65, "17")->name, "CYCLE");
  EXPECT_EQ(pmu_event_from_text(u85, "671")->name, "EXT1_WR_STALL_LIMIT");  // the U85's own ids
  EXPECT_EQ(pmu_event_from_text(u65, "671"), nullptr);
  EXPECT_EQ(pmu_event_from_text(u65, "EXT_RD_DATA_BEAT_RECEIVED"), nullptr);  // a U85 name
  for (const char* bad : {"", "ETHOSU_PMU_", "99999", "123456", "-1", "0x11", "NO_SUCH_EVENT"})
    EXPECT_EQ(pmu_event_from_text(u65, bad), nullptr) << bad;
}
