#include "host/firmware/cpu_ops.h"

// Header-only use: without a locale object from libflatbuffers (only strings that hold numbers would need it).
#define FLATBUFFERS_LOCALE_INDEPENDENT 0
#include <flatbuffers/flexbuffers.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numeric>

#include "sim/error.h"

namespace ethosu::host {

namespace {

constexpr int32_t kDequantize = 6;
constexpr const char* kDetectionPostProcess = "TFLite_Detection_PostProcess";

bool is_ethosu(const TfliteOperator& op) { return op.builtin_code == kTfliteBuiltinCustom && op.custom_code == "ethos-u"; }
bool is_detection(const TfliteOperator& op) {
  return op.builtin_code == kTfliteBuiltinCustom && op.custom_code == kDetectionPostProcess;
}

const TfliteSubgraph& npu_subgraph(const VelaModel& vm) {
  if (vm.ethosu_operators.size() != 1)
    throw InputError("expected one ethos-u operator, found " + std::to_string(vm.ethosu_operators.size()));
  return vm.model.subgraphs.at(vm.ethosu_operators.front().subgraph);
}

bool is_constant(const TfliteModel& m, const TfliteTensor& t) { return t.buffer != 0 && !m.buffer(t.buffer).empty(); }

// Arena offsets of the subgraph's tensors (see arena_offset()).
std::vector<std::optional<uint32_t>> layout(const VelaModel& vm) {
  const TfliteSubgraph& sg = npu_subgraph(vm);
  const uint32_t sgi = vm.ethosu_operators.front().subgraph;
  std::vector<std::optional<uint32_t>> offsets(sg.tensors.size());
  std::vector<bool> exchanged(sg.tensors.size(), false);
  for (int32_t i : sg.inputs)
    if (i >= 0 && static_cast<size_t>(i) < sg.tensors.size()) exchanged[i] = true;
  for (int32_t i : sg.outputs)
    if (i >= 0 && static_cast<size_t>(i) < sg.tensors.size()) exchanged[i] = true;
  for (const TfliteOperator& op : sg.operators) {
    if (is_ethosu(op)) continue;
    for (const auto* list : {&op.inputs, &op.outputs})
      for (int32_t i : *list)
        if (i >= 0) exchanged[i] = true;
  }
  uint64_t end = vm.ethosu_operators.front().scratch_bytes;
  for (size_t i = 0; i < sg.tensors.size(); ++i) {
    if (!exchanged[i] || is_constant(vm.model, sg.tensors[i])) continue;
    if (vm.offline_plan) offsets[i] = vm.offline_plan->offset_of(vm.model, sgi, static_cast<uint32_t>(i));
    if (offsets[i]) continue;
    end = (end + 15) / 16 * 16;
    if (end > UINT32_MAX) throw InputError("the graph's tensors do not fit a 4 GiB arena");
    offsets[i] = static_cast<uint32_t>(end);
    end += tflite_tensor_bytes(sg.tensors[i], "model");
  }
  return offsets;
}

// A tensor's storage during the run: in the arena, or the model's constant data.
class Tensors {
 public:
  Tensors(const VelaModel& vm, std::vector<uint8_t>& arena, std::string what)
      : vm_(vm), sg_(npu_subgraph(vm)), arena_(arena), offsets_(layout(vm)), what_(std::move(what)) {}

  const TfliteTensor& spec(int32_t i) const {
    if (i < 0 || static_cast<size_t>(i) >= sg_.tensors.size()) throw InputError(what_ + ": tensor index out of range");
    return sg_.tensors[i];
  }
  uint64_t bytes(int32_t i) const { return tflite_tensor_bytes(spec(i), what_); }

  const uint8_t* read(int32_t i) const {
    const TfliteTensor& t = spec(i);
    if (is_constant(vm_.model, t)) {
      const auto& b = vm_.model.buffer(t.buffer);
      if (b.size() < bytes(i)) throw InputError(what_ + ": constant tensor '" + t.name + "' has too few bytes");
      return b.data();
    }
    return at(i);
  }
  uint8_t* write(int32_t i) {
    if (is_constant(vm_.model, spec(i))) throw InputError(what_ + ": an operator writes constant tensor '" + spec(i).name + "'");
    return at(i);
  }

 private:
  uint8_t* at(int32_t i) const {
    const auto& o = offsets_.at(static_cast<size_t>(i));
    if (!o || *o + bytes(i) > arena_.size())
      throw InputError(what_ + ": tensor '" + spec(i).name + "' has no place in the arena");
    return arena_.data() + *o;
  }

  const VelaModel& vm_;
  const TfliteSubgraph& sg_;
  std::vector<uint8_t>& arena_;
  std::vector<std::optional<uint32_t>> offsets_;
  std::string what_;
};

uint64_t element_count(const TfliteTensor& t) {
  uint64_t n = 1;
  for (int32_t d : t.shape) n *= static_cast<uint64_t>(std::max(d, 0));
  return n;
}

// One quantized element as a float: (q - zero_point) * scale of its channel.
std::vector<float> dequantize(const TfliteTensor& t, const uint8_t* data, const std::string& what) {
  const uint64_t n = element_count(t);
  const auto type = static_cast<TfliteType>(t.type);
  if (type == TfliteType::FLOAT32) {
    std::vector<float> out(n);
    std::memcpy(out.data(), data, n * sizeof(float));
    return out;
  }
  if (type != TfliteType::INT8 && type != TfliteType::UINT8 && type != TfliteType::INT16)
    throw InputError(what + ": tensor '" + t.name + "' has a type DEQUANTIZE does not take (" + std::to_string(t.type) + ")");
  if (t.scale.empty()) throw InputError(what + ": tensor '" + t.name + "' has no quantization");
  // Per-channel parameters run along quantized_dimension; the channel of element k is (k / inner) % channels.
  const size_t channels = t.scale.size();
  uint64_t inner = 1;
  if (channels > 1) {
    const auto axis = static_cast<size_t>(t.quantized_dimension);
    if (axis >= t.shape.size() || static_cast<size_t>(t.shape[axis]) != channels)
      throw InputError(what + ": tensor '" + t.name + "' has per-channel scales that do not match its shape");
    for (size_t d = axis + 1; d < t.shape.size(); ++d) inner *= static_cast<uint64_t>(t.shape[d]);
  }
  std::vector<float> out(n);
  for (uint64_t k = 0; k < n; ++k) {
    const size_t c = channels > 1 ? static_cast<size_t>((k / inner) % channels) : 0;
    const int64_t zp = c < t.zero_point.size() ? t.zero_point[c] : 0;
    int32_t q;
    if (type == TfliteType::INT8) q = static_cast<int8_t>(data[k]);
    else if (type == TfliteType::UINT8) q = data[k];
    else {
      int16_t v;
      std::memcpy(&v, data + 2 * k, 2);
      q = v;
    }
    out[k] = static_cast<float>(q - zp) * t.scale[c];
  }
  return out;
}

void run_dequantize(const TfliteOperator& op, Tensors& tensors, const std::string& what) {
  if (op.inputs.size() != 1 || op.outputs.size() != 1) throw InputError(what + ": DEQUANTIZE needs one input and one output");
  const TfliteTensor& in = tensors.spec(op.inputs[0]);
  const TfliteTensor& out = tensors.spec(op.outputs[0]);
  if (out.type != static_cast<int>(TfliteType::FLOAT32) || element_count(in) != element_count(out) ||
      in.type == static_cast<int>(TfliteType::FLOAT32))
    throw InputError(what + ": DEQUANTIZE from '" + in.name + "' to '" + out.name + "': types or sizes do not match");
  const std::vector<float> values = dequantize(in, tensors.read(op.inputs[0]), what);
  std::memcpy(tensors.write(op.outputs[0]), values.data(), values.size() * sizeof(float));
}

// ---- detection post-processing ----

struct DetectionOptions {
  int max_detections = 0, max_classes_per_detection = 1, detections_per_class = 100, num_classes = 0;
  bool use_regular_nms = false;
  float score_threshold = 0, iou_threshold = 0, y_scale = 0, x_scale = 0, h_scale = 0, w_scale = 0;
};

DetectionOptions detection_options(const std::vector<uint8_t>& flex, const std::string& what) {
  if (flex.empty() || !flexbuffers::VerifyBuffer(flex.data(), flex.size()))
    throw InputError(what + ": TFLite_Detection_PostProcess has no readable options (flexbuffer map)");
  const flexbuffers::Map map = flexbuffers::GetRoot(flex.data(), flex.size()).AsMap();
  const auto number = [&](const char* key, bool required, double def) {
    const flexbuffers::Reference r = map[key];
    if (r.IsNull()) {
      if (required) throw InputError(what + ": TFLite_Detection_PostProcess option '" + key + "' is missing");
      return def;
    }
    return r.AsDouble();
  };
  DetectionOptions o;
  o.max_detections = static_cast<int>(number("max_detections", true, 0));
  o.max_classes_per_detection = static_cast<int>(number("max_classes_per_detection", true, 1));
  o.detections_per_class = static_cast<int>(number("detections_per_class", false, 100));
  o.use_regular_nms = number("use_regular_nms", false, 0) != 0;
  o.score_threshold = static_cast<float>(number("nms_score_threshold", true, 0));
  o.iou_threshold = static_cast<float>(number("nms_iou_threshold", true, 0));
  o.num_classes = static_cast<int>(number("num_classes", true, 0));
  o.y_scale = static_cast<float>(number("y_scale", true, 0));
  o.x_scale = static_cast<float>(number("x_scale", true, 0));
  o.h_scale = static_cast<float>(number("h_scale", true, 0));
  o.w_scale = static_cast<float>(number("w_scale", true, 0));
  // At most 2^20 detections in all, so that the output sizes fit their int32 shapes.
  if (o.max_detections <= 0 || o.max_classes_per_detection <= 0 || o.detections_per_class <= 0 || o.num_classes <= 0 ||
      o.max_classes_per_detection > o.num_classes ||
      int64_t{o.max_detections} * o.max_classes_per_detection > (int64_t{1} << 20))
    throw InputError(what + ": TFLite_Detection_PostProcess options out of range");
  return o;
}

struct Box {
  float ymin, xmin, ymax, xmax;
};

float iou(const Box& a, const Box& b) {
  const float area_a = (a.ymax - a.ymin) * (a.xmax - a.xmin);
  const float area_b = (b.ymax - b.ymin) * (b.xmax - b.xmin);
  if (area_a <= 0 || area_b <= 0) return 0;
  const float ih = std::max(std::min(a.ymax, b.ymax) - std::max(a.ymin, b.ymin), 0.0f);
  const float iw = std::max(std::min(a.xmax, b.xmax) - std::max(a.xmin, b.xmin), 0.0f);
  const float inter = ih * iw;
  return inter / (area_a + area_b - inter);
}

// Indices of `scores` in decreasing score order, equal scores by index.
std::vector<int> decreasing(const std::vector<float>& scores, const std::vector<int>& candidates) {
  std::vector<int> order = candidates;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return scores[a] > scores[b]; });
  return order;
}

// TFLite's NonMaxSuppressionSingleClassHelper: the anchors kept for one score per anchor.
std::vector<int> suppress(const std::vector<float>& scores, const std::vector<Box>& boxes, const DetectionOptions& o,
                          int max_kept) {
  std::vector<int> above;
  for (int i = 0; i < static_cast<int>(scores.size()); ++i)
    if (scores[i] >= o.score_threshold) above.push_back(i);
  const std::vector<int> order = decreasing(scores, above);
  const size_t keep = std::min<size_t>(order.size(), static_cast<size_t>(max_kept));
  std::vector<int> selected;
  std::vector<bool> active(order.size(), true);
  for (size_t i = 0; i < order.size() && selected.size() < keep; ++i) {
    if (!active[i]) continue;
    selected.push_back(order[i]);
    for (size_t j = i + 1; j < order.size(); ++j)
      if (active[j] && iou(boxes[order[i]], boxes[order[j]]) > o.iou_threshold) active[j] = false;
  }
  return selected;
}

void run_detection(const TfliteOperator& op, Tensors& tensors, const std::string& what) {
  const std::string name = what + ": TFLite_Detection_PostProcess";
  if (op.inputs.size() != 3 || op.outputs.size() != 4) throw InputError(name + " needs 3 inputs and 4 outputs");
  const DetectionOptions o = detection_options(op.custom_options, name);
  const TfliteTensor& enc = tensors.spec(op.inputs[0]);
  const TfliteTensor& cls = tensors.spec(op.inputs[1]);
  const TfliteTensor& anc = tensors.spec(op.inputs[2]);
  if (enc.shape.size() != 3 || enc.shape[0] != 1 || enc.shape[2] < 4 || cls.shape.size() != 3 || cls.shape[0] != 1 ||
      cls.shape[1] != enc.shape[1] || anc.shape.size() != 2 || anc.shape[0] != enc.shape[1] || anc.shape[1] != 4)
    throw InputError(name + ": box encodings [1, N, >=4], class predictions [1, N, C] and anchors [N, 4] expected");
  const int anchors = enc.shape[1], coords = enc.shape[2], with_background = cls.shape[2];
  const int label_offset = with_background - o.num_classes;
  if (label_offset < 0) throw InputError(name + ": num_classes exceeds the class predictions' classes");
  const int slots = o.max_detections * o.max_classes_per_detection;
  const int out_slots = o.use_regular_nms ? o.max_detections : slots;
  for (int k = 0; k < 4; ++k) {
    const TfliteTensor& t = tensors.spec(op.outputs[k]);
    const uint64_t want = k == 0 ? uint64_t(out_slots) * 4 : k == 3 ? 1 : uint64_t(out_slots);
    if (t.type != static_cast<int>(TfliteType::FLOAT32) || element_count(t) < want)
      throw InputError(name + ": output " + std::to_string(k) + " ('" + t.name + "') must be float32 with room for " +
                       std::to_string(want) + " values");
  }
  const std::vector<float> e = dequantize(enc, tensors.read(op.inputs[0]), name);
  const std::vector<float> s = dequantize(cls, tensors.read(op.inputs[1]), name);
  const std::vector<float> a = dequantize(anc, tensors.read(op.inputs[2]), name);

  // Centre-size encodings against (ycenter, xcenter, h, w) anchors.
  std::vector<Box> boxes(static_cast<size_t>(anchors));
  for (int i = 0; i < anchors; ++i) {
    const float* b = &e[static_cast<size_t>(i) * coords];
    const float* an = &a[static_cast<size_t>(i) * 4];
    const float yc = b[0] / o.y_scale * an[2] + an[0];
    const float xc = b[1] / o.x_scale * an[3] + an[1];
    const float half_h = 0.5f * std::exp(b[2] / o.h_scale) * an[2];
    const float half_w = 0.5f * std::exp(b[3] / o.w_scale) * an[3];
    boxes[i] = {yc - half_h, xc - half_w, yc + half_h, xc + half_w};
  }
  const auto score = [&](int anchor, int c) { return s[static_cast<size_t>(anchor) * with_background + label_offset + c]; };

  std::vector<float> out_boxes(static_cast<size_t>(out_slots) * 4, 0), out_classes(out_slots, 0), out_scores(out_slots, 0);
  float detections = 0;
  if (!o.use_regular_nms) {
    // Fast: each anchor's best classes, one NMS over the best score of each anchor.
    const int per_anchor = std::min(o.max_classes_per_detection, o.num_classes);
    std::vector<std::vector<int>> best(static_cast<size_t>(anchors));
    std::vector<float> top(static_cast<size_t>(anchors));
    std::vector<int> classes(o.num_classes);
    std::iota(classes.begin(), classes.end(), 0);
    for (int i = 0; i < anchors; ++i) {
      std::vector<float> row(o.num_classes);
      for (int c = 0; c < o.num_classes; ++c) row[c] = score(i, c);
      best[i] = decreasing(row, classes);
      best[i].resize(per_anchor);
      top[i] = row[best[i][0]];
    }
    int index = 0;
    for (int anchor : suppress(top, boxes, o, o.max_detections)) {
      for (int col = 0; col < per_anchor; ++col) {
        const size_t slot = static_cast<size_t>(o.max_classes_per_detection) * index + col;
        std::memcpy(&out_boxes[slot * 4], &boxes[anchor], sizeof(Box));
        out_classes[slot] = static_cast<float>(best[anchor][col]);
        out_scores[slot] = score(anchor, best[anchor][col]);
      }
      ++index;
    }
    detections = static_cast<float>(index);
  } else {
    // Regular: NMS per class, then the best max_detections of all classes' survivors.
    struct Candidate {
      float score;
      int anchor, cls;
    };
    std::vector<Candidate> kept;
    for (int c = 0; c < o.num_classes; ++c) {
      std::vector<float> column(static_cast<size_t>(anchors));
      for (int i = 0; i < anchors; ++i) column[i] = score(i, c);
      for (int anchor : suppress(column, boxes, o, o.detections_per_class)) kept.push_back({column[anchor], anchor, c});
    }
    std::stable_sort(kept.begin(), kept.end(), [](const Candidate& x, const Candidate& y) { return x.score > y.score; });
    kept.resize(std::min<size_t>(kept.size(), static_cast<size_t>(o.max_detections)));
    for (size_t k = 0; k < kept.size(); ++k) {
      std::memcpy(&out_boxes[k * 4], &boxes[kept[k].anchor], sizeof(Box));
      out_classes[k] = static_cast<float>(kept[k].cls);
      out_scores[k] = kept[k].score;
    }
    detections = static_cast<float>(kept.size());
  }
  std::memcpy(tensors.write(op.outputs[0]), out_boxes.data(), out_boxes.size() * sizeof(float));
  std::memcpy(tensors.write(op.outputs[1]), out_classes.data(), out_classes.size() * sizeof(float));
  std::memcpy(tensors.write(op.outputs[2]), out_scores.data(), out_scores.size() * sizeof(float));
  std::memcpy(tensors.write(op.outputs[3]), &detections, sizeof detections);
}

}  // namespace

void check_cpu_operators(const VelaModel& vm, const std::string& what) {
  for (const CpuOperator& cpu : vm.cpu_operators) {
    const TfliteOperator& op = vm.model.subgraphs.at(cpu.subgraph).operators.at(cpu.operator_index);
    if (op.builtin_code != kDequantize && !is_detection(op))
      throw InputError(what + ": the graph has an operator for the CPU that the firmware cannot run: " + cpu.name +
                       " (operator " + std::to_string(cpu.operator_index) + " of subgraph " +
                       std::to_string(cpu.subgraph) + "); the CPU operators it runs are DEQUANTIZE and " +
                       kDetectionPostProcess);
  }
  npu_subgraph(vm);  // exactly one ethos-u operator
  const EthosuOperator& npu = vm.ethosu_operators.front();
  for (const CpuOperator& cpu : vm.cpu_operators)
    if (cpu.subgraph != npu.subgraph || cpu.operator_index < npu.operator_index)
      throw InputError(what + ": " + cpu.name + " (operator " + std::to_string(cpu.operator_index) + " of subgraph " +
                       std::to_string(cpu.subgraph) + ") does not run after the NPU operator; only CPU operators "
                       "after it, in its subgraph, are run");
}

void size_cpu_outputs(VelaModel& vm) {
  for (const CpuOperator& cpu : vm.cpu_operators) {
    TfliteSubgraph& sg = vm.model.subgraphs.at(cpu.subgraph);
    const TfliteOperator& op = sg.operators.at(cpu.operator_index);
    if (!is_detection(op) || op.outputs.size() != 4) continue;
    DetectionOptions o;
    try {
      o = detection_options(op.custom_options, kDetectionPostProcess);
    } catch (const InputError&) {
      continue;
    }
    // TFLite's kernel resizes its outputs in Prepare to the detections its options allow, whatever they declare.
    const int32_t n = o.max_detections * o.max_classes_per_detection;
    const std::array<std::vector<int32_t>, 4> shapes{{{1, n, 4}, {1, n}, {1, n}, {1}}};
    for (size_t k = 0; k < 4; ++k)
      if (op.outputs[k] >= 0 && static_cast<size_t>(op.outputs[k]) < sg.tensors.size())
        sg.tensors[op.outputs[k]].shape = shapes[k];
  }
}

std::optional<uint32_t> arena_offset(const VelaModel& vm, uint32_t tensor_index) {
  const auto offsets = layout(vm);
  return tensor_index < offsets.size() ? offsets[tensor_index] : std::nullopt;
}

uint64_t arena_bytes(const VelaModel& vm) {
  const TfliteSubgraph& sg = npu_subgraph(vm);
  const auto offsets = layout(vm);
  uint64_t end = vm.ethosu_operators.front().scratch_bytes;
  for (size_t i = 0; i < offsets.size(); ++i)
    if (offsets[i]) end = std::max(end, *offsets[i] + tflite_tensor_bytes(sg.tensors[i], "model"));
  return end;
}

void run_cpu_operators(const VelaModel& vm, std::vector<uint8_t>& arena, const std::string& what) {
  check_cpu_operators(vm, what);
  const TfliteSubgraph& sg = npu_subgraph(vm);
  Tensors tensors(vm, arena, what);
  for (size_t i = 0; i < sg.operators.size(); ++i) {
    const TfliteOperator& op = sg.operators[i];
    const std::string where = what + ": operator " + std::to_string(i);
    if (op.builtin_code == kDequantize) run_dequantize(op, tensors, where);
    else if (is_detection(op)) run_detection(op, tensors, where);
  }
}

}  // namespace ethosu::host
