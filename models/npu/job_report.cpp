#include "models/npu/job_report.h"

namespace ethosu_sim {

const char* stall_name(Stall s) {
  switch (s) {
    case Stall::BLOCKDEP: return "blockdep";
    case Stall::SHRAM_RECONFIG: return "shram_reconfig";
    case Stall::MAC_WAIT_IFM: return "mac_wait_ifm";
    case Stall::MAC_WAIT_WEIGHTS: return "mac_wait_weights";
    case Stall::MAC_WAIT_ACC: return "mac_wait_acc";
    case Stall::AO_WAIT_ACC: return "ao_wait_acc";
    case Stall::AO_WAIT_OB: return "ao_wait_ob";
    case Stall::DMA_WAIT: return "dma_wait";
    case Stall::KERNEL_WAIT: return "kernel_wait";
    case Stall::CMD_FETCH: return "cmd_fetch";
    case Stall::WRITE_RESPONSE: return "write_response";
    case Stall::DMA_QUEUE: return "dma_queue";
  }
  return "?";
}

const char* op_time_name(OpTime t) {
  switch (t) {
    case OpTime::MAC: return "mac";
    case OpTime::AO: return "ao";
    case OpTime::WD: return "wd";
    case OpTime::IFM_READ: return "ifm_read";
    case OpTime::WEIGHT_READ: return "weight_read";
    case OpTime::OFM_WRITE: return "ofm_write";
    case OpTime::DMA: return "dma";
    case OpTime::IDLE: return "idle";
  }
  return "?";
}

}  // namespace ethosu_sim
