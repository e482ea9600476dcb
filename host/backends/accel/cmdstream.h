// What CMDSTREAM_BO_CREATE keeps of a command stream: its words and, per region, how many bytes the stream
// reaches (the kernel's region_size) and which bytes a job of it may read and write (what SUBMIT copies).
//
// Contract: validate_cmdstream() decodes the first size/4 words (the kernel walks whole words) and runs
// isa::validate() for the device's variant. It refuses (nullopt, with the first reason) what the Linux
// validator refuses (spec 06 section 4.4, findings of category LINUX: NPU_OP_IRQ, a misplaced or missing STOP,
// a cmd1 header in the last word, reserved opcode bits, CONV with a parameter, DMA stride mode 3, registers
// read before they are written, non-positive derived IFM sizes). Region sizes are the validator's exact access
// extents (the end of the highest byte touched), not the kernel's corner formula; where the two differ the
// shim is the more precise one. copy_bytes and written are walked as on two cores, which reach every byte one core
// would: a job copies in the first copy_bytes of each region BO and copies back at most the written range.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "isa/validator.h"

namespace ethosu::accel {

struct ValidatedStream {
  std::vector<uint8_t> bytes;                   // whole words
  std::array<uint64_t, 8> region_size_bytes{};  // 0 = region unused
  std::array<uint64_t, 8> copy_bytes{};         // the end of every byte a job may touch (read or write)
  std::array<std::pair<uint64_t, uint64_t>, 8> written{};  // [begin, end) of the OFM and DMA writes; empty: none
};

std::optional<ValidatedStream> validate_cmdstream(const uint8_t* data, size_t size_bytes, isa::Variant variant,
                                                  std::string& reason);

}  // namespace ethosu::accel
