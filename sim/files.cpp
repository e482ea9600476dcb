#include "sim/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include "sim/error.h"

namespace ethosu::sim {

namespace fs = std::filesystem;

namespace {

std::string name(const fs::path& p) { return p.string(); }

[[noreturn]] void fail(const fs::path& p, const std::string& what) { throw InputError(name(p) + ": " + what); }

std::string errno_text() { return std::strerror(errno); }

// Closes a file descriptor on every path out.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

void write_all(int fd, const uint8_t* data, size_t size, const fs::path& p) {
  while (size) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(p, "write error: " + errno_text());
    data += n;
    size -= static_cast<size_t>(n);
  }
}

// Opens a regular file for reading, refusing anything else, and one over `max_bytes`, before it is opened.
Fd open_regular(const fs::path& path, uint64_t max_bytes, struct stat& st) {
  if (::stat(path.c_str(), &st) != 0) fail(path, errno == ENOENT ? "no such file" : "cannot read: " + errno_text());
  if (S_ISDIR(st.st_mode)) fail(path, "is a directory, expected a file");
  if (!S_ISREG(st.st_mode)) fail(path, "is not a regular file");
  if (static_cast<uint64_t>(st.st_size) > max_bytes)
    fail(path, std::to_string(st.st_size) + " bytes, larger than the " + std::to_string(max_bytes) +
                   "-byte limit for this input");
  // O_NONBLOCK: should the path have turned into a FIFO since the stat, opening it does not wait.
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) fail(path, "cannot open: " + errno_text());
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) fail(path, "is not a regular file");
  if (static_cast<uint64_t>(st.st_size) > max_bytes)
    fail(path, "larger than the " + std::to_string(max_bytes) + "-byte limit for this input");
  return fd;
}

}  // namespace

bool inside_folder(const fs::path& folder, const fs::path& path) {
  std::error_code ec;
  const fs::path root = fs::canonical(folder, ec);
  if (ec) return false;
  const fs::path real = fs::canonical(path, ec);
  if (ec) return false;
  const auto [end, _] = std::mismatch(root.begin(), root.end(), real.begin(), real.end());
  return end == root.end();
}

FileHead read_file_head(const fs::path& path, size_t max_bytes) {
  struct stat st {};
  const Fd fd = open_regular(path, std::numeric_limits<uint64_t>::max(), st);
  FileHead head;
  head.size_bytes = static_cast<uint64_t>(st.st_size);
  head.bytes.resize(std::min<uint64_t>(max_bytes, head.size_bytes));
  size_t got = 0;
  while (got < head.bytes.size()) {
    const ssize_t n = ::read(fd.get(), head.bytes.data() + got, head.bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, "read error: " + errno_text());
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  head.bytes.resize(got);
  return head;
}

std::vector<uint8_t> read_file(const fs::path& path, uint64_t max_bytes) {
  struct stat st {};
  const Fd fd = open_regular(path, max_bytes, st);
  // The size the stat gave in one read straight into the result (a large region file then costs one system call
  // and one copy, not one per 64 KiB and a second copy; the vector's zero-fill before it is the one extra pass),
  // then whatever the file grew by since, if anything.
  std::vector<uint8_t> bytes(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(fd.get(), bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, "read error: " + errno_text());
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  bytes.resize(got);
  uint8_t buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, "read error: " + errno_text());
    if (n == 0) break;
    if (bytes.size() + static_cast<size_t>(n) > max_bytes)
      fail(path, "larger than the " + std::to_string(max_bytes) + "-byte limit for this input");
    bytes.insert(bytes.end(), buf, buf + n);
  }
  return bytes;
}

std::string read_text_file(const fs::path& path, uint64_t max_bytes) {
  const std::vector<uint8_t> bytes = read_file(path, max_bytes);
  return std::string(bytes.begin(), bytes.end());
}

OutputFile::OutputFile(const fs::path& path) : path_(path) {
  struct stat st {};
  const bool exists = ::lstat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) fail(path, "is a directory, expected a file");
  if (exists && !S_ISREG(st.st_mode)) {
    // A device, FIFO or symbolic link: written through, never replaced. O_NONBLOCK keeps a FIFO without a
    // reader from blocking the open (ENXIO instead); writes then block as usual, so a reader that is slow to
    // drain the FIFO is waited for rather than refused (EAGAIN).
    struct stat target {};
    if (::stat(path.c_str(), &target) == 0 && S_ISDIR(target.st_mode)) fail(path, "is a directory, expected a file");
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0666);
    if (fd_ < 0) fail(path, "cannot write: " + errno_text());
    const int flags = ::fcntl(fd_, F_GETFL);
    if (flags < 0 || ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK) != 0) {
      const std::string why = errno_text();
      ::close(fd_);
      fail(path, "cannot write: " + why);
    }
    return;
  }
  // O_NOFOLLOW: a link planted at the temporary's name (in a folder others can write) is not written through.
  tmp_ = path;
  tmp_ += ".tmp" + std::to_string(::getpid());
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (fd_ < 0) fail(path, "cannot create: " + errno_text());
}

OutputFile::~OutputFile() {
  if (fd_ < 0) return;
  ::close(fd_);
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
}

void OutputFile::write(const void* data, size_t size) {
  if (fd_ < 0) fail(path_, "cannot write: already closed");
  write_all(fd_, static_cast<const uint8_t*>(data), size, path_);
}

void OutputFile::commit() {
  if (fd_ < 0) fail(path_, "cannot write: already closed");
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 || (!tmp_.empty() && ::rename(tmp_.c_str(), path_.c_str()) != 0)) {
    const std::string why = errno_text();
    if (!tmp_.empty()) ::unlink(tmp_.c_str());
    fail(path_, "cannot write: " + why);
  }
}

void write_file(const fs::path& path, const uint8_t* data, size_t size) {
  OutputFile out(path);
  out.write(data, size);
  out.commit();
}

void write_text_file(const fs::path& path, const std::string& text) {
  write_file(path, reinterpret_cast<const uint8_t*>(text.data()), text.size());
}

}  // namespace ethosu::sim
