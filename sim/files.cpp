#include "sim/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

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

}  // namespace

std::vector<uint8_t> read_file(const fs::path& path, uint64_t max_bytes) {
  struct stat st {};
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

void write_file(const fs::path& path, const uint8_t* data, size_t size) {
  struct stat st {};
  const bool exists = ::lstat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) fail(path, "is a directory, expected a file");
  if (exists && !S_ISREG(st.st_mode)) {
    // A device, FIFO or symbolic link: written through, never replaced. O_NONBLOCK keeps a FIFO without a
    // reader from blocking.
    struct stat target {};
    if (::stat(path.c_str(), &target) == 0 && S_ISDIR(target.st_mode)) fail(path, "is a directory, expected a file");
    Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0666));
    if (fd.get() < 0) fail(path, "cannot write: " + errno_text());
    write_all(fd.get(), data, size, path);
    return;
  }
  fs::path tmp = path;
  tmp += ".tmp" + std::to_string(::getpid());
  Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666));
  if (fd.get() < 0) fail(path, "cannot create: " + errno_text());
  try {
    write_all(fd.get(), data, size, path);
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  if (::close(fd.release()) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = errno_text();
    ::unlink(tmp.c_str());
    fail(path, "cannot write: " + why);
  }
}

void write_text_file(const fs::path& path, const std::string& text) {
  write_file(path, reinterpret_cast<const uint8_t*>(text.data()), text.size());
}

}  // namespace ethosu::sim
