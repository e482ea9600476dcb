// Whole-file reads and writes with errors that name the file (ethosu::InputError): the host's names for
// the safe file primitives of sim/files.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/files.h"

namespace ethosu::host {

using sim::read_file;
using sim::read_text_file;
using sim::write_file;
using sim::write_text_file;
inline void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  sim::write_file(path, bytes.data(), bytes.size());
}

}  // namespace ethosu::host
