// A client that makes the calls Mesa's Teflon delegate makes on an accel/ethosu device, in Mesa's order, through
// Debian's libdrm where Mesa uses it; run under LD_PRELOAD=libethosu-sim-accel.so. Written from Mesa's sources
// (src/gallium/auxiliary/pipe-loader/pipe_loader_drm.c, src/loader/loader.c, src/gallium/auxiliary/util/u_screen.c,
// src/gallium/winsys/ethosu/drm, src/gallium/drivers/ethosu/ethosu_device.c and ethosu_ml.c; see the README).
//
//   accel_mesa_client CASE_DIR   discovery, screen creation and one job the way ethosu_ml builds it (region 0 the
//                                coefficients BO, region 1 the IO BO, region 2 the whole SRAM by sram_size), outputs
//                                compared bit-exact with the case's expected files
//   accel_mesa_client --fork CASE_DIR   the same job in a fork() child: its inherited descriptor refuses ioctls
//                                (EIO), a descriptor it opens itself runs the job
//   accel_mesa_client --threads  a long job in one thread while another thread's calls (close of an unrelated
//                                descriptor, ioctls on the same and on another device file) return before it ends
//   accel_mesa_client --limits   BOs use no descriptors of the client's; DEV_QUERY with a huge size; the per-job
//                                region limit
// A case folder is a manifest.json with region 0 (file), region 1 (size), inputs and outputs in region 1 (the
// bundled traces/tiny_cnn, or a corpus case). Exit 0 pass, 1 failure, 2 usage, 77 case absent (skip).
#include <dirent.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xf86drm.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "host/backends/accel/ethosu_accel_uapi.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "FAIL: %s\n", what.c_str());
  ++failures;
}

std::string errno_text(int e) { return std::to_string(e) + " (" + std::strerror(e) + ")"; }

std::vector<uint8_t> read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + p.string());
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::string read_text(const char* path) {
  FILE* f = std::fopen(path, "r");
  if (!f) return {};
  std::string s;
  char buf[256];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

// Mesa's drm_ethosu_npu_info: the three fields of the mainline UAPI (no PMU counter count).
struct MesaNpuInfo {
  uint32_t id, config, sram_size;
};

// loader_open_device() for /dev/accel/accel0..255 and loader_get_kernel_driver_name() (drmGetVersion), as
// pipe_loader_accel_probe() does; returns the descriptor of the ethosu device.
int probe_accel_devices() {
  int found = -1, devices = 0;
  for (int minor = 0; minor <= 255; ++minor) {
    const std::string path = "/dev/accel/accel" + std::to_string(minor);
    const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) continue;
    ++devices;
    drmVersionPtr v = drmGetVersion(fd);
    check(v != nullptr, path + ": drmGetVersion");
    const bool ethosu = v && std::string(v->name, static_cast<size_t>(v->name_len)) == "ethosu";
    if (v) check(v->version_major == 1 && v->date && v->desc, path + ": drmGetVersion fields");
    drmFreeVersion(v);
    if (ethosu && found < 0) found = fd;
    else close(fd);
  }
  check(devices == 1, "one accel device found, not " + std::to_string(devices));
  return found;
}

// What the kernel shows of the node before and around the open.
void check_node(int fd) {
  struct stat by_path{}, by_fd{};
  check(stat("/dev/accel/accel0", &by_path) == 0 && S_ISCHR(by_path.st_mode) && major(by_path.st_rdev) == 261 &&
            minor(by_path.st_rdev) == 0,
        "stat(/dev/accel/accel0): a character device 261:0");
  check(fstat(fd, &by_fd) == 0 && S_ISCHR(by_fd.st_mode) && by_fd.st_rdev == by_path.st_rdev &&
            by_fd.st_ino == by_path.st_ino,
        "fstat of the descriptor: the node");
  struct statx sx{};
  check(statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &sx) == 0 && S_ISCHR(sx.stx_mode) && sx.stx_rdev_major == 261,
        "statx of the descriptor: a character device, major 261");
  struct stat at{};
  check(fstatat(AT_FDCWD, "/dev/accel/accel0", &at, 0) == 0 && at.st_rdev == by_path.st_rdev, "fstatat of the node");
  check(access("/dev/accel/accel0", R_OK | W_OK) == 0, "access(/dev/accel/accel0, R_OK | W_OK)");

  DIR* dir = opendir("/dev/accel");
  check(dir != nullptr, "opendir(/dev/accel)");
  int accel0 = 0;
  while (dir) {
    const dirent* e = readdir(dir);
    if (!e) break;
    if (std::strcmp(e->d_name, "accel0") == 0) accel0 += e->d_type == DT_CHR;
  }
  if (dir) closedir(dir);
  check(accel0 == 1, "the /dev/accel listing has accel0 once, as a character device");

  const std::string uevent = read_text("/sys/dev/char/261:0/uevent");
  check(uevent.find("MAJOR=261\n") != std::string::npos && uevent.find("DEVNAME=accel/accel0\n") != std::string::npos,
        "/sys/dev/char/261:0/uevent: '" + uevent + "'");
  const std::string device_uevent = read_text("/sys/dev/char/261:0/device/uevent");
  check(device_uevent.find("DRIVER=ethosu\n") != std::string::npos &&
            device_uevent.find("OF_COMPATIBLE_1=arm,ethos-u65\n") != std::string::npos,
        "/sys/dev/char/261:0/device/uevent names the driver and the compatible strings");
  const std::string compatible = read_text("/sys/class/accel/accel0/device/of_node/compatible");
  check(compatible == std::string("fsl,imx93-npu\0arm,ethos-u65\0", 28), "of_node/compatible");
  char link[256] = {};
  const ssize_t n = readlink("/sys/dev/char/261:0/device/driver", link, sizeof link - 1);
  check(n > 0 && std::string(link, static_cast<size_t>(n)).rfind("/ethosu") + 7 == static_cast<size_t>(n),
        "readlink device/driver ends in /ethosu");
  check(open("/sys/dev/char/261:0/uevent", O_WRONLY) < 0 && errno == EACCES, "sysfs attributes are read-only");

  // libdrm 2.4.x recognises DRM nodes by /sys/dev/char/M:m/device/drm, which an accel node lacks: its
  // enumeration answers for the accel node as it does on a board.
  struct stat drm_dir{};
  check(stat("/sys/dev/char/261:0/device/drm", &drm_dir) != 0 && errno == ENOENT, "no device/drm in sysfs");
  errno = 0;
  check(drmGetNodeTypeFromFd(fd) == -1 && errno == EINVAL, "drmGetNodeTypeFromFd: not a DRM node (EINVAL)");
  drmDevicePtr dev = nullptr;
  const int r = drmGetDevice2(fd, 0, &dev);
  check(r < 0, "drmGetDevice2 on the accel node fails, as on a board (" + std::to_string(r) + ")");
  if (r == 0) drmFreeDevice(&dev);
}

// ethosu_drm_screen_create(): os_dupfd_cloexec(), then u_pipe_screen_lookup_or_create(), which hashes the
// descriptor's file description with fstat and compares descriptions with kcmp(KCMP_FILE).
int create_screen(int fd, MesaNpuInfo& info) {
  const int screen_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  check(screen_fd >= 0 && screen_fd != fd, "fcntl(F_DUPFD_CLOEXEC) of the device");
  check((fcntl(screen_fd, F_GETFD) & FD_CLOEXEC) != 0, "the copy is close-on-exec");
  struct stat a{}, b{};
  check(fstat(fd, &a) == 0 && fstat(screen_fd, &b) == 0 && (a.st_dev ^ a.st_ino ^ a.st_rdev) == (b.st_dev ^ b.st_ino ^ b.st_rdev),
        "the copy hashes like the original (u_screen's hash_file_description)");
  const long same = syscall(SYS_kcmp, getpid(), getpid(), KCMP_FILE, fd, screen_fd);
  if (same >= 0) check(same == 0, "kcmp(KCMP_FILE): the copy shares the original's file description");
  // dev_query() in ethosu_screen_create(): one call with Mesa's 12-byte struct.
  ethosu_accel_dev_query q{ETHOSU_ACCEL_DEV_QUERY_NPU_INFO, sizeof info, reinterpret_cast<uintptr_t>(&info)};
  check(drmIoctl(screen_fd, ETHOSU_ACCEL_IOCTL_DEV_QUERY, &q) == 0, "DEV_QUERY on the screen's descriptor");
  check(info.id >> 28 == 1 && info.sram_size > 0, "DEV_QUERY: a U65 with SRAM");
  return screen_fd;
}

// ethosu_resource_create() (BO_CREATE of width0 bytes) and ethosu_buffer_map() (BO_WAIT with INT64_MAX, then
// BO_MMAP_OFFSET and a fresh mmap of width0 bytes; Mesa never unmaps it).
struct Resource {
  uint32_t handle = 0;
  uint64_t width = 0;
};

Resource resource_create(int fd, uint64_t width) {
  ethosu_accel_bo_create c{};
  c.size = width;
  check(drmIoctl(fd, ETHOSU_ACCEL_IOCTL_BO_CREATE, &c) == 0, "BO_CREATE of " + std::to_string(width) + " bytes");
  return {c.handle, width};
}

uint8_t* buffer_map(int fd, const Resource& r) {
  ethosu_accel_bo_wait w{r.handle, 0, INT64_MAX};
  check(drmIoctl(fd, ETHOSU_ACCEL_IOCTL_BO_WAIT, &w) == 0, "BO_WAIT (INT64_MAX)");
  ethosu_accel_bo_mmap_offset m{r.handle, 0, 0};
  check(drmIoctl(fd, ETHOSU_ACCEL_IOCTL_BO_MMAP_OFFSET, &m) == 0, "BO_MMAP_OFFSET");
  void* p = mmap(nullptr, r.width, PROT_READ | PROT_WRITE, MAP_SHARED, fd, static_cast<off_t>(m.offset));
  check(p != MAP_FAILED, "mmap of a BO: " + errno_text(errno));
  return p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
}

void gem_close(int fd, uint32_t handle) {
  drm_gem_close c{};
  c.handle = handle;
  check(drmIoctl(fd, DRM_IOCTL_GEM_CLOSE, &c) == 0, "GEM_CLOSE");
}

// ethosu_ml_subgraph_create/invoke/read_outputs/destroy for one case. Returns whether every output was exact.
bool run_subgraph(int fd, const fs::path& dir, const MesaNpuInfo& info) {
  const json m = json::parse(read_file(dir / "manifest.json"));
  const std::vector<uint8_t> stream = read_file(dir / m.at("cmdstream").at("file").get<std::string>());
  ethosu_accel_cmdstream_bo_create cs{};
  cs.size = static_cast<uint32_t>(stream.size());
  cs.data = reinterpret_cast<uintptr_t>(stream.data());
  check(drmIoctl(fd, ETHOSU_ACCEL_IOCTL_CMDSTREAM_BO_CREATE, &cs) == 0, "CMDSTREAM_BO_CREATE: " + errno_text(errno));

  const json& regions = m.at("regions");
  const std::vector<uint8_t> coefs = read_file(dir / regions.at("0").at("file").get<std::string>());
  const Resource coefs_rsrc = resource_create(fd, coefs.size());
  if (uint8_t* p = buffer_map(fd, coefs_rsrc)) std::memcpy(p, coefs.data(), coefs.size());  // pipe_buffer_write
  const Resource io = resource_create(fd, regions.at("1").at("size_bytes").get<uint64_t>());

  const bool normalised = m.contains("inputs");
  for (const auto& in : m.at(normalised ? "inputs" : "npu_inputs")) {
    const auto bytes = read_file(dir / in.at("file").get<std::string>());
    if (uint8_t* p = buffer_map(fd, io)) std::memcpy(p + in.at("offset").get<uint64_t>(), bytes.data(), bytes.size());
  }
  ethosu_accel_job job{};
  job.cmd_bo = cs.handle;
  job.region_bo_handles[0] = coefs_rsrc.handle;
  job.sram_size = info.sram_size;  // the whole SRAM, whether or not the stream uses region 2
  job.region_bo_handles[1] = io.handle;
  ethosu_accel_submit submit{reinterpret_cast<uintptr_t>(&job), 1, 0};
  check(drmIoctl(fd, ETHOSU_ACCEL_IOCTL_SUBMIT, &submit) == 0, "SUBMIT: " + errno_text(errno));

  bool exact = true;
  for (const auto& out : m.at(normalised ? "outputs" : "npu_outputs")) {
    const auto expected = read_file(dir / out.at(normalised ? "file" : "expected_file").get<std::string>());
    const uint8_t* p = buffer_map(fd, io);  // pipe_buffer_read
    const bool same = p && std::memcmp(p + out.at("offset").get<uint64_t>(), expected.data(), expected.size()) == 0;
    check(same, "output " + out.at("name").get<std::string>() + " is bit-exact");
    exact = exact && same;
  }
  gem_close(fd, io.handle);
  gem_close(fd, coefs_rsrc.handle);
  gem_close(fd, cs.handle);
  return exact;
}

int mesa_sequence(const fs::path& dir) {
  const int fd = probe_accel_devices();
  if (fd < 0) {
    std::fprintf(stderr, "FAIL: no ethosu accel device (is LD_PRELOAD=libethosu-sim-accel.so set?)\n");
    return 1;
  }
  check_node(fd);
  MesaNpuInfo info{};
  const int screen_fd = create_screen(fd, info);
  // pipe_loader_release() may close the probe's descriptor while the screen lives on its copy.
  close(fd);
  const bool exact = run_subgraph(screen_fd, dir, info);
  ethosu_drm_version v{};
  check(ioctl(fd, ETHOSU_DRM_IOCTL_VERSION, &v) == -1 && errno == EBADF, "the closed original is gone");
  close(screen_fd);
  std::printf("%s: Mesa's discovery, screen and subgraph sequence: %s\n", dir.c_str(),
              exact && !failures ? "outputs bit-exact" : "FAILED");
  return failures ? 1 : 0;
}

int fork_test(const fs::path& dir) {
  const int fd = probe_accel_devices();
  if (fd < 0) return 1;
  MesaNpuInfo info{};
  ethosu_accel_dev_query q{ETHOSU_ACCEL_DEV_QUERY_NPU_INFO, sizeof info, reinterpret_cast<uintptr_t>(&info)};
  check(drmIoctl(fd, ETHOSU_ACCEL_IOCTL_DEV_QUERY, &q) == 0, "DEV_QUERY in the parent");
  const pid_t child = fork();
  if (child == 0) {
    MesaNpuInfo again{};
    ethosu_accel_dev_query cq{ETHOSU_ACCEL_DEV_QUERY_NPU_INFO, sizeof again, reinterpret_cast<uintptr_t>(&again)};
    check(ioctl(fd, ETHOSU_ACCEL_IOCTL_DEV_QUERY, &cq) == -1 && errno == EIO, "the child's inherited descriptor: EIO");
    check(mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd, 1L << 32) == MAP_FAILED && errno == EIO,
          "mmap of the inherited descriptor: EIO");
    close(fd);
    const int own = open("/dev/accel/accel0", O_RDWR | O_CLOEXEC);
    check(own >= 0, "the child opens the device itself");
    const bool exact = own >= 0 && run_subgraph(own, dir, info);
    if (own >= 0) close(own);
    _exit(exact && !failures ? 0 : 1);
  }
  int status = 0;
  check(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0,
        "the fork child ran the job on its own descriptor");
  const bool exact = run_subgraph(fd, dir, info);
  close(fd);
  std::printf("fork: child refused its inherited descriptor and ran the job on its own; parent still works: %s\n",
              exact && !failures ? "yes" : "FAILED");
  return failures ? 1 : 0;
}

// A stream that keeps the NPU busy for a while: 8000 DMAs of 1 MiB from region 0 to region 1.
std::vector<uint8_t> long_stream() {
  std::vector<uint32_t> w = {0x00000130, 0x00010131, 0x00004030, 0, 0x00004031, 0, 0x00004032, 1u << 20};
  w.insert(w.end(), 8000, 0x00000010);
  w.push_back(0xFFFF0000);
  std::vector<uint8_t> b(w.size() * 4);
  std::memcpy(b.data(), w.data(), b.size());
  return b;
}

int threads_test() {
  const int fd = open("/dev/accel/accel0", O_RDWR | O_CLOEXEC);
  const int other = open("/dev/accel/accel0", O_RDWR | O_CLOEXEC);
  if (fd < 0 || other < 0) {
    std::fprintf(stderr, "FAIL: open /dev/accel/accel0\n");
    return 1;
  }
  const std::vector<uint8_t> stream = long_stream();
  ethosu_accel_cmdstream_bo_create cs{};
  cs.size = static_cast<uint32_t>(stream.size());
  cs.data = reinterpret_cast<uintptr_t>(stream.data());
  check(drmIoctl(fd, ETHOSU_ACCEL_IOCTL_CMDSTREAM_BO_CREATE, &cs) == 0, "CMDSTREAM_BO_CREATE");
  const Resource src = resource_create(fd, 1 << 20), dst = resource_create(fd, 1 << 20);
  ethosu_accel_job job{};
  job.cmd_bo = cs.handle;
  job.region_bo_handles[0] = src.handle;
  job.region_bo_handles[1] = dst.handle;
  std::atomic<bool> submitted{false};
  std::thread runner([&] {
    ethosu_accel_submit s{reinterpret_cast<uintptr_t>(&job), 1, 0};
    check(drmIoctl(fd, ETHOSU_ACCEL_IOCTL_SUBMIT, &s) == 0, "SUBMIT of the long job");
    submitted = true;
  });
  // The job is running once BO_WAIT with a past deadline answers EBUSY.
  const auto busy = [&] {
    ethosu_accel_bo_wait w{dst.handle, 0, 0};
    return ioctl(fd, ETHOSU_ACCEL_IOCTL_BO_WAIT, &w) == -1 && errno == EBUSY;
  };
  while (!busy() && !submitted) std::this_thread::yield();
  const bool observed = !submitted;
  check(observed, "the long job was seen running (BO_WAIT answered EBUSY)");
  // Calls that have nothing to do with the job: an unrelated descriptor, another device file, the same file.
  const int unrelated = open("/dev/null", O_RDONLY);
  check(unrelated >= 0 && close(unrelated) == 0, "open/close of /dev/null");
  MesaNpuInfo info{};
  ethosu_accel_dev_query q{ETHOSU_ACCEL_DEV_QUERY_NPU_INFO, sizeof info, reinterpret_cast<uintptr_t>(&info)};
  check(drmIoctl(other, ETHOSU_ACCEL_IOCTL_DEV_QUERY, &q) == 0, "DEV_QUERY on another device file");
  const Resource extra = resource_create(fd, 4096);
  gem_close(fd, extra.handle);
  const bool still_running = busy() && !submitted;
  check(still_running, "those calls returned while the job was still running");
  runner.join();
  ethosu_accel_bo_wait w{dst.handle, 0, INT64_MAX};
  check(drmIoctl(fd, ETHOSU_ACCEL_IOCTL_BO_WAIT, &w) == 0, "BO_WAIT after the job");
  close(other);
  close(fd);
  std::printf("threads: calls on other descriptors and on the same file during a job %s\n",
              failures ? "FAILED" : "did not wait for it");
  return failures ? 1 : 0;
}

int limits_test() {
  // Many BOs under the default descriptor limit: they must not take descriptors of the client's.
  rlimit nofile{1024, 1024};
  check(setrlimit(RLIMIT_NOFILE, &nofile) == 0, "setrlimit(RLIMIT_NOFILE, 1024)");
  const int fd = open("/dev/accel/accel0", O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    std::fprintf(stderr, "FAIL: open /dev/accel/accel0\n");
    return 1;
  }
  std::vector<Resource> bos;
  for (int i = 0; i < 2000; ++i) bos.push_back(resource_create(fd, 4096));
  const int probe = open("/dev/null", O_RDONLY);
  check(probe >= 0 && probe < 16, "after 2000 BOs the client's next descriptor is still a low one (" +
                                      std::to_string(probe) + ")");
  if (probe >= 0) close(probe);
  uint8_t* last = buffer_map(fd, bos.back());
  if (last) {
    last[10] = 0x5A;
    const uint8_t* again = buffer_map(fd, bos.back());
    check(again && again != last && again[10] == 0x5A, "two mappings of a BO share its pages");
  }
  for (const Resource& r : bos) gem_close(fd, r.handle);

  // DEV_QUERY with a huge size: the kernel writes its struct and clears the rest of the user's buffer, which here
  // ends after 64 bytes: EFAULT, without the driver allocating (and clearing) 4 GiB of its own.
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  const long page = sysconf(_SC_PAGESIZE);
  auto* two = static_cast<uint8_t*>(mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  munmap(two + page, page);
  uint8_t* tail = two + page - 64;
  std::memset(tail, 0xAA, 64);
  ethosu_accel_dev_query q{ETHOSU_ACCEL_DEV_QUERY_NPU_INFO, 0xFFFFFFF0u, reinterpret_cast<uintptr_t>(tail)};
  check(ioctl(fd, ETHOSU_ACCEL_IOCTL_DEV_QUERY, &q) == -1 && errno == EFAULT,
        "DEV_QUERY of 4 GiB into a 64-byte buffer: EFAULT (got " + errno_text(errno) + ")");
  getrusage(RUSAGE_SELF, &after);
  check(after.ru_maxrss - before.ru_maxrss < 64 * 1024,
        "DEV_QUERY of 4 GiB grew the process by " + std::to_string((after.ru_maxrss - before.ru_maxrss) / 1024) + " MiB");
  q.size = 64;
  check(ioctl(fd, ETHOSU_ACCEL_IOCTL_DEV_QUERY, &q) == 0 && tail[0] != 0xAA &&
            std::all_of(tail + 16, tail + 64, [](uint8_t b) { return b == 0; }),
        "DEV_QUERY of 64 bytes: the struct, then zeros");
  munmap(two, page);

  // Five 512 MiB regions in one job: more than the simulator copies for one job (ENOMEM, not a run).
  std::vector<uint32_t> w;
  const unsigned regions[] = {0, 1, 3, 4, 5};
  for (unsigned r : regions)
    w.insert(w.end(), {0x00000130u | r << 16, 0x00060131u, 0x00004030u, (512u << 20) - 16, 0x00004031u, 0u,
                       0x00004032u, 16u, 0x00000010u});
  w.push_back(0xFFFF0000);
  std::vector<uint8_t> stream(w.size() * 4);
  std::memcpy(stream.data(), w.data(), stream.size());
  ethosu_accel_cmdstream_bo_create cs{};
  cs.size = static_cast<uint32_t>(stream.size());
  cs.data = reinterpret_cast<uintptr_t>(stream.data());
  check(drmIoctl(fd, ETHOSU_ACCEL_IOCTL_CMDSTREAM_BO_CREATE, &cs) == 0, "CMDSTREAM_BO_CREATE of the 5-region DMA stream");
  ethosu_accel_job job{};
  job.cmd_bo = cs.handle;
  for (unsigned r : regions) job.region_bo_handles[r] = resource_create(fd, 512u << 20).handle;
  job.region_bo_handles[6] = resource_create(fd, 4096).handle;
  ethosu_accel_submit s{reinterpret_cast<uintptr_t>(&job), 1, 0};
  check(ioctl(fd, ETHOSU_ACCEL_IOCTL_SUBMIT, &s) == -1 && errno == ENOMEM,
        "SUBMIT of 2.5 GiB of regions: ENOMEM (got " + errno_text(errno) + ")");
  close(fd);
  std::printf("limits: BOs take no client descriptors; DEV_QUERY sizes; per-job region limit: %s\n",
              failures ? "FAILED" : "as documented");
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "--threads" && argc == 2) return threads_test();
    if (mode == "--limits" && argc == 2) return limits_test();
    const bool fork_mode = mode == "--fork";
    if (argc != (fork_mode ? 3 : 2) || (!fork_mode && mode.rfind("--", 0) == 0)) {
      std::fprintf(stderr, "usage: accel_mesa_client [--fork] CASE_DIR | --threads | --limits\n");
      return 2;
    }
    const fs::path dir = argv[fork_mode ? 2 : 1];
    if (!fs::exists(dir / "manifest.json")) {
      std::printf("SKIP: no case at %s\n", dir.c_str());
      return 77;
    }
    return fork_mode ? fork_test(dir) : mesa_sequence(dir);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL: %s\n", e.what());
    return 1;
  }
}
