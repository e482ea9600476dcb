// libethosu-sim-accel.so: LD_PRELOAD interposer that makes /dev/accel/accel0 an emulated Ethos-U65 behind the
// Linux accel/ethosu interface (device.h), the way Mesa's drm-shim fakes GPUs. This is its shim on the interposer
// layer (host/backends/common/interposer.h).
//
// Opening exactly "/dev/accel/accel0" (open, open64, openat, openat64 and glibc's fortified __open*_2) returns a
// real descriptor (a memfd, so poll, close-on-exec and kcmp() work natively) tied to a fresh DeviceFile. dup(),
// dup2(), dup3() and fcntl(F_DUPFD*) copies share that file, as copies of a kernel file do; the file goes when its
// last descriptor is closed (close, close_range). ioctl() and mmap() on any of them go to the emulation. What
// device discovery reads answers as on a board (node.h): stat/fstat/fstatat/statx/access of the node and
// /dev/accel, the /dev/accel directory listing, the node's sysfs entries (files, also through fopen, and
// readlink). Every other path and descriptor goes straight to the next definition, and no lock is taken for them.
// A bad ETHOSU_SIM_* setting makes the open fail with EINVAL after a message on stderr naming the variable.
// fork(): the child's copies of the parent's device descriptors refuse every ioctl and mmap with EIO (one message
// on stderr); the child opens the device itself to use it. Not emulated: PRIME export/import.
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "host/backends/accel/device.h"
#include "host/backends/accel/node.h"
#include "host/backends/common/interposer.h"
#include "host/backends/common/libc.h"
#include "host/backends/common/owned_fds.h"
#include "host/backends/shim_env.h"

namespace {

using ethosu::accel::DeviceFile;
namespace node = ethosu::accel::node;

// One descriptor of the device: the file it shares with its copies, the process that opened it and the memfd's
// inode, which tells a stale entry (the number closed behind the shim's back, by close_range() or a raw syscall,
// and reused) from ours.
struct Entry {
  std::shared_ptr<DeviceFile> file;
  pid_t owner = 0;
  ino_t ino = 0;
};

struct Shim {
  std::mutex mutex;  // the table and the device's creation; held only while they are read or changed
  std::unique_ptr<ethosu::accel::Device> device;
  std::unordered_map<int, Entry> table;
  ethosu::host::OwnedFds owned;
};

Shim& shim() {
  static Shim* s = new Shim;  // never destroyed: clients may close descriptors from atexit handlers
  return *s;
}

ino_t real_inode(int fd) {
  struct stat st{};
  return ethosu::interpose::libc().fstat(fd, &st) == 0 ? st.st_ino : 0;
}

std::optional<Entry> lookup(int fd) {
  Shim& s = shim();
  if (!s.owned.contains(fd)) return std::nullopt;
  std::unique_lock<std::mutex> lock(s.mutex);
  const auto it = s.table.find(fd);
  if (it == s.table.end()) return std::nullopt;
  Entry e = it->second;
  lock.unlock();
  if (real_inode(fd) == e.ino) return e;
  lock.lock();
  s.table.erase(fd);
  s.owned.set(fd, false);
  return std::nullopt;
}

// Drops fd from the table. In a fork child the file is the parent's: it may be mid-call in a thread the child
// does not have, so it is left alone.
void forget(int fd) {
  Shim& s = shim();
  if (!s.owned.contains(fd)) return;
  std::shared_ptr<DeviceFile> dropped;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    const auto it = s.table.find(fd);
    if (it == s.table.end()) return;
    if (it->second.owner == getpid()) dropped = std::move(it->second.file);
    else new std::shared_ptr<DeviceFile>(std::move(it->second.file));
    s.table.erase(it);
    s.owned.set(fd, false);
  }
}

void add(int fd, Entry e) {
  Shim& s = shim();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.table[fd] = std::move(e);
  s.owned.set(fd, true);
}

void before_fork() {
  Shim& s = shim();
  s.mutex.lock();
  if (s.device) s.device->before_fork();
}

void after_fork_in_parent() {
  Shim& s = shim();
  if (s.device) s.device->after_fork_in_parent();
  s.mutex.unlock();
}

void after_fork_in_child() {
  Shim& s = shim();
  if (s.device) s.device->after_fork_in_child();
  s.mutex.unlock();
}

int open_device(int flags) {
  Shim& s = shim();
  std::unique_lock<std::mutex> lock(s.mutex);
  try {
    if (!s.device) {
      // SystemC prints its banner on stdout at elaboration; a driver's client owns stdout.
      setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
      s.device = std::make_unique<ethosu::accel::Device>(
          ethosu::host::shim_settings(ethosu::host::ShimDriver::LINUX_ACCEL));
      pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
    }
  } catch (const std::exception& e) {
    std::cerr << "ethosu-sim accel: " << node::kPath << ": " << e.what() << "\n";
    errno = EINVAL;
    return -1;
  }
  ethosu::accel::Device& device = *s.device;
  lock.unlock();
  const int fd = memfd_create("ethosu-sim-accel0", (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
  if (fd < 0) return -1;
  add(fd, Entry{std::make_shared<DeviceFile>(device), getpid(), real_inode(fd)});
  return fd;
}

// The file behind fd for a call of this process, or null with errno set when a fork child uses its parent's.
DeviceFile* usable(const Entry& e) {
  if (e.owner == getpid()) return e.file.get();
  static std::atomic<bool> told{false};
  if (!told.exchange(true))
    std::cerr << "ethosu-sim accel: this process (" << getpid() << ") inherited " << node::kPath << " from process "
              << e.owner << " across fork(); the simulator cannot share it: open the device again in the child\n";
  errno = EIO;
  return nullptr;
}

// Drops the descriptors close_range() closed, those of a fork child's parent as forget() does.
void forget_range(unsigned first, unsigned last) {
  Shim& s = shim();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (auto it = s.table.begin(); it != s.table.end();) {
    const auto fd = static_cast<unsigned>(it->first);
    if (fd >= first && fd <= last) {
      if (it->second.owner != getpid()) new std::shared_ptr<DeviceFile>(std::move(it->second.file));
      it = s.table.erase(it);
    } else {
      ++it;
    }
  }
  s.owned.clear_range(first, last);
}

class AccelInterposer final : public ethosu::interpose::Interposer {
 public:
  bool claims_path(int dirfd, const char* path) override { return node::ours(dirfd, path); }

  // The device node, or one of its sysfs files (-1 with errno for a sysfs path that is not a file).
  std::optional<int> open(int, const char* path, int flags) override {
    return node::is_node(path) ? open_device(flags) : node::open_sysfs(path, flags);
  }

  // libdrm and Mesa read sysfs with stdio. The node itself is no stdio file: its fopen() goes on.
  std::optional<FILE*> fopen(const char* path, const char*) override {
    if (node::is_node(path)) return std::nullopt;
    const int fd = node::open_sysfs(path, O_RDONLY);
    return fd < 0 ? nullptr : fdopen(fd, "r");
  }

  std::optional<int> stat(const char* path, bool follow, struct stat& status) override {
    return node::stat_path(path, follow, status);
  }

  std::optional<int> access(const char* path, int mode) override { return node::access_path(path, mode); }

  std::optional<ssize_t> readlink(const char* path, char* buf, size_t size) override {
    return node::read_link(path, buf, size);
  }

  std::optional<int> ioctl(int fd, unsigned long request, void* arg) override {
    const auto e = lookup(fd);
    if (!e) return std::nullopt;
    DeviceFile* f = usable(*e);
    if (!f) return -1;
    int ret;
    try {
      ret = f->ioctl(request, arg);
    } catch (const std::exception& ex) {
      // A defect of the shim, not of the client's request: report it rather than terminate the client.
      std::cerr << "ethosu-sim accel: ioctl " << std::hex << request << std::dec << ": internal error: " << ex.what()
                << "\n";
      ret = -EIO;
    }
    if (ret == 0) return 0;
    errno = -ret;
    return -1;
  }

  std::optional<void*> mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) override {
    const auto e = lookup(fd);
    if (!e) return std::nullopt;
    DeviceFile* f = usable(*e);
    if (!f) return MAP_FAILED;
    const intptr_t r = f->map(addr, length, prot, flags, static_cast<uint64_t>(offset));
    if (r < 0) {
      errno = static_cast<int>(-r);
      return MAP_FAILED;
    }
    return reinterpret_cast<void*>(r);
  }

  // A device descriptor's status is the node's.
  std::optional<int> stat_fd(int fd, struct stat& status) override {
    if (!lookup(fd)) return std::nullopt;
    return node::stat_path(node::kPath, true, status);
  }

  std::optional<DIR*> opendir(const char* name) override { return node::open_dir(name); }
  std::optional<struct dirent*> readdir(DIR* dir) override { return node::read_dir(dir); }
  std::optional<struct dirent64*> readdir64(DIR* dir) override { return node::read_dir64(dir); }
  bool rewinddir(DIR* dir) override { return node::rewind_dir(dir); }
  std::optional<int> closedir(DIR* dir) override { return node::close_dir(dir); }
  std::optional<int> dirfd(DIR* dir) override { return node::dir_fd(dir); }

  void closing(int fd) override { forget(fd); }

  // `to` no longer names what it named before, and names ours if `from` did.
  void duplicated(int from, int to) override {
    forget(to);
    if (auto e = lookup(from)) add(to, *e);
  }

  void closed_range(unsigned first, unsigned last) override { forget_range(first, last); }
};

}  // namespace

// Stateless (the table and the device are Shim's), so never destroyed.
ethosu::interpose::Interposer& ethosu::interpose::interposer() {
  static AccelInterposer accel;
  return accel;
}
