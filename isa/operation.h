// One issued NPU operation, described in typed form from the sticky register state.
//
// Contract: describe() turns the RegisterState seen when an NPU_OP_CONV/DEPTHWISE/POOL/ELEMENTWISE or
// NPU_OP_DMA_START is parsed into an Operation: every register the operation depends on, decoded through
// the isa.def fields (no masks here), plus the derived geometry the spec defines but no register holds
// (IFM extent, undilated kernel size, strides 1..4, which operands are actually read). Registers an
// operation ignores (kernel state for elementwise, IFM2 for conv, ...) are still decoded but flagged by
// the `reads_*` predicates. element_offset() is the single implementation of the feature-map addressing
// rule (03-data-semantics.md section 2) used by the validator, the functional kernels and tools.
// walk() is the one stream walker: it keeps the state, describes each operation and reports the
// synchronisation/stop events in stream order.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "isa/decoder.h"
#include "isa/isa.h"
#include "isa/state.h"

namespace ethosu::isa {

enum class OpKind : uint8_t { CONV, DEPTHWISE, POOL, ELEMENTWISE, DMA, RESIZE };  // RESIZE: Ethos-U85 only

const char* op_kind_name(OpKind k);

// Element type and layout of a feature map (IFM/IFM2/OFM_PRECISION).
struct ElementType {
  enums::activation_type type = enums::activation_type::UNSIGNED;
  enums::activation_precision precision = enums::activation_precision::B8;
  enums::activation_format format = enums::activation_format::NHWC;

  bool is_signed() const { return type == enums::activation_type::SIGNED; }
  unsigned bits() const { return 8u << static_cast<unsigned>(precision); }  // B64 gives 64 (unsupported)
  unsigned bytes() const { return bits() / 8; }
  bool nhcwb16() const { return format == enums::activation_format::NHCWB16; }
};

// A feature map as one operation accesses it. Extents are in elements; the tile split and strides
// are exactly as programmed (custom strides are legal and used by Vela).
struct FeatureMap {
  uint8_t region = 0;
  std::array<uint64_t, 4> base{};  // tile base offsets in the region (40-bit)
  uint32_t width0 = 1;             // WIDTH0_M1 + 1: width of tiles 0 and 2
  uint32_t height0 = 1;            // HEIGHT0_M1 + 1: height of tile 0
  uint32_t height1 = 1;            // HEIGHT1_M1 + 1: height of tile 1 (tile 3 is below it)
  uint32_t width = 0;              // full extent the operation touches (after upscale division for the IFM)
  uint32_t height = 0;
  uint32_t depth = 0;
  int64_t stride_x = 0;  // bytes, signed 40-bit
  int64_t stride_y = 0;
  int64_t stride_c = 0;
  ElementType element;
  int32_t zero_point = 0;
  enums::round_mode round_mode = enums::round_mode::DBL;  // IFM: operand scaling; OFM: output stage; IFM2: unused
  // Ethos-U85: where the feature map lives. TILE2X2 is the memory addressing above; CHAINED is the chaining
  // buffer between consecutive operations (`region` then numbers the buffer, no address register applies);
  // NONE is no feature map (an OP_SCALAR operand, or no OFM written). Version-1 maps are always TILE2X2.
  enums::activation_storage storage = enums::activation_storage::TILE2X2;
  bool chained() const { return storage == enums::activation_storage::CHAINED; }
  bool in_memory() const {
    return storage == enums::activation_storage::TILE2X2 || storage == enums::activation_storage::TILE3X1;
  }
};

// Tile (0..3) holding logical element (x, y), and the coordinates inside that tile (spec 03 section 2.1).
struct TileCoord {
  unsigned tile;
  uint32_t x;
  uint32_t y;
};
TileCoord tile_of(const FeatureMap& fm, uint32_t x, uint32_t y);

// Byte offset inside fm.region of element (x, y, c). Signed: custom negative strides can point below the
// region start, which the validator must see rather than wrap.
//   NHWC:    BASE[t] + y*STRIDE_Y + x*STRIDE_X + c*esize
//   NHCWB16: BASE[t] + y*STRIDE_Y + x*STRIDE_X + (c/16)*STRIDE_C + (c%16)*esize
// Decision: NHCWB16 uses the programmed STRIDE_X (the spec writes 16*esize, which is what Vela programs,
// but also says strides must be honoured exactly); NHWC steps channels by esize, not STRIDE_C (spec 03 2.2).
int64_t element_offset(const FeatureMap& fm, uint32_t x, uint32_t y, uint32_t c);

struct Kernel {
  uint32_t width = 1;           // taps: KERNEL_WIDTH_M1 / dilation_x + 1
  uint32_t height = 1;
  uint32_t dilated_width = 1;   // KERNEL_WIDTH_M1 + 1: IFM footprint of one output element
  uint32_t dilated_height = 1;
  uint32_t stride_x = 1;        // ((msb << 1) | lsb) + 1, 1..4
  uint32_t stride_y = 1;
  uint32_t dilation_x = 1;      // 1 or 2
  uint32_t dilation_y = 1;
  enums::weight_order weight_order = enums::weight_order::DEPTH_FIRST;
  enums::kernel_decomposition decomposition = enums::kernel_decomposition::D8X8;
};

struct Padding {
  uint32_t top = 0, left = 0, bottom = 0, right = 0;
};

// A byte stream for one core (weights or scale/bias).
struct StreamRef {
  uint64_t base = 0;
  uint64_t length_bytes = 0;
};

struct Activation {
  enums::activation_function function = enums::activation_function::RELU;
  enums::activation_clip_range clip_range = enums::activation_clip_range::OFM_PRECISION;
  uint32_t table = 0;  // Ethos-U85: the LUT in LUT RAM, in units of the LUT type's size
  int32_t min = 0;  // 16-bit two's complement, OFM quantized units
  int32_t max = 0;
};

struct Scale {
  uint32_t scale = 0;
  uint32_t shift = 0;
  // Ethos-U85 (IFM_SCALE, IFM2_SCALE, OFM_SCALE): the double-rounding point and the rounding mode (the IFM
  // commands' two modes have the OFM enum's values 0 and 1).
  uint32_t dbl_rnd = 0;
  enums::round_mode_ofm rounding = enums::round_mode_ofm::DOUBLE_SYMMETRIC;
};

// Ethos-U85 IFM_BROADCAST / IFM2_BROADCAST: the axes held at 0, or the operand is OP_SCALAR.
struct Broadcast {
  bool h = false, w = false, c = false;
  bool scalar = false;
};

// Ethos-U85 NPU_OP_RESIZE: output position o maps to o * d + offset in units of 1/n input elements, per axis.
struct Resize {
  enums::resize_mode mode = enums::resize_mode::BILINEAR;
  uint32_t x_n = 1, y_n = 1;  // RESIZE_*_SCALE_N_M1 + 1
  uint32_t x_d = 1, y_d = 1;  // one_step_int * n + one_step_mod of RESIZE_X/Y (the register holds d only so)
  int32_t x_offset = 0, y_offset = 0;
};

struct Ifm2Broadcast {
  bool h = false, w = false, c = false;
  bool scalar = false;  // broadcast_constant: IFM2 is IFM2_SCALAR, no feature map is read
  enums::ifm2_operand_order operand_order = enums::ifm2_operand_order::ORDER_B;
  int32_t scalar_value = 0;  // 16-bit, sign-extended; zero-extend per IFM2 signedness when using it
};
// On the Ethos-U85 `broadcast` is IFM2_BROADCAST (h, w, c, scalar) and the scalar is Operation::op_scalar.

struct DmaEndpoint {
  enums::dma_region_mode mode = enums::dma_region_mode::EXTERNAL;
  uint8_t region = 0;  // region index when EXTERNAL; core mask (bit k = core k) for an INTERNAL destination
  enums::dma_stride_mode stride_mode = enums::dma_stride_mode::D1;
  uint64_t address = 0;  // region offset, or SHRAM byte address when INTERNAL
  bool internal() const { return mode == enums::dma_region_mode::INTERNAL; }
};

struct Dma {
  DmaEndpoint src, dst;
  uint64_t length_bytes = 0;  // bytes per row (the whole transfer in 1D)
  uint32_t size0 = 0;         // rows (2D/3D)
  uint32_t size1 = 0;         // planes (3D)
  int64_t skip0 = 0;          // bytes between rows, signed 40-bit
  int64_t skip1 = 0;          // bytes between planes, signed 40-bit

  // Rows and planes the transfer moves: SIZE0 counts when either side is 2D/3D, SIZE1 when either is 3D.
  uint64_t rows() const;
  uint64_t planes() const;
  uint64_t total_bytes() const { return length_bytes * rows() * planes(); }
};

// Byte span [lo, hi) one DMA side touches, relative to its region (or SHRAM). A 1D side is contiguous
// for total_bytes(); a 2D side places row r at r*(LEN+SKIP0) (rows of all planes in sequence when the
// other side is 3D: our decision, the spec is silent); a 3D side places plane p at
// p*((LEN+SKIP0)*SIZE0 + SKIP1) (spec 03 section 10). Empty (lo == hi) when nothing moves.
struct Span {
  int64_t lo = 0;
  int64_t hi = 0;
  bool empty() const { return hi <= lo; }
};
Span dma_span(const Dma& d, const DmaEndpoint& side);

struct ShramConfig {
  uint32_t ib_end = 0;         // banks (1 KiB)
  uint32_t ab_start = 0;
  uint32_t ifm2_ib_start = 0;
};

struct BlockConfig {
  uint32_t width = 1, height = 1, depth = 1;  // OFM tile, *_M1 + 1
};

struct Operation {
  IsaVersion version = IsaVersion::V1;  // the command set that programmed it
  Cmd cmd = Cmd::NPU_OP_STOP;
  OpKind kind = OpKind::CONV;
  enums::pooling_mode pooling_mode = enums::pooling_mode::MAX;
  enums::elementwise_mode elementwise_mode = enums::elementwise_mode::MUL;

  FeatureMap ifm, ifm2, ofm;
  enums::ifm_scale_mode ifm_scale_mode = enums::ifm_scale_mode::OPA_OPB_16;
  enums::ofm_scale_mode ofm_scale_mode = enums::ofm_scale_mode::PER_CHANNEL;
  Kernel kernel;
  Padding padding;
  enums::ifm_upscale_mode upscale = enums::ifm_upscale_mode::NONE;
  // IFM extent in upscaled space, signed: the spec's formula can go to zero or below for bad state.
  int64_t ifm_upscaled_width = 0;
  int64_t ifm_upscaled_height = 0;

  uint8_t weight_region = 0;
  // [core] on the U65: WEIGHT_*, WEIGHT1_*; [weight decoder] on the U85: WEIGHT_*, WEIGHT1_* .. WEIGHT3_*.
  std::array<StreamRef, 4> weights{};
  uint8_t scale_region = 0;
  std::array<StreamRef, 2> scales{};   // [core]: SCALE_*, SCALE1_*

  Activation activation;
  BlockConfig block;
  ShramConfig shram;
  enums::acc_format acc_format = enums::acc_format::I32;
  uint32_t blockdep = 0;
  Scale ofm_scale, opa_scale, opb_scale;  // OPB has no shift
  Ifm2Broadcast broadcast;
  enums::parallel_mode parallel_mode = enums::parallel_mode::SINGLE_CORE;
  Dma dma;

  // Ethos-U85 (version 2) state; the defaults on version 1.
  Scale ifm_scale, ifm2_scale;  // elementwise operand scaling
  Broadcast ifm_broadcast;      // IFM2's is `broadcast`
  int32_t op_scalar = 0;        // OP_SCALAR: the value of the operand whose broadcast is SCALAR
  enums::acc_input acc_input = enums::acc_input::RESET;
  enums::acc_output acc_output = enums::acc_output::ENABLE;
  enums::microblock microblock = enums::microblock::U1X1;
  enums::weight_format weight_format = enums::weight_format::SWD;
  enums::weight_sparsity weight_sparsity = enums::weight_sparsity::NONE;
  bool weights_from_ifm2 = false;  // NPU_OP_CONV weights_ifm2 (MatMul)
  enums::activation_transpose transpose = enums::activation_transpose::HWC;
  enums::activation_reverse reverse = enums::activation_reverse::NONE;
  Resize resize;
  bool dma_indexed = false;  // gather or scatter (DMA0 idx_mode on either side)

  bool is_kernel() const { return kind != OpKind::DMA; }
  bool v2() const { return version == IsaVersion::V2; }
  bool is_unary() const;           // ELEMENTWISE LRELU/ABS/CLZ
  // The U85's pooling NONE reads no IFM (Vela programs it as an unused int8 map; the Linux validator skips it).
  bool reads_ifm() const { return is_kernel() && (!v2() || (ifm.in_memory() && !null_pool())); }
  bool reads_ifm2() const;         // binary elementwise with a feature-map IFM2, or accumulators loaded from IFM2
  // The U85's pooling NONE ("NullPool"), and one whose accumulators ACC_FORMAT acc_input IFM2 loads from IFM2 (Vela
  // 5.1's 32-bit memory copy, transpose, reverse and rescale).
  bool null_pool() const;
  bool loads_ifm2_into_accumulators() const;
  bool uses_ifm2() const;          // binary elementwise (feature map or scalar)
  bool reads_weights() const { return (kind == OpKind::CONV && !weights_from_ifm2) || kind == OpKind::DEPTHWISE; }
  bool reads_scales() const;       // CONV/DEPTHWISE with per-channel scaling
  bool uses_kernel() const { return kind == OpKind::CONV || kind == OpKind::DEPTHWISE || kind == OpKind::POOL; }
  bool writes_ofm() const { return is_kernel() && (!v2() || ofm.in_memory()); }
  // Its activation looks its results up in a LUT in SHRAM (ACTIVATION TABLE_0..7).
  bool uses_lut() const {
    return v2() ? activation.function != enums::activation_function::LUT_NONE
                : activation.function >= enums::activation_function::TABLE_0;
  }
  unsigned cores() const { return parallel_mode == enums::parallel_mode::DUAL_CORE_DEPTH ? 2 : 1; }
};

// The Ethos-U85's OFM transpose and reverse (NPU_SET_OFM_PRECISION): OFM_WIDTH/HEIGHT/DEPTH hold the extents the
// operation computes; the OFM's base, tile and stride registers address the tensor as stored, whose axes are the
// computed ones reordered by ACTIVATION_TRANSPOSE (outer to inner: WHC stores computed (h, w, c) at y = w, x = h,
// channel c), each mirrored within its computed extent first where ACTIVATION_REVERSE names it (Vela 5.1's
// ethos_u85_register_cs_generator.cpp GenerateOFM and scheduler_decompose.cpp; [I] that the hardware moves elements
// as Vela moves shapes). Identity on the U55 and U65.
struct OfmCoord {
  uint32_t x = 0, y = 0, c = 0;
};
struct OfmBox3 {
  uint32_t x0 = 0, x1 = 0, y0 = 0, y1 = 0, c0 = 0, c1 = 0;  // half-open
};
// Where computed element `at` (inside the OFM extents) is stored.
OfmCoord stored_ofm_coord(const Operation& op, OfmCoord at);
// The stored tensor's extents (width, height, depth as x, y, c).
OfmCoord stored_ofm_extents(const Operation& op);
// The stored image of a computed box (a box too); empty boxes stay empty.
OfmBox3 stored_ofm_box(const Operation& op, const OfmBox3& computed);
// Whether the OFM is written other than as computed.
bool ofm_permuted(const Operation& op);

// The first field value or combination of this operation whose hardware behaviour no public source
// settles (isa/FIELD_COVERAGE.md lists every value and how it is modelled), as a sentence naming the
// registers; nothing when every value it uses is modelled. The functional model refuses to run such an
// operation (a fault naming it) and `validate` warns, so no run gives a guessed answer.
std::optional<std::string> unknown_behaviour(const Operation& op);

// Describes the operation `op` (an NPU_OP_CONV/DEPTHWISE/POOL/ELEMENTWISE/DMA_START command, or NPU_OP_RESIZE in
// version 2) under state s, read with the fields of command set `version`.
Operation describe(const Command& op, const RegisterState& s, IsaVersion version = IsaVersion::V1);

// True for the commands describe() accepts.
bool starts_operation(Cmd c);

// RegisterState plus which state commands were ever written (the Linux validator rejects reads of
// never-written registers; the reset value 0 is otherwise indistinguishable).
class StreamState {
 public:
  bool apply(const Command& c);
  const RegisterState& regs() const { return regs_; }
  bool written(Cmd c) const { return written_[slot(c)]; }

 private:
  static size_t slot(Cmd c) {
    const auto h = static_cast<uint16_t>(c);
    return (h & kCmd1Flag) ? 256 + (h & 0xFF) : (h & 0xFF);
  }
  RegisterState regs_;
  std::bitset<512> written_;
};

enum class EventKind : uint8_t { OPERATION, DMA_WAIT, KERNEL_WAIT, PMU_MASK, IRQ, STOP };

struct Event {
  EventKind kind;
  const Command& command;              // command.offset is the stream byte offset
  const Operation* operation;          // OPERATION only
  uint32_t value;                      // DMA_WAIT k, KERNEL_WAIT n, PMU_MASK enable, IRQ/STOP mask
};

using Visitor = std::function<void(const Event&, const StreamState&)>;

// Walks the commands in order: state commands update the state, NPU_OP_* produce events. Entries the
// decoder could not decode (info == nullptr) are skipped; walking ends after the first NPU_OP_STOP,
// as the NPU never reads further. Returns the state after the walk.
StreamState walk(const Stream& s, const Visitor& visit);

}  // namespace ethosu::isa
