#include "host/file_io.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "sim/error.h"

namespace ethosu::host {

std::vector<uint8_t> read_file(const std::string& path, uint64_t max_bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw InputError(path + ": no such file");
  if (fs::is_directory(st)) throw InputError(path + ": is a directory, expected a file");
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) throw InputError(path + ": cannot open: " + std::strerror(errno));
  const auto size = static_cast<uint64_t>(f.tellg());
  if (size > max_bytes)
    throw InputError(path + ": " + std::to_string(size) + " bytes, larger than the " + std::to_string(max_bytes) +
                     "-byte limit for this input");
  std::vector<uint8_t> bytes(size);
  f.seekg(0);
  if (size && !f.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size)))
    throw InputError(path + ": read error");
  return bytes;
}

void write_file(const std::string& path, const uint8_t* data, size_t size) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw InputError(path + ": cannot create: " + std::strerror(errno));
  f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!f) throw InputError(path + ": write error");
}

void write_text_file(const std::string& path, const std::string& text) {
  write_file(path, reinterpret_cast<const uint8_t*>(text.data()), text.size());
}

}  // namespace ethosu::host
