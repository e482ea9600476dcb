// Small Vela-like models for the input/output handling of the job builders and the driver shims: two inputs
// whose graph order differs from the ethos-u operator's, in the arena or in separate I/O regions (COP2).
#pragma once

#include <cstdint>
#include <vector>

#include "isa/assembler.h"
#include "tests/unit/flatbuffer_builder.h"

namespace ethosu::testing {

// A 1x1x8 int8 MAX pool from region 3 offset 0 to region 4 offset 0: copies the two inputs of
// two_input_model's separate-I/O layout (a at 0, b at 4) into its output y.
inline std::vector<uint8_t> copy_inputs_to_output() {
  return isa::assemble(R"(
NPU_SET_IFM_REGION region=3
NPU_SET_IFM_BASE0 addr=0
NPU_SET_IFM_PRECISION activation_type=SIGNED
NPU_SET_IFM_DEPTH_M1 depth_m1=7
NPU_SET_IFM_STRIDE_X stride=8
NPU_SET_IFM_STRIDE_Y stride=8
NPU_SET_IFM_STRIDE_C stride=1
NPU_SET_OFM_REGION region=4
NPU_SET_OFM_BASE0 addr=0
NPU_SET_OFM_PRECISION activation_type=SIGNED
NPU_SET_OFM_DEPTH_M1 depth_m1=7
NPU_SET_OFM_STRIDE_X stride=8
NPU_SET_OFM_STRIDE_Y stride=8
NPU_SET_OFM_STRIDE_C stride=1
NPU_SET_ACTIVATION_MIN clip_boundary=-128
NPU_SET_ACTIVATION_MAX clip_boundary=127
NPU_OP_POOL pooling_mode=MAX
NPU_OP_STOP mask=0xffff
)", "copy.s");
}

// Two 4-byte inputs "a" and "b" and an 8-byte output "y". The graph lists a then b; the ethos-u operator takes
// b then a (Vela reorders operands). Offsets: a 0x40, b 0x80, y 0 in the arena, or a 0, b 4, y 0 in the input and
// output regions when the payload is COP2 with separate I/O regions.
inline Bytes two_input_model(const Bytes& payload, bool separate) {
  ModelSpec m;
  m.opcodes = {{32, "ethos-u", false}};
  SubgraphSpec s;
  s.tensors = {
      {"cs", 3, {static_cast<int32_t>(payload.size())}, 1, {}, {}, 0, false},
      {"flash", 3, {16}, 0, {}, {}, 0, false},
      {"scratch", 3, {256}, 0, {}, {}, 0, false},
      {"scratch_fast", 3, {0}, 0, {}, {}, 0, false},
      {"a", 9, {1, 1, 1, 4}, 0, {}, {}, 0, false},
      {"b", 9, {1, 1, 1, 4}, 0, {}, {}, 0, false},
      {"y", 9, {1, 1, 1, 8}, 0, {}, {}, 0, false},
  };
  s.operators = {{0, {0, 1, 2, 3, 5, 4}, {6}, {1, 4, 1}}};
  s.inputs = {4, 5};
  s.outputs = {6};
  m.subgraphs = {s};
  const uint32_t none = static_cast<uint32_t>(-1);
  const Bytes plan = separate ? words_to_bytes({0, 1, 7, none, none, 0, none, 0, 4, 0})
                              : words_to_bytes({0, 1, 7, none, none, 0, none, 0x40, 0x80, 0});
  m.buffers = {{{}, false}, {payload, false}, {plan, false}};
  m.metadata = {{"OfflineMemoryAllocation", 2}};
  return build_model(m);
}

}  // namespace ethosu::testing
