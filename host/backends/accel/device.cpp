#include "host/backends/accel/device.h"
#include "host/backends/accel/user_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <new>
#include <sstream>

#include "host/recording/capture.h"
#include "host/run/job.h"
#include "host/run/run_job.h"
#include "host/config/config.h"
#include "models/npu/control.h"
#include "sim/byte_runs.h"
#include "sim/text.h"

namespace ethosu::accel {

namespace {

constexpr uint64_t kPage = 4096;
// drm_gem_dma_create() allocates from CMA; a few hundred MiB is what an i.MX 93 board reserves [I: typical
// cma= setting]. Larger requests fail with ENOMEM, as there, and keep the simulator's copies bounded.
constexpr uint64_t kMaxBoBytes = uint64_t{512} << 20;
// The kernel's first fake mmap offset (DRM_FILE_PAGE_OFFSET_START on 64-bit: 4 GiB).
constexpr uint64_t kFirstMmapOffset = uint64_t{1} << 32;
// The Linux driver's REGIONCFG: region 2 on AXI0 (SRAM), the others on AXI1 (ethosu_reset()).
constexpr uint32_t kLinuxRegioncfg = 0xAA8A;

uint64_t page_round(uint64_t v) { return (v + kPage - 1) / kPage * kPage; }

template <typename T>
T load(const void* arg) {
  T v;
  std::memcpy(&v, arg, sizeof v);
  return v;
}
template <typename T>
void store(void* arg, const T& v) {
  std::memcpy(arg, &v, sizeof v);
}

// drm_copy_field(): copies up to the user's length (nothing to a null buffer), reports the full length, writes
// no NUL.
bool copy_field(uint64_t user, size_t& len, const std::string& value) {
  const size_t n = std::min(len, value.size());
  len = value.size();
  return n == 0 || user == 0 || copy_to_user(user, value.data(), n);
}

// The kernel's size for each ioctl this driver answers; 0 = not an ioctl of this device.
size_t kernel_size(unsigned nr) {
  switch (nr) {
    case 0x00:
      return sizeof(ethosu_drm_version);
    case 0x09:
      return sizeof(ethosu_drm_gem_close);
    case 0x0c:
      return sizeof(ethosu_drm_get_cap);
    case ETHOSU_DRM_COMMAND_BASE + ETHOSU_ACCEL_DEV_QUERY:
      return sizeof(ethosu_accel_dev_query);
    case ETHOSU_DRM_COMMAND_BASE + ETHOSU_ACCEL_BO_CREATE:
      return sizeof(ethosu_accel_bo_create);
    case ETHOSU_DRM_COMMAND_BASE + ETHOSU_ACCEL_BO_WAIT:
      return sizeof(ethosu_accel_bo_wait);
    case ETHOSU_DRM_COMMAND_BASE + ETHOSU_ACCEL_BO_MMAP_OFFSET:
      return sizeof(ethosu_accel_bo_mmap_offset);
    case ETHOSU_DRM_COMMAND_BASE + ETHOSU_ACCEL_CMDSTREAM_BO_CREATE:
      return sizeof(ethosu_accel_cmdstream_bo_create);
    case ETHOSU_DRM_COMMAND_BASE + ETHOSU_ACCEL_SUBMIT:
      return sizeof(ethosu_accel_submit);
    case ETHOSU_DRM_COMMAND_BASE + ETHOSU_ACCEL_PERFMON_CREATE:
      return sizeof(ethosu_accel_perfmon_create);
    case ETHOSU_DRM_COMMAND_BASE + ETHOSU_ACCEL_PERFMON_DESTROY:
      return sizeof(ethosu_accel_perfmon_destroy);
    case ETHOSU_DRM_COMMAND_BASE + ETHOSU_ACCEL_PERFMON_GET_VALUES:
      return sizeof(ethosu_accel_perfmon_get_values);
    case ETHOSU_DRM_COMMAND_BASE + ETHOSU_ACCEL_PERFMON_SET_GLOBAL:
      return sizeof(ethosu_accel_perfmon_set_global);
    default:
      return 0;
  }
}

// The kernel's dev_err() lines for refused jobs go to dmesg; here they go to stderr with ETHOSU_SIM_VERBOSE=1.
void log_refusal(const Device& d, const std::string& line) {
  if (d.settings().verbose) std::cerr << "ethosu-sim accel: " << line << "\n";
}

// What one job did, as the driver read it (functional runs: STATUS bits only, counters 0).
struct JobResult {
  bool faulted = false;
  std::string fault;
  uint32_t status = 0;
  uint64_t cycle_counter = 0;
  std::array<uint32_t, isa::kMaxEventCounters> event_counters{};
};

using sim::hex;

}  // namespace

BufferObject::BufferObject(uint64_t size, uint32_t f, uint64_t offset)
    : size_bytes(size), flags(f), mmap_offset(offset) {
  // Shared, so that mremap(old size 0) can map the same pages for the client; anonymous, so that no descriptor
  // of the client's is used.
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  data = static_cast<uint8_t*>(p);
}

BufferObject::~BufferObject() { munmap(data, size_bytes); }

Device::Device(const host::ShimSettings& settings)
    : settings_(settings),
      variant_name_(settings.request.variant.value_or(isa::variant_name(isa::kDefaultVariant))),
      config_(host::resolve_config(settings.request, variant_name_)),
      next_mmap_offset_(kFirstMmapOffset) {
  variant_ = isa::parse_variant(variant_name_).value_or(isa::kDefaultVariant);
  // The Linux driver programs its own REGIONCFG, whatever the configuration maps.
  run_options_ = host::run_options(config_, !settings.functional);
  run_options_.regioncfg = kLinuxRegioncfg;
  sram_size_bytes_ = static_cast<uint32_t>(std::min<uint64_t>(settings.sram_size_bytes, 0xFFFFFFFFu));
  // The SRAM a job may use is the one the driver reports (SUBMIT checks sram_size against it).
  run_options_.sram_size_bytes = sram_size_bytes_;
}

std::array<uint32_t, 4> Device::npu_info() const {
  const isa::Architecture& arch = isa::architecture(variant_);
  // pmu_counters: the kernel reads PMCR.num_event_cnt (4 on the U55 and U65, 8 on the U85).
  return {arch.id, arch.config, sram_size_bytes_, arch.pmu_event_counters};
}

uint64_t Device::allocate_mmap_offset(uint64_t size_bytes) {
  return next_mmap_offset_.fetch_add(page_round(size_bytes) + kPage);  // a guard page between objects
}

bool Device::wait_idle(BufferObject& bo, const timespec& deadline) {
  // Deadlines reach INT64_MAX ns (Mesa waits "forever"): waits in slices of at most a second, so no duration
  // overflows, until the BO is idle or the deadline has passed.
  std::unique_lock<std::mutex> lock(busy_mutex_);
  for (;;) {
    if (bo.running_jobs == 0) return true;
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (deadline.tv_sec < now.tv_sec) return false;
    const int64_t left_ns = (int64_t{deadline.tv_sec} - now.tv_sec) * 1000000000 + (deadline.tv_nsec - now.tv_nsec);
    if (left_ns <= 0) return false;
    busy_cv_.wait_for(lock, std::chrono::nanoseconds(std::min<int64_t>(left_ns, 1000000000)));
  }
}

std::shared_ptr<Perfmon> Device::global_perfmon() const {
  std::lock_guard<std::mutex> lock(state_mutex_);
  return global_perfmon_;
}

int Device::set_global_perfmon(const std::shared_ptr<Perfmon>& perfmon, const void* owner) {
  std::lock_guard<std::mutex> lock(state_mutex_);
  if (global_perfmon_) return -EBUSY;
  global_perfmon_ = perfmon;
  global_perfmon_owner_ = owner;
  return 0;
}

int Device::clear_global_perfmon() {
  std::lock_guard<std::mutex> lock(state_mutex_);
  if (!global_perfmon_) return -EINVAL;
  global_perfmon_.reset();
  global_perfmon_owner_ = nullptr;
  return 0;
}

void Device::drop_global_perfmon(const Perfmon* perfmon, const void* owner) {
  std::lock_guard<std::mutex> lock(state_mutex_);
  if (global_perfmon_.get() == perfmon || (owner && global_perfmon_owner_ == owner)) {
    global_perfmon_.reset();
    global_perfmon_owner_ = nullptr;
  }
}

void Device::before_fork() {
  npu_mutex_.lock();
  state_mutex_.lock();
  busy_mutex_.lock();
}

void Device::after_fork_in_parent() {
  busy_mutex_.unlock();
  state_mutex_.unlock();
  npu_mutex_.unlock();
}

void Device::after_fork_in_child() {
  // The perfmon belongs to a file of the parent's, which the child cannot use; it may be in use by a thread the
  // child does not have, so it is left alone rather than destroyed.
  new std::shared_ptr<Perfmon>(std::move(global_perfmon_));
  global_perfmon_owner_ = nullptr;
  after_fork_in_parent();
}

void Device::run(const ValidatedStream& stream, const std::array<BufferPtr, 8>& regions, bool sram,
                 const std::shared_ptr<Perfmon>& perfmon) {
  {
    std::lock_guard<std::mutex> lock(busy_mutex_);
    for (const BufferPtr& bo : regions)
      if (bo) ++bo->running_jobs;
  }
  struct Idle {  // the BOs are free again however the job ends
    Device& d;
    const std::array<BufferPtr, 8>& regions;
    ~Idle() {
      {
        std::lock_guard<std::mutex> lock(d.busy_mutex_);
        for (const BufferPtr& bo : regions)
          if (bo) --bo->running_jobs;
      }
      d.busy_cv_.notify_all();
    }
  } idle{*this, regions};
  std::lock_guard<std::mutex> npu(npu_mutex_);
  const uint64_t n = ++jobs_;
  host::Job job;
  job.name = "accel job " + std::to_string(n);
  job.variant = variant_name_;
  job.stream = stream.bytes;
  // Each BO as far as the stream reaches (submit_job() checked that it reaches no further than the BO), and the
  // bytes it may write as they were, to tell afterwards which ones it changed.
  std::array<std::vector<uint8_t>, 8> written_before;
  std::array<uint64_t, 8> written_from{};
  for (unsigned r = 0; r < 8; ++r) {
    if (!regions[r]) continue;
    job.regions[r].assign(regions[r]->data, regions[r]->data + std::min(stream.copy_bytes[r], regions[r]->size_bytes));
    written_from[r] = std::min<uint64_t>(stream.written[r].first, job.regions[r].size());
    const uint64_t end = std::min<uint64_t>(stream.written[r].second, job.regions[r].size());
    if (end > written_from[r])
      written_before[r].assign(job.regions[r].begin() + static_cast<std::ptrdiff_t>(written_from[r]),
                               job.regions[r].begin() + static_cast<std::ptrdiff_t>(end));
  }
  // The whole SRAM pool is behind BASEP2; the driver clears it on every resume (ethosu_reset()), and with the
  // 50 ms autosuspend each job of a test starts from a cleared pool.
  if (sram) job.regions[2].assign(sram_size_bytes_, 0);

  host::RunOptions options = run_options_;
  if (perfmon) std::copy(perfmon->events.begin(), perfmon->events.end(), options.pmu_events.begin());

  JobResult result;
  std::optional<std::filesystem::path> capture_dir;
  try {
    capture_dir = host::capture_dir_from_env("linux-accel");
  } catch (const std::exception& e) {
    std::cerr << "ethosu-sim accel: job " << n << " not captured: " << e.what() << "\n";
  }
  std::array<std::vector<uint8_t>, isa::kRegionCount> regions_before;
  if (capture_dir) regions_before = job.regions;
  bool ran = false;
  try {
    const host::RunOutcome o = host::run_job(job, options);
    ran = true;
    result.faulted = o.fault.has_value();
    if (o.fault) result.fault = *o.fault;
    result.status = o.status;
    result.cycle_counter = o.cycle_counter;
    result.event_counters = o.event_counters;
    if (capture_dir)
      host::write_capture(*capture_dir, host::capture_run("linux-accel", regions_before, job, options, o, config_));
  } catch (const std::exception& e) {
    // Not the NPU's doing (the SystemC kernel stopped, a capture that cannot be written): say so; a job that did
    // not finish completes as a faulted one.
    if (ran) {
      std::cerr << "ethosu-sim accel: job " << n << " not captured: " << e.what() << "\n";
    } else {
      result.faulted = true;
      result.fault = std::string("the simulator could not run the job: ") + e.what();
    }
  }

  // The hardware writes only OFM and DMA destinations: only the bytes the job changed go back, so that whatever
  // the client wrote meanwhile elsewhere in its BOs (its next input, another slot of a shared arena) stays.
  for (unsigned r = 0; r < 8; ++r) {
    if (!regions[r] || written_before[r].empty()) continue;
    const uint64_t begin = written_from[r];
    for (const auto& [from, to] :
         sim::differing_runs(written_before[r].data(), job.regions[r].data() + begin, written_before[r].size()))
      std::memcpy(regions[r]->data + begin + from, job.regions[r].data() + begin + from, to - from);
  }
  if (perfmon) {
    std::lock_guard<std::mutex> lock(perfmon->mutex);
    for (size_t i = 0; i + 1 < perfmon->values.size(); ++i) perfmon->values[i] += result.event_counters[i];
    perfmon->values.back() += result.cycle_counter;
  }
  if (result.faulted)
    std::cerr << "ethosu-sim accel: Error IRQ - " << hex(result.status) << " (job " << n << ": " << result.fault
              << ")\n";
  else if (settings_.verbose)
    std::cerr << "ethosu-sim accel: job " << n << " done, " << result.cycle_counter << " cycles, STATUS "
              << hex(result.status) << (capture_dir ? ", captured in " + capture_dir->string() : std::string()) << "\n";
}

DeviceFile::DeviceFile(Device& device) : device_(device) {}

DeviceFile::~DeviceFile() { device_.drop_global_perfmon(nullptr, this); }

int DeviceFile::ioctl(unsigned long request, void* arg) {
  if (_IOC_TYPE(request) != ETHOSU_DRM_IOCTL_TYPE) return -ENOTTY;
  const unsigned nr = _IOC_NR(request);
  const size_t ksize = kernel_size(nr);
  if (ksize == 0) return -EINVAL;
  const size_t usize = _IOC_SIZE(request);
  const uint64_t user = reinterpret_cast<uintptr_t>(arg);
  std::vector<uint8_t> buf(std::max(ksize, usize), 0);
  if ((_IOC_DIR(request) & _IOC_WRITE) && !copy_from_user(buf.data(), user, usize)) return -EFAULT;
  int ret;
  try {
    Lock lock(mutex_);
    ret = dispatch(nr, buf.data(), lock);
  } catch (const std::bad_alloc&) {
    ret = -ENOMEM;
  }
  if ((_IOC_DIR(request) & _IOC_READ) && !copy_to_user(user, buf.data(), usize)) ret = -EFAULT;
  return ret;
}

int DeviceFile::dispatch(unsigned nr, void* arg, Lock& lock) {
  switch (nr) {
    case 0x00:
      return version(arg);
    case 0x09:
      return gem_close(arg);
    case 0x0c:
      return get_cap(arg);
    case ETHOSU_DRM_COMMAND_BASE + ETHOSU_ACCEL_DEV_QUERY:
      return dev_query(arg);
    case ETHOSU_DRM_COMMAND_BASE + ETHOSU_ACCEL_BO_CREATE:
      return bo_create(arg);
    case ETHOSU_DRM_COMMAND_BASE + ETHOSU_ACCEL_BO_WAIT:
      return bo_wait(arg, lock);
    case ETHOSU_DRM_COMMAND_BASE + ETHOSU_ACCEL_BO_MMAP_OFFSET:
      return bo_mmap_offset(arg);
    case ETHOSU_DRM_COMMAND_BASE + ETHOSU_ACCEL_CMDSTREAM_BO_CREATE:
      return cmdstream_bo_create(arg, lock);
    case ETHOSU_DRM_COMMAND_BASE + ETHOSU_ACCEL_SUBMIT:
      return submit(arg, lock);
    case ETHOSU_DRM_COMMAND_BASE + ETHOSU_ACCEL_PERFMON_CREATE:
      return perfmon_create(arg);
    case ETHOSU_DRM_COMMAND_BASE + ETHOSU_ACCEL_PERFMON_DESTROY:
      return perfmon_destroy(arg);
    case ETHOSU_DRM_COMMAND_BASE + ETHOSU_ACCEL_PERFMON_GET_VALUES:
      return perfmon_get_values(arg);
    case ETHOSU_DRM_COMMAND_BASE + ETHOSU_ACCEL_PERFMON_SET_GLOBAL:
      return perfmon_set_global(arg);
    default:
      return -EINVAL;
  }
}

int DeviceFile::version(void* arg) {
  auto v = load<ethosu_drm_version>(arg);
  v.version_major = 1;
  v.version_minor = 0;
  v.version_patchlevel = 0;
  const bool ok = copy_field(reinterpret_cast<uintptr_t>(v.name), v.name_len, "ethosu") &&
                  copy_field(reinterpret_cast<uintptr_t>(v.date), v.date_len, "0") &&
                  copy_field(reinterpret_cast<uintptr_t>(v.desc), v.desc_len, "Arm Ethos-U Accel driver");
  store(arg, v);
  return ok ? 0 : -EFAULT;
}

int DeviceFile::gem_close(void* arg) {
  const auto c = load<ethosu_drm_gem_close>(arg);
  return bos_.erase(c.handle) ? 0 : -EINVAL;
}

int DeviceFile::get_cap(void* arg) {
  auto c = load<ethosu_drm_get_cap>(arg);
  switch (c.capability) {
    case ETHOSU_DRM_CAP_DUMB_BUFFER:
      c.value = 0;
      break;
    case ETHOSU_DRM_CAP_PRIME:
      c.value = 0;
      break;  // the shim shares no BOs between devices or processes
    case ETHOSU_DRM_CAP_TIMESTAMP_MONOTONIC:
      c.value = 1;
      break;
    default:
      return -EINVAL;
  }
  store(arg, c);
  return 0;
}

int DeviceFile::dev_query(void* arg) {
  auto q = load<ethosu_accel_dev_query>(arg);
  if (q.type != ETHOSU_ACCEL_DEV_QUERY_NPU_INFO) return -EINVAL;
  const std::array<uint32_t, 4> info = device_.npu_info();
  if (q.pointer == 0) {
    q.size = sizeof info;
    store(arg, q);
    return 0;
  }
  if (q.size < offsetof(ethosu_accel_npu_info, pmu_counters)) return -EINVAL;
  // copy_struct_to_user(): the kernel's struct, then the rest of the user's size cleared (clear_user), without
  // allocating the user's size.
  const size_t n = std::min<size_t>(q.size, sizeof info);
  if (!copy_to_user(q.pointer, info.data(), n)) return -EFAULT;
  static const std::array<uint8_t, kPage> zeros{};
  for (uint64_t at = n; at < q.size; at += zeros.size())
    if (!copy_to_user(q.pointer + at, zeros.data(), std::min<uint64_t>(zeros.size(), q.size - at))) return -EFAULT;
  return 0;
}

BufferPtr DeviceFile::lookup(uint32_t handle) const {
  const auto it = bos_.find(handle);
  return it == bos_.end() ? nullptr : it->second;
}

uint32_t DeviceFile::add_bo(BufferPtr bo) {
  uint32_t handle = 1;  // idr_alloc(1, 0): the lowest free non-zero handle
  for (const auto& [h, b] : bos_) {
    if (h != handle) break;
    ++handle;
  }
  bos_.emplace(handle, std::move(bo));
  return handle;
}

int DeviceFile::bo_create(void* arg) {
  auto c = load<ethosu_accel_bo_create>(arg);
  if (c.size == 0 || (c.flags & ~ETHOSU_ACCEL_BO_NO_MMAP)) return -EINVAL;
  if (c.size > kMaxBoBytes) return -ENOMEM;
  const uint64_t size = page_round(c.size);
  c.handle = add_bo(std::make_shared<BufferObject>(size, c.flags, device_.allocate_mmap_offset(size)));
  c.size = size;
  store(arg, c);
  return 0;
}

int DeviceFile::bo_wait(void* arg, Lock& lock) {
  const auto w = load<ethosu_accel_bo_wait>(arg);
  if (w.pad) return -EINVAL;
  // drm_gem_dma_resv_wait(): an unknown handle is EINVAL; a BO a job still uses is waited for until the absolute
  // timeout, then ETIMEDOUT (EBUSY for a timeout already past, as a zero jiffies wait answers).
  const BufferPtr bo = lookup(w.handle);
  if (!bo) return -EINVAL;
  lock.unlock();
  const timespec deadline{static_cast<time_t>(w.timeout_ns / 1000000000), static_cast<long>(w.timeout_ns % 1000000000)};
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  const bool past = w.timeout_ns <= int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
  if (device_.wait_idle(*bo, deadline)) return 0;
  return past ? -EBUSY : -ETIMEDOUT;
}

int DeviceFile::bo_mmap_offset(void* arg) {
  auto m = load<ethosu_accel_bo_mmap_offset>(arg);
  if (m.pad) return -EINVAL;
  const BufferPtr bo = lookup(m.handle);
  if (!bo) return -ENOENT;
  m.offset = bo->mmap_offset;
  store(arg, m);
  return 0;
}

intptr_t DeviceFile::map(void* addr, uint64_t length, int prot, int flags, uint64_t offset) {
  BufferPtr bo;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [h, b] : bos_)
      if (b->mmap_offset == offset) bo = b;
  }
  if (!bo || length == 0 || page_round(length) > bo->size_bytes || (bo->flags & ETHOSU_ACCEL_BO_NO_MMAP))
    return -EINVAL;
  // The same pages again: mremap() of a shared mapping with old size 0 makes a second mapping of them.
  const int move = MREMAP_MAYMOVE | ((flags & MAP_FIXED) ? MREMAP_FIXED : 0);
  void* p = (flags & MAP_FIXED) ? mremap(bo->data, 0, length, move, addr) : mremap(bo->data, 0, length, move);
  if (p == MAP_FAILED) return -errno;
  if (prot != (PROT_READ | PROT_WRITE) && mprotect(p, length, prot) != 0) {
    const int e = errno;
    munmap(p, length);
    return -e;
  }
  return reinterpret_cast<intptr_t>(p);
}

int DeviceFile::cmdstream_bo_create(void* arg, Lock& lock) {
  auto c = load<ethosu_accel_cmdstream_bo_create>(arg);
  if (c.size == 0 || c.data == 0 || c.pad || c.flags) return -EINVAL;
  if (c.size > kMaxBoBytes) return -ENOMEM;
  // The copy and the validation touch nothing of the file's: other threads' calls on it go on meanwhile.
  lock.unlock();
  std::vector<uint8_t> bytes(c.size);
  if (!copy_from_user(bytes.data(), c.data, bytes.size())) return -EFAULT;
  std::string reason;
  auto stream = validate_cmdstream(bytes.data(), bytes.size(), device_.variant(), reason);
  if (!stream) {
    log_refusal(device_, "CMDSTREAM_BO_CREATE: " + reason);
    return -EINVAL;
  }
  const uint64_t size = page_round(c.size);
  auto bo = std::make_shared<BufferObject>(size, ETHOSU_ACCEL_BO_NO_MMAP, device_.allocate_mmap_offset(size));
  std::memcpy(bo->data, bytes.data(), bytes.size());
  bo->stream = std::move(stream);
  lock.lock();
  c.handle = add_bo(std::move(bo));
  store(arg, c);
  return 0;
}

int DeviceFile::submit(void* arg, Lock& lock) {
  const auto s = load<ethosu_accel_submit>(arg);
  if (uint64_t{s.job_count} * sizeof(ethosu_accel_job) > (uint64_t{64} << 20)) return -ENOMEM;
  std::vector<ethosu_accel_job> jobs(s.job_count);
  if (!copy_from_user(jobs.data(), s.jobs, jobs.size() * sizeof(ethosu_accel_job))) return -EFAULT;
  // An unknown perfmon id is ignored, as ethosu_perfmon_find() returning NULL is.
  std::shared_ptr<Perfmon> perfmon;
  if (s.perfmon_id) {
    const auto it = perfmons_.find(s.perfmon_id);
    if (it != perfmons_.end()) perfmon = it->second;
  }
  for (const auto& job : jobs) {
    const std::shared_ptr<Perfmon> global = device_.global_perfmon();
    const int ret = submit_job(job, global ? global : perfmon, lock);
    if (ret) return ret;
  }
  return 0;
}

int DeviceFile::submit_job(const ethosu_accel_job& job, const std::shared_ptr<Perfmon>& perfmon, Lock& lock) {
  constexpr unsigned kSram = ETHOSU_ACCEL_SRAM_REGION;
  if (job.region_bo_handles[kSram] && job.sram_size) return -EINVAL;
  if (device_.sram_size_bytes() < job.sram_size) return -EINVAL;
  const BufferPtr cmd = lookup(job.cmd_bo);
  if (!cmd) return -ENOENT;
  if (!cmd->stream) return -EINVAL;
  const ValidatedStream& info = *cmd->stream;
  std::array<BufferPtr, 8> regions{};
  bool sram = false;
  uint64_t job_bytes = 0;
  for (unsigned i = 0; i < 8; ++i) {
    const uint32_t h = job.region_bo_handles[i];
    const uint64_t need = info.region_size_bytes[i];
    if (!h) {
      if (!need) continue;
      if (i == kSram) {
        if (need <= device_.sram_size_bytes()) {
          sram = true;
          job_bytes += device_.sram_size_bytes();
          continue;
        }
        log_refusal(device_, "cmd stream region " + std::to_string(i) + " size greater than SRAM size (" +
                                 std::to_string(need) + " > " + std::to_string(device_.sram_size_bytes()) + ")");
        return -EINVAL;
      }
    }
    if (h && !need) {
      log_refusal(device_, "Cmdstream BO handle " + std::to_string(h) + " set for unused region " + std::to_string(i));
      return -EINVAL;
    }
    BufferPtr bo = lookup(h);
    if (!bo) {
      log_refusal(device_, "Invalid BO handle " + std::to_string(h) + " for region " + std::to_string(i));
      return -ENOENT;
    }
    if (bo->stream) {
      log_refusal(device_, "Cmdstream BO handle " + std::to_string(h) + " used for region " + std::to_string(i));
      return -EINVAL;
    }
    if (need > bo->size_bytes) {
      log_refusal(device_, "cmd stream region " + std::to_string(i) + " size greater than BO size (" +
                               std::to_string(need) + " > " + std::to_string(bo->size_bytes) + ")");
      return -EOVERFLOW;
    }
    job_bytes += std::min(info.copy_bytes[i], bo->size_bytes);
    regions[i] = std::move(bo);
  }
  // One BO in two regions: the kernel locks each BO of a job once (drm_gem_lock_reservations()), and locking it
  // again fails with EALREADY; the NPU would otherwise see one buffer through two regions.
  for (unsigned i = 0; i < 8; ++i)
    for (unsigned k = i + 1; k < 8; ++k)
      if (regions[i] && regions[i] == regions[k]) {
        log_refusal(device_, "BO handle " + std::to_string(job.region_bo_handles[i]) + " used for regions " +
                                 std::to_string(i) + " and " + std::to_string(k));
        return -EALREADY;
      }
  // Not a kernel check: the simulator copies every region for the run (host/backends/shim_env.h).
  if (job_bytes > host::kMaxJobRegionBytes) {
    std::cerr << "ethosu-sim accel: SUBMIT refused: the job's regions hold " << job_bytes
              << " bytes, more than the simulator's limit of " << host::kMaxJobRegionBytes << " bytes per job\n";
    return -ENOMEM;
  }
  // The job holds its BOs; the file is free for other threads while it runs.
  const std::shared_ptr<const BufferObject> keep_stream = cmd;
  lock.unlock();
  device_.run(info, regions, sram, perfmon);
  lock.lock();
  return 0;
}

int DeviceFile::perfmon_create(void* arg) {
  auto c = load<ethosu_accel_perfmon_create>(arg);
  const isa::Architecture& arch = isa::architecture(device_.variant());
  if (c.ncounters > arch.pmu_event_counters) return -EINVAL;  // the kernel's limit: npu_info.pmu_counters
  // The kernel's event_max: the family's highest event id (433 on the U65, 671 on the U85).
  uint16_t max_event = 0;
  for (const isa::PmuEventInfo* e : arch.pmu_events)
    max_event = std::max(max_event, e->hw_id);
  for (uint32_t i = 0; i < c.ncounters; ++i)
    if (c.counters[i] > max_event) return -EINVAL;
  auto p = std::make_shared<Perfmon>();
  p->events.assign(c.counters, c.counters + c.ncounters);
  p->values.assign(c.ncounters + 1, 0);
  uint32_t id = 1;  // xarray with ALLOC1: the lowest free id from 1
  for (const auto& [i, m] : perfmons_) {
    if (i != id) break;
    ++id;
  }
  perfmons_.emplace(id, std::move(p));
  c.id = id;
  c.ncounters += 1;  // the kernel reports the cycle counter it appended
  store(arg, c);
  return 0;
}

int DeviceFile::perfmon_destroy(void* arg) {
  const auto d = load<ethosu_accel_perfmon_destroy>(arg);
  const auto it = perfmons_.find(d.id);
  if (it == perfmons_.end()) return -EINVAL;
  device_.drop_global_perfmon(it->second.get(), nullptr);
  perfmons_.erase(it);
  return 0;
}

int DeviceFile::perfmon_get_values(void* arg) {
  const auto g = load<ethosu_accel_perfmon_get_values>(arg);
  if (g.pad) return -EINVAL;
  const auto it = perfmons_.find(g.id);
  if (it == perfmons_.end()) return -EINVAL;
  Perfmon& p = *it->second;
  std::vector<uint64_t> values;
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    values = p.values;
  }
  return copy_to_user(g.values_ptr, values.data(), values.size() * sizeof(uint64_t)) ? 0 : -EFAULT;
}

int DeviceFile::perfmon_set_global(void* arg) {
  const auto s = load<ethosu_accel_perfmon_set_global>(arg);
  if (s.flags & ~ETHOSU_ACCEL_PERFMON_CLEAR_GLOBAL) return -EINVAL;
  const auto it = perfmons_.find(s.id);
  if (it == perfmons_.end()) return -EINVAL;
  if (s.flags & ETHOSU_ACCEL_PERFMON_CLEAR_GLOBAL) return device_.clear_global_perfmon();
  return device_.set_global_perfmon(it->second, this);
}

}  // namespace ethosu::accel
