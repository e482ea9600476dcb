// Recording jobs of the Linux accel/ethosu driver (host/backends/accel/ethosu_accel_uapi.h).
//
// A job is recorded from its SUBMIT: the command stream (copied when CMDSTREAM_BO_CREATE made its BO; the kernel's
// copy cannot be mapped), each region BO as far as the stream reaches (the validator's access extent, what the
// kernel checks against the BO's size), region 2 as zeros when it is the driver's SRAM. Its results are recorded
// when the client first sees the job done (a BO_WAIT on one of its BOs that succeeds) or, at the latest, before the
// client's next SUBMIT, GEM_CLOSE or mmap of one of its BOs, PERFMON_DESTROY of its perfmon, the last close of the
// device file, or the end of the process; then the recorder waits for the job itself (BO_WAIT on the BOs the job
// writes, to which the kernel attaches the job's fence). Per-job counters are the difference of the perfmon's
// values (the kernel accumulates them) around the job; a SUBMIT of several jobs records no counters.
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <new>
#include <set>

#include "host/backends/accel/ethosu_accel_uapi.h"
#include "host/backends/common/owned_fds.h"
#include "host/backends/record/recorder.h"
#include "host/recording/capture.h"
#include "isa/decoder.h"
#include "isa/validator.h"
#include "sim/error.h"

namespace ethosu::record {

namespace {

namespace fs = std::filesystem;

constexpr unsigned kRegions = ETHOSU_ACCEL_MAX_REGIONS;
constexpr uint32_t kLinuxRegioncfg = 0xAA8A;  // the Linux driver's REGIONCFG: region 2 on AXI0 (SRAM)

constexpr unsigned nr_of(unsigned command) { return ETHOSU_DRM_COMMAND_BASE + command; }

struct Bo {
  uint64_t size_bytes = 0;
  uint32_t flags = 0;
  std::shared_ptr<const std::vector<uint8_t>> stream;  // command-stream BOs
};

// One open() of the node, shared by its dup()'d descriptors, as a drm_file.
struct File {
  std::set<int> fds;
  std::map<uint32_t, Bo> bos;
  std::map<uint32_t, std::vector<uint16_t>> perfmons;  // id -> raw event ids
  std::optional<host::NpuIdentity> identity;
  uint32_t own_perfmon = 0;
  int fd() const { return fds.empty() ? -1 : *fds.begin(); }
};
using FilePtr = std::shared_ptr<File>;

struct Pending {
  FilePtr file;
  FilePtr perfmon_file;  // whose perfmon counted the job (the global one may be another file's)
  std::unique_ptr<host::CaptureWriter> writer;
  host::Capture meta;
  std::array<uint32_t, kRegions> handles{};
  std::array<Mapping, kRegions> maps;
  std::array<bool, kRegions> written{};
  uint32_t perfmon = 0;  // 0: no counters
  std::vector<uint64_t> values_before;
  uint64_t start_ns = 0;
  std::optional<uint64_t> done_ns;
};

int own_ioctl(int fd, unsigned long request, void* arg) { return libc().ioctl(fd, request, arg) == 0 ? 0 : errno; }

// Region extents and the written regions of a stream, as the kernel's validator finds them.
struct Reach {
  std::array<uint64_t, kRegions> bytes{};  // 0: unused
  std::array<bool, kRegions> written{};
};

Reach reach(const std::vector<uint8_t>& stream, const std::string& variant) {
  isa::ValidatorOptions options;
  options.variant = isa::parse_variant(variant).value_or(isa::kDefaultVariant);
  const isa::Report report = isa::validate(isa::decode(stream), options);
  Reach r;
  for (unsigned i = 0; i < kRegions; ++i) {
    const isa::Extent e = report.region_extent(i);
    if (e.used && e.end > 0) r.bytes[i] = static_cast<uint64_t>(e.end);
    r.written[i] = report.writes(i).used;
  }
  return r;
}

}  // namespace

struct AccelRecorder::State {
  host::OwnedFds watched;
  std::map<int, FilePtr> files;  // by descriptor
  std::deque<Pending> pending;   // submitted, results not yet recorded
  std::mutex submitting;         // one SUBMIT recorded at a time
  FilePtr global_file;           // PERFMON_SET_GLOBAL: the file whose perfmon counts every job
  uint32_t global_perfmon = 0;
  bool warned_no_mmap = false;

  FilePtr file_of(int fd) const {
    const auto it = files.find(fd);
    return it == files.end() ? nullptr : it->second;
  }

  std::optional<host::NpuIdentity> identity(File& f) {
    if (!f.identity) {
      ethosu_accel_npu_info info{};
      ethosu_accel_dev_query q{ETHOSU_ACCEL_DEV_QUERY_NPU_INFO, sizeof info, reinterpret_cast<uintptr_t>(&info)};
      if (own_ioctl(f.fd(), ETHOSU_ACCEL_IOCTL_DEV_QUERY, &q) == 0)
        f.identity = host::NpuIdentity{info.id, info.config, info.sram_size};
    }
    return f.identity;
  }

  // The configuration DEV_QUERY reports; the default one when it names none the simulator knows.
  isa::Variant variant_of(File& f) {
    const std::optional<host::NpuIdentity> id = identity(f);
    const std::optional<std::string> name = id ? host::variant_of_config(id->config) : std::nullopt;
    return isa::parse_variant(name.value_or("")).value_or(isa::kDefaultVariant);
  }

  std::vector<uint64_t> values(File& f, uint32_t perfmon) {
    const auto it = f.perfmons.find(perfmon);
    if (it == f.perfmons.end()) return {};
    std::vector<uint64_t> v(it->second.size() + 1);
    ethosu_accel_perfmon_get_values g{perfmon, 0, reinterpret_cast<uintptr_t>(v.data())};
    return own_ioctl(f.fd(), ETHOSU_ACCEL_IOCTL_PERFMON_GET_VALUES, &g) == 0 ? v : std::vector<uint64_t>{};
  }

  // The perfmon counting a job submitted on `fp` with `perfmon_id`, as the driver picks it: the global one, else
  // the submission's; else the recorder's own, created on first use, when ETHOSU_RECORD_PMU asks for one. The file
  // is held, not pointed to: another thread may close it while the job runs.
  std::pair<FilePtr, uint32_t> counting_perfmon(const FilePtr& fp, uint32_t perfmon_id) {
    File& f = *fp;
    if (global_file && global_perfmon) return {global_file, global_perfmon};
    if (perfmon_id && f.perfmons.count(perfmon_id)) return {fp, perfmon_id};
    if (settings().own_pmu.empty()) return {nullptr, 0};
    if (!f.own_perfmon) {
      // The events of the NPU the driver reports (the U85's PMU has its own ids and eight counters).
      const std::vector<uint16_t> events = own_pmu_events(variant_of(f));
      if (events.empty()) return {nullptr, 0};
      ethosu_accel_perfmon_create c{};
      c.ncounters = static_cast<uint32_t>(events.size());
      std::copy(events.begin(), events.end(), c.counters);
      if (own_ioctl(f.fd(), ETHOSU_ACCEL_IOCTL_PERFMON_CREATE, &c) != 0) {
        warn("ETHOSU_RECORD_PMU: the driver refused a perfmon for these events; recording without counters");
        return {nullptr, 0};
      }
      f.own_perfmon = c.id;
      f.perfmons[c.id] = events;
    }
    return {fp, f.own_perfmon};
  }

  // Starts the recording of one job before it is submitted; nothing when it cannot be recorded.
  std::optional<Pending> start(const FilePtr& f, const ethosu_accel_job& job) {
    const auto cmd = f->bos.find(job.cmd_bo);
    if (cmd == f->bos.end() || !cmd->second.stream) return std::nullopt;  // the kernel refuses it (ENOENT/EINVAL)
    const std::vector<uint8_t>& stream = *cmd->second.stream;
    Pending p;
    p.file = f;
    host::Capture& m = p.meta;
    m.source = "linux-accel";
    m.on_hardware = true;
    m.timed = true;
    m.regioncfg = kLinuxRegioncfg;
    m.status_recorded = false;  // the driver never tells user space STATUS
    m.device = identity(*f);
    if (m.device) {
      if (auto v = host::variant_of_config(m.device->config)) {
        m.variant = *v;
      } else {
        warn("DEV_QUERY's CONFIG " + std::to_string(m.device->config) + " names no Ethos-U configuration the simulator models; recorded as " + m.variant);
        m.device.reset();
      }
    }
    const Reach r = reach(stream, m.variant);
    uint64_t total = 0;
    for (unsigned i = 0; i < kRegions; ++i) {
      const auto bo = f->bos.find(job.region_bo_handles[i]);
      if (job.region_bo_handles[i] && bo != f->bos.end())
        total += (r.written[i] ? 2 : 1) * (r.bytes[i] ? std::min(r.bytes[i], bo->second.size_bytes) : bo->second.size_bytes);
    }
    if (total > kMaxRecordedJobBytes)
      throw InputError("its regions hold " + std::to_string(total) + " bytes before and after, more than a recording takes");
    for (unsigned i = 0; i < kRegions; ++i)
      if (job.region_bo_handles[i] && !f->bos.count(job.region_bo_handles[i]))
        return std::nullopt;  // the kernel refuses the job (ENOENT)
    p.writer = std::make_unique<host::CaptureWriter>(
        host::next_capture_dir(settings().root, "linux-accel", "ETHOSU_RECORD_DIR"));
    try {
      record_before(p, *f, job, r, stream);
    } catch (...) {
      std::error_code ec;
      fs::remove_all(p.writer->dir(), ec);
      throw;
    }
    return p;
  }

  // Writes the job's stream and regions as they are before it runs, and keeps mappings of the regions it writes.
  void record_before(Pending& p, const File& f, const ethosu_accel_job& job, const Reach& r,
                     const std::vector<uint8_t>& stream) {
    host::Capture& m = p.meta;
    p.writer->add_stream(stream.data(), stream.size());
    for (unsigned i = 0; i < kRegions; ++i) {
      const uint32_t h = job.region_bo_handles[i];
      if (!h) {
        if (i == ETHOSU_ACCEL_SRAM_REGION && job.sram_size && r.bytes[i]) {
          // The driver's SRAM: its contents are not the client's to see; the simulator starts it cleared.
          p.writer->add_zero_region(i, std::min<uint64_t>(r.bytes[i], job.sram_size));
          m.sram_region = i;
        }
        continue;
      }
      const auto bo = f.bos.find(h);
      const uint64_t size = r.bytes[i] ? std::min(r.bytes[i], bo->second.size_bytes) : bo->second.size_bytes;
      p.handles[i] = h;
      if (bo->second.flags & ETHOSU_ACCEL_BO_NO_MMAP) {
        if (!warned_no_mmap) warn("a job uses a BO created with NO_MMAP: recorded as zeros, its results not compared");
        warned_no_mmap = true;
        p.writer->add_zero_region(i, size);
        continue;
      }
      ethosu_accel_bo_mmap_offset mo{h, 0, 0};
      if (own_ioctl(f.fd(), ETHOSU_ACCEL_IOCTL_BO_MMAP_OFFSET, &mo) != 0)
        throw InputError("region " + std::to_string(i) + ": BO_MMAP_OFFSET refused");
      p.maps[i] = Mapping(f.fd(), static_cast<off_t>(mo.offset), size);
      if (!p.maps[i].data()) throw InputError("region " + std::to_string(i) + ": the BO cannot be mapped");
      p.writer->add_region(i, false, p.maps[i].data(), size);
      p.written[i] = r.written[i];
    }
    m.cycle_counter_recorded = m.event_counters_recorded = false;  // until a perfmon's values say otherwise
  }

  // Records a job's results; waits for it first unless the client has seen it done.
  void finish(Pending& p) {
    try {
      File& f = *p.file;
      if (!p.done_ns) {
        for (unsigned i = 0; i < kRegions; ++i) {
          if (!p.written[i]) continue;
          ethosu_accel_bo_wait w{p.handles[i], 0, INT64_MAX};
          own_ioctl(f.fd(), ETHOSU_ACCEL_IOCTL_BO_WAIT, &w);
        }
        p.done_ns = monotonic_ns();
      }
      p.meta.wall_ns = *p.done_ns - p.start_ns;
      if (p.perfmon) {
        const std::vector<uint64_t> after = values(*p.perfmon_file, p.perfmon);
        if (after.size() == p.values_before.size() && !after.empty()) {
          const size_t events = after.size() - 1;
          p.meta.cycle_counter = after.back() - p.values_before.back();
          for (size_t i = 0; i < events && i < 4; ++i)
            p.meta.event_counters[i] = static_cast<uint32_t>(after[i] - p.values_before[i]);
          p.meta.cycle_counter_recorded = p.meta.event_counters_recorded = true;
        }
      }
      for (unsigned i = 0; i < kRegions; ++i)
        if (p.written[i] && p.maps[i].data()) p.writer->add_region(i, true, p.maps[i].data(), p.maps[i].size());
      p.writer->finish(p.meta);
      if (settings().verbose)
        warn("recorded " + p.writer->dir().string() + ": " + std::to_string(*p.meta.wall_ns) + " ns" +
             (p.meta.cycle_counter_recorded ? ", " + std::to_string(p.meta.cycle_counter) + " cycles" : std::string()));
    } catch (const std::exception& e) {
      warn("job not recorded (" + p.writer->dir().string() + "): " + e.what());
      std::error_code ec;
      fs::remove_all(p.writer->dir(), ec);
    }
  }

  // Records the results of the pending jobs up to and including the first one `until` selects (all when none
  // does and `all` is set).
  template <typename Pred>
  void finish_through(Pred until, bool all) {
    size_t last = pending.size();
    for (size_t i = 0; i < pending.size(); ++i)
      if (until(pending[i])) last = i;
    if (last == pending.size()) {
      if (!all) return;
      last = pending.size() - 1;
    }
    if (pending.empty()) return;
    for (size_t i = 0; i <= last; ++i) finish(pending.front()), pending.pop_front();
  }

  void finish_file(const File* f) {
    finish_through([&](const Pending& p) { return p.file.get() == f; }, false);
  }
  void finish_handle(const File* f, uint32_t handle) {
    finish_through(
        [&](const Pending& p) {
          return p.file.get() == f && std::find(p.handles.begin(), p.handles.end(), handle) != p.handles.end();
        },
        false);
  }
  void finish_every() { finish_through([](const Pending&) { return false; }, true); }

  // `fd` names its file no more (closed, or replaced by dup2()): the file goes with its last descriptor.
  void forget(int fd) {
    const FilePtr f = file_of(fd);
    if (!f) return;
    f->fds.erase(fd);
    if (f->fds.empty() && global_file == f) global_file.reset();
    files.erase(fd);
    watched.set(fd, false);
  }
};

AccelRecorder& AccelRecorder::instance() {
  static auto* r = new AccelRecorder;  // never destroyed: clients close descriptors from atexit handlers
  return *r;
}

AccelRecorder::State& AccelRecorder::s() {
  static auto* state = new State;
  return *state;
}

void AccelRecorder::opened(const char* path, int fd) {
  if (fd < 0 || !path || std::strncmp(path, "/dev/accel/accel", 16) != 0) return;
  // Only the ethosu driver's nodes: another accel driver's ioctls mean something else.
  char name[16] = {};
  ethosu_drm_version v{};
  v.name = name;
  v.name_len = sizeof name - 1;
  if (own_ioctl(fd, ETHOSU_DRM_IOCTL_VERSION, &v) != 0 || std::string(name) != "ethosu") return;
  std::lock_guard<std::recursive_mutex> l(lock());
  auto f = std::make_shared<File>();
  f->fds.insert(fd);
  s().files[fd] = f;
  s().watched.set(fd, true);
}

bool AccelRecorder::watches(int fd) const { return const_cast<AccelRecorder*>(this)->s().watched.contains(fd); }

void AccelRecorder::replacing(int fd) {
  if (!watches(fd)) return;
  std::lock_guard<std::recursive_mutex> l(lock());
  // The file goes with its last descriptor: its jobs are recorded while the descriptor can still ask it.
  if (const FilePtr f = s().file_of(fd); f && f->fds.size() == 1) s().finish_file(f.get());
}

void AccelRecorder::duplicated(int from, int to) {
  if (to < 0 || to == from) return;
  std::lock_guard<std::recursive_mutex> l(lock());
  // `to` names from's file now: its old file's jobs were recorded by replacing(), before dup2() replaced it.
  s().forget(to);
  if (FilePtr f = s().file_of(from)) {
    f->fds.insert(to);
    s().files[to] = f;
    s().watched.set(to, true);
  }
}

void AccelRecorder::closing(int fd) {
  if (!watches(fd)) return;
  std::lock_guard<std::recursive_mutex> l(lock());
  replacing(fd);
  s().forget(fd);
}

void AccelRecorder::before_mmap(int fd) {
  if (!watches(fd)) return;
  std::lock_guard<std::recursive_mutex> l(lock());
  if (FilePtr f = s().file_of(fd)) s().finish_file(f.get());
}

void AccelRecorder::finish_all() {
  std::lock_guard<std::recursive_mutex> l(lock());
  s().finish_every();
}

void AccelRecorder::forget_all() {
  State& st = s();
  new (&st.submitting) std::mutex;  // a parent's thread may have held it at the fork
  st.pending.clear();
  for (const auto& [fd, f] : st.files) st.watched.set(fd, false);
  st.files.clear();
  st.global_file.reset();
}

int AccelRecorder::ioctl(int fd, unsigned long request, void* arg) {
  const auto pass = [&] { return libc().ioctl(fd, request, arg); };
  if (_IOC_TYPE(request) != ETHOSU_DRM_IOCTL_TYPE) return pass();
  const unsigned nr = _IOC_NR(request);
  State& st = s();
  const uint64_t user = reinterpret_cast<uintptr_t>(arg);

  if (nr == nr_of(ETHOSU_ACCEL_BO_WAIT)) {
    // The client's wait may block: it goes on without the recorder's lock.
    const int r = pass();
    const int saved = errno;
    ethosu_accel_bo_wait w{};
    if (r == 0 && read_user(&w, user, sizeof w)) {
      std::lock_guard<std::recursive_mutex> l(lock());
      if (FilePtr f = st.file_of(fd)) {
        const uint64_t now = monotonic_ns();
        for (Pending& p : st.pending)
          if (p.file == f && std::find(p.handles.begin(), p.handles.end(), w.handle) != p.handles.end() &&
              !p.done_ns)
            p.done_ns = now;
        st.finish_handle(f.get(), w.handle);
      }
    }
    errno = saved;
    return r;
  }

  if (nr == nr_of(ETHOSU_ACCEL_SUBMIT)) return submit(fd, request, arg);
  std::lock_guard<std::recursive_mutex> l(lock());
  FilePtr f = st.file_of(fd);
  if (!f) return pass();
  int r = 0;
  switch (nr) {
    case nr_of(ETHOSU_ACCEL_DEV_QUERY): {
      r = pass();
      ethosu_accel_dev_query q{};
      ethosu_accel_npu_info info{};
      if (r == 0 && read_user(&q, user, sizeof q) && q.type == ETHOSU_ACCEL_DEV_QUERY_NPU_INFO && q.pointer &&
          q.size >= offsetof(ethosu_accel_npu_info, pmu_counters) &&
          read_user(&info, q.pointer, offsetof(ethosu_accel_npu_info, pmu_counters)))
        f->identity = host::NpuIdentity{info.id, info.config, info.sram_size};
      return r;
    }
    case nr_of(ETHOSU_ACCEL_BO_CREATE): {
      r = pass();
      ethosu_accel_bo_create c{};
      if (r == 0 && read_user(&c, user, sizeof c)) f->bos[c.handle] = Bo{c.size, c.flags, nullptr};
      return r;
    }
    case nr_of(ETHOSU_ACCEL_CMDSTREAM_BO_CREATE): {
      r = pass();
      const int saved = errno;
      ethosu_accel_cmdstream_bo_create c{};
      if (r == 0 && read_user(&c, user, sizeof c)) {
        // The stream as the kernel copied it, whole words (its BO cannot be mapped).
        auto bytes = std::make_shared<std::vector<uint8_t>>(c.size / 4 * 4);
        if (read_user(bytes->data(), c.data, bytes->size())) f->bos[c.handle] = Bo{c.size, 0, std::move(bytes)};
      }
      errno = saved;
      return r;
    }
    case 0x09: {  // GEM_CLOSE
      ethosu_drm_gem_close c{};
      if (read_user(&c, user, sizeof c)) st.finish_handle(f.get(), c.handle);
      r = pass();
      if (r == 0) f->bos.erase(c.handle);
      return r;
    }
    case nr_of(ETHOSU_ACCEL_PERFMON_CREATE): {
      ethosu_accel_perfmon_create c{};
      const bool known = read_user(&c, user, sizeof c) && c.ncounters <= ETHOSU_ACCEL_MAX_PERF_EVENT_COUNTERS;
      r = pass();
      ethosu_accel_perfmon_create out{};
      if (r == 0 && known && read_user(&out, user, sizeof out))
        f->perfmons[out.id].assign(c.counters, c.counters + c.ncounters);
      return r;
    }
    case nr_of(ETHOSU_ACCEL_PERFMON_DESTROY): {
      ethosu_accel_perfmon_destroy d{};
      if (read_user(&d, user, sizeof d)) {
        st.finish_file(f.get());
        if (st.global_file == f && st.global_perfmon == d.id) st.global_file.reset();
      }
      r = pass();
      if (r == 0) f->perfmons.erase(d.id);
      return r;
    }
    case nr_of(ETHOSU_ACCEL_PERFMON_SET_GLOBAL): {
      ethosu_accel_perfmon_set_global g{};
      const bool known = read_user(&g, user, sizeof g);
      // Jobs counted by the old global perfmon are recorded before it changes.
      st.finish_every();
      r = pass();
      if (r == 0 && known) {
        if (g.flags & ETHOSU_ACCEL_PERFMON_CLEAR_GLOBAL) {
          st.global_file.reset();
        } else {
          st.global_file = f;
          st.global_perfmon = g.id;
        }
      }
      return r;
    }
    default:
      return pass();
  }
}

int AccelRecorder::submit(int fd, unsigned long request, void* arg) {
  const auto pass = [&] { return libc().ioctl(fd, request, arg); };
  const uint64_t user = reinterpret_cast<uintptr_t>(arg);
  State& st = s();
  // Submissions are recorded one at a time; the tables stay free while the driver takes the job (a driver shim
  // runs it inside SUBMIT), so that the client's other threads go on.
  std::lock_guard<std::mutex> one_at_a_time(st.submitting);
  std::unique_lock<std::recursive_mutex> l(lock());
  FilePtr f = st.file_of(fd);
  if (!f) {
    l.unlock();
    return pass();
  }
  // Per-job counters need the jobs one at a time: earlier jobs are recorded first.
  st.finish_every();
  ethosu_accel_submit submit{};
  std::vector<ethosu_accel_job> jobs;
  if (!read_user(&submit, user, sizeof submit) || submit.job_count > 1024) {
    l.unlock();
    return pass();
  }
  jobs.resize(submit.job_count);
  if (!read_user(jobs.data(), submit.jobs, jobs.size() * sizeof(ethosu_accel_job))) {
    l.unlock();
    return pass();
  }
  const bool counted = submit.job_count == 1;
  std::vector<Pending> started;
  for (const ethosu_accel_job& job : jobs) {
    try {
      if (auto p = st.start(f, job)) started.push_back(std::move(*p));
    } catch (const std::exception& e) {
      warn(std::string("job not recorded: ") + e.what());
    }
  }
  // The perfmon that counts the job, with the recorder's own swapped in for none.
  ethosu_accel_submit passed = submit;
  std::vector<uint64_t> before;
  std::pair<FilePtr, uint32_t> counter{nullptr, 0};
  if (counted && !started.empty()) {
    counter = st.counting_perfmon(f, submit.perfmon_id);
    if (counter.second && !(st.global_file && st.global_perfmon) && !submit.perfmon_id)
      passed.perfmon_id = counter.second;
    if (counter.first) before = st.values(*counter.first, counter.second);
  }
  l.unlock();
  const uint64_t start = monotonic_ns();
  const int r = passed.perfmon_id != submit.perfmon_id ? libc().ioctl(fd, request, &passed) : pass();
  const int saved = errno;
  l.lock();
  for (Pending& p : started) {
    if (r != 0) {  // refused: nothing ran
      std::error_code ec;
      fs::remove_all(p.writer->dir(), ec);
      continue;
    }
    p.start_ns = start;
    if (!before.empty()) {
      p.perfmon = counter.second;
      p.perfmon_file = counter.first;
      p.values_before = before;
      const auto& events = counter.first->perfmons[counter.second];
      for (size_t i = 0; i < events.size() && i < p.meta.pmu_events.size(); ++i) p.meta.pmu_events[i] = events[i];
    }
    st.pending.push_back(std::move(p));
  }
  errno = saved;
  return r;
}

}  // namespace ethosu::record
