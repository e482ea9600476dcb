// Whole-file reads and writes with errors that name the file (ethosu::InputError).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ethosu::host {

// Refuses directories, unreadable and over-large files (max_bytes) with an InputError naming the path.
std::vector<uint8_t> read_file(const std::string& path, uint64_t max_bytes = uint64_t{1} << 32);
void write_file(const std::string& path, const uint8_t* data, size_t size);
inline void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  write_file(path, bytes.data(), bytes.size());
}
void write_text_file(const std::string& path, const std::string& text);

}  // namespace ethosu::host
