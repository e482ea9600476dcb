// Elementwise kernels (03-data-semantics.md §8): binary MUL/ADD/SUB/MIN/MAX/SHR/SHL and unary
// LRELU/ABS/CLZ, with IFM2 broadcast in H/W/C or a scalar, operand order and the ADD/SUB operand
// scaling modes, bit-exact, per OFM tile.
//
// Contract: a = IFM - IFM_ZP and b = IFM2 (or the scalar) - IFM2_ZP are formed first; with
// reverse_operands (operand_order = 1) they swap, so operand A is IFM2 and the scale modes refer to
// the swapped operands. The result goes through the output stage with the global OFM_SCALE (its
// multiplier dropped for 32-bit IFMs), except LRELU, whose OFM_SCALE is the negative slope.
// Reads each pixel (or element) before writing it, so an OFM may alias its IFM exactly (Vela does that).
// output.ofm_type must equal ofm.layout.type.
#pragma once

#include <cstdint>

#include "models/kernels/feature_map.h"
#include "models/kernels/output_stage.h"

namespace ethosu::kernels {

enum class ElementwiseOp : uint8_t { Mul = 0, Add, Sub, Min, Max, LRelu, Abs, Clz, Shr, Shl };
enum class OperandScaleMode : uint8_t { OpaOpb16 = 0, Opa32 = 1, Opb32 = 2 };

constexpr bool is_unary(ElementwiseOp op) {
  return op == ElementwiseOp::LRelu || op == ElementwiseOp::Abs || op == ElementwiseOp::Clz;
}

struct ElementwiseParams {
  ElementwiseOp op = ElementwiseOp::Add;
  FeatureMap ifm, ifm2, ofm;  // ifm2 unused by unary ops and with a scalar
  int32_t ifm_zero_point = 0, ifm2_zero_point = 0;
  int ofm_width = 1, ofm_height = 1, ofm_depth = 1;
  bool broadcast_h = false, broadcast_w = false, broadcast_c = false;  // IFM2 axes of extent 1
  bool ifm2_is_scalar = false;
  int32_t ifm2_scalar = 0;  // IFM2_SCALAR, already sign/zero-extended from 16 bits by the caller
  bool reverse_operands = false;
  // ADD/SUB operand scaling (IFM_PRECISION.scale_mode, OPA/OPB_SCALE, IFM_PRECISION.round_mode).
  OperandScaleMode scale_mode = OperandScaleMode::OpaOpb16;
  uint32_t opa_scale = 1;  // 16-bit unsigned in mode OpaOpb16, 32-bit unsigned otherwise
  uint8_t opa_shift = 0;   // modes Opa32/Opb32
  uint16_t opb_scale = 1;  // mode OpaOpb16
  RoundMode ifm_round_mode = RoundMode::Dbl;
  OutputStage output;  // global scale (per_channel is ignored)
};

// The exact result of the operation on one pair of operands, before the output stage; LRELU's
// negative branch is already scaled.
int64_t elementwise_value(const ElementwiseParams& p, int64_t a, int64_t b);

void elementwise_tile(const ElementwiseParams& p, const OfmTile& blk);
void elementwise(const ElementwiseParams& p);

}  // namespace ethosu::kernels
