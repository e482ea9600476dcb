// Recording inferences of NXP's /dev/ethosu0 driver (host/backends/nxp/ethosu_nxp_uapi.h).
//
// An inference is recorded from its INFERENCE_CREATE: the network buffer's data (mapped when NETWORK_CREATE took
// the buffer), each IFM buffer as the firmware reads it (OP mode from its offset to its capacity, MODEL mode its
// data), each OFM buffer's free room, the PMU configuration. Its results are recorded when INFERENCE_STATUS first
// reports it ended (or, at the latest, before the client closes the inference or the process ends, when the
// recorder waits for it and asks itself): the status, the cycle and PMU counts the firmware sent, the IFM buffers
// whose bytes changed, and what was appended to each OFM buffer (its size grew).
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <cstring>
#include <map>
#include <vector>
#include <memory>

#include "host/backends/common/owned_fds.h"
#include "host/backends/nxp/ethosu_nxp_uapi.h"
#include "host/backends/record/recorder.h"
#include "host/recording/capture.h"
#include "isa/architecture.h"
#include "isa/registers.h"
#include "sim/error.h"

namespace ethosu::record {

namespace {

namespace fs = std::filesystem;
using namespace ethosu::nxp;

long own_ioctl(int fd, unsigned long request, void* arg) { return libc().ioctl(fd, request, arg); }

std::optional<Buffer> buffer_get(int fd) {
  Buffer b{~0u, ~0u};
  if (own_ioctl(fd, IOCTL_BUFFER_GET, &b) != 0 || b.offset == ~0u) return std::nullopt;
  return b;
}

struct Network {
  int device = -1;
  Mapping map;  // the network buffer, from 0 to its data's end
  uint32_t offset = 0, size = 0;
};

// One buffer of an inference: the recorder's mapping and where its data was when the inference started.
struct BufferView {
  int fd = -1;
  Mapping map;
  uint32_t offset = 0, size = 0;
  size_t recorded_bytes = 0;  // IFMs: the bytes written before the run, from `offset`
};

struct Pending {
  bool own_pmu = false;  // the recorder's PMU configuration (ETHOSU_RECORD_PMU) replaced the client's empty one
  std::unique_ptr<host::CaptureWriter> writer;
  host::Capture meta;
  std::vector<BufferView> ifms, ofms;
  uint64_t start_ns = 0;
};

}  // namespace

struct NxpRecorder::State {
  host::OwnedFds watched;
  std::map<int, bool> devices;                    // device descriptors
  std::map<int, uint32_t> buffers;                // buffer descriptor -> capacity
  std::map<int, std::shared_ptr<Network>> networks;
  std::map<int, Pending> inferences;              // inference descriptor -> its recording
  std::map<int, uint32_t> macs_per_cc;            // device -> CAPABILITIES' log2 MACs per cycle

  void watch(int fd) { watched.set(fd, true); }
  // `fd` names its object no more (closed, or replaced by dup2()).
  void forget(int fd) {
    devices.erase(fd);
    buffers.erase(fd);
    networks.erase(fd);
    macs_per_cc.erase(fd);
    watched.set(fd, false);
  }

  std::string variant(int device) {
    if (!macs_per_cc.count(device)) {
      DeviceCapabilities c{};
      if (own_ioctl(device, IOCTL_CAPABILITIES_REQ, &c) == 0) macs_per_cc[device] = c.hw_cfg.macs_per_cc;
    }
    // NXP's stack drives the i.MX 93's U65; CAPABILITIES tells its MACs.
    const auto it = macs_per_cc.find(device);
    const isa::Architecture* a =
        it != macs_per_cc.end() && it->second <= 16 ? isa::find_architecture(isa::Product::U65, 1u << it->second) : nullptr;
    return isa::variant_name(a ? a->variant : isa::kDefaultVariant);
  }

  BufferView view(int fd, const char* what, unsigned index) {
    const auto cap = buffers.find(fd);
    const std::optional<Buffer> b = buffer_get(fd);
    if (cap == buffers.end() || !b)
      throw InputError(std::string(what) + "[" + std::to_string(index) + "] is not a buffer of the driver's");
    BufferView v;
    v.fd = fd;
    v.offset = b->offset;
    v.size = b->size;
    v.map = Mapping(fd, 0, cap->second);
    if (!v.map.data() && cap->second) throw InputError(std::string(what) + "[" + std::to_string(index) + "] cannot be mapped");
    return v;
  }

  Pending start(const Network& n, const InferenceCreate& req) {
    if (!n.map.data() && n.size) throw InputError("the network is not a buffer (a built-in network cannot be replayed)");
    if (req.ifm_count > kFdMax || req.ofm_count > kFdMax) throw InputError("too many buffers");
    Pending p;
    host::Capture& m = p.meta;
    m.source = "nxp-ethosu";
    m.on_hardware = true;
    m.timed = true;
    m.status_recorded = false;
    m.variant = variant(n.device);
    host::InferenceRecord rec;
    rec.type = req.inference_type;
    rec.pmu_cycle_count = req.pmu_config.cycle_count != 0;
    for (size_t i = 0; i < kPmuEventMax; ++i) {
      rec.pmu_event_indices[i] = req.pmu_config.events[i];
      // The kernel sends each event number to the firmware as a u8.
      if (const isa::PmuEventInfo* e = isa::find_pmu_event_by_driver_index(static_cast<uint8_t>(req.pmu_config.events[i])))
        m.pmu_events[i] = e->hw_id;
    }
    m.cycle_counter_recorded = rec.pmu_cycle_count;
    m.event_counters_recorded = m.pmu_events != decltype(m.pmu_events){};
    uint64_t total = n.size;
    for (uint32_t i = 0; i < req.ifm_count; ++i) {
      BufferView v = view(static_cast<int>(req.ifm_fd[i]), "ifm", i);
      // OP mode: the firmware takes the buffer as a pointer, reaching to its capacity; MODEL mode reads its data.
      const size_t end = rec.type == INFERENCE_OP ? v.map.size() : std::min<size_t>(v.map.size(), size_t{v.offset} + v.size);
      v.recorded_bytes = end > v.offset ? end - v.offset : 0;
      total += 2 * uint64_t{v.recorded_bytes};  // before, and after when it changes
      p.ifms.push_back(std::move(v));
    }
    if (total > kMaxRecordedJobBytes)
      throw InputError("its network and IFM buffers hold " + std::to_string(total / 2) + " bytes, more than a recording takes");
    p.writer = std::make_unique<host::CaptureWriter>(
        host::next_capture_dir(settings().root, "nxp-ethosu", "ETHOSU_RECORD_DIR"));
    p.writer->add_network(n.map.data() + n.offset, n.size);
    for (uint32_t i = 0; i < p.ifms.size(); ++i)
      p.writer->add_ifm(i, false, p.ifms[i].map.data() + p.ifms[i].offset, p.ifms[i].recorded_bytes, p.ifms[i].size);
    for (uint32_t i = 0; i < req.ofm_count; ++i) {
      BufferView v = view(static_cast<int>(req.ofm_fd[i]), "ofm", i);
      const uint64_t used = uint64_t{v.offset} + v.size;
      rec.ofm_free_bytes.push_back(v.map.size() > used ? v.map.size() - used : 0);
      p.ofms.push_back(std::move(v));
    }
    m.inference = std::move(rec);
    return p;
  }

  void finish(Pending& p, const ResultStatus& st, uint64_t done_ns) {
    try {
      host::Capture& m = p.meta;
      host::InferenceRecord& rec = *m.inference;
      m.wall_ns = done_ns - p.start_ns;
      rec.status = st.status;
      m.cycle_counter = st.pmu_count.cycle_count;
      for (size_t i = 0; i < 4; ++i) m.event_counters[i] = st.pmu_count.events[i];
      for (unsigned i = 0; i < p.ifms.size(); ++i) {
        const BufferView& v = p.ifms[i];
        const uint8_t* now = v.map.data() + v.offset;
        if (!p.writer->ifm_before_equals(i, now, v.recorded_bytes)) p.writer->add_ifm(i, true, now, v.recorded_bytes);
      }
      for (unsigned i = 0; i < p.ofms.size(); ++i) {
        const BufferView& v = p.ofms[i];
        const std::optional<Buffer> b = buffer_get(v.fd);
        if (!b || b->size <= v.size) continue;
        const size_t from = size_t{v.offset} + v.size, to = std::min<size_t>(v.map.size(), size_t{b->offset} + b->size);
        if (to > from) p.writer->add_ofm_appended(i, v.map.data() + from, to - from);
      }
      p.writer->finish(m);
      if (settings().verbose)
        warn("recorded " + p.writer->dir().string() + ": status " + std::to_string(st.status) + ", " +
             std::to_string(*m.wall_ns) + " ns, " + std::to_string(m.cycle_counter) + " cycles");
    } catch (const std::exception& e) {
      warn("inference not recorded (" + p.writer->dir().string() + "): " + e.what());
      std::error_code ec;
      fs::remove_all(p.writer->dir(), ec);
    }
  }

  // The inference on `fd` ended without the client asking for its status: waits for it and asks.
  void finish_unasked(int fd) {
    const auto it = inferences.find(fd);
    if (it == inferences.end()) return;
    pollfd pfd{fd, POLLIN, 0};
    while (poll(&pfd, 1, -1) < 0 && errno == EINTR) {
    }
    ResultStatus st{};
    if (own_ioctl(fd, IOCTL_INFERENCE_STATUS, &st) == 0) finish(it->second, st, monotonic_ns());
    inferences.erase(it);
  }
};

NxpRecorder& NxpRecorder::instance() {
  static auto* r = new NxpRecorder;
  return *r;
}

NxpRecorder::State& NxpRecorder::s() {
  static auto* state = new State;
  return *state;
}

void NxpRecorder::opened(const char* path, int fd) {
  if (fd < 0 || !path || std::strncmp(path, "/dev/ethosu", 11) != 0 || !path[11] ||
      std::strspn(path + 11, "0123456789") != std::strlen(path + 11))
    return;
  std::lock_guard<std::recursive_mutex> l(lock());
  s().devices[fd] = true;
  s().watch(fd);
}

bool NxpRecorder::watches(int fd) const { return const_cast<NxpRecorder*>(this)->s().watched.contains(fd); }

void NxpRecorder::replacing(int fd) {
  if (!watches(fd)) return;
  std::lock_guard<std::recursive_mutex> l(lock());
  State& st = s();
  // An inference's buffers are read once more when it ends (the OFM sizes): one whose buffer goes is recorded first.
  std::vector<int> using_it;
  for (const auto& [inference, p] : st.inferences)
    for (const auto* views : {&p.ifms, &p.ofms})
      for (const BufferView& v : *views)
        if (v.fd == fd) using_it.push_back(inference);
  for (int inference : using_it) st.finish_unasked(inference);
  st.finish_unasked(fd);
}

void NxpRecorder::duplicated(int from, int to) {
  if (to < 0 || to == from) return;
  std::lock_guard<std::recursive_mutex> l(lock());
  State& st = s();
  // `to` names from's object now: what depended on its old one was recorded by replacing(), before dup2().
  st.forget(to);
  if (st.devices.count(from)) st.devices[to] = true, st.watch(to);
  if (st.buffers.count(from)) st.buffers[to] = st.buffers[from], st.watch(to);
  if (st.networks.count(from)) st.networks[to] = st.networks[from], st.watch(to);
}

void NxpRecorder::closing(int fd) {
  if (!watches(fd)) return;
  std::lock_guard<std::recursive_mutex> l(lock());
  replacing(fd);
  s().forget(fd);
}

void NxpRecorder::finish_all() {
  std::lock_guard<std::recursive_mutex> l(lock());
  State& st = s();
  while (!st.inferences.empty()) st.finish_unasked(st.inferences.begin()->first);
}

void NxpRecorder::forget_all() {
  State& st = s();
  st.inferences.clear();
  st.devices.clear();
  st.buffers.clear();
  st.networks.clear();
  st.macs_per_cc.clear();
  st.watched.clear_range(0, ~0u);
}

long NxpRecorder::ioctl(int fd, unsigned long request, void* arg) {
  const auto pass = [&] { return static_cast<long>(libc().ioctl(fd, request, arg)); };
  State& st = s();
  if (request == IOCTL_INFERENCE_STATUS) {
    const long r = pass();
    const int saved = errno;
    std::lock_guard<std::recursive_mutex> l(lock());
    const auto it = st.inferences.find(fd);
    if (r == 0 && it != st.inferences.end()) {
      ResultStatus status{};
      if (read_user(&status, arg, sizeof status)) {
        if (it->second.own_pmu) {
          // The client asked for no counts: it sees none.
          ResultStatus seen = status;
          seen.pmu_config = {};
          seen.pmu_count = {};
          std::memcpy(arg, &seen, sizeof seen);
        }
        if (status.status != STATUS_RUNNING && status.status != STATUS_ABORTING) {
          st.finish(it->second, status, monotonic_ns());
          st.inferences.erase(it);
        }
      }
    }
    errno = saved;
    return r;
  }
  std::lock_guard<std::recursive_mutex> l(lock());
  if (st.devices.count(fd)) {
    if (request == IOCTL_BUFFER_CREATE) {
      BufferCreate c{};
      const bool known = read_user(&c, arg, sizeof c);
      const long r = pass();
      if (r >= 0 && known) {
        st.buffers[static_cast<int>(r)] = c.capacity;
        st.watch(static_cast<int>(r));
      }
      return r;
    }
    if (request == IOCTL_CAPABILITIES_REQ) {
      const long r = pass();
      DeviceCapabilities c{};
      if (r == 0 && read_user(&c, arg, sizeof c)) st.macs_per_cc[fd] = c.hw_cfg.macs_per_cc;
      return r;
    }
    if (request == IOCTL_NETWORK_CREATE) {
      NetworkCreate c{};
      const bool known = read_user(&c, arg, sizeof c);
      const long r = pass();
      if (r >= 0 && known) {
        auto n = std::make_shared<Network>();
        n->device = fd;
        const int buffer = static_cast<int>(c.fd_or_index);
        if (c.type == NETWORK_BUFFER && st.buffers.count(buffer)) {
          if (const std::optional<Buffer> b = buffer_get(buffer)) {
            n->offset = b->offset;
            n->size = b->size;
            n->map = Mapping(buffer, 0, size_t{b->offset} + b->size);
          }
        }
        st.networks[static_cast<int>(r)] = std::move(n);
        st.watch(static_cast<int>(r));
      }
      return r;
    }
    return pass();
  }
  const auto net = st.networks.find(fd);
  if (net == st.networks.end() || request != IOCTL_INFERENCE_CREATE) return pass();
  InferenceCreate req{};
  if (!read_user(&req, arg, sizeof req)) return pass();
  // A client that counts nothing gets the recorder's PMU configuration, when ETHOSU_RECORD_PMU gives one; its
  // INFERENCE_STATUS answers are then cleared of it again.
  InferenceCreate passed = req;
  const Settings& set = settings();
  // NXP's stack drives the i.MX 93's U65.
  const std::vector<uint16_t> own_events = set.own_pmu.empty() ? std::vector<uint16_t>{} : own_pmu_events(isa::Variant::U65_256);
  const bool own_pmu = !own_events.empty() && req.pmu_config.cycle_count == 0 &&
                       std::all_of(std::begin(req.pmu_config.events), std::end(req.pmu_config.events),
                                   [](uint32_t e) { return e == 0; });
  if (own_pmu) {
    passed.pmu_config.cycle_count = 1;
    for (size_t i = 0; i < own_events.size() && i < kPmuEventMax; ++i)
      if (const isa::PmuEventInfo* e = isa::find_pmu_event(own_events[i]))
        passed.pmu_config.events[i] = e->driver_index[static_cast<size_t>(isa::RegisterMap::U65)];  // NXP: the i.MX 93's U65
  }
  std::optional<Pending> p;
  try {
    p = st.start(*net->second, passed);
    p->own_pmu = own_pmu;
  } catch (const std::exception& e) {
    warn(std::string("inference not recorded: ") + e.what());
  }
  const uint64_t start = monotonic_ns();
  const long r = own_pmu ? static_cast<long>(libc().ioctl(fd, request, &passed)) : pass();
  const int saved = errno;
  if (p) {
    if (r >= 0) {
      p->start_ns = start;
      st.inferences[static_cast<int>(r)] = std::move(*p);
      st.watch(static_cast<int>(r));
    } else {
      std::error_code ec;
      fs::remove_all(p->writer->dir(), ec);
    }
  }
  errno = saved;
  return r;
}

}  // namespace ethosu::record
