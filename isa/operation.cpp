#include "isa/operation.h"

#include <algorithm>
#include <limits>

namespace ethosu::isa {

const char* op_kind_name(OpKind k) {
  switch (k) {
    case OpKind::CONV: return "conv";
    case OpKind::DEPTHWISE: return "depthwise";
    case OpKind::POOL: return "pool";
    case OpKind::ELEMENTWISE: return "elementwise";
    case OpKind::DMA: return "dma";
    case OpKind::RESIZE: return "resize";
  }
  return "?";
}

TileCoord tile_of(const FeatureMap& fm, uint32_t x, uint32_t y) {
  if (x >= fm.width0) {
    if (y >= fm.height1) return {3, x - fm.width0, y - fm.height1};
    return {1, x - fm.width0, y};
  }
  if (y >= fm.height0) return {2, x, y - fm.height0};
  return {0, x, y};
}

int64_t element_offset(const FeatureMap& fm, uint32_t x, uint32_t y, uint32_t c) {
  const TileCoord t = tile_of(fm, x, y);
  const int64_t esize = fm.element.bytes();
  int64_t a = static_cast<int64_t>(fm.base[t.tile]) + int64_t{t.y} * fm.stride_y + int64_t{t.x} * fm.stride_x;
  if (fm.element.nhcwb16())
    a += int64_t{c / 16} * fm.stride_c + int64_t{c % 16} * esize;
  else
    a += int64_t{c} * esize;
  return a;
}

namespace {

// Saturating arithmetic: DMA footprints can exceed 64 bits (40-bit length x 16-bit x 16-bit); anything
// that large is far outside every region, so clamping keeps comparisons right.
int64_t sat_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return ((a < 0) != (b < 0)) ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
  return r;
}
int64_t sat_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return a < 0 ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
  return r;
}

bool is_3d(const DmaEndpoint& e) { return e.stride_mode == enums::dma_stride_mode::D3; }
bool is_multi(const DmaEndpoint& e) { return e.stride_mode != enums::dma_stride_mode::D1; }

}  // namespace

uint64_t Dma::rows() const { return (is_multi(src) || is_multi(dst)) ? size0 : 1; }
uint64_t Dma::planes() const { return (is_3d(src) || is_3d(dst)) ? size1 : 1; }

Span dma_span(const Dma& d, const DmaEndpoint& side) {
  const auto addr = static_cast<int64_t>(side.address);
  const auto len = static_cast<int64_t>(d.length_bytes);
  const auto rows = static_cast<int64_t>(d.rows());
  const auto planes = static_cast<int64_t>(d.planes());
  if (len == 0 || rows == 0 || planes == 0) return {addr, addr};
  int64_t first_row = 0, last_row = 0;  // start offsets of the lowest and highest rows
  switch (side.stride_mode) {
    case enums::dma_stride_mode::D1:
      return {addr, sat_add(addr, sat_mul(sat_mul(len, rows), planes))};
    case enums::dma_stride_mode::D2: {
      const int64_t end = sat_mul(sat_mul(rows, planes) - 1, sat_add(len, d.skip0));
      first_row = std::min<int64_t>(0, end);
      last_row = std::max<int64_t>(0, end);
      break;
    }
    case enums::dma_stride_mode::D3: {
      const int64_t row_step = sat_add(len, d.skip0);
      const int64_t plane_step = sat_add(sat_mul(row_step, rows), d.skip1);
      const int64_t r = sat_mul(rows - 1, row_step), p = sat_mul(planes - 1, plane_step);
      first_row = sat_add(std::min<int64_t>(0, r), std::min<int64_t>(0, p));
      last_row = sat_add(std::max<int64_t>(0, r), std::max<int64_t>(0, p));
      break;
    }
  }
  return {sat_add(addr, first_row), sat_add(sat_add(addr, last_row), len)};
}

bool Operation::is_unary() const {
  using M = enums::elementwise_mode;
  return kind == OpKind::ELEMENTWISE &&
         (elementwise_mode == M::LRELU || elementwise_mode == M::ABS || elementwise_mode == M::CLZ ||
          (v2() && elementwise_mode == M::NOT));
}

bool Operation::uses_ifm2() const { return kind == OpKind::ELEMENTWISE && !is_unary(); }
bool Operation::reads_ifm2() const {
  return (uses_ifm2() && !broadcast.scalar && (!v2() || ifm2.in_memory())) ||
         ((loads_ifm2_into_accumulators() || (v2() && kind == OpKind::CONV && weights_from_ifm2)) && ifm2.in_memory());
}

bool Operation::null_pool() const {
  return v2() && kind == OpKind::POOL && pooling_mode == enums::pooling_mode::NONE;
}

bool Operation::loads_ifm2_into_accumulators() const { return null_pool() && acc_input == enums::acc_input::IFM2; }

bool Operation::reads_scales() const {
  // Pooling in per-channel mode reads no scale stream (spec 03 section 4.1 [V]); the mainline Linux
  // validator still sizes one for POOL, which only matters for never-written scale registers.
  return (kind == OpKind::CONV || kind == OpKind::DEPTHWISE) && ofm_scale_mode == enums::ofm_scale_mode::PER_CHANNEL;
}

namespace {

// Whether every output position along one axis has a kernel tap inside the IFM extent (upscaled space).
bool every_window_reaches_ifm(uint32_t outputs, uint32_t stride, uint32_t taps, uint32_t dilation, uint32_t pad,
                              int64_t extent) {
  if (extent <= 0) return false;
  for (uint32_t o = 0; o < outputs; ++o) {
    const int64_t first = int64_t{o} * stride - pad;  // position of tap 0
    const int64_t lo = first >= 0 ? 0 : (-first + dilation - 1) / dilation;
    const int64_t hi = std::min<int64_t>(taps - 1, extent - 1 - first < 0 ? -1 : (extent - 1 - first) / dilation);
    if (hi < lo) return false;
  }
  return true;
}

template <typename E>
std::string name_of(EnumId id, E value) {
  return std::string(enum_value_name(id, static_cast<uint32_t>(value), IsaVersion::V1));
}

bool unit_scale(const Scale& s) { return s.shift < 32 && s.scale == uint32_t{1} << s.shift; }

std::string scale_text(const Scale& s) {
  return "scale " + std::to_string(s.scale) + ", shift " + std::to_string(s.shift);
}

std::optional<std::string> unknown_pool_behaviour(const Operation& op) {
  using P = enums::pooling_mode;
  const bool per_channel = op.ofm_scale_mode == enums::ofm_scale_mode::PER_CHANNEL;
  const bool padded = op.padding.top || op.padding.left || op.padding.bottom || op.padding.right;
  if (op.upscale == enums::ifm_upscale_mode::ZEROS)
    return std::string("NPU_OP_POOL with IFM_UPSCALE ZEROS: whether the inserted zeros enter a maximum or an "
                       "average's element count is not known (no compiler pools a zero-inserted IFM)");
  if (op.kernel.dilation_x > 1 || op.kernel.dilation_y > 1)
    return std::string("NPU_OP_POOL with dilation: no compiler dilates a pooling window, and whether the hardware "
                       "does is not known");
  if (op.pooling_mode == P::REDUCE_SUM) {
    if (per_channel)
      return std::string("REDUCE_SUM in per-channel OFM scale mode: the scale it would apply is not known (both "
                         "Vela cores program global mode with OFM_SCALE)");
    return std::nullopt;
  }
  const Kernel& k = op.kernel;
  if (!every_window_reaches_ifm(op.ofm.width, k.stride_x, k.width, k.dilation_x, op.padding.left,
                                op.ifm_upscaled_width) ||
      !every_window_reaches_ifm(op.ofm.height, k.stride_y, k.height, k.dilation_y, op.padding.top,
                                op.ifm_upscaled_height))
    return std::string("a pooling window with no kernel tap inside the IFM (padding as large as the kernel): its "
                       "maximum or average is not known");
  if (op.pooling_mode != P::AVERAGE) return std::nullopt;
  if (padded && (k.width > 8 || k.height > 8))
    return "AVERAGE pooling with padding and a " + std::to_string(k.width) + "x" + std::to_string(k.height) +
           " kernel: the hardware's scaling of padded averages is known for kernels up to 8x8 only (both Vela "
           "cores refuse larger ones)";
  if (padded && !per_channel && !unit_scale(op.ofm_scale))
    return "AVERAGE pooling with padding and a global OFM_SCALE other than 1 (" + scale_text(op.ofm_scale) +
           "): the hardware divides padded averages itself, and how it combines that with OFM_SCALE is not "
           "known (Vela 5 programs 1, Vela 3.10 per-channel mode)";
  if (!padded && per_channel)
    return std::string("AVERAGE pooling without padding in per-channel OFM scale mode: the scale it would apply "
                       "is not known (both Vela cores program global mode with the kernel's OFM_SCALE)");
  return std::nullopt;
}

std::optional<std::string> unknown_elementwise_behaviour(const Operation& op) {
  if (op.ofm_scale_mode == enums::ofm_scale_mode::PER_CHANNEL && !unit_scale(op.ofm_scale))
    return "NPU_OP_ELEMENTWISE in per-channel OFM scale mode with OFM_SCALE " + scale_text(op.ofm_scale) +
           ": whether it applies OFM_SCALE, a scale stream or nothing is not known (Vela programs per-channel "
           "mode only with OFM_SCALE 1)";
  if (!op.uses_ifm2() || op.ifm.element.precision == op.ifm2.element.precision) return std::nullopt;
  using M = enums::elementwise_mode;
  const bool wide = op.ifm.element.bits() == 32 || op.ifm2.element.bits() == 32;
  const bool operand_shift = (op.elementwise_mode == M::ADD || op.elementwise_mode == M::SUB) &&
                             op.ifm_scale_mode != enums::ifm_scale_mode::OPA_OPB_16;
  if (wide)
    return "IFM of " + std::to_string(op.ifm.element.bits()) + " bits with an IFM2 of " +
           std::to_string(op.ifm2.element.bits()) +
           " bits: which width selects the 32-bit scaling rules is not known (compilers mix 8- and 16-bit "
           "operands only)";
  if (operand_shift)
    return std::string("ADD/SUB of 8- and 16-bit operands in a 32-bit operand scale mode: the pre-shift of the "
                       "unscaled operand (20 or 15) depends on a width the operands do not share");
  return std::nullopt;
}

// Feature maps the model cannot read or write as the hardware would: 64-bit elements (the U65 has no such
// feature maps), unsigned 32-bit ones (encodable, unused by compilers; whether they differ from signed is not
// known), and NHWC with a STRIDE_C other than the element size (compilers program the element size; whether the
// hardware steps channels by STRIDE_C in NHWC is not known, spec 03 section 12).
std::optional<std::string> unknown_feature_map(const char* name, const FeatureMap& fm) {
  const ElementType& e = fm.element;
  if (e.precision == enums::activation_precision::B64)
    return std::string(name) + " precision B64: the U65 has no 64-bit feature maps (spec 01 section 5)";
  if (e.bits() == 32 && !e.is_signed())
    return std::string(name) + " of unsigned 32-bit elements: encodable but never emitted; its arithmetic is not "
                               "known";
  if (!e.nhcwb16() && fm.depth > 1 && fm.stride_c != static_cast<int64_t>(e.bytes()))
    return std::string(name) + " in NHWC with STRIDE_C " + std::to_string(fm.stride_c) + " for " +
           std::to_string(e.bytes()) + "-byte elements: whether NHWC channels follow STRIDE_C is not known";
  return std::nullopt;
}

// The activation stage: TANH/SIGMOID are the int16 fixed functions, and a forced clip range only selects the
// index range of a table that range fits.
std::optional<std::string> unknown_activation(const Operation& op) {
  using F = enums::activation_function;
  using C = enums::activation_clip_range;
  const F f = op.activation.function;
  const unsigned ofm_bits = op.ofm.element.bits();
  if ((f == F::TANH || f == F::SIGMOID) && ofm_bits != 16)
    return "NPU_SET_ACTIVATION " + name_of(EnumId::activation_function, f) + " with a " + std::to_string(ofm_bits) +
           "-bit OFM: the fixed function is known for int16 only (Vela uses tables for 8 bits)";
  const C clip = op.activation.clip_range;
  if (clip == C::OFM_PRECISION) return std::nullopt;
  const bool table = static_cast<unsigned>(f) >= static_cast<unsigned>(F::TABLE_0);
  const bool fits = table && (clip == C::FORCE_INT8 || clip == C::FORCE_UINT8) && ofm_bits != 16;
  if (!fits)
    return "activation_clip_range " + name_of(EnumId::activation_clip_range, clip) + " with " +
           name_of(EnumId::activation_function, f) + " and a " +
           std::to_string(ofm_bits) + "-bit OFM: a forced clip range is known only as the index range of a " +
           "256-entry table (Vela: FORCE_INT8 with softmax's 32-bit table)";
  return std::nullopt;
}

// Version 2 (the Ethos-U85): the modes and combinations the model does not run yet, by name.
std::optional<std::string> unknown_behaviour_v2(const Operation& op) {
  using M = enums::elementwise_mode;
  using P = enums::pooling_mode;
  using F = enums::activation_function;
  using S = enums::activation_storage;
  const auto named = [](EnumId id, auto value) {
    return std::string(enum_value_name(id, static_cast<uint32_t>(value), IsaVersion::V2));
  };
  if (op.kind == OpKind::DMA) {
    if (op.dma.src.stride_mode != enums::dma_stride_mode::D1)
      return "an Ethos-U85 DMA in stride mode " + named(EnumId::dma_stride_mode, op.dma.src.stride_mode) +
             ": 2D/3D transfers (DMA0_SRC/DST_STRIDE0/1) are not modelled yet";
    if (op.dma_indexed) return std::string("an Ethos-U85 gather/scatter DMA (idx_mode ENABLED) is not modelled yet");
    if (op.dma.src.internal()) return std::string("an Ethos-U85 DMA from internal memory is not modelled");
    return std::nullopt;
  }
  const std::pair<const char*, const FeatureMap*> maps[] = {{"IFM", &op.ifm}, {"IFM2", &op.ifm2}, {"OFM", &op.ofm}};
  for (const auto& [name, fm] : maps) {
    if (fm == &op.ifm2 && !op.uses_ifm2() && !op.loads_ifm2_into_accumulators() && !op.weights_from_ifm2) continue;
    if (fm == &op.ifm && op.null_pool()) continue;  // not read
    if (fm->storage == S::TILE3X1)
      return std::string(name) + " storage TILE3X1: its tile layout is not documented and no compiler emits it";
    if (fm == &op.ofm && fm->storage == S::NONE)
      return std::string("OFM storage NONE (accumulators kept for a later operation) is not modelled yet");
    if (fm->storage == S::NONE && !(fm == &op.ifm ? op.ifm_broadcast.scalar : op.broadcast.scalar))
      return std::string(name) + " storage NONE without a SCALAR broadcast: the operand has no data";
    if (fm->element.precision == enums::activation_precision::B64)
      return std::string(name) + " precision B64 (int48/int64 feature maps) is not modelled yet";
    if (fm->element.bits() == 32 && !fm->element.is_signed())
      return std::string(name) + " of unsigned 32-bit elements: its arithmetic is not known";
    if (fm->in_memory() && !fm->element.nhcwb16() && fm->depth > 1 && fm->stride_c != static_cast<int64_t>(fm->element.bytes()))
      return std::string(name) + " in NHWC with STRIDE_C " + std::to_string(fm->stride_c) +
             ": whether NHWC channels follow STRIDE_C is not known";
  }
  if (op.acc_input != enums::acc_input::RESET && !op.loads_ifm2_into_accumulators())
    return "ACC_FORMAT acc_input " + named(EnumId::acc_input, op.acc_input) +
           (op.acc_input == enums::acc_input::IFM2 ? " with an operation other than pooling NONE" : "") +
           " (accumulators kept or loaded from IFM2) is not modelled yet";
  if (op.null_pool() && !op.loads_ifm2_into_accumulators())
    return std::string("pooling mode NONE without ACC_FORMAT acc_input IFM2: its accumulators would hold nothing");
  if (op.null_pool() && (op.kernel.width != 1 || op.kernel.height != 1 || op.kernel.stride_x != 1 ||
                         op.kernel.stride_y != 1 || op.padding.top || op.padding.left))
    return std::string("pooling mode NONE with a kernel, stride or padding other than 1x1, 1, 0: how IFM2 is read "
                       "then is not known (Vela programs a unit kernel)");
  if (op.acc_output != enums::acc_output::ENABLE)
    return std::string("ACC_FORMAT acc_output DISABLE (accumulators kept for a later operation) is not modelled yet");
  if (op.transpose != enums::activation_transpose::HWC && op.reverse != enums::activation_reverse::NONE)
    return "OFM transpose " + named(EnumId::activation_transpose, op.transpose) + " with reverse " +
           named(EnumId::activation_reverse, op.reverse) + ": which applies first is not known (Vela never combines them)";
  if (ofm_permuted(op) && !op.ofm.in_memory())
    return std::string("a transposed or reversed OFM that is not written to memory (chained: its buffer layout is "
                       "not known; Vela never chains them)");
  if (op.kind != OpKind::ELEMENTWISE && op.kind != OpKind::RESIZE && op.upscale != enums::ifm_upscale_mode::NONE)
    return "IFM_UPSCALE " + named(EnumId::ifm_upscale_mode, op.upscale) +
           " on the Ethos-U85 is not modelled yet (Vela 5.1 decomposes strides instead)";
  const F f = op.activation.function;
  if (f == F::LUT_S16_S32)
    return std::string("activation LUT_S16_S32: how the 16-bit input indexes a table of 32-bit values is not known");
  if ((f == F::LUT_TANH || f == F::LUT_SIGMOID) && op.ofm.element.bits() != 16)
    return "activation " + named(EnumId::activation_function, f) + " with a " +
           std::to_string(op.ofm.element.bits()) + "-bit OFM: the built-in function is known for int16 only";
  if (op.kind == OpKind::CONV || op.kind == OpKind::DEPTHWISE) {
    if (op.weights_from_ifm2) {
      // Vela 5.1's MatMul: one OFM row, a unit kernel, the global OFM scale, accumulators from 0.
      if (op.kind != OpKind::CONV) return std::string("NPU_OP_DEPTHWISE with weights from IFM2: no compiler emits it");
      if (op.ofm.height != 1 || op.kernel.width != 1 || op.kernel.height != 1 || op.kernel.stride_x != 1 ||
          op.kernel.stride_y != 1 || op.padding.top || op.padding.left || op.padding.bottom || op.padding.right)
        return std::string("NPU_OP_CONV weights_ifm2 (MatMul) with more than one OFM row, or a kernel, stride or "
                           "padding: how IFM2 is indexed then is not known (Vela programs one row, a unit kernel)");
      if (op.ofm_scale_mode != enums::ofm_scale_mode::GLOBAL)
        return std::string("NPU_OP_CONV weights_ifm2 (MatMul) in per-channel OFM scale mode: which scale stream it "
                           "would read is not known (Vela programs the global scale)");
    } else if (op.ofm_scale_mode == enums::ofm_scale_mode::GLOBAL) {
      return std::string("NPU_OP_CONV/DEPTHWISE in global OFM scale mode: whether the bias comes from the scale "
                         "stream is not known (Vela programs per-channel mode)");
    }
    if (op.kernel.stride_x > 3 || op.kernel.stride_y > 3)
      return "stride " + std::to_string(op.kernel.stride_x) + "x" + std::to_string(op.kernel.stride_y) +
             ": 4 is encodable but beyond the supported 1..3";
  }
  if (op.kind == OpKind::POOL) {
    const P p = op.pooling_mode;
    if ((p == P::ARGMAX_X && op.kernel.height > 1) || (p == P::ARGMAX_Y && op.kernel.width > 1))
      return "pooling mode " + named(EnumId::pooling_mode, p) + " with a " + std::to_string(op.kernel.width) + "x" +
             std::to_string(op.kernel.height) + " kernel: which index a window across both axes gives is not "
             "known (Vela's kernels are one row or column)";
    if (op.ofm_scale_mode == enums::ofm_scale_mode::PER_CHANNEL)
      return std::string("NPU_OP_POOL in per-channel OFM scale mode: the scale it would apply is not known");
  }
  if (op.kind == OpKind::ELEMENTWISE) {
    const M m = op.elementwise_mode;
    // Every mode of the U85's set (ELEMENTWISE_MODE's named values) is modelled; another value is not an operation.
    if (enum_value_name(EnumId::elementwise_mode, static_cast<uint32_t>(m), IsaVersion::V2).empty())
      return "elementwise mode " + std::to_string(static_cast<unsigned>(m)) + " is not one of the U85's";
    if (op.ifm_broadcast.scalar && op.broadcast.scalar && op.uses_ifm2())
      return std::string("both IFM and IFM2 broadcast SCALAR: one OP_SCALAR cannot be both operands");
    if (op.uses_ifm2() && op.ifm.element.bits() != op.ifm2.element.bits())
      return "an IFM of " + std::to_string(op.ifm.element.bits()) + " bits with an IFM2 of " +
             std::to_string(op.ifm2.element.bits()) + " bits: compilers never mix operand widths";
    if (op.ofm_scale_mode == enums::ofm_scale_mode::PER_CHANNEL)
      return std::string("NPU_OP_ELEMENTWISE in per-channel OFM scale mode: the scale it would apply is not known");
  }
  if (op.kind == OpKind::RESIZE) {
    if (op.resize.mode == enums::resize_mode::REPLICATE)
      return std::string("resize mode REPLICATE: Vela 5.1 never emits it and its sampling is not documented");
    if (op.resize.x_d == 0 || op.resize.y_d == 0)
      return std::string("NPU_OP_RESIZE with a zero step (RESIZE_X/Y one_step_int and one_step_mod 0)");
  }
  return std::nullopt;
}

}  // namespace

bool ofm_permuted(const Operation& op) {
  return op.v2() && (op.transpose != enums::activation_transpose::HWC || op.reverse != enums::activation_reverse::NONE);
}

OfmCoord stored_ofm_coord(const Operation& op, OfmCoord at) {
  if (!ofm_permuted(op)) return at;
  using R = enums::activation_reverse;
  if (op.reverse == R::H) at.y = op.ofm.height - 1 - at.y;
  if (op.reverse == R::W) at.x = op.ofm.width - 1 - at.x;
  if (op.reverse == R::C) at.c = op.ofm.depth - 1 - at.c;
  const uint32_t h = at.y, w = at.x, c = at.c;
  using T = enums::activation_transpose;
  switch (op.transpose) {  // stored (y, x, channel)
    case T::HWC: return {w, h, c};
    case T::WHC: return {h, w, c};
    case T::HCW: return {c, h, w};
    case T::WCH: return {c, w, h};
    case T::CHW: return {h, c, w};
    case T::CWH: return {w, c, h};
  }
  return {w, h, c};
}

OfmCoord stored_ofm_extents(const Operation& op) {
  if (!ofm_permuted(op) || op.ofm.width == 0 || op.ofm.height == 0 || op.ofm.depth == 0)
    return {op.ofm.width, op.ofm.height, op.ofm.depth};
  const OfmCoord last = stored_ofm_coord(op, {op.ofm.width - 1, op.ofm.height - 1, op.ofm.depth - 1});
  const OfmCoord first = stored_ofm_coord(op, {0, 0, 0});
  return {std::max(first.x, last.x) + 1, std::max(first.y, last.y) + 1, std::max(first.c, last.c) + 1};
}

OfmBox3 stored_ofm_box(const Operation& op, const OfmBox3& b) {
  if (!ofm_permuted(op) || b.x0 >= b.x1 || b.y0 >= b.y1 || b.c0 >= b.c1) return b;
  // Each stored axis is one computed axis, maybe mirrored: the corners' images bound the image.
  const OfmCoord p = stored_ofm_coord(op, {b.x0, b.y0, b.c0});
  const OfmCoord q = stored_ofm_coord(op, {b.x1 - 1, b.y1 - 1, b.c1 - 1});
  return {std::min(p.x, q.x), std::max(p.x, q.x) + 1, std::min(p.y, q.y), std::max(p.y, q.y) + 1,
          std::min(p.c, q.c), std::max(p.c, q.c) + 1};
}

std::optional<std::string> unknown_behaviour(const Operation& op) {
  if (op.v2()) return unknown_behaviour_v2(op);
  if (!op.is_kernel()) return std::nullopt;
  if (op.acc_format == enums::acc_format::F16)
    return std::string("ACC_FORMAT F16: the FP16 accumulator arithmetic is not described publicly and no compiler "
                       "emits it");
  for (const auto& [name, fm] : {std::pair{"IFM", &op.ifm}, std::pair{"OFM", &op.ofm}})
    if (auto why = unknown_feature_map(name, *fm)) return why;
  if (op.uses_ifm2()) {
    FeatureMap ifm2 = op.ifm2;
    if (!op.reads_ifm2()) ifm2.depth = 1;  // a scalar: only the element type matters
    if (auto why = unknown_feature_map("IFM2", ifm2)) return why;
  }
  if (auto why = unknown_activation(op)) return why;
  if (op.uses_kernel() && (op.kernel.stride_x > 3 || op.kernel.stride_y > 3))
    return "stride " + std::to_string(op.kernel.stride_x) + "x" + std::to_string(op.kernel.stride_y) +
           ": 4 is encodable but beyond the supported 1..3 (spec 05 section 1)";
  if (op.reads_weights() && op.kernel.decomposition == enums::kernel_decomposition::D4X4)
    return std::string("4x4 kernel decomposition: the weight order it implies is not described (Vela emits 8x8 "
                       "for the U65)");
  if (op.reads_weights() && op.ofm_scale_mode == enums::ofm_scale_mode::GLOBAL)
    return std::string("NPU_OP_CONV/DEPTHWISE in global OFM scale mode: whether the bias comes from the scale "
                       "stream is not known (compilers program per-channel mode)");
  if (op.kind == OpKind::POOL) return unknown_pool_behaviour(op);
  if (op.kind == OpKind::ELEMENTWISE) return unknown_elementwise_behaviour(op);
  return std::nullopt;
}

bool starts_operation(Cmd c) {
  return c == Cmd::NPU_OP_CONV || c == Cmd::NPU_OP_DEPTHWISE || c == Cmd::NPU_OP_POOL ||
         c == Cmd::NPU_OP_ELEMENTWISE || c == Cmd::NPU_OP_DMA_START || c == Cmd::NPU_OP_RESIZE;
}

namespace {

struct FmFields {
  Field region;
  Field base[4];
  Field width0_m1, height0_m1, height1_m1;
  Field stride_x, stride_y, stride_c;
  Field type, precision, format;
  Field zero_point;
};

constexpr FmFields kIfm{Field::NPU_SET_IFM_REGION_region,
                        {Field::NPU_SET_IFM_BASE0_addr, Field::NPU_SET_IFM_BASE1_addr, Field::NPU_SET_IFM_BASE2_addr,
                         Field::NPU_SET_IFM_BASE3_addr},
                        Field::NPU_SET_IFM_WIDTH0_M1_width_m1,
                        Field::NPU_SET_IFM_HEIGHT0_M1_height_m1,
                        Field::NPU_SET_IFM_HEIGHT1_M1_height_m1,
                        Field::NPU_SET_IFM_STRIDE_X_stride,
                        Field::NPU_SET_IFM_STRIDE_Y_stride,
                        Field::NPU_SET_IFM_STRIDE_C_stride,
                        Field::NPU_SET_IFM_PRECISION_activation_type,
                        Field::NPU_SET_IFM_PRECISION_activation_precision,
                        Field::NPU_SET_IFM_PRECISION_activation_format,
                        Field::NPU_SET_IFM_ZERO_POINT_zero_point};
constexpr FmFields kIfm2{Field::NPU_SET_IFM2_REGION_region,
                         {Field::NPU_SET_IFM2_BASE0_addr, Field::NPU_SET_IFM2_BASE1_addr,
                          Field::NPU_SET_IFM2_BASE2_addr, Field::NPU_SET_IFM2_BASE3_addr},
                         Field::NPU_SET_IFM2_WIDTH0_M1_width_m1,
                         Field::NPU_SET_IFM2_HEIGHT0_M1_height_m1,
                         Field::NPU_SET_IFM2_HEIGHT1_M1_height_m1,
                         Field::NPU_SET_IFM2_STRIDE_X_stride,
                         Field::NPU_SET_IFM2_STRIDE_Y_stride,
                         Field::NPU_SET_IFM2_STRIDE_C_stride,
                         Field::NPU_SET_IFM2_PRECISION_activation_type,
                         Field::NPU_SET_IFM2_PRECISION_activation_precision,
                         Field::NPU_SET_IFM2_PRECISION_activation_format,
                         Field::NPU_SET_IFM2_ZERO_POINT_zero_point};
constexpr FmFields kOfm{Field::NPU_SET_OFM_REGION_region,
                        {Field::NPU_SET_OFM_BASE0_addr, Field::NPU_SET_OFM_BASE1_addr, Field::NPU_SET_OFM_BASE2_addr,
                         Field::NPU_SET_OFM_BASE3_addr},
                        Field::NPU_SET_OFM_WIDTH0_M1_width_m1,
                        Field::NPU_SET_OFM_HEIGHT0_M1_height_m1,
                        Field::NPU_SET_OFM_HEIGHT1_M1_height_m1,
                        Field::NPU_SET_OFM_STRIDE_X_stride,
                        Field::NPU_SET_OFM_STRIDE_Y_stride,
                        Field::NPU_SET_OFM_STRIDE_C_stride,
                        Field::NPU_SET_OFM_PRECISION_activation_type,
                        Field::NPU_SET_OFM_PRECISION_activation_precision,
                        Field::NPU_SET_OFM_PRECISION_activation_format,
                        Field::NPU_SET_OFM_ZERO_POINT_zero_point};

template <typename E>
E as(int64_t v) {
  return static_cast<E>(static_cast<uint32_t>(v));
}

FeatureMap read_fm(const RegisterState& s, const FmFields& f) {
  FeatureMap fm;
  fm.region = static_cast<uint8_t>(s.get(f.region));
  for (int i = 0; i < 4; ++i) fm.base[i] = static_cast<uint64_t>(s.get(f.base[i]));
  fm.width0 = static_cast<uint32_t>(s.get(f.width0_m1)) + 1;
  fm.height0 = static_cast<uint32_t>(s.get(f.height0_m1)) + 1;
  fm.height1 = static_cast<uint32_t>(s.get(f.height1_m1)) + 1;
  fm.stride_x = s.get(f.stride_x);
  fm.stride_y = s.get(f.stride_y);
  fm.stride_c = s.get(f.stride_c);
  fm.element.type = as<enums::activation_type>(s.get(f.type));
  fm.element.precision = as<enums::activation_precision>(s.get(f.precision));
  fm.element.format = as<enums::activation_format>(s.get(f.format));
  fm.zero_point = static_cast<int32_t>(s.get(f.zero_point));
  return fm;
}

// Stored IFM size for one axis: the upscaled extent is halved (rounded up) when upscaling (spec 03 3.4).
uint32_t stored_extent(int64_t upscaled, bool upscale) {
  if (upscaled <= 0) return 0;
  return static_cast<uint32_t>(upscale ? (upscaled + 1) / 2 : upscaled);
}

}  // namespace

namespace {

// The OFM and IFM shapes, kernel, padding and upscaling: the same registers in both command sets.
void read_geometry(const RegisterState& s, Operation& op) {
  op.ofm.width = static_cast<uint32_t>(s.get(Field::NPU_SET_OFM_WIDTH_M1_width_m1)) + 1;
  op.ofm.height = static_cast<uint32_t>(s.get(Field::NPU_SET_OFM_HEIGHT_M1_height_m1)) + 1;
  op.ofm.depth = static_cast<uint32_t>(s.get(Field::NPU_SET_OFM_DEPTH_M1_depth_m1)) + 1;
  op.ifm.depth = static_cast<uint32_t>(s.get(Field::NPU_SET_IFM_DEPTH_M1_depth_m1)) + 1;

  Kernel& k = op.kernel;
  k.dilation_x = 1 + static_cast<uint32_t>(s.get(Field::NPU_SET_KERNEL_STRIDE_dilation_x));
  k.dilation_y = 1 + static_cast<uint32_t>(s.get(Field::NPU_SET_KERNEL_STRIDE_dilation_y));
  k.dilated_width = static_cast<uint32_t>(s.get(Field::NPU_SET_KERNEL_WIDTH_M1_width_m1)) + 1;
  k.dilated_height = static_cast<uint32_t>(s.get(Field::NPU_SET_KERNEL_HEIGHT_M1_height_m1)) + 1;
  k.width = (k.dilated_width - 1) / k.dilation_x + 1;
  k.height = (k.dilated_height - 1) / k.dilation_y + 1;
  k.stride_x = ((static_cast<uint32_t>(s.get(Field::NPU_SET_KERNEL_STRIDE_stride_x_msb)) << 1) |
                static_cast<uint32_t>(s.get(Field::NPU_SET_KERNEL_STRIDE_stride_x_lsb))) + 1;
  k.stride_y = ((static_cast<uint32_t>(s.get(Field::NPU_SET_KERNEL_STRIDE_stride_y_msb)) << 1) |
                static_cast<uint32_t>(s.get(Field::NPU_SET_KERNEL_STRIDE_stride_y_lsb))) + 1;
  k.weight_order = as<enums::weight_order>(s.get(Field::NPU_SET_KERNEL_STRIDE_weight_order));
  k.decomposition = as<enums::kernel_decomposition>(s.get(Field::NPU_SET_KERNEL_STRIDE_decomposition));

  op.padding.top = static_cast<uint32_t>(s.get(Field::NPU_SET_IFM_PAD_TOP_pad));
  op.padding.left = static_cast<uint32_t>(s.get(Field::NPU_SET_IFM_PAD_LEFT_pad));
  op.padding.bottom = static_cast<uint32_t>(s.get(Field::NPU_SET_IFM_PAD_BOTTOM_pad));
  op.padding.right = static_cast<uint32_t>(s.get(Field::NPU_SET_IFM_PAD_RIGHT_pad));
  op.upscale = as<enums::ifm_upscale_mode>(s.get(Field::NPU_SET_IFM_UPSCALE_mode));
}

Operation describe_v1(const Command& c, const RegisterState& s) {
  Operation op;
  op.cmd = c.cmd();
  switch (op.cmd) {
    case Cmd::NPU_OP_DEPTHWISE: op.kind = OpKind::DEPTHWISE; break;
    case Cmd::NPU_OP_POOL:
      op.kind = OpKind::POOL;
      op.pooling_mode = as<enums::pooling_mode>(c.get(Field::NPU_OP_POOL_pooling_mode));
      break;
    case Cmd::NPU_OP_ELEMENTWISE:
      op.kind = OpKind::ELEMENTWISE;
      op.elementwise_mode = as<enums::elementwise_mode>(c.get(Field::NPU_OP_ELEMENTWISE_elementwise_mode));
      break;
    case Cmd::NPU_OP_DMA_START: op.kind = OpKind::DMA; break;
    default: op.kind = OpKind::CONV; break;
  }

  op.ifm = read_fm(s, kIfm);
  op.ifm2 = read_fm(s, kIfm2);
  op.ofm = read_fm(s, kOfm);
  op.ifm.round_mode = as<enums::round_mode>(s.get(Field::NPU_SET_IFM_PRECISION_round_mode));
  op.ofm.round_mode = as<enums::round_mode>(s.get(Field::NPU_SET_OFM_PRECISION_round_mode));
  op.ifm_scale_mode = as<enums::ifm_scale_mode>(s.get(Field::NPU_SET_IFM_PRECISION_scale_mode));
  op.ofm_scale_mode = as<enums::ofm_scale_mode>(s.get(Field::NPU_SET_OFM_PRECISION_scale_mode));

  read_geometry(s, op);
  const Kernel& k = op.kernel;

  op.broadcast.h = s.get(Field::NPU_SET_IFM2_BROADCAST_broadcast_h) != 0;
  op.broadcast.w = s.get(Field::NPU_SET_IFM2_BROADCAST_broadcast_w) != 0;
  op.broadcast.c = s.get(Field::NPU_SET_IFM2_BROADCAST_broadcast_c) != 0;
  op.broadcast.scalar = s.get(Field::NPU_SET_IFM2_BROADCAST_broadcast_constant) != 0;
  op.broadcast.operand_order = as<enums::ifm2_operand_order>(s.get(Field::NPU_SET_IFM2_BROADCAST_operand_order));
  op.broadcast.scalar_value = static_cast<int32_t>(s.get(Field::NPU_SET_IFM2_SCALAR_scalar));

  if (op.kind == OpKind::ELEMENTWISE) {
    // Elementwise ignores kernel, stride, padding and upscale (stale in the registers); IFM follows the
    // OFM extent and IFM2 too except on broadcast axes (spec 03 section 3.1).
    op.upscale = enums::ifm_upscale_mode::NONE;
    op.ifm.width = op.ofm.width;
    op.ifm.height = op.ofm.height;
    op.ifm_upscaled_width = op.ofm.width;
    op.ifm_upscaled_height = op.ofm.height;
    op.ifm2.width = op.broadcast.w ? 1 : op.ofm.width;
    op.ifm2.height = op.broadcast.h ? 1 : op.ofm.height;
    op.ifm2.depth = op.broadcast.c ? 1 : op.ofm.depth;
  } else if (op.kind != OpKind::DMA) {
    const bool up = op.upscale != enums::ifm_upscale_mode::NONE;
    op.ifm_upscaled_width = int64_t{op.ofm.width - 1} * k.stride_x + k.dilated_width - op.padding.left -
                            op.padding.right;
    op.ifm_upscaled_height = int64_t{op.ofm.height - 1} * k.stride_y + k.dilated_height - op.padding.top -
                             op.padding.bottom;
    op.ifm.width = stored_extent(op.ifm_upscaled_width, up);
    op.ifm.height = stored_extent(op.ifm_upscaled_height, up);
  }

  op.weight_region = static_cast<uint8_t>(s.get(Field::NPU_SET_WEIGHT_REGION_region));
  op.weights[0] = {static_cast<uint64_t>(s.get(Field::NPU_SET_WEIGHT_BASE_addr)),
                   static_cast<uint64_t>(s.get(Field::NPU_SET_WEIGHT_LENGTH_length))};
  op.weights[1] = {static_cast<uint64_t>(s.get(Field::NPU_SET_WEIGHT1_BASE_addr)),
                   static_cast<uint64_t>(s.get(Field::NPU_SET_WEIGHT1_LENGTH_length))};
  op.scale_region = static_cast<uint8_t>(s.get(Field::NPU_SET_SCALE_REGION_region));
  op.scales[0] = {static_cast<uint64_t>(s.get(Field::NPU_SET_SCALE_BASE_addr)),
                  static_cast<uint64_t>(s.get(Field::NPU_SET_SCALE_LENGTH_length))};
  op.scales[1] = {static_cast<uint64_t>(s.get(Field::NPU_SET_SCALE1_BASE_addr)),
                  static_cast<uint64_t>(s.get(Field::NPU_SET_SCALE1_LENGTH_length))};

  op.activation.function = as<enums::activation_function>(s.get(Field::NPU_SET_ACTIVATION_activation_function));
  op.activation.clip_range = as<enums::activation_clip_range>(s.get(Field::NPU_SET_ACTIVATION_activation_clip_range));
  op.activation.min = static_cast<int32_t>(s.get(Field::NPU_SET_ACTIVATION_MIN_clip_boundary));
  op.activation.max = static_cast<int32_t>(s.get(Field::NPU_SET_ACTIVATION_MAX_clip_boundary));

  op.block.width = static_cast<uint32_t>(s.get(Field::NPU_SET_OFM_BLK_WIDTH_M1_width_m1)) + 1;
  op.block.height = static_cast<uint32_t>(s.get(Field::NPU_SET_OFM_BLK_HEIGHT_M1_height_m1)) + 1;
  op.block.depth = static_cast<uint32_t>(s.get(Field::NPU_SET_OFM_BLK_DEPTH_M1_depth_m1)) + 1;
  op.shram.ib_end = static_cast<uint32_t>(s.get(Field::NPU_SET_IFM_IB_END_ib_end));
  op.shram.ab_start = static_cast<uint32_t>(s.get(Field::NPU_SET_AB_START_ab_start));
  op.shram.ifm2_ib_start = static_cast<uint32_t>(s.get(Field::NPU_SET_IFM2_IB_START_ib_start));
  op.acc_format = as<enums::acc_format>(s.get(Field::NPU_SET_ACC_FORMAT_acc_format));
  op.blockdep = static_cast<uint32_t>(s.get(Field::NPU_SET_BLOCKDEP_blockdep));

  op.ofm_scale = {static_cast<uint32_t>(s.get(Field::NPU_SET_OFM_SCALE_scale)),
                  static_cast<uint32_t>(s.get(Field::NPU_SET_OFM_SCALE_shift))};
  op.opa_scale = {static_cast<uint32_t>(s.get(Field::NPU_SET_OPA_SCALE_scale)),
                  static_cast<uint32_t>(s.get(Field::NPU_SET_OPA_SCALE_shift))};
  op.opb_scale = {static_cast<uint32_t>(s.get(Field::NPU_SET_OPB_SCALE_scale)), 0};
  op.parallel_mode = as<enums::parallel_mode>(s.get(Field::NPU_SET_PARALLEL_MODE_parallel_mode));

  Dma& d = op.dma;
  d.src.mode = as<enums::dma_region_mode>(s.get(Field::NPU_SET_DMA0_SRC_REGION_region_mode));
  d.src.region = static_cast<uint8_t>(s.get(Field::NPU_SET_DMA0_SRC_REGION_region));
  d.src.stride_mode = as<enums::dma_stride_mode>(s.get(Field::NPU_SET_DMA0_SRC_REGION_stride_mode));
  d.src.address = static_cast<uint64_t>(s.get(Field::NPU_SET_DMA0_SRC_addr));
  d.dst.mode = as<enums::dma_region_mode>(s.get(Field::NPU_SET_DMA0_DST_REGION_region_mode));
  d.dst.region = static_cast<uint8_t>(s.get(Field::NPU_SET_DMA0_DST_REGION_region));
  d.dst.stride_mode = as<enums::dma_stride_mode>(s.get(Field::NPU_SET_DMA0_DST_REGION_stride_mode));
  d.dst.address = static_cast<uint64_t>(s.get(Field::NPU_SET_DMA0_DST_addr));
  d.length_bytes = static_cast<uint64_t>(s.get(Field::NPU_SET_DMA0_LEN_length));
  d.size0 = static_cast<uint32_t>(s.get(Field::NPU_SET_DMA0_SIZE0_size));
  d.size1 = static_cast<uint32_t>(s.get(Field::NPU_SET_DMA0_SIZE1_size));
  d.skip0 = s.get(Field::NPU_SET_DMA0_SKIP0_skip);
  d.skip1 = s.get(Field::NPU_SET_DMA0_SKIP1_skip);
  return op;
}

// The Ethos-U85's broadcast modes: a bit per axis (H 1, W 2, C 4), or SCALAR.
Broadcast broadcast_of(int64_t mode) {
  Broadcast b;
  b.scalar = mode == static_cast<int64_t>(enums::broadcast_mode::SCALAR);
  if (!b.scalar) {
    b.h = (mode & static_cast<int64_t>(enums::broadcast_mode::H)) != 0;
    b.w = (mode & static_cast<int64_t>(enums::broadcast_mode::W)) != 0;
    b.c = (mode & static_cast<int64_t>(enums::broadcast_mode::C)) != 0;
  }
  return b;
}

// One of the U85's three scale commands (IFM_SCALE and IFM2_SCALE share the layout; their two rounding modes carry
// the OFM enum's values).
Scale scale_v2(const RegisterState& s, Field scale, Field shift, Field dbl_rnd, Field round_mode) {
  Scale r;
  r.scale = static_cast<uint32_t>(s.get(scale));
  r.shift = static_cast<uint32_t>(s.get(shift));
  r.dbl_rnd = static_cast<uint32_t>(s.get(dbl_rnd));
  r.rounding = as<enums::round_mode_ofm>(s.get(round_mode));
  return r;
}

// Version 2 (the Ethos-U85): the same feature-map, kernel and padding registers as version 1, its own scaling,
// broadcast, accumulator, activation, weight, resize and DMA registers.
Operation describe_v2(const Command& c, const RegisterState& s) {
  Operation op;
  op.version = IsaVersion::V2;
  op.cmd = c.cmd();
  switch (op.cmd) {
    case Cmd::NPU_OP_DEPTHWISE: op.kind = OpKind::DEPTHWISE; break;
    case Cmd::NPU_OP_POOL:
      op.kind = OpKind::POOL;
      op.pooling_mode = as<enums::pooling_mode>(c.get(Field::NPU_OP_POOL_pooling_mode));
      break;
    case Cmd::NPU_OP_ELEMENTWISE:
      op.kind = OpKind::ELEMENTWISE;
      op.elementwise_mode = as<enums::elementwise_mode>(c.get(Field::NPU_OP_ELEMENTWISE_elementwise_mode));
      break;
    case Cmd::NPU_OP_RESIZE:
      op.kind = OpKind::RESIZE;
      op.resize.mode = as<enums::resize_mode>(c.get(Field::NPU_OP_RESIZE_resize_mode));
      break;
    case Cmd::NPU_OP_DMA_START: op.kind = OpKind::DMA; break;
    default:
      op.kind = OpKind::CONV;
      op.weights_from_ifm2 = c.get(Field::NPU_OP_CONV_weights_ifm2) != 0;
      break;
  }

  op.ifm = read_fm(s, kIfm);
  op.ifm2 = read_fm(s, kIfm2);
  op.ofm = read_fm(s, kOfm);
  op.ifm.storage = as<enums::activation_storage>(s.get(Field::NPU_SET_IFM_PRECISION_activation_storage));
  op.ifm2.storage = as<enums::activation_storage>(s.get(Field::NPU_SET_IFM2_PRECISION_activation_storage));
  op.ofm.storage = as<enums::activation_storage>(s.get(Field::NPU_SET_OFM_PRECISION_activation_storage));
  op.ofm_scale_mode = as<enums::ofm_scale_mode>(s.get(Field::NPU_SET_OFM_PRECISION_scale_mode));
  op.transpose = as<enums::activation_transpose>(s.get(Field::NPU_SET_OFM_PRECISION_activation_transpose));
  op.reverse = as<enums::activation_reverse>(s.get(Field::NPU_SET_OFM_PRECISION_activation_reverse));

  read_geometry(s, op);
  const Kernel& k = op.kernel;

  op.ifm_broadcast = broadcast_of(s.get(Field::NPU_SET_IFM_BROADCAST_broadcast_mode));
  const Broadcast b2 = broadcast_of(s.get(Field::NPU_SET_IFM2_BROADCAST_broadcast_mode));
  op.broadcast.h = b2.h;
  op.broadcast.w = b2.w;
  op.broadcast.c = b2.c;
  op.broadcast.scalar = b2.scalar;
  op.op_scalar = static_cast<int32_t>(s.get(Field::NPU_SET_OP_SCALAR_scalar));

  if (op.kind == OpKind::ELEMENTWISE) {
    // Elementwise ignores the kernel registers; each operand follows the OFM extent except on its broadcast axes.
    op.upscale = enums::ifm_upscale_mode::NONE;
    op.ifm.width = op.ifm_broadcast.w ? 1 : op.ofm.width;
    op.ifm.height = op.ifm_broadcast.h ? 1 : op.ofm.height;
    op.ifm.depth = op.ifm_broadcast.c ? 1 : op.ofm.depth;
    op.ifm_upscaled_width = op.ofm.width;
    op.ifm_upscaled_height = op.ofm.height;
    op.ifm2.width = op.broadcast.w ? 1 : op.ofm.width;
    op.ifm2.height = op.broadcast.h ? 1 : op.ofm.height;
    op.ifm2.depth = op.broadcast.c ? 1 : op.ofm.depth;
  } else if (op.kind == OpKind::RESIZE) {
    // Vela programs the IFM extent the resize reads in the kernel size (GenerateResizeOp, rcs @478f864f).
    op.ifm.width = k.dilated_width;
    op.ifm.height = k.dilated_height;
    op.ifm_upscaled_width = op.ifm.width;
    op.ifm_upscaled_height = op.ifm.height;
  } else if (op.kind != OpKind::DMA) {
    const bool up = op.upscale != enums::ifm_upscale_mode::NONE;
    op.ifm_upscaled_width = int64_t{op.ofm.width - 1} * k.stride_x + k.dilated_width - op.padding.left -
                            op.padding.right;
    op.ifm_upscaled_height = int64_t{op.ofm.height - 1} * k.stride_y + k.dilated_height - op.padding.top -
                             op.padding.bottom;
    op.ifm.width = stored_extent(op.ifm_upscaled_width, up);
    op.ifm.height = stored_extent(op.ifm_upscaled_height, up);
  }

  op.weight_region = static_cast<uint8_t>(s.get(Field::NPU_SET_WEIGHT_REGION_region));
  const Field bases[] = {Field::NPU_SET_WEIGHT_BASE_addr, Field::NPU_SET_WEIGHT1_BASE_addr,
                         Field::NPU_SET_WEIGHT2_BASE_addr, Field::NPU_SET_WEIGHT3_BASE_addr};
  const Field lengths[] = {Field::NPU_SET_WEIGHT_LENGTH_length, Field::NPU_SET_WEIGHT1_LENGTH_length,
                           Field::NPU_SET_WEIGHT2_LENGTH_length, Field::NPU_SET_WEIGHT3_LENGTH_length};
  for (size_t i = 0; i < op.weights.size(); ++i)
    op.weights[i] = {static_cast<uint64_t>(s.get(bases[i])), static_cast<uint64_t>(s.get(lengths[i]))};
  op.scale_region = static_cast<uint8_t>(s.get(Field::NPU_SET_SCALE_REGION_region));
  op.scales[0] = {static_cast<uint64_t>(s.get(Field::NPU_SET_SCALE_BASE_addr)),
                  static_cast<uint64_t>(s.get(Field::NPU_SET_SCALE_LENGTH_length))};
  op.weight_format = as<enums::weight_format>(s.get(Field::NPU_SET_WEIGHT_FORMAT_weight_format));
  op.weight_sparsity = as<enums::weight_sparsity>(s.get(Field::NPU_SET_WEIGHT_FORMAT_weight_sparsity));

  op.activation.function = as<enums::activation_function>(s.get(Field::NPU_SET_ACTIVATION_activation_function));
  op.activation.clip_range =
      as<enums::activation_clip_range>(s.get(Field::NPU_SET_ACTIVATION_activation_clip_range_v2));
  op.activation.table = static_cast<uint32_t>(s.get(Field::NPU_SET_ACTIVATION_table));
  op.activation.min = static_cast<int32_t>(s.get(Field::NPU_SET_ACTIVATION_MIN_clip_boundary));
  op.activation.max = static_cast<int32_t>(s.get(Field::NPU_SET_ACTIVATION_MAX_clip_boundary));

  op.block.width = static_cast<uint32_t>(s.get(Field::NPU_SET_OFM_BLK_WIDTH_M1_width_m1_v2)) + 1;
  op.block.height = static_cast<uint32_t>(s.get(Field::NPU_SET_OFM_BLK_HEIGHT_M1_height_m1_v2)) + 1;
  op.block.depth = static_cast<uint32_t>(s.get(Field::NPU_SET_OFM_BLK_DEPTH_M1_depth_m1_v2)) + 1;
  op.acc_format = as<enums::acc_format>(s.get(Field::NPU_SET_ACC_FORMAT_acc_format));
  op.acc_input = as<enums::acc_input>(s.get(Field::NPU_SET_ACC_FORMAT_acc_input));
  if (op.loads_ifm2_into_accumulators() || (op.kind == OpKind::CONV && op.weights_from_ifm2)) {
    // IFM2_BROADCAST is an elementwise operand's: Vela 5.1 leaves it as the last elementwise operation set it for
    // these, so the hardware must ignore it.
    op.broadcast = {};
  }
  if (op.loads_ifm2_into_accumulators()) {
    // The accumulators take IFM2 element by element: IFM2 has the OFM's extent.
    op.ifm2.width = op.ofm.width;
    op.ifm2.height = op.ofm.height;
    op.ifm2.depth = op.ofm.depth;
  } else if (op.kind == OpKind::CONV && op.weights_from_ifm2) {
    // MatMul: IFM2 holds the weights as one row, OFM channel n's at x = n, over the IFM's depth (IFM_DEPTH_M1 serves
    // both; Vela 5.1's GenerateIFM2 and DecomposeMatmul, hapv3/neural-compiler @478f864f).
    op.ifm2.width = op.ofm.depth;
    op.ifm2.height = 1;
    op.ifm2.depth = op.ifm.depth;
  }
  op.acc_output = as<enums::acc_output>(s.get(Field::NPU_SET_ACC_FORMAT_acc_output));
  op.microblock = as<enums::microblock>(s.get(Field::NPU_SET_ACC_FORMAT_microblock));
  op.blockdep = static_cast<uint32_t>(s.get(Field::NPU_SET_BLOCKDEP_blockdep_v2));

  op.ofm_scale = scale_v2(s, Field::NPU_SET_OFM_SCALE_scale_v2, Field::NPU_SET_OFM_SCALE_shift,
                          Field::NPU_SET_OFM_SCALE_dbl_rnd, Field::NPU_SET_OFM_SCALE_round_mode);
  op.ifm_scale = scale_v2(s, Field::NPU_SET_IFM_SCALE_scale, Field::NPU_SET_IFM_SCALE_shift,
                          Field::NPU_SET_IFM_SCALE_dbl_rnd, Field::NPU_SET_IFM_SCALE_round_mode);
  op.ifm2_scale = scale_v2(s, Field::NPU_SET_IFM2_SCALE_scale, Field::NPU_SET_IFM2_SCALE_shift,
                           Field::NPU_SET_IFM2_SCALE_dbl_rnd, Field::NPU_SET_IFM2_SCALE_round_mode);

  Resize& r = op.resize;
  r.x_n = static_cast<uint32_t>(s.get(Field::NPU_SET_RESIZE_X_SCALE_N_M1_resize_x_scale_n_m1)) + 1;
  r.y_n = static_cast<uint32_t>(s.get(Field::NPU_SET_RESIZE_Y_SCALE_N_M1_resize_y_scale_n_m1)) + 1;
  r.x_offset = static_cast<int32_t>(s.get(Field::NPU_SET_RESIZE_X_OFFSET_resize_x_offset));
  r.y_offset = static_cast<int32_t>(s.get(Field::NPU_SET_RESIZE_Y_OFFSET_resize_y_offset));
  r.x_d = static_cast<uint32_t>(s.get(Field::NPU_SET_RESIZE_X_STEP_one_step_int)) * r.x_n +
          static_cast<uint32_t>(s.get(Field::NPU_SET_RESIZE_X_STEP_one_step_mod));
  r.y_d = static_cast<uint32_t>(s.get(Field::NPU_SET_RESIZE_Y_STEP_one_step_int)) * r.y_n +
          static_cast<uint32_t>(s.get(Field::NPU_SET_RESIZE_Y_STEP_one_step_mod));

  Dma& d = op.dma;
  d.src.mode = as<enums::dma_region_mode>(s.get(Field::NPU_SET_DMA0_SRC_REGION_region_mode));
  d.src.region = static_cast<uint8_t>(s.get(Field::NPU_SET_DMA0_SRC_REGION_region));
  d.src.stride_mode = as<enums::dma_stride_mode>(s.get(Field::NPU_SET_DMA0_SRC_REGION_stride_mode));
  d.src.address = static_cast<uint64_t>(s.get(Field::NPU_SET_DMA0_SRC_addr));
  d.dst.mode = as<enums::dma_region_mode>(s.get(Field::NPU_SET_DMA0_DST_REGION_region_mode));
  d.dst.region = static_cast<uint8_t>(s.get(Field::NPU_SET_DMA0_DST_REGION_region));
  d.dst.address = static_cast<uint64_t>(s.get(Field::NPU_SET_DMA0_DST_addr));
  d.length_bytes = static_cast<uint64_t>(s.get(Field::NPU_SET_DMA0_LEN_length));
  d.size0 = static_cast<uint32_t>(s.get(Field::NPU_SET_DMA0_SIZE0_size));
  d.size1 = static_cast<uint32_t>(s.get(Field::NPU_SET_DMA0_SIZE1_size));
  op.dma_indexed = s.get(Field::NPU_SET_DMA0_SRC_REGION_idx_mode) != 0 || s.get(Field::NPU_SET_DMA0_DST_REGION_idx_mode) != 0;
  return op;
}

}  // namespace

Operation describe(const Command& c, const RegisterState& s, IsaVersion version) {
  return version == IsaVersion::V2 ? describe_v2(c, s) : describe_v1(c, s);
}

bool StreamState::apply(const Command& c) {
  if (!regs_.apply(c)) return false;
  written_.set(slot(c.cmd()));
  return true;
}

StreamState walk(const Stream& s, const Visitor& visit) {
  StreamState st;
  const bool v2 = s.version == IsaVersion::V2;
  for (const Command& c : s.commands) {
    if (!c.info) continue;
    if (st.apply(c)) continue;
    const Cmd cmd = c.cmd();
    if (starts_operation(cmd)) {
      const Operation op = describe(c, st.regs(), s.version);
      visit(Event{EventKind::OPERATION, c, &op, 0}, st);
      continue;
    }
    switch (cmd) {
      case Cmd::NPU_OP_DMA_WAIT:
        visit(Event{EventKind::DMA_WAIT, c, nullptr,
                    static_cast<uint32_t>(c.get(v2 ? Field::NPU_OP_DMA_WAIT_k_v2 : Field::NPU_OP_DMA_WAIT_k))},
              st);
        break;
      case Cmd::NPU_OP_KERNEL_WAIT:
        visit(Event{EventKind::KERNEL_WAIT, c, nullptr,
                    static_cast<uint32_t>(c.get(v2 ? Field::NPU_OP_KERNEL_WAIT_n_v2 : Field::NPU_OP_KERNEL_WAIT_n))},
              st);
        break;
      case Cmd::NPU_OP_PMU_MASK:
        visit(Event{EventKind::PMU_MASK, c, nullptr, static_cast<uint32_t>(c.get(Field::NPU_OP_PMU_MASK_enable))},
              st);
        break;
      case Cmd::NPU_OP_IRQ:
        visit(Event{EventKind::IRQ, c, nullptr, static_cast<uint32_t>(c.get(Field::NPU_OP_IRQ_mask))}, st);
        break;
      case Cmd::NPU_OP_STOP:
        visit(Event{EventKind::STOP, c, nullptr, static_cast<uint32_t>(c.get(Field::NPU_OP_STOP_mask))}, st);
        return st;
      default: break;
    }
  }
  return st;
}

}  // namespace ethosu::isa
