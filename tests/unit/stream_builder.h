// Test helper: builds command streams command by command from ISA fields, ending with NPU_OP_STOP.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "isa/decoder.h"
#include "isa/isa.h"

namespace ethosu::isa::test {

using FV = std::pair<Field, int64_t>;

struct StreamBuilder {
  std::vector<uint8_t> bytes;
  // Appends one command; returns its byte offset.
  uint32_t emit(Cmd c, std::initializer_list<FV> fields = {}) {
    const auto offset = static_cast<uint32_t>(bytes.size());
    uint64_t bits = header_bits(c);
    for (const auto& [f, v] : fields) bits = set(bits, info(f), v);
    word(static_cast<uint32_t>(bits));
    if (is_cmd1(c)) word(static_cast<uint32_t>(bits >> 32));
    return offset;
  }
  void word(uint32_t w) {
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<uint8_t>(w >> (8 * i)));
  }
  Stream finish() {
    emit(Cmd::NPU_OP_STOP, {{Field::NPU_OP_STOP_mask, 0xFFFF}});
    return decode(bytes);
  }
};

}  // namespace ethosu::isa::test
