// SHRAM's size, a run-time parameter (npu.shram.*).
#pragma once

#include <cstdint>

namespace ethosu::npu {

struct ShramParams {
  uint64_t bytes_per_core = 48 * 1024;

  template <typename Fields>
  void fields(Fields& f) {
    f.field("bytes_per_core", bytes_per_core, "bytes",
            "SHRAM per core in 1 KiB banks, the LUT in the top two; changes where LUTs and internal DMAs may go (a "
            "stream laid out for 48 KiB faults on less). On the Ethos-U85 (no SHRAM): its LUT RAM, 2 KiB",
            {2 * 1024, 96 * 1024, 1024});
  }
};

}  // namespace ethosu::npu
