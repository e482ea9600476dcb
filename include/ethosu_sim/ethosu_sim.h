// Everything of ethosu-sim's public API (include/ethosu_sim) in one include:
//   isa.h         decode, disassemble, assemble, validate command streams     EthosuSim::isa
//   functional.h  the functional model                                          EthosuSim::functional
//   config.h      the machine as named parameters                              EthosuSim::npu
//   npu.h         the NPU as a SystemC/TLM-2.0 module; memory.h a memory       EthosuSim::npu
//   dram.h        a DRAM shared by a platform's masters                         EthosuSim::npu
//   width_adapter.h  the NPU's sockets on 64/128-bit buses (header only)
//   registers.h   the NPU's register map, fields and PMU event ids (no library)
//   report.h      what a job measured
//   platform.h    the ready platform (NPU, SRAM, DRAM); driver.h the host CPU  EthosuSim::platform
//   traffic_generator.h  a bus master with a set bandwidth                      EthosuSim::platform
//   run.h         jobs and runs, as `ethosu-sim run`                           EthosuSim::platform
#pragma once

#include "ethosu_sim/config.h"
#include "ethosu_sim/dram.h"
#include "ethosu_sim/driver.h"
#include "ethosu_sim/error.h"
#include "ethosu_sim/functional.h"
#include "ethosu_sim/isa.h"
#include "ethosu_sim/memory.h"
#include "ethosu_sim/npu.h"
#include "ethosu_sim/platform.h"
#include "ethosu_sim/registers.h"
#include "ethosu_sim/report.h"
#include "ethosu_sim/run.h"
#include "ethosu_sim/traffic_generator.h"
#include "ethosu_sim/version.h"
#include "ethosu_sim/width_adapter.h"
