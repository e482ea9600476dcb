// The layer of the compiled network each operation of a stream belongs to, from Vela's files
// (host/formats/vela_layers.h), for the report, the table, the trace and Python.
//
// Contract: name_layers() gives every operation of the stream (its NPU_OP_* kernel or DMA command, by stream
// offset) the name of its layer where Vela's files tell it:
// - a register listing with names (Vela 3) is exact: the listed subgraph with as many operations as the stream
//   names them in order (a DMA by the layer it serves);
// - a per-layer CSV is matched (for a split model, the subgraph's table whose MACs are the stream's). Vela runs
//   its layers in the CSV's order, but a layer may take several operations (stripes, by height or by OFM channels)
//   and cascaded layers interleave theirs. The stripes of a layer share a signature (the operation, its kernel, its
//   OFM width, a convolution's IFM depth) that neighbouring layers rarely share. A kernel operation goes to the
//   earliest started layer with its signature whose MACs left cover the operation's; else to the next layer not
//   started, when its operator matches; else, without MACs, to the latest started layer without MACs with its
//   signature; else to the first later layer not started whose operator matches. Operators match by Vela 4's
//   listing of the stream when it is given (its comments name the CSV's "NNG Operator"), else by kind
//   (convolution, depthwise, pooling, elementwise; an operator layers.cpp does not know matches any). Layers
//   without cycles were fused into the one before and take no operation; a layer done by DMA (Vela's Memcpy)
//   takes the DMA met when it is next; any other DMA the layer of the kernel operation after it (whose weights or
//   LUT it fetches). On the corpus this names 4,008 of 4,009 operations as Vela's listing does.
// `note` says what was used, or why nothing was ("the listing has 95 operations, the stream 333"). Operations the
// files do not cover are absent from `names`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "host/formats/vela_layers.h"
#include "isa/decoder.h"

namespace ethosu::host {

struct LayerNames {
  std::map<uint32_t, std::string> names;  // stream offset of the operation's NPU_OP_* command -> layer
  std::string note;
};

LayerNames name_layers(const isa::Stream& stream, const VelaLayers& vela);

// Vela's files beside a job, as Vela's output folder and the corpus keep them: vela_cmdstream.txt and
// vela_per_layer.csv in `dir` (a listing with names alone; else the CSV with the listing's operators). Nothing
// when neither is there; InputError when one is malformed.
std::optional<VelaLayers> vela_layers_beside(const std::filesystem::path& dir);

// The file given by the user (--vela-layers, Job(..., layers=...)): a listing or a CSV.
VelaLayers vela_layers_from(const std::filesystem::path& file);

}  // namespace ethosu::host
