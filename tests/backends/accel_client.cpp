// A client of the Linux accel/ethosu interface that uses nothing but the UAPI header and libc, as Mesa's driver
// does: run under LD_PRELOAD=libethosu-sim-accel.so it drives the simulator, on a board it would drive the NPU.
//
//   accel_client CASE_DIR [--timed] [--region2-bo]   run one conformance case end to end, compare bit-exact
//                                                    (a manifest case, or a compilation CASE/<accelerator> of
//                                                    corpus-u85, prepared with the library's job_from_compilation)
//   accel_client --errors                            the interface's error paths and a hand-made DMA job
//   accel_client --concurrent                        two threads' jobs in one shared arena BO while a third thread
//                                                    writes bytes no job writes, in the arena and the flash BO: no
//                                                    job may compute on a reverted input or revert those bytes
//   accel_client --record-dup2 RECORD_DIR            (under libethosu-record.so) a job counted by its file's perfmon,
//                                                    then dup2() over that file: the recording has its counts
//   accel_client --record-close-global               (under libethosu-record.so) the global perfmon's file closed
//                                                    by another thread while a job it counts runs
//
// A case: the device must be the configuration the case was compiled for (DEV_QUERY's ID and PMU counters); BOs for
// the regions the stream refers to (region 2 only with --region2-bo or when it exceeds the SRAM;
// otherwise it is the driver's SRAM via sram_size), loaded through mmap; the stream through CMDSTREAM_BO_CREATE; SUBMIT
// with a perfmon; BO_WAIT; outputs compared with the expected files (bit-exact; those whose only reference is ArmNN's
// float arithmetic within the corpus suite's bound of 4). --timed also requires the perfmon's cycle and
// NPU_ACTIVE counts to be non-zero. Exit status: 0 pass, 1 failure, 2 usage, 77 case folder absent (skip).
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "host/backends/accel/ethosu_accel_uapi.h"
#include "host/run/job.h"
#include "isa/pmu_event_text.h"
#include "isa/validator.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The U65's event numbers (the error paths' device is the default U65).
constexpr uint16_t kEventCycle = 0x011, kEventNpuActive = 0x023;

int failures = 0;

void fail(const std::string& what) {
  std::fprintf(stderr, "FAIL: %s\n", what.c_str());
  ++failures;
}

// The ioctl's errno, 0 on success.
template <typename T>
int call(int fd, unsigned long request, T* arg) {
  return ioctl(fd, request, arg) == 0 ? 0 : errno;
}

void expect_errno(const char* what, int got, int want) {
  if (got != want)
    fail(std::string(what) + ": errno " + std::to_string(got) + " (" + std::strerror(got) + "), expected " +
         std::to_string(want) + " (" + std::strerror(want) + ")");
}

std::vector<uint8_t> read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + p.string());
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

struct Bo {
  uint32_t handle = 0;
  uint64_t size = 0;
  uint8_t* map = nullptr;
};

Bo create_bo(int fd, uint64_t size) {
  ethosu_accel_bo_create c{};
  c.size = size;
  if (int e = call(fd, ETHOSU_ACCEL_IOCTL_BO_CREATE, &c))
    throw std::runtime_error(std::string("BO_CREATE: ") + std::strerror(e));
  ethosu_accel_bo_mmap_offset m{};
  m.handle = c.handle;
  if (int e = call(fd, ETHOSU_ACCEL_IOCTL_BO_MMAP_OFFSET, &m))
    throw std::runtime_error(std::string("BO_MMAP_OFFSET: ") + std::strerror(e));
  void* p = mmap(nullptr, c.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, static_cast<off_t>(m.offset));
  if (p == MAP_FAILED) throw std::runtime_error(std::string("mmap: ") + std::strerror(errno));
  return {c.handle, c.size, static_cast<uint8_t*>(p)};
}

int cmdstream_bo(int fd, const std::vector<uint8_t>& stream, uint32_t& handle) {
  ethosu_accel_cmdstream_bo_create c{};
  c.size = static_cast<uint32_t>(stream.size());
  c.data = reinterpret_cast<uintptr_t>(stream.data());
  const int e = call(fd, ETHOSU_ACCEL_IOCTL_CMDSTREAM_BO_CREATE, &c);
  handle = c.handle;
  return e;
}

int submit(int fd, const ethosu_accel_job& job, uint32_t perfmon = 0) {
  ethosu_accel_submit s{};
  s.jobs = reinterpret_cast<uintptr_t>(&job);
  s.job_count = 1;
  s.perfmon_id = perfmon;
  return call(fd, ETHOSU_ACCEL_IOCTL_SUBMIT, &s);
}

int wait_bo(int fd, uint32_t handle) {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  ethosu_accel_bo_wait w{};
  w.handle = handle;
  w.timeout_ns = (int64_t{now.tv_sec} + 10) * 1000000000 + now.tv_nsec;
  return call(fd, ETHOSU_ACCEL_IOCTL_BO_WAIT, &w);
}

// DEV_QUERY's NPU info, checked against the configuration expected (the U65 unless a case says otherwise).
ethosu_accel_npu_info query(int fd, const ethosu::isa::Architecture& expected = ethosu::isa::architecture(
                                        ethosu::isa::kDefaultVariant)) {
  ethosu_accel_dev_query q{};
  q.type = ETHOSU_ACCEL_DEV_QUERY_NPU_INFO;
  if (call(fd, ETHOSU_ACCEL_IOCTL_DEV_QUERY, &q) || q.size != sizeof(ethosu_accel_npu_info))
    fail("DEV_QUERY size: " + std::to_string(q.size));
  ethosu_accel_npu_info info{};
  q.pointer = reinterpret_cast<uintptr_t>(&info);
  if (int e = call(fd, ETHOSU_ACCEL_IOCTL_DEV_QUERY, &q)) fail(std::string("DEV_QUERY: ") + std::strerror(e));
  if (info.id != expected.id)
    fail("DEV_QUERY: ID " + std::to_string(info.id) + ", the " + expected.describe() + "'s is " +
         std::to_string(expected.id));
  if (info.pmu_counters != expected.pmu_event_counters)
    fail("DEV_QUERY: " + std::to_string(info.pmu_counters) + " PMU counters, the " + expected.describe() + " has " +
         std::to_string(expected.pmu_event_counters));
  return info;
}

void check_version(int fd) {
  char name[16] = {};
  ethosu_drm_version v{};
  if (call(fd, ETHOSU_DRM_IOCTL_VERSION, &v)) fail("DRM_IOCTL_VERSION (lengths)");
  v.name = name;
  v.name_len = sizeof name - 1;
  if (call(fd, ETHOSU_DRM_IOCTL_VERSION, &v) || std::string(name) != "ethosu" || v.version_major != 1)
    fail("DRM_IOCTL_VERSION: driver '" + std::string(name) + "'");
}

// ---- one conformance case ----

// What a case gives the client: the bytes of each region (inputs placed), which regions the stream refers to, the
// stream, the outputs with their references, and the configuration it was compiled for.
struct CaseData {
  std::array<std::vector<uint8_t>, 8> regions;  // each the region's size; empty when the case has none
  std::vector<bool> referenced = std::vector<bool>(8, true);
  std::vector<uint8_t> stream;
  struct Output {
    std::string name;
    unsigned region = 0;
    uint64_t offset = 0;
    std::vector<uint8_t> expected;
    bool armnn = false;  // the only reference is ArmNN's float arithmetic
    size_t element_bytes = 1;
    bool is_signed = true;
  };
  std::vector<Output> outputs;
  ethosu::isa::Variant variant = ethosu::isa::kDefaultVariant;
};

// A manifest case folder.
CaseData from_manifest(const fs::path& dir) {
  CaseData c;
  const json m = json::parse(read_file(dir / "manifest.json"));
  if (m.contains("accelerator") && m["accelerator"].is_string())
    if (const auto v = ethosu::isa::parse_variant(m["accelerator"].get<std::string>())) c.variant = *v;
  // The kernel refuses a BO for a region the stream never touches, so only the regions the manifest says the
  // stream refers to go into the job (all declared regions when it does not say); the others still hold their
  // tensors, as a driver's buffers would.
  const json& cs = m.at("cmdstream");
  if (cs.contains("regions_referenced") || cs.contains("region_commands_seen")) {
    c.referenced.assign(8, false);
    if (cs.contains("regions_referenced")) {
      for (const auto& r : cs["regions_referenced"])
        if (r.get<unsigned>() < 8) c.referenced[r.get<unsigned>()] = true;
    } else {
      for (const auto& [key, commands] : cs["region_commands_seen"].items())
        if (std::stoul(key) < 8) c.referenced[std::stoul(key)] = true;
    }
  }
  for (const auto& [key, r] : m.at("regions").items()) {
    const unsigned index = static_cast<unsigned>(std::stoul(key));
    const uint64_t size = r.at("size_bytes").get<uint64_t>();
    if (index >= 8 || size == 0) continue;
    c.regions[index].assign(size, 0);
    if (r.contains("file") && r["file"].is_string()) {
      const auto bytes = read_file(dir / r["file"].get<std::string>());
      std::memcpy(c.regions[index].data(), bytes.data(), std::min<size_t>(bytes.size(), size));
    }
  }
  const bool normalised = m.contains("inputs");
  for (const auto& in : m.at(normalised ? "inputs" : "npu_inputs")) {
    const unsigned r = in.at("region").get<unsigned>();
    const auto bytes = read_file(dir / in.at("file").get<std::string>());
    const uint64_t offset = in.at("offset").get<uint64_t>();
    if (r >= 8 || offset + bytes.size() > c.regions[r].size()) {
      fail("input " + in.at("name").get<std::string>() + " has no region to go into");
      continue;
    }
    std::memcpy(c.regions[r].data() + offset, bytes.data(), bytes.size());
  }
  c.stream = read_file(dir / m.at("cmdstream").at("file").get<std::string>());
  const json* reference_files = nullptr;
  if (m.contains("reference") && m["reference"].is_object() && m["reference"].contains("files"))
    reference_files = &m["reference"]["files"];
  for (const auto& out : m.at(normalised ? "outputs" : "npu_outputs")) {
    CaseData::Output o;
    o.name = out.at("name").get<std::string>();
    o.region = out.at("region").get<unsigned>();
    o.offset = out.at("offset").get<uint64_t>();
    const std::string file = out.at(normalised ? "file" : "expected_file").get<std::string>();
    o.expected = read_file(dir / file);
    o.armnn = reference_files && reference_files->contains(file) &&
              (*reference_files)[file].get<std::string>().find("armnn") != std::string::npos;
    const std::string dtype = out.value("dtype", "int8");
    o.element_bytes = dtype == "int16" ? 2 : dtype == "int32" ? 4 : 1;
    o.is_signed = dtype.rfind("int", 0) == 0;
    c.outputs.push_back(std::move(o));
  }
  return c;
}

// A compilation folder (CASE/<accelerator> of corpus-u85): the library prepares the job from Vela's model, as a
// harness would; the regions the stream refers to are those the validator sees it reach.
CaseData from_compilation(const fs::path& dir) {
  namespace isa = ethosu::isa;
  const ethosu::host::Job job = ethosu::host::job_from_compilation(dir);
  CaseData c;
  c.variant = *isa::parse_variant(job.variant);
  c.stream = job.stream;
  for (unsigned r = 0; r < 8; ++r) c.regions[r] = job.regions[r];
  isa::ValidatorOptions options;
  options.variant = c.variant;
  const isa::Report report = isa::validate(isa::decode(job.stream, isa::architecture(c.variant)), options);
  for (unsigned r = 0; r < 8; ++r) {
    c.referenced[r] = report.region_extent(r).used;
    // A region the stream reaches beyond the job's bytes (scratch) is sized to what it reaches.
    const auto end = static_cast<uint64_t>(std::max<int64_t>(0, report.region_extent(r).end));
    if (c.referenced[r] && c.regions[r].size() < end) c.regions[r].resize(end, 0);
  }
  for (const ethosu::host::OutputSpec& out : job.outputs) {
    if (!out.expected) continue;
    CaseData::Output o;
    o.name = out.name;
    o.region = out.region;
    o.offset = out.offset;
    o.expected = read_file(*out.expected);
    o.armnn = out.reference_engine.find("armnn") != std::string::npos;
    o.element_bytes = out.element_bytes;
    o.is_signed = out.element_signed;
    c.outputs.push_back(std::move(o));
  }
  return c;
}

int run_case(const fs::path& dir, bool timed, bool region2_bo) {
  const bool manifest = fs::exists(dir / "manifest.json");
  if (!manifest && !fs::exists(dir / "model_vela.tflite")) {
    std::printf("SKIP: no case at %s\n", dir.c_str());
    return 77;
  }
  const CaseData c = manifest ? from_manifest(dir) : from_compilation(dir);
  const ethosu::isa::Architecture& arch = ethosu::isa::architecture(c.variant);
  const int fd = open("/dev/accel/accel0", O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    std::fprintf(stderr, "FAIL: open /dev/accel/accel0: %s (is LD_PRELOAD=libethosu-sim-accel.so set?)\n",
                 std::strerror(errno));
    return 1;
  }
  check_version(fd);
  const ethosu_accel_npu_info info = query(fd, arch);

  ethosu_accel_job job{};
  std::vector<Bo> bos(8);
  for (unsigned index = 0; index < 8; ++index) {
    const std::vector<uint8_t>& bytes = c.regions[index];
    if (bytes.empty()) continue;
    if (index == ETHOSU_ACCEL_SRAM_REGION && !region2_bo && bytes.size() <= info.sram_size &&
        std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; })) {
      if (c.referenced[index]) job.sram_size = static_cast<uint32_t>(bytes.size());
      continue;
    }
    bos[index] = create_bo(fd, bytes.size());
    if (c.referenced[index]) job.region_bo_handles[index] = bos[index].handle;
    std::memcpy(bos[index].map, bytes.data(), bytes.size());
  }
  if (int e = cmdstream_bo(fd, c.stream, job.cmd_bo)) {
    fail(std::string("CMDSTREAM_BO_CREATE: ") + std::strerror(e));
    return 1;
  }

  ethosu_accel_perfmon_create pc{};
  // The configuration's own numbers for the events (the U85's differ from the U65's).
  const char* const names[] = {"CYCLE", "NPU_ACTIVE", "NPU_IDLE"};
  pc.ncounters = 3;
  for (unsigned k = 0; k < 3; ++k) pc.counters[k] = ethosu::isa::pmu_event_from_text(arch, names[k])->hw_id;
  if (int e = call(fd, ETHOSU_ACCEL_IOCTL_PERFMON_CREATE, &pc))
    fail(std::string("PERFMON_CREATE: ") + std::strerror(e));

  if (int e = submit(fd, job, pc.id)) {
    fail(std::string("SUBMIT: ") + std::strerror(e));
    return 1;
  }
  for (const Bo& b : bos)
    if (b.handle && wait_bo(fd, b.handle)) fail("BO_WAIT");

  // Outputs whose only reference is ArmNN's float arithmetic are held to the corpus suite's bound (4 elements'
  // worth, tests/corpus/run_corpus_test.cpp); every other output must match byte for byte.
  size_t exact = 0, within = 0, outputs = 0;
  for (const CaseData::Output& out : c.outputs) {
    ++outputs;
    const std::string& name = out.name;
    const unsigned r = out.region;
    const std::vector<uint8_t>& expected = out.expected;
    if (r >= 8 || !bos[r].map || out.offset + expected.size() > bos[r].size) {
      fail("output " + name + " is not in a mapped BO");
      continue;
    }
    const uint8_t* got = bos[r].map + out.offset;
    if (std::memcmp(got, expected.data(), expected.size()) == 0) {
      ++exact;
      continue;
    }
    const bool armnn = out.armnn;
    const size_t eb = out.element_bytes;
    const bool is_signed = out.is_signed;
    int64_t max_diff = 0;
    size_t differ = 0;
    for (size_t i = 0; i + eb <= expected.size(); i += eb) {
      int64_t a = 0, b = 0;
      for (size_t k = 0; k < eb; ++k) {
        a |= int64_t{got[i + k]} << (8 * k);
        b |= int64_t{expected[i + k]} << (8 * k);
      }
      if (is_signed && eb < 8) {
        const int64_t sign = int64_t{1} << (8 * eb - 1);
        a = (a ^ sign) - sign;
        b = (b ^ sign) - sign;
      }
      if (a != b) ++differ;
      max_diff = std::max(max_diff, a > b ? a - b : b - a);
    }
    const std::string text = std::to_string(differ) + " of " + std::to_string(expected.size() / eb) +
                             " elements differ, max |diff| " + std::to_string(max_diff);
    if (armnn && max_diff <= 4) {
      ++within;
      std::printf("output %s: %s (reference ArmNN, within its tolerance)\n", name.c_str(), text.c_str());
    } else {
      fail("output " + name + ": " + text);
    }
  }

  uint64_t values[ETHOSU_ACCEL_MAX_PERF_COUNTERS] = {};
  ethosu_accel_perfmon_get_values gv{};
  gv.id = pc.id;
  gv.values_ptr = reinterpret_cast<uintptr_t>(values);
  if (int e = call(fd, ETHOSU_ACCEL_IOCTL_PERFMON_GET_VALUES, &gv))
    fail(std::string("PERFMON_GET_VALUES: ") + std::strerror(e));
  const uint64_t cycles = values[3];
  if (timed && (cycles == 0 || values[1] == 0 || values[1] > cycles || values[0] > cycles + 64))
    fail("perfmon: CYCLE " + std::to_string(values[0]) + ", NPU_ACTIVE " + std::to_string(values[1]) +
         ", cycle counter " + std::to_string(cycles));
  ethosu_accel_perfmon_destroy pd{pc.id};
  if (call(fd, ETHOSU_ACCEL_IOCTL_PERFMON_DESTROY, &pd)) fail("PERFMON_DESTROY");
  for (const Bo& b : bos) {
    if (!b.handle) continue;
    munmap(b.map, b.size);
    ethosu_drm_gem_close gc{b.handle, 0};
    if (call(fd, ETHOSU_DRM_IOCTL_GEM_CLOSE, &gc)) fail("GEM_CLOSE");
  }
  close(fd);
  std::printf("%s: %zu/%zu outputs bit-exact, %zu within the ArmNN tolerance, %llu cycles (NPU_ACTIVE %llu)%s\n",
              dir.c_str(), exact, outputs, within, static_cast<unsigned long long>(cycles),
              static_cast<unsigned long long>(values[1]), failures ? " FAILED" : "");
  return failures ? 1 : 0;
}

// ---- error paths, on a hand-made stream ----

// One 16-byte DMA from region 0 offset 0x10000 to region 1 offset 0x20, then STOP (spec 01: cmd0 words are
// opcode | param << 16, cmd1 words carry 0x4000 and a payload word).
std::vector<uint8_t> dma_stream(bool with_stop, bool with_irq) {
  std::vector<uint32_t> w = {0x00000130,              // NPU_SET_DMA0_SRC_REGION region 0
                             0x00010131,              // NPU_SET_DMA0_DST_REGION region 1
                             0x00004030, 0x00010000,  // NPU_SET_DMA0_SRC
                             0x00004031, 0x00000020,  // NPU_SET_DMA0_DST
                             0x00004032, 0x00000010,  // NPU_SET_DMA0_LEN
                             0x00000010};             // NPU_OP_DMA_START
  if (with_irq) w.push_back(0xFFFF0001);              // NPU_OP_IRQ
  if (with_stop) w.push_back(0xFFFF0000);             // NPU_OP_STOP
  std::vector<uint8_t> b(w.size() * 4);
  std::memcpy(b.data(), w.data(), b.size());
  return b;
}

int run_errors() {
  const int fd = open("/dev/accel/accel0", O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    std::fprintf(stderr, "FAIL: open /dev/accel/accel0: %s\n", std::strerror(errno));
    return 1;
  }
  check_version(fd);
  const ethosu_accel_npu_info info = query(fd);

  // Generic DRM and BO management.
  ethosu_drm_get_cap cap{ETHOSU_DRM_CAP_TIMESTAMP_MONOTONIC, 0};
  if (call(fd, ETHOSU_DRM_IOCTL_GET_CAP, &cap) || cap.value != 1) fail("GET_CAP TIMESTAMP_MONOTONIC");
  ethosu_drm_gem_close gc{12345, 0};
  expect_errno("GEM_CLOSE of an unknown handle", call(fd, ETHOSU_DRM_IOCTL_GEM_CLOSE, &gc), EINVAL);
  ethosu_accel_bo_create bc{};
  expect_errno("BO_CREATE size 0", call(fd, ETHOSU_ACCEL_IOCTL_BO_CREATE, &bc), EINVAL);
  bc.size = 100;
  bc.flags = 2;
  expect_errno("BO_CREATE unknown flag", call(fd, ETHOSU_ACCEL_IOCTL_BO_CREATE, &bc), EINVAL);
  bc.flags = 0;
  if (call(fd, ETHOSU_ACCEL_IOCTL_BO_CREATE, &bc) || bc.size != 4096 || bc.handle == 0)
    fail("BO_CREATE rounds to a page");
  ethosu_accel_bo_mmap_offset mo{12345, 0, 0};
  expect_errno("BO_MMAP_OFFSET unknown handle", call(fd, ETHOSU_ACCEL_IOCTL_BO_MMAP_OFFSET, &mo), ENOENT);
  mo = {bc.handle, 1, 0};
  expect_errno("BO_MMAP_OFFSET pad", call(fd, ETHOSU_ACCEL_IOCTL_BO_MMAP_OFFSET, &mo), EINVAL);
  mo.pad = 0;
  if (call(fd, ETHOSU_ACCEL_IOCTL_BO_MMAP_OFFSET, &mo)) fail("BO_MMAP_OFFSET");
  if (mmap(nullptr, 8192, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(mo.offset)) != MAP_FAILED || errno != EINVAL)
    fail("mmap larger than the BO is not EINVAL");
  ethosu_accel_bo_wait bw{12345, 0, 0};
  expect_errno("BO_WAIT unknown handle", call(fd, ETHOSU_ACCEL_IOCTL_BO_WAIT, &bw), EINVAL);
  bw = {bc.handle, 1, 0};
  expect_errno("BO_WAIT pad", call(fd, ETHOSU_ACCEL_IOCTL_BO_WAIT, &bw), EINVAL);
  expect_errno("an ioctl number the driver lacks", call(fd, _IOWR('d', 0x4F, ethosu_accel_submit), &bw), EINVAL);
  expect_errno("a non-DRM ioctl", call(fd, _IOWR('x', 0x01, ethosu_accel_submit), &bw), ENOTTY);

  // CMDSTREAM_BO_CREATE: the kernel's argument checks and its validator.
  uint32_t h = 0;
  ethosu_accel_cmdstream_bo_create cc{};
  expect_errno("CMDSTREAM_BO_CREATE size 0", call(fd, ETHOSU_ACCEL_IOCTL_CMDSTREAM_BO_CREATE, &cc), EINVAL);
  const auto good = dma_stream(true, false);
  cc.size = static_cast<uint32_t>(good.size());
  cc.data = reinterpret_cast<uintptr_t>(good.data());
  cc.flags = 1;
  expect_errno("CMDSTREAM_BO_CREATE flags", call(fd, ETHOSU_ACCEL_IOCTL_CMDSTREAM_BO_CREATE, &cc), EINVAL);
  cc.flags = 0;
  cc.data = 4096;  // unmapped: the copy faults
  expect_errno("CMDSTREAM_BO_CREATE bad pointer", call(fd, ETHOSU_ACCEL_IOCTL_CMDSTREAM_BO_CREATE, &cc), EFAULT);
  expect_errno("stream without NPU_OP_STOP", cmdstream_bo(fd, dma_stream(false, false), h), EINVAL);
  expect_errno("stream with NPU_OP_IRQ", cmdstream_bo(fd, dma_stream(true, true), h), EINVAL);
  uint32_t cmd = 0;
  if (int e = cmdstream_bo(fd, good, cmd)) {
    fail(std::string("CMDSTREAM_BO_CREATE of a valid DMA stream: ") + std::strerror(e));
    return 1;
  }
  mo = {cmd, 0, 0};
  if (call(fd, ETHOSU_ACCEL_IOCTL_BO_MMAP_OFFSET, &mo) ||
      mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(mo.offset)) != MAP_FAILED || errno != EINVAL)
    fail("a command-stream BO is mappable");

  // SUBMIT: the kernel's job checks, in its order.
  Bo src = create_bo(fd, 0x10010);  // rounds to 0x11000
  Bo dst = create_bo(fd, 4096);
  Bo small = create_bo(fd, 4096);
  for (uint32_t i = 0; i < 16; ++i) src.map[0x10000 + i] = static_cast<uint8_t>(0xA0 + i);
  ethosu_accel_job job{};
  job.cmd_bo = cmd;
  job.region_bo_handles[0] = src.handle;
  job.region_bo_handles[1] = dst.handle;
  ethosu_accel_job j = job;
  j.cmd_bo = 999;
  expect_errno("SUBMIT unknown command BO", submit(fd, j), ENOENT);
  j.cmd_bo = dst.handle;
  expect_errno("SUBMIT a data BO as command BO", submit(fd, j), EINVAL);
  j = job;
  j.region_bo_handles[1] = 0;
  expect_errno("SUBMIT used region without BO", submit(fd, j), ENOENT);
  j.region_bo_handles[1] = 999;
  expect_errno("SUBMIT unknown region BO", submit(fd, j), ENOENT);
  j.region_bo_handles[1] = cmd;
  expect_errno("SUBMIT command BO as region BO", submit(fd, j), EINVAL);
  j = job;
  j.region_bo_handles[5] = small.handle;
  expect_errno("SUBMIT BO for an unused region", submit(fd, j), EINVAL);
  j = job;
  j.region_bo_handles[0] = small.handle;
  expect_errno("SUBMIT region BO smaller than the stream's reach", submit(fd, j), EOVERFLOW);
  j = job;
  j.region_bo_handles[1] = src.handle;
  expect_errno("SUBMIT one BO for two regions", submit(fd, j), EALREADY);
  j = job;
  j.region_bo_handles[2] = small.handle;
  j.sram_size = 4096;
  expect_errno("SUBMIT region 2 BO with SRAM", submit(fd, j), EINVAL);
  j = job;
  j.sram_size = info.sram_size + 1;
  expect_errno("SUBMIT more SRAM than the device has", submit(fd, j), EINVAL);
  ethosu_accel_submit bad{};
  bad.jobs = 4096;
  bad.job_count = 1;
  expect_errno("SUBMIT bad job pointer", call(fd, ETHOSU_ACCEL_IOCTL_SUBMIT, &bad), EFAULT);

  // Perfmons: limits, then a global one counting the DMA job.
  ethosu_accel_perfmon_create pc{};
  pc.ncounters = 5;
  expect_errno("PERFMON_CREATE 5 counters on a U65", call(fd, ETHOSU_ACCEL_IOCTL_PERFMON_CREATE, &pc), EINVAL);
  pc.ncounters = 1;
  pc.counters[0] = 434;
  expect_errno("PERFMON_CREATE event 434", call(fd, ETHOSU_ACCEL_IOCTL_PERFMON_CREATE, &pc), EINVAL);
  pc.counters[0] = kEventNpuActive;
  if (call(fd, ETHOSU_ACCEL_IOCTL_PERFMON_CREATE, &pc) || pc.id == 0 || pc.ncounters != 2) fail("PERFMON_CREATE");
  ethosu_accel_perfmon_set_global sg{0, pc.id};
  if (call(fd, ETHOSU_ACCEL_IOCTL_PERFMON_SET_GLOBAL, &sg)) fail("PERFMON_SET_GLOBAL");
  expect_errno("PERFMON_SET_GLOBAL twice", call(fd, ETHOSU_ACCEL_IOCTL_PERFMON_SET_GLOBAL, &sg), EBUSY);

  if (int e = submit(fd, job)) fail(std::string("SUBMIT of the DMA job: ") + std::strerror(e));
  if (wait_bo(fd, dst.handle)) fail("BO_WAIT");
  for (uint32_t i = 0; i < 16; ++i)
    if (dst.map[0x20 + i] != 0xA0 + i) {
      fail("the DMA job did not copy byte " + std::to_string(i));
      break;
    }
  uint64_t values[2] = {};
  ethosu_accel_perfmon_get_values gv{pc.id, 0, reinterpret_cast<uintptr_t>(values)};
  if (call(fd, ETHOSU_ACCEL_IOCTL_PERFMON_GET_VALUES, &gv)) fail("PERFMON_GET_VALUES");
  gv.values_ptr = 4096;
  expect_errno("PERFMON_GET_VALUES bad pointer", call(fd, ETHOSU_ACCEL_IOCTL_PERFMON_GET_VALUES, &gv), EFAULT);
  gv = {77, 0, reinterpret_cast<uintptr_t>(values)};
  expect_errno("PERFMON_GET_VALUES unknown id", call(fd, ETHOSU_ACCEL_IOCTL_PERFMON_GET_VALUES, &gv), EINVAL);
  sg.flags = ETHOSU_ACCEL_PERFMON_CLEAR_GLOBAL;
  if (call(fd, ETHOSU_ACCEL_IOCTL_PERFMON_SET_GLOBAL, &sg)) fail("PERFMON_SET_GLOBAL clear");
  ethosu_accel_perfmon_destroy pd{pc.id};
  if (call(fd, ETHOSU_ACCEL_IOCTL_PERFMON_DESTROY, &pd)) fail("PERFMON_DESTROY");
  expect_errno("PERFMON_DESTROY twice", call(fd, ETHOSU_ACCEL_IOCTL_PERFMON_DESTROY, &pd), EINVAL);

  // An opcode the NPU does not know passes the kernel's validator and stops the NPU with cmd_parse_error at run
  // time: the kernel logs it and resets; SUBMIT and BO_WAIT still succeed.
  const uint32_t unknown[] = {0x000000FF, 0xFFFF0000};
  std::vector<uint8_t> bad_op(sizeof unknown);
  std::memcpy(bad_op.data(), unknown, sizeof unknown);
  ethosu_accel_job faulting{};
  if (int e = cmdstream_bo(fd, bad_op, faulting.cmd_bo))
    fail(std::string("CMDSTREAM_BO_CREATE of an unknown opcode: ") + std::strerror(e));
  else if (submit(fd, faulting) || wait_bo(fd, faulting.cmd_bo))
    fail("SUBMIT/BO_WAIT of a job that faults");

  close(fd);
  std::printf("error paths: %s; DMA job cycle counter %llu, NPU_ACTIVE %llu\n",
              failures ? "FAILED" : "all as the kernel", static_cast<unsigned long long>(values[1]),
              static_cast<unsigned long long>(values[0]));
  return failures ? 1 : 0;
}

// ---- concurrent clients ----

// One 16-byte DMA from region `from_region` at `from` to region 1 at `to`, and the wait for it.
void dma_words(std::vector<uint32_t>& w, unsigned from_region, uint32_t from, uint32_t to, uint32_t bytes) {
  w.insert(w.end(), {0x00000130u | from_region << 16, 0x00010131u, 0x00004030u, from, 0x00004031u, to, 0x00004032u,
                     bytes, 0x00000010u, 0x00000011u});
}

std::vector<uint8_t> to_bytes(const std::vector<uint32_t>& w) {
  std::vector<uint8_t> b(w.size() * 4);
  std::memcpy(b.data(), w.data(), b.size());
  return b;
}

// Two threads run jobs on one arena BO, each in its own slots: it writes its next input, submits a job that copies
// the input to its output (and a constant of the flash BO to a scratch slot), and checks the output. The second
// thread's writes span the first's slots (its output below them, its scratch above), so that only the bytes a job
// changes may go back. A third thread meanwhile writes a counter into bytes no job writes, in the arena (between
// the slots) and in the flash BO, and checks before each write that the last one is still there. The shim once
// copied every BO back whole after each job: the other thread's new input, and the counter, went back to what
// they were when the job started.
int run_concurrent() {
  const int fd = open("/dev/accel/accel0", O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    fail(std::string("open /dev/accel/accel0: ") + std::strerror(errno));
    return 1;
  }
  constexpr int kJobs = 3000;
  struct Slots {
    uint32_t input, output, scratch;
  };
  constexpr Slots kSlots[2] = {{0x1000, 0x1100, 0x1200}, {0x2000, 0x0100, 0x3000}};
  constexpr uint32_t kArenaCounter = 0x1800, kFlashCounter = 0x80;
  Bo flash = create_bo(fd, 0x10000), arena = create_bo(fd, 0x10000);
  for (uint32_t i = 0; i < 16; ++i) flash.map[0x100 + i] = static_cast<uint8_t>(0xC0 + i);
  std::atomic<bool> done{false};
  std::atomic<int> stale{0};
  const auto worker = [&](unsigned t) {
    const Slots& slot = kSlots[t];
    std::vector<uint32_t> w;
    dma_words(w, 1, slot.input, slot.output, 16);  // output = input
    dma_words(w, 0, 0x100, slot.scratch, 16);      // scratch = the flash's constant
    w.push_back(0xFFFF0000);
    ethosu_accel_job job{};
    if (int e = cmdstream_bo(fd, to_bytes(w), job.cmd_bo)) {
      fail(std::string("CMDSTREAM_BO_CREATE: ") + std::strerror(e));
      return;
    }
    job.region_bo_handles[0] = flash.handle;
    job.region_bo_handles[1] = arena.handle;
    for (uint32_t n = 1; n <= kJobs; ++n) {
      const uint32_t input[4] = {t << 24 | n, n, ~n, t};
      std::memcpy(arena.map + slot.input, input, sizeof input);
      if (submit(fd, job) || wait_bo(fd, arena.handle)) {
        fail("SUBMIT/BO_WAIT of a concurrent job");
        return;
      }
      if (std::memcmp(arena.map + slot.output, input, sizeof input) != 0) ++stale;
    }
  };
  uint64_t writes = 0, reverted_arena = 0, reverted_flash = 0;
  std::thread writer([&] {
    auto* a = reinterpret_cast<uint64_t*>(arena.map + kArenaCounter);
    auto* f = reinterpret_cast<uint64_t*>(flash.map + kFlashCounter);
    for (uint64_t c = 0; !done.load(); ++c) {
      reverted_arena += __atomic_load_n(a, __ATOMIC_RELAXED) != c;
      reverted_flash += __atomic_load_n(f, __ATOMIC_RELAXED) != c;
      __atomic_store_n(a, c + 1, __ATOMIC_RELAXED);
      __atomic_store_n(f, c + 1, __ATOMIC_RELAXED);
      ++writes;
    }
  });
  std::thread a(worker, 0), b(worker, 1);
  a.join();
  b.join();
  done = true;
  writer.join();
  close(fd);
  if (stale) fail(std::to_string(stale.load()) + " of " + std::to_string(2 * kJobs) + " jobs computed on a reverted input");
  if (reverted_arena || reverted_flash)
    fail(std::to_string(reverted_arena) + " (arena) and " + std::to_string(reverted_flash) + " (flash) of " +
         std::to_string(writes) + " writes to bytes no job writes were reverted");
  std::printf("concurrent: %d jobs in one arena, %llu counter writes: %s\n", 2 * kJobs,
              static_cast<unsigned long long>(writes), failures ? "FAILED" : "no write lost");
  return failures ? 1 : 0;
}

// ---- under the board recorder ----

int perfmon(int fd, uint16_t event) {
  ethosu_accel_perfmon_create pc{};
  pc.ncounters = 1;
  pc.counters[0] = event;
  if (call(fd, ETHOSU_ACCEL_IOCTL_PERFMON_CREATE, &pc)) fail("PERFMON_CREATE");
  return static_cast<int>(pc.id);
}

// A DMA job on `fd` between two fresh BOs.
ethosu_accel_job dma_job(int fd) {
  ethosu_accel_job job{};
  if (int e = cmdstream_bo(fd, dma_stream(true, false), job.cmd_bo)) fail(std::string("CMDSTREAM_BO_CREATE: ") + std::strerror(e));
  job.region_bo_handles[0] = create_bo(fd, 0x11000).handle;
  job.region_bo_handles[1] = create_bo(fd, 4096).handle;
  return job;
}

// A job counted by its file's perfmon 1, not waited for, then dup2() of another file (with a perfmon 1 of its own
// that counts nothing) over that file's descriptor: the recorder must record the job from its own file before the
// descriptor names the other (it once asked the other file, and recorded 0 cycles).
int run_record_dup2(const fs::path& record_dir) {
  const int file = open("/dev/accel/accel0", O_RDWR | O_CLOEXEC);
  const int other = open("/dev/accel/accel0", O_RDWR | O_CLOEXEC);
  if (file < 0 || other < 0) {
    fail(std::string("open /dev/accel/accel0: ") + std::strerror(errno));
    return 1;
  }
  const int counting = perfmon(file, kEventNpuActive);
  if (perfmon(other, kEventNpuActive) != counting) fail("the two files' first perfmons have different ids");
  if (int e = submit(file, dma_job(file), static_cast<uint32_t>(counting))) fail(std::string("SUBMIT: ") + std::strerror(e));
  if (dup2(other, file) != file) fail(std::string("dup2: ") + std::strerror(errno));
  close(file);
  close(other);
  std::vector<fs::path> captures;
  for (const auto& e : fs::directory_iterator(record_dir)) captures.push_back(e.path() / "capture.json");
  if (captures.size() != 1) {
    fail(std::to_string(captures.size()) + " recordings in " + record_dir.string() + ", expected 1");
    return 1;
  }
  const json c = json::parse(read_file(captures[0]));
  const json& cycles = c["results"]["cycle_counter"];
  if (!cycles.is_number_unsigned() || cycles.get<uint64_t>() == 0)
    fail("the recording's cycle counter is " + cycles.dump() + ", not the job's cycles (its file's perfmon)");
  std::printf("record after dup2: the job's %s cycles recorded\n", cycles.dump().c_str());
  return failures ? 1 : 0;
}

// A job of 200,000 DMAs (half a second or more) counted by the global perfmon of another file, which a second thread
// closes while the job runs: the recorder must keep that file while it needs it (it once kept a raw pointer across
// the driver call, and used it after the close had freed it).
int run_record_close_global() {
  const int global = open("/dev/accel/accel0", O_RDWR | O_CLOEXEC);
  const int file = open("/dev/accel/accel0", O_RDWR | O_CLOEXEC);
  if (global < 0 || file < 0) {
    fail(std::string("open /dev/accel/accel0: ") + std::strerror(errno));
    return 1;
  }
  ethosu_accel_perfmon_set_global sg{0, static_cast<uint32_t>(perfmon(global, kEventNpuActive))};
  if (call(global, ETHOSU_ACCEL_IOCTL_PERFMON_SET_GLOBAL, &sg)) fail("PERFMON_SET_GLOBAL");
  std::vector<uint32_t> w;
  for (int i = 0; i < 200000; ++i) dma_words(w, 0, 0x10000, 0x20, 16);
  w.push_back(0xFFFF0000);
  ethosu_accel_job job = dma_job(file);
  if (int e = cmdstream_bo(file, to_bytes(w), job.cmd_bo)) fail(std::string("CMDSTREAM_BO_CREATE: ") + std::strerror(e));
  std::chrono::steady_clock::time_point ended;
  std::thread runner([&] {
    if (int e = submit(file, job)) fail(std::string("SUBMIT: ") + std::strerror(e));
    ended = std::chrono::steady_clock::now();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  close(global);
  const auto closed = std::chrono::steady_clock::now();
  runner.join();
  if (ended < closed) fail("the job ended before its perfmon's file was closed: the test needs a longer job");
  close(file);
  std::printf("record with the global perfmon's file closed during a job: %s\n", failures ? "FAILED" : "survived");
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 2 && std::string(argv[1]) == "--errors") return run_errors();
    if (argc == 2 && std::string(argv[1]) == "--concurrent") return run_concurrent();
    if (argc == 3 && std::string(argv[1]) == "--record-dup2") return run_record_dup2(argv[2]);
    if (argc == 2 && std::string(argv[1]) == "--record-close-global") return run_record_close_global();
    bool timed = false, region2_bo = false, usage = false;
    std::string dir;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--timed")
        timed = true;
      else if (a == "--region2-bo")
        region2_bo = true;
      else if (dir.empty() && a.rfind("--", 0) != 0)
        dir = a;
      else
        usage = true;
    }
    if (dir.empty() || usage) {
      std::fprintf(stderr, "usage: accel_client CASE_DIR [--timed] [--region2-bo] | --errors | --concurrent | "
                           "--record-dup2 RECORD_DIR | --record-close-global\n");
      return 2;
    }
    return run_case(dir, timed, region2_bo);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL: %s\n", e.what());
    return 1;
  }
}
