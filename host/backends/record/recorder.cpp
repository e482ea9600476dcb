#include "host/backends/record/recorder.h"

#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <sstream>
#include <utility>

#include "isa/pmu_event_text.h"

namespace ethosu::record {

namespace {

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

// ETHOSU_RECORD_PMU: event names as in Arm's pmu_ethosu.h (with or without ETHOSU_PMU_) or hardware ids. Resolved
// when a job is recorded, with the PMU of the NPU the driver reports.
std::vector<std::string> split_pmu(const char* text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!(item = trim(item)).empty()) out.push_back(item);
  return out;
}

}  // namespace

const Settings& settings() {
  static const Settings s = [] {
    Settings out;
    if (const char* root = std::getenv("ETHOSU_RECORD_DIR"); root && *root) out.root = root;
    if (const char* pmu = std::getenv("ETHOSU_RECORD_PMU"); pmu && *pmu && !out.root.empty()) out.own_pmu = split_pmu(pmu);
    if (const char* v = std::getenv("ETHOSU_RECORD_VERBOSE")) out.verbose = std::string(v) == "1";
    return out;
  }();
  return s;
}

// A bad list is reported and ignored: the recorder never stops the client.
std::vector<uint16_t> own_pmu_events(isa::Variant variant) {
  const Settings& s = settings();
  const isa::Architecture& arch = isa::architecture(variant);
  std::vector<uint16_t> ids;
  for (const std::string& item : s.own_pmu) {
    const isa::PmuEventInfo* e = isa::pmu_event_from_text(arch, item);
    if (!e || ids.size() == arch.pmu_event_counters) {
      warn("ETHOSU_RECORD_PMU: " +
           (e ? "more than the " + std::to_string(arch.pmu_event_counters) + " event counters of the "
              : "'" + item + "' is no PMU event of the ") +
           isa::product_name(arch.product) + "; no perfmon of the recorder's");
      return {};
    }
    ids.push_back(e->hw_id);
  }
  return ids;
}

std::recursive_mutex& lock() {
  static auto* m = new std::recursive_mutex;  // never destroyed: clients close descriptors from atexit handlers
  return *m;
}

Mapping::Mapping(int fd, off_t offset, size_t size) {
  if (size == 0) return;
  void* p = libc().mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, offset);
  if (p == MAP_FAILED) return;
  p_ = p;
  size_ = size;
}

Mapping::~Mapping() {
  if (p_) libc().munmap(p_, size_);
}

Mapping::Mapping(Mapping&& o) noexcept : p_(std::exchange(o.p_, nullptr)), size_(std::exchange(o.size_, 0)) {}

Mapping& Mapping::operator=(Mapping&& o) noexcept {
  if (this != &o) {
    if (p_) libc().munmap(p_, size_);
    p_ = std::exchange(o.p_, nullptr);
    size_ = std::exchange(o.size_, 0);
  }
  return *this;
}

uint64_t monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return uint64_t(t.tv_sec) * 1000000000u + uint64_t(t.tv_nsec);
}

bool read_user(void* dst, const void* src, size_t n) {
  if (n == 0) return true;
  iovec local{dst, n};
  iovec remote{const_cast<void*>(src), n};
  const ssize_t r = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  if (r == static_cast<ssize_t>(n)) return true;
  if (r < 0 && (errno == ENOSYS || errno == EPERM)) {  // forbidden here: the pointer the driver accepted is good
    std::memcpy(dst, src, n);
    return true;
  }
  return false;
}

void warn(const std::string& message) { std::cerr << "ethosu-record: " << message << "\n"; }

}  // namespace ethosu::record
