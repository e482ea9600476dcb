// The functional model's timeline with the NPU's control registers: no time, and the STATUS the timed NPU
// would end with (irq_raised and cmd_end_reached, or a fault's error bit), so that a functional run reports
// what a driver would read.
#pragma once

#include <cstdint>

#include "isa/architecture.h"
#include "models/npu/cc/timeline.h"
#include "models/npu/control.h"

namespace ethosu::cc {

class StatusTimeline : public NoTime {
 public:
  explicit StatusTimeline(isa::Variant v) : ctrl_(v) { ctrl_.set_running(true); }
  uint32_t status() const { return ctrl_.status(); }

 private:
  void irq(uint16_t mask) override { ctrl_.irq_op(mask); }
  void stop(uint16_t mask) override { ctrl_.stop_reached(mask); }
  void fault(const Fault& f) override { ctrl_.fault(f); }
  npu::ControlRegisters ctrl_;
};

}  // namespace ethosu::cc
