// Reading and writing the files a user names, safely: every error names the file (ethosu::InputError).
//
// Contract: reads take regular files only (a directory, FIFO, socket or device is refused before it is
// opened, so nothing blocks) and at most `max_bytes` (a larger file is refused without reading it all).
// Writes go into the named file; an existing regular file is replaced as a whole (written beside it and
// renamed over it, so the path holds the old or the new contents, never a part), anything else that
// exists (a device such as /dev/null, a FIFO, a symbolic link) is written through in place and never
// replaced, and a directory is refused. Nothing blocks: a FIFO without a reader is refused at once (ENXIO), and
// the temporary is created without following a link planted at its name.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ethosu::sim {

inline constexpr uint64_t kMaxTextFileBytes = uint64_t{16} << 20;  // configuration and vela.ini files

std::vector<uint8_t> read_file(const std::filesystem::path& path, uint64_t max_bytes = uint64_t{1} << 32);
std::string read_text_file(const std::filesystem::path& path, uint64_t max_bytes = kMaxTextFileBytes);
// Whether `path` lies inside `folder` once the symbolic links of both are followed (false when either cannot be
// resolved): the rule for the files a case folder's or a capture folder's manifest names, so that someone else's
// folder cannot make the simulator read, report on or copy a file it links to.
bool inside_folder(const std::filesystem::path& folder, const std::filesystem::path& path);

// A file's size and its first bytes (at most `max_bytes`), with read_file()'s checks: to tell from a file's start
// and size how much of it to read.
struct FileHead {
  std::vector<uint8_t> bytes;
  uint64_t size_bytes = 0;
};
FileHead read_file_head(const std::filesystem::path& path, size_t max_bytes);
void write_file(const std::filesystem::path& path, const uint8_t* data, size_t size);
inline void write_file(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  write_file(path, bytes.data(), bytes.size());
}
void write_text_file(const std::filesystem::path& path, const std::string& text);

// A file written in parts with write_file()'s policy, for outputs made as they go (a trace). The constructor
// opens it (throws InputError naming the path, before anything is written); commit() puts a replaced file in
// place. Destroyed without commit(), it leaves the path as it was (its temporary removed).
class OutputFile {
 public:
  explicit OutputFile(const std::filesystem::path& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(const void* data, size_t size);
  void commit();

 private:
  std::filesystem::path path_, tmp_;  // tmp_ empty: written in place
  int fd_ = -1;
};

}  // namespace ethosu::sim
