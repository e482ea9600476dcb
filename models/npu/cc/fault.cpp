#include "models/npu/cc/fault.h"

namespace ethosu::cc {

const char* fault_name(FaultKind k) {
  switch (k) {
    case FaultKind::CMD_PARSE_ERROR: return "command parse error";
    case FaultKind::BUS_ERROR: return "bus error";
    case FaultKind::WD_FAULT: return "weight decoder fault";
    case FaultKind::LIMIT: return "simulation limit";
  }
  return "?";
}

Channel channel_of(isa::Access a) {
  switch (a) {
    case isa::Access::IFM:
    case isa::Access::IFM2: return Channel::RD_IFM;
    case isa::Access::WEIGHTS: return Channel::RD_WEIGHTS;
    case isa::Access::SCALES: return Channel::RD_SCALE_BIAS;
    case isa::Access::OFM: return Channel::WR_OFM;
    case isa::Access::DMA_SRC: return Channel::RD_MEM2MEM;
    case isa::Access::DMA_DST: return Channel::WR_MEM2MEM;
    case isa::Access::CMD: return Channel::RD_CMD;
  }
  return Channel::RD_CMD;
}

}  // namespace ethosu::cc
