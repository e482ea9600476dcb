// One description per Ethos-U configuration: every fact of the machine that the simulator's parts depend on, in
// one place, as Vela reads its `arch` object. The decoder, validator, functional and timed models, the
// configuration, the payload checks, the driver shims and the CLI ask it; no other file holds a configuration's
// facts or tests a configuration's name.
//
// Contract: architecture(v) is defined for every Variant; find_architecture() maps Vela's accelerator names
// ("ethos-u55-128") to it, from_config_register() a CONFIG word. Values are per core unless said otherwise.
// Sources, per entry in architecture.cpp: Vela 5.1 (hapv3/neural-compiler @478f864f, ethos_u55.cpp /
// ethos_u65.cpp configuration tables, ethos_u55.hpp constants, architecture_features.py), Arm's core driver
// (ethosu55_interface.h / ethosu65_interface.h, ethosu_device_u55_u65.c) and the spec (../shared/spec).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ethosu_sim/isa.h"
#include "isa/isa.h"
#include "isa/registers.h"

namespace ethosu::isa {

// The public enumeration (include/ethosu_sim/isa.h) under the name the simulator's own code uses.
using ethosu_sim::kDefaultVariant;
using ethosu_sim::kMaxEventCounters;
using ethosu_sim::parse_variant;
using ethosu_sim::Variant;
using ethosu_sim::variant_name;

// CONFIG.product.
enum class Product : uint8_t { U55 = 0, U65 = 1, U85 = 2 };

struct MicroBlock {
  unsigned w, h, d;  // elements, elements, channels
};

// The kinds of SHRAM buffer whose size goes in whole granules of banks, in Vela's order.
enum class ShramBuffer : uint8_t { IFM8, IFM16, IFM8_ELEMENTWISE, IFM16_ELEMENTWISE, IFM32, ACC16, ACC32, ACC40 };
inline constexpr size_t kShramBuffers = 8;

struct Architecture {
  Variant variant;
  std::string_view name;  // Vela's accelerator name
  Product product;
  IsaVersion isa;  // its command set
  unsigned cores;
  unsigned macs_per_core;  // 8x8-bit MACs per cycle
  MicroBlock ofm_ublock;   // the MAC array's OFM micro-block; its depth orders the weight stream's OFM channels
  MicroBlock ifm_ublock;
  // SHRAM per core in 1 KiB banks: the output banks at the bottom that the IFM buffer starts after, the LUT's two
  // banks at the top, which only configurations of more than 16 banks keep reserved for it (on the others the
  // accumulators of an operation without a LUT may use them, and a LUT is loaded again after such an operation).
  unsigned shram_banks;
  unsigned shram_output_banks;
  unsigned shram_lut_banks;
  bool lut_banks_reserved;
  std::array<unsigned, kShramBuffers> shram_granules;  // banks, by ShramBuffer
  unsigned elementwise_units;
  unsigned address_bits;        // QBASE, BASEPn and every address field
  unsigned axi_bytes_per_beat;  // the AXI data width
  unsigned dma_queue_depth;     // NPU_OP_DMA_START outstanding before the command controller waits
  unsigned dma_dimensions;      // 1: the DMA's stride modes D1 only; 3: D1, D2 and D3
  unsigned max_outstanding_reads, max_outstanding_writes;  // per AXI limiter (AXI_LIMITn's field widths)
  // The output unit's cycles per element by operation class, and per activation class (Vela's tables; see
  // models/npu/ao/ao_timing.h for the classes).
  std::array<double, 8> output_cycles_per_element;
  std::array<double, 3> activation_cycles_per_element;
  // The system preset a job on this configuration runs on unless one is named (host/config/system_config.h), and
  // the Vela memory mode a named vela.ini system config takes unless one is named: Vela's defaults for the family.
  std::string_view default_system;
  std::string_view default_memory_mode;
  uint32_t id;      // the ID register
  uint32_t config;  // the CONFIG register: product, log2(MACs), SHRAM KiB (all cores)
  RegisterMap register_map;  // where its registers sit (isa/registers.def)
  unsigned pmu_event_counters;  // PMEVCNTRn (PMCR.num_event_cnt)
  std::vector<const PmuEventInfo*> pmu_events;  // the events PMEVTYPERn may select, by hardware id
  std::vector<Cmd> absent_commands;  // commands of its command set this configuration does not have

  // The Ethos-U85's buffers instead of a SHRAM (bytes; 0 on the U55 and U65), its weight decoders, AXI ports and the
  // OFM micro-blocks ACC_FORMAT.microblock may select (height x width x depth, in the enum's order; empty before it).
  struct Buffers {
    unsigned ifm_bytes, acc_bytes, ob_bytes, cb_bytes, lut_bytes;
  } buffers{};
  unsigned weight_decoders = 1;
  unsigned axi_sram_ports = 1, axi_ext_ports = 1;
  // The U85's read buffer per memory channel, in 16-byte words (0 on the U55 and U65: no such limit known): the
  // read data each may have in flight. (Vela also lists one for fast-format weights, smaller than the weights' on
  // the 1024 only; the model's weight traffic does not tell the formats apart yet.)
  struct ReadBuffers {
    unsigned mem2mem, ifm_stream, weights, ifm, scales;
  } read_buffer_words{};
  std::vector<std::pair<enums::microblock, MicroBlock>> microblocks;

  unsigned macs() const { return macs_per_core * cores; }
  uint64_t shram_bytes() const { return uint64_t{shram_banks} * 1024; }  // per core
  // What an internal DMA destination addresses and the LUT lives in, per core: the SHRAM, or the U85's LUT RAM.
  uint64_t internal_memory_bytes() const { return shram_banks ? shram_bytes() : buffers.lut_bytes; }
  // The banks below the LUT an operation may use; an operation that uses a LUT leaves it its banks.
  unsigned usable_banks(bool op_uses_lut) const {
    return lut_banks_reserved || op_uses_lut ? shram_banks - shram_lut_banks : shram_banks;
  }
  uint64_t address_mask() const { return (uint64_t{1} << address_bits) - 1; }
  bool has_command(Cmd c) const;
  // Its PMU event of hardware id `hw_id` or of a name, or its core driver's index; nullptr if it has none.
  const PmuEventInfo* pmu_event(uint16_t hw_id) const { return find_pmu_event(hw_id, register_map); }
  const PmuEventInfo* pmu_event(std::string_view event_name) const { return find_pmu_event(event_name, register_map); }
  const PmuEventInfo* pmu_event_by_driver_index(uint16_t index) const {
    return find_pmu_event_by_driver_index(index, register_map);
  }
  // The core driver's index of an event of this configuration.
  uint16_t driver_index(const PmuEventInfo& e) const { return e.driver_index[static_cast<size_t>(register_map)]; }
  // Whether the simulator's operation semantics (functional and timed models) cover this configuration's command
  // set: both do (the U85's modes the model does not know are refused one by one, isa::unknown_behaviour).
  bool operations_modelled() const { return isa == IsaVersion::V1 || isa == IsaVersion::V2; }
  // "ethos-u55-128 (U55, 128 MACs)"
  std::string describe() const;
};

const Architecture& architecture(Variant v);
// Every configuration, in the order of the Variant enumeration.
const std::vector<Variant>& variants();
const Architecture* find_architecture(std::string_view name);
// The configuration of `v`'s product with the most cores (the U65-512 for a U65): a stream walked on it reaches every
// byte it would on any core of any configuration of that product.
Variant most_cores(Variant v);
// The names, for messages: "ethos-u55-32, ethos-u55-64, ..., ethos-u65-512".
std::string variant_names();
// The configuration whose CONFIG register reads `config`, if any; the one of a product with `macs` MACs in all, if
// any; Vela's accelerator name for a product and a MAC count ("ethos-u55-512" for one no configuration has).
const Architecture* from_config_register(uint32_t config);
const Architecture* find_architecture(Product product, unsigned macs);
std::string accelerator_name(Product product, unsigned macs);
const char* product_name(Product product);  // "Ethos-U85"
// The CONFIG fields a driver compares before it runs a payload built for `config` (Arm's core driver): product,
// MACs and command-stream version. Empty when they match `arch`'s, else what differs, for a message.
std::optional<std::string> config_mismatch(const Architecture& arch, uint32_t config);

}  // namespace ethosu::isa
