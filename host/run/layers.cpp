#include "host/run/layers.h"

#include <array>
#include <set>
#include <vector>

#include "isa/operation.h"
#include "models/npu/mac/mac_timing.h"
#include "sim/error.h"
#include "sim/files.h"

namespace ethosu::host {

namespace {

using isa::OpKind;

// What the stripes of one layer share, split by height or by OFM channels (each channel slice with its own weight
// and scale streams): the operation with its kernel, its OFM width and, for a convolution, its IFM depth (the
// other kinds' IFM channels are their OFM channels, sliced too).
using Signature = std::array<uint64_t, 9>;

struct StreamOp {
  uint32_t offset;
  OpKind kind;
  uint64_t macs;  // as Vela counts them (npu::macs_per_ofm_element)
  Signature signature;
};

Signature signature_of(const isa::Operation& op) {
  return {static_cast<uint64_t>(op.kind), static_cast<uint64_t>(op.pooling_mode),
          static_cast<uint64_t>(op.elementwise_mode), op.kernel.width, op.kernel.height, op.kernel.stride_x,
          op.kernel.stride_y, op.kind == OpKind::CONV ? op.ifm.depth : 0, op.ofm.width};
}

std::vector<StreamOp> operations(const isa::Stream& stream) {
  std::vector<StreamOp> ops;
  isa::walk(stream, [&](const isa::Event& e, const isa::StreamState&) {
    if (e.kind != isa::EventKind::OPERATION) return;
    const isa::Operation& op = *e.operation;
    ops.push_back({e.command.offset, op.kind, op.is_kernel() ? uint64_t{op.ofm.width} * op.ofm.height * op.ofm.depth * npu::macs_per_ofm_element(op) : 0,
                   signature_of(op)});
  });
  return ops;
}

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// The kind of NPU operation a CSV's operator (after Vela's rewriting) runs as; nothing when not known here.
std::optional<OpKind> kind_of(const std::string& op) {
  if (op == "Memcpy") return OpKind::DMA;  // a RESHAPE or the like, done by DMA
  if (contains(op, "DepthwiseConv")) return OpKind::DEPTHWISE;
  if (contains(op, "Conv") || contains(op, "FullyConnected") || contains(op, "MatMul")) return OpKind::CONV;
  if (contains(op, "Pool") || contains(op, "ReduceSum")) return OpKind::POOL;
  static const std::set<std::string> elementwise{"Add",  "Sub", "Mul", "Maximum", "Minimum", "SHL", "SHR",
                                                 "Asr",  "CLZ", "Abs", "LeakyRelu", "Min", "Max"};
  if (elementwise.count(op)) return OpKind::ELEMENTWISE;
  return std::nullopt;
}

struct Layer {
  const CsvLayer* row;
  uint64_t macs_left;
  bool started = false;
  Signature signature{};  // of its first operation
};

LayerNames from_listing(const std::vector<StreamOp>& ops, const std::vector<std::vector<ListedOperation>>& listings) {
  LayerNames out;
  for (const auto& listed : listings) {
    if (listed.size() != ops.size()) continue;
    for (size_t k = 0; k < ops.size(); ++k)
      if (!listed[k].layer.empty()) out.names[ops[k].offset] = listed[k].layer;
    out.note = "layer names from Vela's register listing";
    return out;
  }
  std::string counts;
  for (const auto& listed : listings) counts += (counts.empty() ? "" : ", ") + std::to_string(listed.size());
  out.note = "Vela's register listing has " + (counts.empty() ? std::string("no") : counts) +
             " operations, the stream " + std::to_string(ops.size()) + ": no layer names";
  return out;
}

LayerNames from_csv(const std::vector<StreamOp>& ops, const std::vector<CsvLayer>& rows,
                    const std::map<uint32_t, std::string>& operators) {
  std::vector<Layer> layers;
  for (const CsvLayer& r : rows)
    if (r.on_npu && r.cycles > 0) layers.push_back({&r, r.macs});
  const auto matches = [&](const StreamOp& op, const Layer& l) {
    const auto it = operators.find(op.offset);
    if (it != operators.end()) return it->second == l.row->operator_name;
    const std::optional<OpKind> k = kind_of(l.row->operator_name);
    return !k || *k == op.kind;
  };
  LayerNames out;
  size_t next = 0;              // the first layer not started, in the CSV's order
  std::vector<Layer*> started;  // in the order they started
  std::vector<uint32_t> dmas;   // waiting for the next kernel operation's layer
  for (const StreamOp& op : ops) {
    while (next < layers.size() && layers[next].started) ++next;
    if (op.kind == OpKind::DMA) {
      // A layer done by DMA when it is next, else (weights, a LUT) the layer of the kernel operation that follows.
      if (next < layers.size() && kind_of(layers[next].row->operator_name) == OpKind::DMA) {
        layers[next].started = true;
        out.names[op.offset] = layers[next].row->name;
      } else {
        dmas.push_back(op.offset);
      }
      continue;
    }
    // Another stripe of a layer started and not done: the same signature, MACs left for it.
    Layer* chosen = nullptr;
    if (op.macs)
      for (size_t k = 0; k < layers.size() && !chosen; ++k)
        if (layers[k].started && layers[k].signature == op.signature && layers[k].macs_left >= op.macs)
          chosen = &layers[k];
    if (!chosen && next < layers.size() && matches(op, layers[next])) chosen = &layers[next];
    // Another stripe of a layer without MACs (elementwise): the latest started with this signature.
    for (auto it = started.rbegin(); it != started.rend() && !chosen && !op.macs; ++it)
      if (!(*it)->row->macs && (*it)->signature == op.signature) chosen = *it;
    for (size_t k = next; k < layers.size() && !chosen; ++k)
      if (!layers[k].started && matches(op, layers[k])) chosen = &layers[k];
    if (!chosen) {
      dmas.clear();
      continue;
    }
    if (!chosen->started) {
      chosen->started = true;
      chosen->signature = op.signature;
      started.push_back(chosen);
    }
    chosen->macs_left -= std::min(chosen->macs_left, op.macs);
    out.names[op.offset] = chosen->row->name;
    for (const uint32_t d : dmas) out.names[d] = chosen->row->name;
    dmas.clear();
  }
  size_t unstarted = 0;
  for (const Layer& l : layers) unstarted += !l.started;
  out.note = "layer names matched from Vela's per-layer CSV (" + std::to_string(out.names.size()) + " of " +
             std::to_string(ops.size()) + " operations named" +
             (unstarted ? ", " + std::to_string(unstarted) + " layers unmatched" : std::string()) + ")";
  return out;
}

}  // namespace

LayerNames name_layers(const isa::Stream& stream, const VelaLayers& vela) {
  const std::vector<StreamOp> ops = operations(stream);
  if (vela.listing_names_layers()) return from_listing(ops, vela.listings);
  // Vela 4's operators, from the listed subgraph whose operations are the stream's.
  std::map<uint32_t, std::string> operators;
  std::set<uint32_t> offsets;
  for (const StreamOp& op : ops) offsets.insert(op.offset);
  for (const auto& listed : vela.listings) {
    std::set<uint32_t> listed_offsets;
    for (const ListedOperation& op : listed) listed_offsets.insert(op.offset);
    if (listed_offsets != offsets) continue;
    for (const ListedOperation& op : listed) operators[op.offset] = op.operator_name;
    break;
  }
  if (vela.tables.empty()) return {{}, "Vela's register listing names no layers and no per-layer CSV was given"};
  // A split model's CSV: the subgraph whose NPU layers count the stream's MACs (the nearest, when none does).
  uint64_t stream_macs = 0;
  for (const StreamOp& op : ops) stream_macs += op.macs;
  const std::vector<CsvLayer>* table = &vela.tables.front();
  uint64_t best = UINT64_MAX;
  for (const auto& t : vela.tables) {
    uint64_t macs = 0;
    for (const CsvLayer& l : t) macs += l.on_npu ? l.macs : 0;
    const uint64_t distance = macs > stream_macs ? macs - stream_macs : stream_macs - macs;
    if (distance < best) {
      best = distance;
      table = &t;
    }
  }
  return from_csv(ops, *table, operators);
}

std::optional<VelaLayers> vela_layers_beside(const std::filesystem::path& dir) {
  const std::filesystem::path listing = dir / "vela_cmdstream.txt", csv = dir / "vela_per_layer.csv";
  std::optional<VelaLayers> out;
  if (std::filesystem::is_regular_file(listing)) out = vela_layers_from(listing);
  if (!(out && out->listing_names_layers()) && std::filesystem::is_regular_file(csv)) {
    VelaLayers from_csv_file = vela_layers_from(csv);
    if (!out) out = VelaLayers{};
    out->tables = std::move(from_csv_file.tables);
  }
  return out;
}

VelaLayers vela_layers_from(const std::filesystem::path& file) {
  return read_vela_layers(sim::read_text_file(file), file.string());
}

}  // namespace ethosu::host
