// Vela's descriptions of a compiled stream's layers, from the text files Vela writes beside a model:
// - the register listing (`--verbose-register-command-stream`, saved as vela_cmdstream.txt). Vela 3 first lists
//   every NPU operation of the stream in order with the name of the layer it belongs to ("Register-Level Command
//   Stream: Input", lines "<n> Conv2D name=<layer>: <NpuStripe: ...>" and "<n> Dma name=<tensor>, ...: <DMA:
//   name=<layer>, ...>"); Vela 4 writes, before each operation's commands, a comment with its operator and no
//   name ("// Conv2D , subOps:[  Relu6 ], size=3,3 ...", "// DMA src: ...").
// - the per-layer CSV (`--verbose-performance`, saved as vela_per_layer.csv): one row per layer in execution
//   order, with its operator after Vela's graph rewriting ("NNG Operator"), its cycles, its MAC count and its name;
//   layers fused into the one before have no cycles; Vela 4 also says where each ran ("Target"). A split model's
//   file has one table per NPU subgraph, each after its own header line.
//
// Contract: read_vela_layers() recognises either from its content and throws ethosu::InputError naming `what`
// (the file) when it is neither or is malformed. A split model's listing or CSV gives one list per NPU subgraph.
// Plain text parsing: any input ends in a result or InputError.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ethosu::host {

// One operation of a register listing, in stream order.
struct ListedOperation {
  std::string layer;     // Vela 3: the layer's name (for a DMA, the layer it serves); Vela 4: empty
  std::string operator_name;  // Vela 4: the operator of its comment ("Conv2D", "DMA"); Vela 3: empty
  uint32_t offset = 0;   // Vela 4: the stream offset of its NPU_OP_* command; Vela 3: 0 (listed in order)
};

// One row of the per-layer CSV.
struct CsvLayer {
  std::string name;
  std::string operator_name;  // "NNG Operator": Conv2DBias, DepthwiseConv2D, MaxPool, Add, Relu6, ...
  uint64_t macs = 0;
  double cycles = 0;
  bool on_npu = true;  // Vela 4's Target; Vela 3 lists NPU layers only
};

struct VelaLayers {
  std::vector<std::vector<ListedOperation>> listings;  // from a listing: one per NPU subgraph
  std::vector<std::vector<CsvLayer>> tables;           // from a per-layer CSV: one per NPU subgraph
  bool listing_names_layers() const;                   // a listing of Vela 3's, with layer names
};

VelaLayers read_vela_layers(const std::string& text, const std::string& what);

}  // namespace ethosu::host
