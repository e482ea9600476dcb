#include "isa/architecture.h"

#include <algorithm>
#include <cctype>

#include "isa/registers.h"

namespace ethosu::isa {
namespace {

// The ID register's fields.
struct Identity {
  uint32_t arch_major, arch_minor, arch_patch, product_major, version_major, version_minor, version_status;
};

uint32_t id_register(const Identity& i) {
  uint32_t v = 0;
  v = set(v, RegField::ID_arch_major_rev, i.arch_major);
  v = set(v, RegField::ID_arch_minor_rev, i.arch_minor);
  v = set(v, RegField::ID_arch_patch_rev, i.arch_patch);
  v = set(v, RegField::ID_product_major, i.product_major);
  v = set(v, RegField::ID_version_major, i.version_major);
  v = set(v, RegField::ID_version_minor, i.version_minor);
  v = set(v, RegField::ID_version_status, i.version_status);
  return v;
}

unsigned log2(unsigned v) {
  unsigned n = 0;
  while (v > 1) {
    v >>= 1;
    ++n;
  }
  return n;
}

// CONFIG as the core driver reads it: product, log2 of the MACs of all cores, SHRAM KiB of all cores; command
// stream version 0, no custom DMA, no functional safety (Vela never asks for them).
uint32_t config_register(Product product, unsigned macs, unsigned shram_kib) {
  uint32_t v = 0;
  v = set(v, RegField::CONFIG_macs_per_cc, log2(macs));
  v = set(v, RegField::CONFIG_shram_size, shram_kib);
  v = set(v, RegField::CONFIG_product, static_cast<uint32_t>(product));
  return v;
}

// The PMU events of a family, in the order of the hardware ids.
std::vector<const PmuEventInfo*> pmu_events_of(RegisterMap map) {
  std::vector<const PmuEventInfo*> out;
  for (const PmuEventInfo& e : kPmuEvents)
    if (e.in(map)) out.push_back(&e);
  return out;
}

// Ethos-U55: Vela 5.1's s_EthosU55Configs (ethos_u55.cpp) for MACs, micro-blocks, SHRAM banks and granules,
// elementwise units, s_EthosU55PerfInfo for the output unit's rates; ethos_u55.hpp: two output banks, the LUT
// reserved only above 16 banks, one outstanding DMA, 32-bit addresses. ethosu55_interface.h: AXI_LIMITn's
// outstanding-read field has 5 bits and the write field 4 (32 and 16), the default ID (architecture 1.1.0,
// r2p0) and the command set. The 8-byte AXI width: architecture_features.py (axi_port_width 64 bits).
Architecture u55(Variant v, std::string_view name, unsigned macs, MicroBlock ofm, MicroBlock ifm, unsigned banks,
                 std::array<unsigned, kShramBuffers> granules, unsigned elementwise_units,
                 std::array<double, 8> output, std::array<double, 3> activation) {
  Architecture a{};
  a.variant = v;
  a.name = name;
  a.product = Product::U55;
  a.isa = IsaVersion::V1;
  a.cores = 1;
  a.macs_per_core = macs;
  a.ofm_ublock = ofm;
  a.ifm_ublock = ifm;
  a.shram_banks = banks;
  a.shram_output_banks = 2;
  a.shram_lut_banks = 2;
  a.lut_banks_reserved = banks > 16;
  a.shram_granules = granules;
  a.elementwise_units = elementwise_units;
  a.address_bits = 32;
  a.axi_bytes_per_beat = 8;
  a.dma_queue_depth = 1;
  a.dma_dimensions = 1;
  a.max_outstanding_reads = 32;
  a.max_outstanding_writes = 16;
  a.output_cycles_per_element = output;
  a.activation_cycles_per_element = activation;
  a.default_system = "corstone-300";
  a.default_memory_mode = "Shared_Sram";
  a.id = id_register({1, 1, 0, 4, 2, 0, 1});
  a.config = config_register(Product::U55, macs, banks);
  a.register_map = RegisterMap::U65;  // ethosu55_interface.h: the U65's offsets (its PMU list too), USER_DEFINED
  a.pmu_event_counters = 4;
  a.pmu_events = pmu_events_of(a.register_map);
  a.absent_commands = {Cmd::NPU_SET_PARALLEL_MODE, Cmd::NPU_SET_DMA0_SKIP0,    Cmd::NPU_SET_DMA0_SKIP1,
                       Cmd::NPU_SET_WEIGHT1_BASE,  Cmd::NPU_SET_WEIGHT1_LENGTH, Cmd::NPU_SET_SCALE1_BASE,
                       Cmd::NPU_SET_SCALE1_LENGTH};
  return a;
}

// Ethos-U65: s_EthosU65Configs and s_EthosU65PerfInfo (ethos_u65.cpp; the 512's rates are the 256's per core
// halved), 40-bit addresses, 16-byte AXI, two outstanding DMAs (ethos_u65.hpp), AXI_LIMITn fields of 6 and 5 bits
// (ethosu65_interface.h), ID 1.0.6 r0p0 as the i.MX 93 reads it (spec 02 section 3).
Architecture u65(Variant v, std::string_view name, unsigned cores) {
  Architecture a{};
  a.variant = v;
  a.name = name;
  a.product = Product::U65;
  a.isa = IsaVersion::V1;
  a.cores = cores;
  a.macs_per_core = 256;
  a.ofm_ublock = {2, 2, 8};
  a.ifm_ublock = {2, 2, 8};
  a.shram_banks = 48;
  a.shram_output_banks = 2;
  a.shram_lut_banks = 2;
  a.lut_banks_reserved = true;
  a.shram_granules = {8, 8, 8, 8, 16, 8, 16, 20};
  a.elementwise_units = 8;
  a.address_bits = 40;
  a.axi_bytes_per_beat = 16;
  a.dma_queue_depth = 2;
  a.dma_dimensions = 3;
  a.max_outstanding_reads = 64;
  a.max_outstanding_writes = 32;
  a.output_cycles_per_element = {0.625, 1.125, 0.5, 0.375, 0.5, 0.75, 0.125, 0.25};
  a.activation_cycles_per_element = {1.0, 0.25, 0.0};
  a.default_system = "imx93";
  a.default_memory_mode = "Dedicated_Sram";
  a.id = id_register({1, 0, 6, 6, 0, 0, 1});
  a.config = config_register(Product::U65, 256 * cores, 48 * cores);
  a.register_map = RegisterMap::U65;
  a.pmu_event_counters = 4;
  a.pmu_events = pmu_events_of(a.register_map);
  a.absent_commands.reserve(8);
  for (unsigned n = 0; n < 8; ++n)
    a.absent_commands.push_back(static_cast<Cmd>(static_cast<uint16_t>(Cmd::NPU_SET_USER_DEFINED0) + n));
  return a;
}

// Ethos-U85: Vela 5.1's s_EthosU85Configs (ethos_u85.cpp @478f864f) for MACs, weight decoders, micro-blocks, the
// IFM/accumulator/output/chaining buffers, AXI ports, and s_EthosU85PerfInfo for the output unit's rates (8-, 16-,
// 32-, 64-bit, chained/32-bit input, 32-bit binary; activation, transposed); ethos_u85.hpp: a 2 KiB LUT RAM, four
// outstanding DMAs. ethosu85_interface.h: the ID (architecture 2.0.0, product 7, r0p0, status 1), CONFIG's fields
// (command stream version 1, log2 of the AXI ports and weight decoders), 6-bit outstanding-read and 5-bit
// outstanding-write fields in AXI_SRAM/AXI_EXT. The ISA's addresses are 40 bits; architecture_features.py: 16-byte
// AXI ports. The CONFIG words this gives are those Vela writes into its payload headers (corpus-u85). The read
// buffers per channel: channelRBs of s_EthosU85Configs (Mem2Mem, IFM stream, weights, IFM, scales; not the fast
// weights'), in 16-byte words, which Vela's ChannelBW divides by the burst.
Architecture u85(Variant v, std::string_view name, unsigned macs, unsigned weight_decoders,
                 std::vector<enums::microblock> microblocks, MicroBlock ifm, Architecture::Buffers buffers,
                 unsigned sram_ports, unsigned ext_ports, Architecture::ReadBuffers read_buffers,
                 std::array<double, 8> output, std::array<double, 3> activation) {
  Architecture a{};
  a.variant = v;
  a.name = name;
  a.product = Product::U85;
  a.isa = IsaVersion::V2;
  a.cores = 1;
  a.macs_per_core = macs;
  for (enums::microblock m : microblocks) {
    static constexpr unsigned kHeight[] = {1, 1, 1, 2, 2, 4}, kWidth[] = {1, 2, 4, 2, 4, 4};
    const auto i = static_cast<size_t>(m);
    a.microblocks.push_back({m, MicroBlock{kWidth[i], kHeight[i], macs / (8 * kWidth[i] * kHeight[i])}});
  }
  a.ofm_ublock = a.microblocks.front().second;
  a.ifm_ublock = ifm;
  a.buffers = buffers;
  a.weight_decoders = weight_decoders;
  a.axi_sram_ports = sram_ports;
  a.axi_ext_ports = ext_ports;
  a.read_buffer_words = read_buffers;
  a.address_bits = 40;
  a.axi_bytes_per_beat = 16;
  a.dma_queue_depth = 4;
  a.dma_dimensions = 3;
  a.max_outstanding_reads = 64;
  a.max_outstanding_writes = 32;
  a.output_cycles_per_element = output;
  a.activation_cycles_per_element = activation;
  a.default_system = "Ethos_U85_SYS_DRAM_Mid";
  a.default_memory_mode = "Dedicated_Sram_384KB";
  a.id = id_register({2, 0, 0, 7, 0, 0, 1});
  uint32_t c = 0;
  c = set(c, RegField::CONFIG_macs_per_cc, log2(macs));
  c = set(c, RegField::CONFIG_cmd_stream_version, 1);
  c = set(c, RegField::U85_CONFIG_num_axi_sram, log2(sram_ports));
  c = set(c, RegField::U85_CONFIG_num_axi_ext, log2(ext_ports));
  c = set(c, RegField::U85_CONFIG_num_wd, log2(weight_decoders));
  c = set(c, RegField::CONFIG_product, static_cast<uint32_t>(Product::U85));
  a.config = c;
  // ethosu85_interface.h: the PMU and debug status registers 0x1000 up, 8 event counters (pmu_ethosu.h
  // ETHOSU_PMU_NCOUNTERS, PMCR.num_event_cnt's reset value).
  a.register_map = RegisterMap::U85;
  a.pmu_event_counters = 8;
  a.pmu_events = pmu_events_of(a.register_map);
  return a;
}

const std::vector<Architecture>& table() {
  using U = enums::microblock;
  static const std::vector<Architecture> kTable = {
      u55(Variant::U55_32, "ethos-u55-32", 32, {1, 1, 4}, {1, 1, 8}, 16, {2, 2, 2, 2, 4, 4, 4, 4}, 1,
          {2.0, 3.0, 3.0, 3.0, 4.0, 6.0, 1.0, 2.0}, {1.0, 1.0, 0.0}),
      u55(Variant::U55_64, "ethos-u55-64", 64, {1, 1, 8}, {1, 1, 8}, 16, {2, 2, 2, 2, 4, 4, 4, 8}, 2,
          {1.0, 1.5, 1.5, 1.5, 2.0, 3.0, 0.5, 1.0}, {1.0, 1.0, 0.0}),
      u55(Variant::U55_128, "ethos-u55-128", 128, {2, 1, 8}, {2, 1, 8}, 24, {4, 4, 4, 4, 8, 4, 8, 12}, 4,
          {0.75, 1.25, 0.75, 0.75, 1.0, 1.5, 0.25, 0.5}, {1.0, 0.5, 0.0}),
      u55(Variant::U55_256, "ethos-u55-256", 256, {2, 2, 8}, {2, 2, 8}, 48, {8, 8, 8, 8, 16, 8, 16, 20}, 8,
          {0.625, 1.125, 0.5, 0.375, 0.5, 0.75, 0.125, 0.25}, {1.0, 0.25, 0.0}),
      u65(Variant::U65_256, "ethos-u65-256", 1),
      u65(Variant::U65_512, "ethos-u65-512", 2),
      u85(Variant::U85_128, "ethos-u85-128", 128, 1, {U::U1X2, U::U1X1}, {2, 1, 8}, {8192, 8192, 2048, 768, 2048}, 2,
          1, {64, 64, 128, 104, 16}, {0.5, 0.5, 0.5, 1.0, 1.0, 1.0}, {0.5, 1.0}),
      u85(Variant::U85_256, "ethos-u85-256", 256, 1, {U::U1X2, U::U1X4, U::U2X2}, {2, 2, 8},
          {16384, 16384, 2048, 1536, 2048}, 2, 1, {104, 104, 128, 128, 16},
          {0.25, 0.25, 0.25, 0.5, 0.5, 0.5}, {0.25, 0.5}),
      u85(Variant::U85_512, "ethos-u85-512", 512, 2, {U::U2X2, U::U1X4}, {2, 2, 16}, {16384, 32768, 4096, 3072, 2048},
          2, 1, {128, 128, 256, 128, 16}, {0.125, 0.125, 0.25, 0.5, 0.25, 0.25}, {0.125, 0.25}),
      u85(Variant::U85_1024, "ethos-u85-1024", 1024, 4, {U::U2X2, U::U1X4, U::U2X4}, {2, 4, 16},
          {16384, 65536, 4096, 6144, 2048}, 2, 2, {256, 256, 416, 256, 16},
          {0.0625, 0.125, 0.25, 0.5, 0.125, 0.25}, {0.0625, 0.125}),
      u85(Variant::U85_2048, "ethos-u85-2048", 2048, 4, {U::U2X2, U::U1X4, U::U4X4}, {4, 4, 16},
          {32768, 131072, 8192, 12288, 2048}, 4, 2, {256, 256, 512, 256, 16},
          {0.03125, 0.0625, 0.125, 0.25, 0.0625, 0.125}, {0.03125, 0.0625}),
  };
  return kTable;
}

}  // namespace

Variant most_cores(Variant v) {
  const Architecture& a = architecture(v);
  Variant best = v;
  for (const Variant other : variants()) {
    const Architecture& b = architecture(other);
    if (b.product == a.product && b.cores > architecture(best).cores) best = other;
  }
  return best;
}

bool Architecture::has_command(Cmd c) const {
  return std::find(absent_commands.begin(), absent_commands.end(), c) == absent_commands.end();
}

std::string Architecture::describe() const {
  return std::string(name) + " (" + product_name(product) + ", " +
         std::to_string(macs()) + " MACs)";
}

const Architecture& architecture(Variant v) {
  for (const Architecture& a : table())
    if (a.variant == v) return a;
  return table().front();  // unreachable: every Variant has an entry
}

const std::vector<Variant>& variants() {
  static const std::vector<Variant> kVariants = [] {
    std::vector<Variant> out;
    for (const Architecture& a : table()) out.push_back(a.variant);
    return out;
  }();
  return kVariants;
}

const Architecture* find_architecture(std::string_view name) {
  for (const Architecture& a : table())
    if (a.name == name) return &a;
  return nullptr;
}

std::string variant_names() {
  std::string out;
  for (const Architecture& a : table()) out += (out.empty() ? "" : ", ") + std::string(a.name);
  return out;
}

const Architecture* from_config_register(uint32_t config) {
  for (const Architecture& a : table())
    if (a.config == config) return &a;
  return nullptr;
}

const Architecture* find_architecture(Product product, unsigned macs) {
  for (const Architecture& a : table())
    if (a.product == product && a.macs() == macs) return &a;
  return nullptr;
}

const char* product_name(Product product) {
  switch (product) {
    case Product::U55: return "Ethos-U55";
    case Product::U65: return "Ethos-U65";
    case Product::U85: return "Ethos-U85";
  }
  return "Ethos-U";
}

std::string accelerator_name(Product product, unsigned macs) {
  std::string name = product_name(product);
  for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return name + "-" + std::to_string(macs);
}

std::optional<std::string> config_mismatch(const Architecture& arch, uint32_t config) {
  std::string what;
  const auto field = [&](RegField f, const char* name) {
    const uint32_t want = get(config, f), have = get(arch.config, f);
    if (want != have)
      what += (what.empty() ? "" : ", ") + std::string(name) + " " + std::to_string(want) + " (the NPU's " +
              std::to_string(have) + ")";
  };
  field(RegField::CONFIG_product, "product");
  field(RegField::CONFIG_macs_per_cc, "macs_per_cc");
  field(RegField::CONFIG_cmd_stream_version, "cmd_stream_version");
  // The U85's driver also compares its AXI ports (not its weight decoders).
  if (arch.product == Product::U85 && get(config, RegField::CONFIG_product) == static_cast<uint32_t>(Product::U85)) {
    field(RegField::U85_CONFIG_num_axi_sram, "num_axi_sram");
    field(RegField::U85_CONFIG_num_axi_ext, "num_axi_ext");
  }
  if (get(config, RegField::CONFIG_custom_dma) && !get(arch.config, RegField::CONFIG_custom_dma))
    what += std::string(what.empty() ? "" : ", ") + "custom DMA (the NPU has none)";
  if (what.empty()) return std::nullopt;
  return what;
}

}  // namespace ethosu::isa

namespace ethosu_sim {

std::optional<Variant> parse_variant(const std::string& name) {
  const ethosu::isa::Architecture* a = ethosu::isa::find_architecture(name);
  if (!a) return std::nullopt;
  return a->variant;
}

const char* variant_name(Variant v) { return ethosu::isa::architecture(v).name.data(); }

}  // namespace ethosu_sim
