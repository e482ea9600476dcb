// What one job measured: the NPU's totals, one record per operation, the PMU, the blocks' statistics. The
// types are the public ones (include/ethosu_sim/report.h), under the names the simulator's own code uses.
// Filled by the timed NPU model, written by host/report as JSON and as a summary table.
#pragma once

#include "ethosu_sim/report.h"
#include "isa/access.h"

namespace ethosu::npu {

using ethosu_sim::HostSeconds;
using ethosu_sim::JobReport;
using ethosu_sim::kOpTimeKinds;
using ethosu_sim::kStallKinds;
using ethosu_sim::OpRecord;
using ethosu_sim::OpTime;
using ethosu_sim::op_time_name;
using ethosu_sim::PortTraffic;
using ethosu_sim::Stall;
using ethosu_sim::stall_name;
using ethosu_sim::StatValue;

}  // namespace ethosu::npu
