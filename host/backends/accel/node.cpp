#include "host/backends/accel/node.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "host/backends/common/libc.h"

namespace ethosu::accel::node {

namespace {

constexpr const char* kDir = "/dev/accel";
constexpr const char* kSysfsRoots[] = {"/sys/dev/char/261:0", "/sys/class/accel/accel0"};
// Where the class device sits: the platform device of the i.MX 93 NPU node, then the accel class directory.
constexpr const char* kClassDevice = "../../devices/platform/soc@0/4a900000.npu/accel/accel0";

enum class Kind { FILE, LINK, DIRECTORY };
struct SysfsEntry {
  Kind kind;
  std::string content;  // file contents or link target
};

// Paths relative to the class device directory ("" is the directory itself).
const std::map<std::string, SysfsEntry>& sysfs() {
  using namespace std::string_literals;
  static const std::map<std::string, SysfsEntry> entries = {
      {"", {Kind::DIRECTORY, ""}},
      {"/uevent", {Kind::FILE, "MAJOR=261\nMINOR=0\nDEVNAME=accel/accel0\nDEVTYPE=accel_minor\n"}},
      {"/dev", {Kind::FILE, "261:0\n"}},
      {"/subsystem", {Kind::LINK, "../../../../../../class/accel"}},
      {"/device", {Kind::LINK, "../../../4a900000.npu"}},
      {"/device/uevent",
       {Kind::FILE,
        "DRIVER=ethosu\nOF_NAME=npu\nOF_FULLNAME=/soc@0/npu@4a900000\nOF_COMPATIBLE_0=fsl,imx93-npu\n"
        "OF_COMPATIBLE_1=arm,ethos-u65\nOF_COMPATIBLE_N=2\nMODALIAS=of:NnpuT(null)Cfsl,imx93-npuCarm,ethos-u65\n"}},
      {"/device/modalias", {Kind::FILE, "of:NnpuT(null)Cfsl,imx93-npuCarm,ethos-u65\n"}},
      {"/device/driver", {Kind::LINK, "../../../../bus/platform/drivers/ethosu"}},
      {"/device/subsystem", {Kind::LINK, "../../../../bus/platform"}},
      {"/device/of_node", {Kind::DIRECTORY, ""}},
      {"/device/of_node/compatible", {Kind::FILE, "fsl,imx93-npu\0arm,ethos-u65\0"s}},
      {"/device/of_node/name", {Kind::FILE, "npu\0"s}},
  };
  return entries;
}

// The path below one of the sysfs roots ("" for the root itself), or nullptr.
const char* sysfs_rest(const char* path) {
  for (const char* root : kSysfsRoots) {
    const size_t n = std::strlen(root);
    if (std::strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/')) return path + n;
  }
  return nullptr;
}

std::string without_trailing_slashes(const char* rest) {
  std::string r(rest);
  while (!r.empty() && r.back() == '/') r.pop_back();
  return r;
}

const SysfsEntry* sysfs_entry(const char* path) {
  const char* rest = sysfs_rest(path);
  if (!rest) return nullptr;
  const auto it = sysfs().find(without_trailing_slashes(rest));
  return it == sysfs().end() ? nullptr : &it->second;
}

bool host_has_dir() {
  static const bool has = [] {
    struct stat st{};
    return interpose::libc().stat(kDir, &st) == 0;
  }();
  return has;
}

// What every emulated entry shares: devtmpfs's device for /dev, sysfs's for /sys, one time stamp.
struct stat base_stat(bool in_dev) {
  static const struct stat dev_fs = [] {
    struct stat st{};
    if (interpose::libc().stat("/dev", &st) != 0) st.st_dev = makedev(0, 5);
    return st;
  }();
  static const struct stat sys_fs = [] {
    struct stat st{};
    if (interpose::libc().stat("/sys", &st) != 0) st.st_dev = makedev(0, 22);
    return st;
  }();
  struct stat st{};
  st.st_dev = (in_dev ? dev_fs : sys_fs).st_dev;
  st.st_nlink = 1;
  st.st_blksize = 4096;
  st.st_atim = st.st_mtim = st.st_ctim = dev_fs.st_mtim;
  return st;
}

// One listing of /dev/accel: the host's directory (null when it has none) and how far the emulated entries went.
struct Listing {
  DIR* real = nullptr;
  unsigned position = 0;
  dirent entry{};
  dirent64 entry64{};
};

std::mutex g_listings_mutex;
std::map<DIR*, std::unique_ptr<Listing>> g_listings;
std::atomic<unsigned> g_open_listings{0};

Listing* listing(DIR* dir) {
  if (g_open_listings.load(std::memory_order_acquire) == 0) return nullptr;
  std::lock_guard<std::mutex> lock(g_listings_mutex);
  const auto it = g_listings.find(dir);
  return it == g_listings.end() ? nullptr : it->second.get();
}

// The next name of the listing: the emulated ones first (".", ".." when the host has no directory, then
// "accel0"), then the host's, without its own accel0. Null at the end.
template <typename Entry>
Entry* next_entry(Listing& l, Entry& out, Entry* (*real)(DIR*)) {
  static const char* const kFakeNames[] = {".", "..", "accel0"};
  const unsigned first = l.real ? 2 : 0;
  if (first + l.position < 3) {
    const char* name = kFakeNames[first + l.position++];
    out = Entry{};
    out.d_ino = std::strcmp(name, "accel0") == 0 ? 1000 : 999;
    out.d_type = std::strcmp(name, "accel0") == 0 ? DT_CHR : DT_DIR;
    out.d_reclen = sizeof(Entry);
    std::strncpy(out.d_name, name, sizeof out.d_name - 1);
    return &out;
  }
  while (l.real) {
    Entry* e = real(l.real);
    if (!e || std::strcmp(e->d_name, "accel0") != 0) return e;
  }
  return nullptr;
}

}  // namespace

bool is_node(const char* path) { return path && std::strcmp(path, kPath) == 0; }

bool ours(int dirfd, const char* path) {
  (void)dirfd;  // only absolute paths are answered, and they ignore dirfd
  if (!path || path[0] != '/') return false;
  if (is_node(path)) return true;
  if (std::strcmp(path, kDir) == 0 || std::strcmp(path, "/dev/accel/") == 0) return !host_has_dir();
  return sysfs_rest(path) != nullptr;
}

int stat_path(const char* path, bool follow, struct stat& status) {
  if (is_node(path)) {
    struct stat st = base_stat(true);
    st.st_ino = 1000;
    st.st_mode = S_IFCHR | 0666;
    st.st_rdev = makedev(kAccelMajor, 0);
    status = st;
    return 0;
  }
  if (!sysfs_rest(path)) {  // /dev/accel, where the host has none
    struct stat st = base_stat(true);
    st.st_ino = 999;
    st.st_mode = S_IFDIR | 0755;
    st.st_nlink = 2;
    status = st;
    return 0;
  }
  const SysfsEntry* e = sysfs_entry(path);
  if (!e) {
    errno = ENOENT;
    return -1;
  }
  struct stat st = base_stat(false);
  st.st_ino = 2000 + std::hash<std::string>{}(without_trailing_slashes(sysfs_rest(path))) % 100000;
  if (e->kind == Kind::FILE) {
    st.st_mode = S_IFREG | 0444;
    st.st_size = 4096;  // sysfs reports a page for every attribute
  } else if (e->kind == Kind::LINK && !follow) {
    st.st_mode = S_IFLNK | 0777;
    st.st_size = static_cast<off_t>(e->content.size());
  } else {
    st.st_mode = S_IFDIR | 0755;
    st.st_nlink = 2;
  }
  status = st;
  return 0;
}

int access_path(const char* path, int mode) {
  struct stat st{};
  if (stat_path(path, true, st) != 0) return -1;
  if ((mode & W_OK) && S_ISREG(st.st_mode)) {  // sysfs attributes without a store operation
    errno = EACCES;
    return -1;
  }
  return 0;
}

ssize_t read_link(const char* path, char* buf, size_t size) {
  const char* rest = sysfs_rest(path);
  const std::string target = rest && without_trailing_slashes(rest).empty() ? std::string(kClassDevice)
                             : sysfs_entry(path) && sysfs_entry(path)->kind == Kind::LINK ? sysfs_entry(path)->content
                                                                                          : std::string();
  if (target.empty()) {
    errno = (rest && sysfs_entry(path)) || is_node(path) || !rest ? EINVAL : ENOENT;
    return -1;
  }
  const size_t n = std::min(size, target.size());
  std::memcpy(buf, target.data(), n);
  return static_cast<ssize_t>(n);
}

int open_sysfs(const char* path, int flags) {
  const SysfsEntry* e = sysfs_entry(path);
  if (!e || (!sysfs_rest(path) && !is_node(path))) {
    errno = ENOENT;
    return -1;
  }
  if (e->kind != Kind::FILE) {
    errno = EISDIR;
    return -1;
  }
  if ((flags & O_ACCMODE) != O_RDONLY) {
    errno = EACCES;
    return -1;
  }
  const int fd = memfd_create("ethosu-sim-sysfs", (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
  if (fd < 0) return -1;
  if (write(fd, e->content.data(), e->content.size()) != static_cast<ssize_t>(e->content.size()) ||
      lseek(fd, 0, SEEK_SET) != 0) {
    const int err = errno;
    interpose::libc().close(fd);
    errno = err;
    return -1;
  }
  return fd;
}

std::optional<DIR*> open_dir(const char* name) {
  if (!name || (std::strcmp(name, kDir) != 0 && std::strcmp(name, "/dev/accel/") != 0)) return std::nullopt;
  auto l = std::make_unique<Listing>();
  l->real = host_has_dir() ? interpose::libc().opendir(name) : nullptr;
  if (host_has_dir() && !l->real) return nullptr;
  // Without a host directory the handle is only a key: it never reaches the real functions.
  DIR* handle = l->real ? l->real : reinterpret_cast<DIR*>(new char);
  std::lock_guard<std::mutex> lock(g_listings_mutex);
  g_listings[handle] = std::move(l);
  g_open_listings.fetch_add(1, std::memory_order_release);
  return handle;
}

std::optional<struct dirent*> read_dir(DIR* dir) {
  Listing* l = listing(dir);
  if (!l) return std::nullopt;
  return next_entry(*l, l->entry, interpose::libc().readdir);
}

std::optional<struct dirent64*> read_dir64(DIR* dir) {
  Listing* l = listing(dir);
  if (!l) return std::nullopt;
  return next_entry(*l, l->entry64, interpose::libc().readdir64);
}

bool rewind_dir(DIR* dir) {
  Listing* l = listing(dir);
  if (!l) return false;
  l->position = 0;
  if (l->real) interpose::libc().rewinddir(l->real);
  return true;
}

// The host's stream, once forgotten here, is closed by the next definition.
std::optional<int> close_dir(DIR* dir) {
  std::unique_ptr<Listing> l;
  if (g_open_listings.load(std::memory_order_acquire) != 0) {
    std::lock_guard<std::mutex> lock(g_listings_mutex);
    const auto it = g_listings.find(dir);
    if (it != g_listings.end()) {
      l = std::move(it->second);
      g_listings.erase(it);
      g_open_listings.fetch_sub(1, std::memory_order_release);
    }
  }
  if (!l || l->real) return std::nullopt;
  delete reinterpret_cast<char*>(dir);
  return 0;
}

std::optional<int> dir_fd(DIR* dir) {
  Listing* l = listing(dir);
  if (!l || l->real) return std::nullopt;
  errno = ENOTSUP;  // the emulated directory has no descriptor
  return -1;
}

}  // namespace ethosu::accel::node
