#include "host/backends/nxp/nxp_driver.h"

#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <pthread.h>
#include <sys/uio.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <variant>
#include <vector>

#include "host/backends/common/owned_fds.h"
#include "host/backends/nxp/ethosu_nxp_uapi.h"
#include "host/backends/nxp/nxp_inference.h"
#include "host/backends/shim_env.h"
#include "host/recording/capture.h"
#include "sim/byte_runs.h"
#include "sim/error.h"

namespace ethosu::nxp {

namespace {

// Closes a descriptor without going through an interposed close().
void sys_close(int fd) {
  if (fd >= 0) syscall(SYS_close, fd);
}

// Which fds are ours, readable without a lock (read/write/close are intercepted for every fd in the process).
host::OwnedFds& owned_fds() {
  static auto* fds = new host::OwnedFds;  // never destroyed: descriptors are closed from atexit handlers too
  return *fds;
}

void set_owned(int fd, bool owned) { owned_fds().set(fd, owned); }

// copy_from_user / copy_to_user: a bad user pointer fails instead of faulting. Where process_vm_readv/writev
// are not allowed (some seccomp profiles), the copy is made directly, trusting the pointer as a library would.
bool vm_copy_unavailable(ssize_t r) { return r < 0 && (errno == ENOSYS || errno == EPERM); }

bool copy_in(void* dst, const void* user, size_t n) {
  iovec local{dst, n};
  iovec remote{const_cast<void*>(user), n};
  const ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  if (vm_copy_unavailable(got) && user) {
    std::memcpy(dst, user, n);
    return true;
  }
  return got == static_cast<ssize_t>(n);
}

bool copy_out(void* user, const void* src, size_t n) {
  iovec local{const_cast<void*>(src), n};
  iovec remote{user, n};
  const ssize_t put = process_vm_writev(getpid(), &local, 1, &remote, 1, 0);
  if (vm_copy_unavailable(put) && user) {
    std::memcpy(user, src, n);
    return true;
  }
  return put == static_cast<ssize_t>(n);
}

struct DeviceObj {};

struct BufferObj {
  int fd = -1;  // the driver's own descriptor of the memfd (the user's may be closed)
  uint32_t capacity = 0, offset = 0, size = 0;
  ~BufferObj() { sys_close(fd); }

  // Bytes [at, at + n) of the memfd; the memfd is sealed against shrinking, so a short read means an I/O error.
  bool read(uint64_t at, uint64_t n, std::vector<uint8_t>& out) const {
    out.resize(n);
    uint64_t done = 0;
    while (done < n) {
      const ssize_t r = pread(fd, out.data() + done, n - done, static_cast<off_t>(at + done));
      if (r <= 0) return false;
      done += static_cast<uint64_t>(r);
    }
    return true;
  }
  bool write(uint64_t at, const std::vector<uint8_t>& data) const {
    uint64_t done = 0;
    while (done < data.size()) {
      const ssize_t w = pwrite(fd, data.data() + done, data.size() - done, static_cast<off_t>(at + done));
      if (w <= 0) return false;
      done += static_cast<uint64_t>(w);
    }
    return true;
  }
  // What an inference changed in the bytes from `at`: only the bytes that differ from what was read, through a
  // mapping (one copy per run, however many runs), so that the client's own writes to the others stay.
  bool write_changes(uint64_t at, const ArenaChange& change) const {
    const auto runs = sim::differing_runs(change.before.data(), change.after.data(),
                                          std::min(change.before.size(), change.after.size()));
    if (runs.empty()) return true;
    const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    const uint64_t first = (at + runs.front().first) / page * page;
    const uint64_t end = at + runs.back().second;
    void* m = mmap(nullptr, end - first, PROT_READ | PROT_WRITE, MAP_SHARED, fd, static_cast<off_t>(first));
    if (m == MAP_FAILED) return false;
    auto* mapped = static_cast<uint8_t*>(m);  // the buffer's bytes from `first`
    for (const auto& [begin, stop] : runs)
      std::memcpy(mapped + (at + begin - first), change.after.data() + begin, stop - begin);
    munmap(m, end - first);
    return true;
  }
};
using BufferPtr = std::shared_ptr<BufferObj>;

struct NetworkObj {
  BufferPtr buffer;  // null for an index network
  uint32_t index = 0;
};
using NetworkPtr = std::shared_ptr<NetworkObj>;

struct InferenceObj {
  int fd = -1;  // the driver's own descriptor of the eventfd
  NetworkPtr network;
  std::vector<BufferPtr> ifm, ofm;
  std::vector<Buffer> ifm_at, ofm_at;  // offset and size of each buffer at submission (what the firmware got)
  uint32_t type = INFERENCE_MODEL;
  PmuConfig pmu_config{};
  PmuCounts pmu_count{};
  uint32_t status = STATUS_RUNNING;
  bool started = false, done = false;
  ~InferenceObj() { sys_close(fd); }

  void complete() {
    done = true;
    const uint64_t one = 1;
    (void)!::write(fd, &one, sizeof one);
  }
};
using InferencePtr = std::shared_ptr<InferenceObj>;

using Object = std::variant<DeviceObj, BufferPtr, NetworkPtr, InferencePtr>;

// A private duplicate, so that the object outlives the user's descriptor.
int private_dup(int fd) { return fcntl(fd, F_DUPFD_CLOEXEC, 0); }

const char* status_name(uint32_t s) {
  switch (s) {
    case STATUS_OK: return "ok";
    case STATUS_ERROR: return "error";
    case STATUS_RUNNING: return "running";
    case STATUS_REJECTED: return "rejected";
    case STATUS_ABORTED: return "aborted";
    case STATUS_ABORTING: return "aborting";
    default: return "unknown";
  }
}

}  // namespace

struct Driver::State {
  const pid_t pid = getpid();  // the process whose worker thread runs the inferences
  std::mutex m;
  std::map<int, Object> fds;
  std::deque<InferencePtr> queue;
  std::condition_variable cv;
  std::thread worker;

  int add(int fd, Object o) {
    fds[fd] = std::move(o);
    set_owned(fd, true);
    return fd;
  }
  template <class T>
  T* find(int fd) {
    auto it = fds.find(fd);
    return it == fds.end() ? nullptr : std::get_if<T>(&it->second);
  }

  long device_ioctl(unsigned long cmd, void* arg);
  long buffer_ioctl(BufferObj& b, unsigned long cmd, void* arg);
  long network_ioctl(const NetworkPtr& n, unsigned long cmd, void* arg);
  long inference_ioctl(const InferencePtr& inf, unsigned long cmd, void* arg);
  long create_inference(const NetworkPtr& n, const InferenceCreate& req);
  void work();
};

Driver::Driver() : s_(*new State) {  // leaked on purpose, like the driver itself (see instance())
  s_.worker = std::thread([this] { s_.work(); });
  s_.worker.detach();
  // A fork child gets the driver's state unlocked and consistent; it has no worker (see create_inference).
  static State* state = &s_;
  pthread_atfork([] { state->m.lock(); }, [] { state->m.unlock(); }, [] { state->m.unlock(); });
}

Driver& Driver::instance() {
  static Driver* d = new Driver;  // never destroyed: the detached worker may still run at exit
  return *d;
}

bool Driver::owns(int fd) { return owned_fds().contains(fd); }

int Driver::open_device(int flags) {
  try {
    (void)host::shim_settings(host::ShimDriver::NXP);  // a bad environment fails the open, with the reason on stderr
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ethosu-sim (/dev/ethosu0): %s\n", e.what());
    return -EINVAL;
  }
  const int fd = eventfd(0, (flags & O_CLOEXEC) ? EFD_CLOEXEC : 0);
  if (fd < 0) return -errno;
  std::lock_guard<std::mutex> lock(s_.m);
  return s_.add(fd, DeviceObj{});
}

bool Driver::forget(int fd) {
  if (!owns(fd)) return false;
  std::lock_guard<std::mutex> lock(s_.m);
  s_.fds.erase(fd);
  set_owned(fd, false);
  return true;
}

int Driver::check_mmap(int fd, size_t length, off_t offset) {
  std::lock_guard<std::mutex> lock(s_.m);
  const BufferPtr* b = s_.find<BufferPtr>(fd);
  if (!b) return -ENODEV;  // devices, networks and inferences have no mmap
  // dma_mmap_coherent: the mapping must lie within the buffer's pages.
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t pages = ((*b)->capacity + page - 1) / page;
  const uint64_t want = (length + page - 1) / page;
  if (offset < 0 || static_cast<uint64_t>(offset) % page) return -EINVAL;
  const uint64_t first = static_cast<uint64_t>(offset) / page;
  if (first >= pages || want > pages - first) return -ENXIO;
  return 0;
}

long Driver::ioctl(int fd, unsigned long cmd, void* arg) {
  std::unique_lock<std::mutex> lock(s_.m);
  auto it = s_.fds.find(fd);
  if (it == s_.fds.end()) return -EBADF;
  Object& o = it->second;
  if (std::holds_alternative<DeviceObj>(o)) return s_.device_ioctl(cmd, arg);
  if (auto* b = std::get_if<BufferPtr>(&o)) return s_.buffer_ioctl(**b, cmd, arg);
  if (auto* n = std::get_if<NetworkPtr>(&o)) return s_.network_ioctl(NetworkPtr(*n), cmd, arg);
  return s_.inference_ioctl(InferencePtr(std::get<InferencePtr>(o)), cmd, arg);
}

long Driver::State::device_ioctl(unsigned long cmd, void* arg) {
  switch (cmd) {
    case IOCTL_PING:
    case IOCTL_VERSION_REQ:
      return 0;  // the firmware answers; nothing comes back to user space
    case IOCTL_CAPABILITIES_REQ: {
      DeviceCapabilities c{};
      try {
        c = capabilities(host::shim_settings(host::ShimDriver::NXP));
      } catch (const std::exception&) {
        return -EIO;  // the firmware did not answer
      }
      return copy_out(arg, &c, sizeof c) ? 0 : -EFAULT;
    }
    case IOCTL_BUFFER_CREATE: {
      BufferCreate req{};
      if (!copy_in(&req, arg, sizeof req)) return 0;  // NXP's driver: a failed copy breaks out with 0
      if (req.capacity == 0) return -EINVAL;
      const int fd = memfd_create("ethosu-buffer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
      if (fd < 0) return -ENOMEM;
      if (ftruncate(fd, req.capacity) != 0 || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        sys_close(fd);
        return -ENOMEM;
      }
      auto b = std::make_shared<BufferObj>();
      b->fd = private_dup(fd);
      if (b->fd < 0) {
        sys_close(fd);
        return -ENOMEM;
      }
      b->capacity = req.capacity;
      return add(fd, b);
    }
    case IOCTL_NETWORK_CREATE: {
      NetworkCreate req{};
      if (!copy_in(&req, arg, sizeof req)) return 0;
      auto n = std::make_shared<NetworkObj>();
      if (req.type == NETWORK_BUFFER) {
        BufferPtr* b = find<BufferPtr>(static_cast<int>(req.fd_or_index));
        if (!b) return -EINVAL;
        n->buffer = *b;
      } else {
        n->index = req.fd_or_index;
      }
      const int fd = eventfd(0, EFD_CLOEXEC);
      if (fd < 0) return -ENOMEM;
      return add(fd, n);
    }
    default:
      return 0;  // NXP's driver logs "Invalid ioctl" and returns 0
  }
}

long Driver::State::buffer_ioctl(BufferObj& b, unsigned long cmd, void* arg) {
  switch (cmd) {
    case IOCTL_BUFFER_SET: {
      Buffer req{};
      if (!copy_in(&req, arg, sizeof req)) return 0;
      if (uint64_t{req.size} + req.offset > b.capacity) return -EINVAL;
      b.offset = req.offset;
      b.size = req.size;
      return 0;
    }
    case IOCTL_BUFFER_GET: {
      const Buffer out{b.offset, b.size};
      (void)copy_out(arg, &out, sizeof out);  // NXP's driver returns 0 even when the copy fails
      return 0;
    }
    default:
      return 0;
  }
}

long Driver::State::network_ioctl(const NetworkPtr& n, unsigned long cmd, void* arg) {
  switch (cmd) {
    case IOCTL_NETWORK_INFO:
    case IOCTL_NETWORK_INFO_V2: {
      const bool v2 = cmd == IOCTL_NETWORK_INFO_V2;
      NetworkInfoV2 probe{};
      if (!copy_in(&probe, arg, v2 ? sizeof(NetworkInfoV2) : sizeof(NetworkInfo))) return 0;
      std::vector<uint8_t> data;
      if (!n->buffer || !n->buffer->read(n->buffer->offset, n->buffer->size, data)) return -EBADF;
      const auto info = network_info(data);
      if (!info) return -EBADF;  // the firmware could not read the network
      if (v2) return copy_out(arg, &*info, sizeof *info) ? 0 : -EFAULT;
      NetworkInfo old{};
      std::memcpy(old.desc, info->desc, sizeof old.desc);
      old.ifm_count = info->ifm_count;
      old.ofm_count = info->ofm_count;
      std::memcpy(old.ifm_size, info->ifm_size, sizeof old.ifm_size);
      std::memcpy(old.ofm_size, info->ofm_size, sizeof old.ofm_size);
      return copy_out(arg, &old, sizeof old) ? 0 : -EFAULT;
    }
    case IOCTL_INFERENCE_CREATE: {
      InferenceCreate req{};
      if (!copy_in(&req, arg, sizeof req)) return 0;
      return create_inference(n, req);
    }
    default:
      return 0;
  }
}

long Driver::State::create_inference(const NetworkPtr& n, const InferenceCreate& req) {
  if (req.ifm_count > kFdMax || req.ofm_count > kFdMax) return -EFAULT;  // as the kernel answers
  auto inf = std::make_shared<InferenceObj>();
  auto take = [&](uint32_t count, const uint32_t* user_fds, std::vector<BufferPtr>& out, std::vector<Buffer>& at) {
    for (uint32_t i = 0; i < count; ++i) {
      BufferPtr* b = find<BufferPtr>(static_cast<int>(user_fds[i]));
      if (!b) return false;
      out.push_back(*b);
      at.push_back({(*b)->offset, (*b)->size});
    }
    return true;
  };
  if (!take(req.ifm_count, req.ifm_fd, inf->ifm, inf->ifm_at) || !take(req.ofm_count, req.ofm_fd, inf->ofm, inf->ofm_at))
    return -EINVAL;
  inf->network = n;
  inf->type = req.inference_type == INFERENCE_OP ? INFERENCE_OP : INFERENCE_MODEL;
  inf->pmu_config = req.pmu_config;
  const int fd = eventfd(0, EFD_CLOEXEC);
  if (fd < 0) return -ENOMEM;
  inf->fd = private_dup(fd);
  if (inf->fd < 0) {
    sys_close(fd);
    return -ENOMEM;
  }
  if (getpid() != pid) {
    // The firmware's worker thread stayed in the parent: a child's inference could never run, so it fails at once.
    std::fprintf(stderr,
                 "ethosu-sim (/dev/ethosu0): inference failed: process %d inherited the device from process %d "
                 "across fork(); the simulator runs inferences only in the process that opened it first\n",
                 static_cast<int>(getpid()), static_cast<int>(pid));
    inf->status = STATUS_ERROR;
    inf->started = true;
    inf->complete();
    return add(fd, inf);
  }
  queue.push_back(inf);
  cv.notify_one();
  return add(fd, inf);
}

long Driver::State::inference_ioctl(const InferencePtr& inf, unsigned long cmd, void* arg) {
  switch (cmd) {
    case IOCTL_INFERENCE_STATUS: {
      ResultStatus out{};
      out.status = inf->status;
      out.pmu_config = inf->pmu_config;
      out.pmu_count = inf->pmu_count;
      return copy_out(arg, &out, sizeof out) ? 0 : -EFAULT;
    }
    case IOCTL_INFERENCE_CANCEL: {
      CancelInferenceStatus out{STATUS_ERROR};
      if (!inf->done && !inf->started) {
        // Still queued: the firmware drops it and answers ABORTED.
        for (auto q = queue.begin(); q != queue.end(); ++q)
          if (*q == inf) {
            queue.erase(q);
            break;
          }
        inf->status = STATUS_ABORTED;
        inf->complete();
        out.status = STATUS_OK;
      } else if (!inf->done) {
        // Running: the firmware cannot stop the NPU mid-job; the inference finishes with its own status.
        inf->status = STATUS_ABORTING;
      }
      return copy_out(arg, &out, sizeof out) ? 0 : -EFAULT;
    }
    default:
      return 0;
  }
}

void Driver::State::work() {
  // What the firmware reaches of a buffer: its data [offset, offset + size), or from the offset to the end of the
  // buffer when the size is 0 (the firmware then takes the buffer as a pointer, as NXP's delegate leaves it).
  struct Window {
    BufferPtr buffer;
    uint64_t offset = 0, bytes = 0;
  };
  for (;;) {
    InferenceRequest req;
    InferencePtr inf;
    Window network;
    std::vector<Window> ifms;
    {
      std::unique_lock<std::mutex> lock(m);
      cv.wait(lock, [&] { return !queue.empty(); });
      inf = queue.front();
      queue.pop_front();
      inf->started = true;
      req.inference_type = inf->type;
      req.pmu = inf->pmu_config;
      const BufferPtr& nb = inf->network->buffer;
      req.network_is_index = !nb;
      if (nb) network = {nb, nb->offset, nb->size};
      for (size_t i = 0; i < inf->ifm.size(); ++i) {
        const Buffer& at = inf->ifm_at[i];
        ifms.push_back({inf->ifm[i], at.offset, at.size ? at.size : inf->ifm[i]->capacity - at.offset});
        req.ifm_window_bytes.push_back(ifms.back().bytes);
        req.ifm_sizes.push_back(at.size);
      }
      for (size_t i = 0; i < inf->ofm.size(); ++i)
        req.ofm_free_bytes.push_back(inf->ofm[i]->capacity - inf->ofm_at[i].offset - inf->ofm_at[i].size);
    }
    // The copies are made without the lock (the buffers stay alive through the references held here): the network
    // whole, the IFM buffers as far as the inference reads them (run_inference() asks); each bounded, and any
    // failure ends the inference in ERROR.
    req.read_ifm = [&ifms](size_t k, uint64_t bytes) {
      std::vector<uint8_t> out;
      if (!ifms.at(k).buffer->read(ifms[k].offset, std::min(bytes, ifms[k].bytes), out))
        throw InputError("ifm[" + std::to_string(k) + "] could not be read");
      return out;
    };
    std::string failure;
    try {
      if (network.bytes > host::kMaxJobRegionBytes)
        failure = "its network buffer holds " + std::to_string(network.bytes) +
                  " bytes, more than the simulator copies for one inference (" +
                  std::to_string(host::kMaxJobRegionBytes) + " bytes)";
      else if (network.buffer && !network.buffer->read(network.offset, network.bytes, req.network))
        failure = "the network buffer could not be read";
    } catch (const std::exception& e) {
      failure = std::string("its network buffer could not be copied: ") + e.what();
    }
    if (!failure.empty()) {
      std::fprintf(stderr, "ethosu-sim (/dev/ethosu0): inference failed: %s\n", failure.c_str());
      std::lock_guard<std::mutex> lock(m);
      inf->status = STATUS_ERROR;
      inf->complete();
      continue;
    }
    InferenceResult res;
    bool verbose = false;
    try {
      const host::ShimSettings& settings = host::shim_settings(host::ShimDriver::NXP);
      verbose = settings.verbose;
      res = run_inference(req, settings);
    } catch (const std::exception& e) {
      res.message = e.what();
    }
    try {
      if (res.capture)
        if (auto dir = host::capture_dir_from_env("nxp-ethosu")) host::write_capture(*dir, *res.capture);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ethosu-sim (/dev/ethosu0): capture not written: %s\n", e.what());
    }
    std::lock_guard<std::mutex> lock(m);
    uint32_t status = res.status;
    if (status == STATUS_OK && res.arena && !inf->ifm[0]->write_changes(inf->ifm_at[0].offset, *res.arena))
      status = STATUS_ERROR;
    for (size_t i = 0; status == STATUS_OK && i < res.ofm_appended.size(); ++i) {
      BufferObj& b = *inf->ofm[i];
      const auto& data = res.ofm_appended[i];
      // The firmware writes after the data it was given; the kernel then grows the buffer's size by as much.
      if (!b.write(uint64_t{inf->ofm_at[i].offset} + inf->ofm_at[i].size, data) ||
          uint64_t{b.size} + data.size() + b.offset > b.capacity) {
        status = STATUS_ERROR;
        break;
      }
      b.size += static_cast<uint32_t>(data.size());
    }
    inf->status = status;
    if (status == STATUS_OK) {
      inf->pmu_config = res.pmu_config;
      inf->pmu_count = res.pmu_count;
    }
    if (status != STATUS_OK)
      std::fprintf(stderr, "ethosu-sim (/dev/ethosu0): inference failed: %s\n",
                   res.message.empty() ? "the result did not fit its buffers" : res.message.c_str());
    else if (verbose)
      std::fprintf(stderr, "ethosu-sim (/dev/ethosu0): %s inference %s, %llu cycles\n",
                   inf->type == INFERENCE_OP ? "OP" : "MODEL", status_name(status),
                   static_cast<unsigned long long>(res.capture ? res.capture->cycle_counter : 0));
    inf->complete();
  }
}

}  // namespace ethosu::nxp
