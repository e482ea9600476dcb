// Command-stream validator: what memory a stream touches, and what the hardware or the Linux driver
// would refuse.
//
// Contract: validate() walks a decoded stream like the Linux accel/ethosu validator (spec 06 section 4.4)
// but with the exact access geometry of the programmer's model (spec 03 sections 2, 3, 10): for each
// region 0..7 and access class it records the lowest byte offset and the end (exclusive) of the bytes
// touched. With region sizes given, every access outside its region becomes a finding with the command
// offset, operation, access class, region, byte range and region size. It also checks the SHRAM layout
// (spec 05 section 3; not on the U85, which has none), operations or values the U65 does not support, the alignment
// rules of spec 01 section 6, and the Linux validator's own rejections. On the U85 a feature map in the chaining
// buffer or in no storage touches no memory; a chained OFM must be consumed by the next operation and a chained
// input produced by the previous one, and NPU_OP_BRANCH must land on a command of the stream (a careful driver's
// rules). Decoder diagnostics are carried over.
// render() formats a report for `ethosu-sim validate`.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "isa/access.h"
#include "isa/decoder.h"
#include "isa/operation.h"
#include "isa/architecture.h"

namespace ethosu::isa {

struct ValidatorOptions {
  Variant variant = kDefaultVariant;
  std::array<std::optional<uint64_t>, kRegionCount> region_size_bytes{};  // unknown sizes are not checked
};

enum class Category : uint8_t {
  DECODE,         // decoder diagnostic
  OUT_OF_REGION,  // an access outside [0, region size) or beyond the 40-bit offset space
  SHRAM,          // IB_END/AB_START/IFM2_IB_START/OFM tile against SHRAM capacity, internal DMA bounds
  UNSUPPORTED,    // values the U65 cannot run or that the spec marks unused/undefined
  GEOMETRY,       // inconsistent extents (depths, kernel registers)
  ALIGNMENT,      // spec 01 section 6 alignment rules
  LINUX,          // rejected by the Linux accel/ethosu command-stream validator (or by a careful driver)
  LINUX_VERSION,  // rejected by one version of the Linux validator and accepted by another (the message says which)
};
const char* category_name(Category c);

struct Finding {
  Severity severity = Severity::ERROR;
  Category category = Category::DECODE;
  uint32_t offset = 0;            // stream byte offset of the command
  std::string operation;          // command name, e.g. "NPU_OP_CONV"
  std::optional<Access> access;   // OUT_OF_REGION (and some others)
  int region = -1;                // -1 when no region applies
  Span range;                     // bytes, relative to the region (or SHRAM)
  std::optional<uint64_t> region_size_bytes;
  std::string message;            // complete one-line text, starts with the hex offset
};

// Bytes one access class touched in one region: [lowest, end).
struct Extent {
  bool used = false;
  int64_t lowest = 0;
  int64_t end = 0;
  void add(const Span& s);
  void add(const Extent& e);
};

struct Report {
  Variant variant = kDefaultVariant;
  std::array<std::array<Extent, kAccessCount>, kRegionCount> extents{};  // [region][access]
  Extent shram;                 // internal DMA endpoints, SHRAM byte addresses
  std::array<std::optional<uint64_t>, kRegionCount> region_size_bytes{};
  std::vector<Finding> findings;
  size_t operations = 0;        // kernel ops + DMAs walked

  const Extent& extent(unsigned region, Access a) const { return extents[region][static_cast<size_t>(a)]; }
  Extent region_extent(unsigned region) const;  // all access classes
  Extent reads(unsigned region) const;          // IFM, IFM2, weights, scales, DMA source
  Extent writes(unsigned region) const;         // OFM, DMA destination
  size_t count(Severity s) const;
  size_t count(Category c) const;
  bool ok() const { return count(Severity::ERROR) == 0; }
};

Report validate(const Stream& s, const ValidatorOptions& options = {});

// Bytes a feature-map access covers: the union over the four tiles of the (x, y, c) box
// [0, width) x [0, height) x [0, depth), NHCWB16 depth rounded up to whole 16-channel bricks.
// Empty when any extent is 0.
Span feature_map_span(const FeatureMap& fm, uint32_t width, uint32_t height, uint32_t depth);

// Text: a summary line, the per-region extent table, then one line per finding.
std::string render(const Report& r);

}  // namespace ethosu::isa
