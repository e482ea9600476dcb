// The command controller's timing parameters (npu.cc.*) [I: not documented; spec 01 section 3 for the TSU].
#pragma once

#include <cstdint>

namespace ethosu::npu {

struct CcTiming {
  uint32_t cycles_per_word = 1;      // one 32-bit command word parsed per cycle
  uint32_t tsu_banks = 4;            // kernel operations in flight
  uint32_t fetch_bytes = 64;         // command fetch request size (one AXI burst at the default split)
  uint64_t quantum_cycles = 100000;  // longest run-ahead before synchronising with SystemC

  template <typename Fields>
  void fields(Fields& f) {
    f.field("cycles_per_word", cycles_per_word, "cycles", "command controller cycles per command-stream word",
            {0, 1024});
    f.field("fetch_bytes", fetch_bytes, "bytes",
            "command-stream fetch request size; a command is parsed once its request is in", {4, 4096});
    f.field("tsu_banks", tsu_banks, "operations", "kernel operations in flight", {1, 4});
    f.field("quantum_cycles", quantum_cycles, "cycles",
            "longest run-ahead of the command controller before it synchronises with SystemC", {1, int64_t{1} << 40});
  }
};

}  // namespace ethosu::npu
