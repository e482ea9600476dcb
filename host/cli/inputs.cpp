#include "host/cli/inputs.h"

#include <filesystem>

#include "host/cli/args.h"
#include "sim/files.h"
#include "host/formats/payload.h"
#include "isa/registers.h"
#include "sim/error.h"

namespace ethosu::cli {

std::optional<isa::Variant> variant_option(const Args& a) {
  const auto v = a.value("--variant");
  if (!v) return std::nullopt;
  const auto named = isa::parse_variant(*v);
  if (!named) throw UsageError("--variant: unknown variant '" + *v + "'; known: " + isa::variant_names());
  return named;
}

const isa::Architecture& architecture_of(const StreamInput& in, std::optional<isa::Variant> named) {
  if (named) return isa::architecture(*named);
  if (in.payload_config)
    if (const isa::Architecture* a = isa::from_config_register(*in.payload_config)) return *a;
  return isa::architecture(isa::kDefaultVariant);
}

isa::IsaVersion isa_of(const StreamInput& in, std::optional<isa::Variant> named) {
  if (!named && in.payload_config && !isa::from_config_register(*in.payload_config))
    return isa::get(*in.payload_config, isa::RegField::CONFIG_product) == static_cast<uint32_t>(isa::Product::U85)
               ? isa::IsaVersion::V2
               : isa::IsaVersion::V1;
  return architecture_of(in, named).isa;
}

std::vector<StreamInput> load_streams(const std::string& path) {
  const auto file = host::read_npu_file_bytes(path);
  const auto npu = host::read_npu_file(file, path);
  // Classification is by content; a .tflite name that is not one is the user's mistake, not a stream.
  if (npu.kind != host::NpuFileKind::TFLITE && std::filesystem::path(path).extension() == ".tflite")
    throw InputError(path + ": not a TFLite model (no \"TFL3\" identifier at byte 4)");
  std::vector<StreamInput> out;
  if (npu.kind != host::NpuFileKind::TFLITE) {
    StreamInput in{path, "", npu.command_stream, {}, std::nullopt, std::nullopt};
    if (npu.payload && npu.payload->config) {
      in.payload_config = npu.payload->config->config_word;
      in.payload_id = npu.payload->config->id_word;
    }
    out.push_back(std::move(in));
    return out;
  }
  const auto& ops = npu.model->ethosu_operators;
  if (ops.empty()) throw InputError(path + ": the model has no ethos-u operator (was it compiled by Vela?)");
  for (const auto& op : ops) {
    const std::string where = "ethos-u operator " + std::to_string(op.operator_index) + " of subgraph " +
                              std::to_string(op.subgraph);
    StreamInput in{path + ", " + where, where, op.payload.command_stream, {}, std::nullopt, std::nullopt};
    in.region_size_bytes[0] = op.flash.size();
    in.region_size_bytes[1] = op.scratch_bytes;
    in.region_size_bytes[2] = op.scratch_fast_bytes;
    if (op.payload.config) {
      in.payload_config = op.payload.config->config_word;
      in.payload_id = op.payload.config->id_word;
    }
    if (op.payload.separate_io_regions) {
      in.region_size_bytes[host::kSeparateInputRegion] = op.input_region_bytes;
      in.region_size_bytes[host::kSeparateOutputRegion] = op.output_region_bytes;
    }
    out.push_back(std::move(in));
  }
  return out;
}

}  // namespace ethosu::cli
