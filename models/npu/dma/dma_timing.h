// The DMA engine's timing parameters (npu.dma.*); all its memory time is the AXI ports'.
#pragma once

#include <cstdint>

namespace ethosu::npu {

struct DmaTiming {
  uint32_t queue_depth = 2;  // outstanding NPU_OP_DMA_START before the CC stalls [I: Vela assumes 2 on U65]

  template <typename Fields>
  void fields(Fields& f) {
    f.field("queue_depth", queue_depth, "DMAs", "DMAs queued before the command controller stalls", {1, 16});
  }
};

}  // namespace ethosu::npu
