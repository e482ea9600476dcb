#include "host/cli/inputs.h"

#include <filesystem>

#include "host/formats/payload.h"
#include "sim/error.h"

namespace ethosu::cli {

std::vector<StreamInput> load_streams(const std::string& path) {
  const auto file = host::read_npu_file_bytes(path);
  const auto npu = host::read_npu_file(file, path);
  // Classification is by content; a .tflite name that is not one is the user's mistake, not a stream.
  if (npu.kind != host::NpuFileKind::TFLITE && std::filesystem::path(path).extension() == ".tflite")
    throw InputError(path + ": not a TFLite model (no \"TFL3\" identifier at byte 4)");
  std::vector<StreamInput> out;
  if (npu.kind != host::NpuFileKind::TFLITE) {
    out.push_back({path, "", npu.command_stream, {}});
    return out;
  }
  const auto& ops = npu.model->ethosu_operators;
  if (ops.empty()) throw InputError(path + ": the model has no ethos-u operator (was it compiled by Vela?)");
  for (const auto& op : ops) {
    const std::string where = "ethos-u operator " + std::to_string(op.operator_index) + " of subgraph " +
                              std::to_string(op.subgraph);
    StreamInput in{path + ", " + where, where, op.payload.command_stream, {}};
    in.region_size_bytes[0] = op.flash.size();
    in.region_size_bytes[1] = op.scratch_bytes;
    in.region_size_bytes[2] = op.scratch_fast_bytes;
    if (op.payload.separate_io_regions) {
      in.region_size_bytes[host::kSeparateInputRegion] = op.input_region_bytes;
      in.region_size_bytes[host::kSeparateOutputRegion] = op.output_region_bytes;
    }
    out.push_back(std::move(in));
  }
  return out;
}

}  // namespace ethosu::cli
