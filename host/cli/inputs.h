// Loading the command stream(s) a CLI command works on, from any file kind read_npu_file() accepts.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "isa/architecture.h"

namespace ethosu::cli {

class Args;

struct StreamInput {
  std::string origin;  // "model.tflite, ethos-u operator 3 (subgraph 0)" etc., for messages
  std::string label;   // heading when a file holds several streams; empty for a plain stream
  std::vector<uint8_t> bytes;
  // Region sizes the file itself implies (a .tflite's flash, scratch and scratch_fast tensors).
  std::array<std::optional<uint64_t>, 8> region_size_bytes{};
  std::optional<uint32_t> payload_config;  // the CONFIG and ID words of a payload's header
  std::optional<uint32_t> payload_id;
};

// The configuration a stream is taken for: the one named, else the one its payload header's CONFIG word is, else
// the default; and its command set (a header of an unknown configuration still names its product's set).
const isa::Architecture& architecture_of(const StreamInput& in, std::optional<isa::Variant> named);
isa::IsaVersion isa_of(const StreamInput& in, std::optional<isa::Variant> named);

// --variant NAME, if given; a name no configuration has is a usage error listing them.
std::optional<isa::Variant> variant_option(const Args& a);

// One entry per command stream: one for a bare stream or COP1 payload, one per ethos-u operator of a
// .tflite. Throws ethosu::InputError (named file, what is wrong) for unreadable or malformed files.
std::vector<StreamInput> load_streams(const std::string& path);

}  // namespace ethosu::cli
