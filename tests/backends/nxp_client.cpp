// A client of NXP's /dev/ethosu0, written against the UAPI only (as libethosu and the TFLite delegate are), run
// under LD_PRELOAD=libethosu-sim-nxp.so. It exercises every ioctl and its error paths, then runs the corpus
// models through the interface and compares the outputs with the reference bytes:
//   MODEL mode: the Vela .tflite as the network; inputs in the arena buffer (ifm[0]) at the offsets NETWORK_INFO
//     reports, and, for one-input one-output models, also one IFM buffer per input and an OFM buffer that
//     grows by the output; models with CPU operators must fail with status ERROR.
//   OP mode: the COP1 payload as the network, ifm[0] arena, ifm[1] layout, ifm[2] flash.
//   NETWORK_INFO's desc is the model's description; a model with variable (state) tensors gives the same output
//     when run twice on one arena (the firmware resets them for every inference).
// Usage: nxp_client SHARED_DIR [--u65-512]. --u65-512 runs the corpus/*/u65_512 compilations (the shim must
// simulate an ethos-u65-512). Exit 0 when every check passed, 1 otherwise, 77 (skip) when SHARED_DIR has no corpus.
//   nxp_client --robustness CASE_DIR MODELS_DIR: without the corpus, on a case folder (the bundled traces/tiny_cnn)
//     run in OP mode: PMU event numbers above 255 (the kernel's u8), IFM buffers of 4 GiB (memory bounded), an
//     inference in a fork() child (ERROR at once, not a hang); and MODELS_DIR/state_model.tflite
//     (make_test_models) twice on one arena: its variable tensor starts from its reset value every time; both on
//     arenas with room to spare while another thread writes there: the writes stay, and a 64 MiB arena costs the
//     client no 64 MiB copies.
//   nxp_client --model MODEL INPUT OUT_DIR: runs a one-input model in MODEL mode, per-tensor buffers (outputs
//     written to OUT_DIR/nxp_output<k>.bin) and on an arena at NETWORK_INFO's offsets (must give the same bytes).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "host/backends/nxp/ethosu_nxp_uapi.h"

namespace fs = std::filesystem;
using namespace ethosu::nxp;

namespace {

int g_failures = 0;
bool g_functional = false;  // ETHOSU_SIM_FUNCTIONAL=1: no cycles or PMU counts

void check(bool ok, const std::string& what) {
  if (!ok) {
    ++g_failures;
    std::printf("FAIL: %s\n", what.c_str());
  }
}

// ioctl(fd, cmd, arg) must fail with errno `err`.
void check_errno(int fd, unsigned long cmd, void* arg, int err, const std::string& what) {
  errno = 0;
  const int r = ioctl(fd, cmd, arg);
  check(r == -1 && errno == err, what + ": expected errno " + std::to_string(err) + ", got return " +
                                     std::to_string(r) + " errno " + std::to_string(errno));
}

std::vector<uint8_t> read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) {
    std::printf("FAIL: cannot read %s\n", p.c_str());
    std::exit(1);
  }
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// A driver buffer: created, mmapped and filled with `data` at `offset`; size = data's end unless told.
struct Buf {
  int fd = -1;
  uint8_t* map = nullptr;
  uint32_t capacity = 0;

  Buf(int dev, uint32_t cap) : capacity(cap) {
    BufferCreate req{cap};
    fd = ioctl(dev, IOCTL_BUFFER_CREATE, &req);
    check(fd >= 0, "BUFFER_CREATE capacity " + std::to_string(cap));
    void* m = mmap(nullptr, cap, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    check(m != MAP_FAILED, "mmap of a buffer");
    map = m == MAP_FAILED ? nullptr : static_cast<uint8_t*>(m);
  }
  ~Buf() {
    if (map) munmap(map, capacity);
    if (fd >= 0) close(fd);
  }
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;

  void put(uint32_t at, const std::vector<uint8_t>& data) {
    if (map && at + data.size() <= capacity) std::memcpy(map + at, data.data(), data.size());
  }
  void set(uint32_t offset, uint32_t size) {
    Buffer b{offset, size};
    check(ioctl(fd, IOCTL_BUFFER_SET, &b) == 0, "BUFFER_SET");
  }
  Buffer get() {
    Buffer b{~0u, ~0u};
    check(ioctl(fd, IOCTL_BUFFER_GET, &b) == 0, "BUFFER_GET");
    return b;
  }
  std::vector<uint8_t> bytes(uint32_t at, uint32_t n) const {
    if (!map || at + n > capacity) return {};
    return {map + at, map + at + n};
  }
};

int network_of(int dev, const Buf& b) {
  NetworkCreate req{NETWORK_BUFFER, static_cast<uint32_t>(b.fd)};
  return ioctl(dev, IOCTL_NETWORK_CREATE, &req);
}

// Creates an inference, waits for it and returns its status.
ResultStatus infer(int net, const std::vector<int>& ifms, const std::vector<int>& ofms, uint32_t type,
                   const PmuConfig& pmu, const std::string& what) {
  InferenceCreate req{};
  req.ifm_count = static_cast<uint32_t>(ifms.size());
  for (size_t i = 0; i < ifms.size(); ++i) req.ifm_fd[i] = static_cast<uint32_t>(ifms[i]);
  req.ofm_count = static_cast<uint32_t>(ofms.size());
  for (size_t i = 0; i < ofms.size(); ++i) req.ofm_fd[i] = static_cast<uint32_t>(ofms[i]);
  req.inference_type = type;
  req.pmu_config = pmu;
  ResultStatus st{};
  st.status = STATUS_ERROR;
  const int fd = ioctl(net, IOCTL_INFERENCE_CREATE, &req);
  check(fd >= 0, what + ": INFERENCE_CREATE");
  if (fd < 0) return st;
  // As libethosu waits: ppoll for POLLIN | POLLERR with a timeout.
  pollfd p{fd, POLLIN | POLLERR, 0};
  const timespec timeout{600, 0};
  check(ppoll(&p, 1, &timeout, nullptr) == 1 && (p.revents & POLLIN), what + ": ppoll reports completion");
  check(ioctl(fd, IOCTL_INFERENCE_STATUS, &st) == 0, what + ": INFERENCE_STATUS");
  CancelInferenceStatus c{STATUS_OK};
  check(ioctl(fd, IOCTL_INFERENCE_CANCEL, &c) == 0 && c.status == STATUS_ERROR,
        what + ": CANCEL of a finished inference answers ERROR");
  close(fd);
  return st;
}

void compare(const std::vector<uint8_t>& got, const fs::path& expected_file, const std::string& what) {
  const auto want = read_file(expected_file);
  size_t diff = got.size() == want.size() ? 0 : want.size();
  for (size_t i = 0; diff == 0 && i < got.size(); ++i) diff += got[i] != want[i];
  check(got == want, what + ": output " + expected_file.filename().string() + " is not bit-exact (" +
                         std::to_string(diff) + " bytes differ)");
}

void check_pmu(const ResultStatus& st, const PmuConfig& pmu, const std::string& what) {
  check(std::memcmp(&st.pmu_config, &pmu, sizeof pmu) == 0, what + ": STATUS echoes the PMU configuration");
  if (g_functional) return;
  check(st.pmu_count.cycle_count > 0, what + ": cycle count");
  // events: CYCLE (driver index 1) counts the same cycles; NPU_ACTIVE (5) no more than them.
  check(st.pmu_count.events[0] > 0 && st.pmu_count.events[0] <= st.pmu_count.cycle_count + 16,
        what + ": PMU CYCLE event " + std::to_string(st.pmu_count.events[0]) + " vs cycle count " +
            std::to_string(st.pmu_count.cycle_count));
  check(st.pmu_count.events[1] > 0 && st.pmu_count.events[1] <= st.pmu_count.events[0],
        what + ": PMU NPU_ACTIVE event");
}

void interface_tests(int dev, bool u65_512) {
  check(ioctl(dev, IOCTL_PING) == 0, "PING");
  check(ioctl(dev, IOCTL_VERSION_REQ) == 0, "VERSION_REQ");
  DeviceCapabilities caps{};
  check(ioctl(dev, IOCTL_CAPABILITIES_REQ, &caps) == 0, "CAPABILITIES_REQ");
  check(caps.hw_id.product_major == 6 && caps.hw_id.arch_major_rev == 1 && caps.hw_id.arch_minor_rev == 0 &&
            caps.hw_id.arch_patch_rev == 6,
        "capabilities: product 6, architecture 1.0.6");
  check(caps.hw_cfg.macs_per_cc == (u65_512 ? 9u : 8u), "capabilities: macs_per_cc");
  check(caps.driver_major_rev == 0 && caps.driver_minor_rev == 16, "capabilities: driver 0.16");
  check_errno(dev, IOCTL_CAPABILITIES_REQ, reinterpret_cast<void*>(16), EFAULT, "CAPABILITIES_REQ to a bad pointer");

  BufferCreate zero{0};
  check_errno(dev, IOCTL_BUFFER_CREATE, &zero, EINVAL, "BUFFER_CREATE of capacity 0");
  {
    Buf b(dev, 1000);
    const Buffer empty = b.get();
    check(empty.offset == 0 && empty.size == 0, "a new buffer is empty");
    b.set(10, 990);
    const Buffer got = b.get();
    check(got.offset == 10 && got.size == 990, "BUFFER_GET returns what BUFFER_SET set");
    Buffer over{11, 990};
    check_errno(b.fd, IOCTL_BUFFER_SET, &over, EINVAL, "BUFFER_SET beyond the capacity");
    errno = 0;
    check(mmap(nullptr, 8192, PROT_READ, MAP_SHARED, b.fd, 0) == MAP_FAILED && errno == ENXIO,
          "mmap beyond a buffer's pages fails with ENXIO");
    char c = 0;
    errno = 0;
    check(read(b.fd, &c, 1) == -1 && errno == EINVAL, "read() on a buffer fd fails with EINVAL");
    errno = 0;
    check(mmap(nullptr, 4096, PROT_READ, MAP_SHARED, dev, 0) == MAP_FAILED && errno == ENODEV,
          "mmap of the device fails with ENODEV");

    NetworkCreate not_buffer{NETWORK_BUFFER, static_cast<uint32_t>(dev)};
    check_errno(dev, IOCTL_NETWORK_CREATE, &not_buffer, EINVAL, "NETWORK_CREATE from a non-buffer fd");
    // A network of garbage: NETWORK_INFO fails (the firmware cannot read it), an inference ends in ERROR.
    b.put(10, std::vector<uint8_t>(990, 0xA5));
    const int net = network_of(dev, b);
    check(net >= 0, "NETWORK_CREATE from a buffer");
    NetworkInfoV2 info{};
    check_errno(net, IOCTL_NETWORK_INFO_V2, &info, EBADF, "NETWORK_INFO of a garbage network");
    InferenceCreate too_many{};
    too_many.ifm_count = kFdMax + 1;
    check_errno(net, IOCTL_INFERENCE_CREATE, &too_many, EFAULT, "INFERENCE_CREATE with 17 IFMs");
    InferenceCreate bad_fd{};
    bad_fd.ifm_count = 1;
    bad_fd.ifm_fd[0] = static_cast<uint32_t>(dev);
    check_errno(net, IOCTL_INFERENCE_CREATE, &bad_fd, EINVAL, "INFERENCE_CREATE with a non-buffer IFM fd");
    const ResultStatus st = infer(net, {b.fd}, {}, INFERENCE_MODEL, {}, "garbage network");
    check(st.status == STATUS_ERROR, "an inference of a garbage network ends in ERROR");
    const ResultStatus op = infer(net, {b.fd, b.fd}, {}, INFERENCE_OP, {}, "garbage OP payload");
    check(op.status == STATUS_ERROR, "an OP inference of a garbage payload ends in ERROR");
    close(net);

    NetworkCreate index{NETWORK_INDEX, 0};
    const int inet = ioctl(dev, IOCTL_NETWORK_CREATE, &index);
    check(inet >= 0, "NETWORK_CREATE of an index network");
    check_errno(inet, IOCTL_NETWORK_INFO_V2, &info, EBADF, "NETWORK_INFO of an index network");
    close(inet);
  }
  int fd = open("/dev/ethosu1", O_RDWR);
  check(fd < 0, "only /dev/ethosu0 is simulated");
  if (fd >= 0) close(fd);
}

struct Case {
  fs::path dir;
  nlohmann::json m;
  fs::path file(const std::string& name) const { return dir / name; }
};

PmuConfig pmu_cycles_active() {
  PmuConfig p{};
  p.events[0] = 1;  // ETHOSU_PMU_CYCLE
  p.events[1] = 5;  // ETHOSU_PMU_NPU_ACTIVE
  p.cycle_count = 1;
  return p;
}

// MODEL mode, arena in ifm[0] (NXP's lf-6.x Interpreter), and per-tensor IFM/OFM buffers (Arm's libethosu).
void model_tests(int dev, const Case& c, int& exact) {
  const std::string name = c.dir.parent_path().filename().string() + "/" + c.dir.filename().string();
  const auto model = read_file(c.file(c.m["vela"]["compiled_model"].get<std::string>()));
  Buf nb(dev, static_cast<uint32_t>(model.size()));
  nb.put(0, model);
  nb.set(0, static_cast<uint32_t>(model.size()));
  const int net = network_of(dev, nb);
  check(net >= 0, name + ": NETWORK_CREATE");
  if (net < 0) return;
  const bool npu_only = c.m["vela"]["ops_after_vela_rewrite"]["cpu"].get<int>() == 0;
  const auto& ins = c.m["npu_inputs"];
  const auto& outs = c.m["npu_outputs"];
  const uint32_t arena_bytes = c.m["regions"]["1"]["size_bytes"].get<uint32_t>();
  Buf arena(dev, arena_bytes + 4096);
  for (const auto& in : ins) arena.put(in["offset"].get<uint32_t>(), read_file(c.file(in["file"].get<std::string>())));
  arena.set(0, arena_bytes + 4096);
  // libethosu leaves the inference type uninitialised: any value but OP is MODEL.
  const PmuConfig pmu = pmu_cycles_active();
  const ResultStatus st = infer(net, {arena.fd}, {}, 0x5A5A5A5A, pmu, name + " MODEL");
  if (!npu_only) {
    check(st.status == STATUS_ERROR, name + ": a model with CPU operators ends in ERROR");
    close(net);
    return;
  }
  NetworkInfoV2 info{};
  check(ioctl(net, IOCTL_NETWORK_INFO_V2, &info) == 0, name + ": NETWORK_INFO (lf-6.x)");
  NetworkInfo old{};
  check(ioctl(net, IOCTL_NETWORK_INFO, &old) == 0, name + ": NETWORK_INFO (22.x)");
  check(info.is_vela == 1 && info.ifm_count == old.ifm_count && info.ofm_count == outs.size(),
        name + ": NETWORK_INFO counts");
  // The firmware answers the model's description (Vela writes "Vela 3.10.0 Optimised"), in both layouts.
  check(std::string(info.desc) == "Vela 3.10.0 Optimised" && std::string(old.desc) == info.desc,
        name + ": NETWORK_INFO desc '" + std::string(info.desc, strnlen(info.desc, sizeof info.desc)) + "'");
  // The graph may list its outputs in another order than the NPU operator does.
  for (const auto& o : outs) {
    bool listed = false;
    for (uint32_t i = 0; i < info.ofm_count && i < kFdMax; ++i)
      listed = listed || (info.ofm_offset[i] == o["offset"].get<uint32_t>() && info.ofm_size[i] == o["bytes"].get<uint32_t>());
    check(listed, name + ": NETWORK_INFO lists output '" + o["name"].get<std::string>() + "' with its offset and size");
  }
  check(st.status == STATUS_OK, name + ": MODEL inference status OK");
  check_pmu(st, pmu, name + " MODEL");
  bool all = st.status == STATUS_OK;
  for (const auto& o : outs) {
    const auto got = arena.bytes(o["offset"].get<uint32_t>(), o["bytes"].get<uint32_t>());
    const size_t before = static_cast<size_t>(g_failures);
    compare(got, c.file(o["expected_file"].get<std::string>()), name + " MODEL (arena)");
    all = all && static_cast<size_t>(g_failures) == before;
  }
  if (ins.size() > 1) {
    // Again on the same arena, the state tensors' bytes overwritten with garbage: the firmware builds a new
    // interpreter for every inference, whose variable tensors start from their reset value whatever the arena held.
    for (const auto& in : ins) {
      auto bytes = read_file(c.file(in["file"].get<std::string>()));
      if (in.value("generated_as", "").find("variable (state) tensor") != std::string::npos)
        std::fill(bytes.begin(), bytes.end(), uint8_t{0x55});
      arena.put(in["offset"].get<uint32_t>(), bytes);
    }
    const ResultStatus again = infer(net, {arena.fd}, {}, INFERENCE_MODEL, {}, name + " MODEL again");
    check(again.status == STATUS_OK, name + ": second MODEL inference status OK");
    for (const auto& o : outs)
      compare(arena.bytes(o["offset"].get<uint32_t>(), o["bytes"].get<uint32_t>()),
              c.file(o["expected_file"].get<std::string>()), name + " MODEL (second inference on one arena)");
  }
  if (ins.size() == 1 && outs.size() == 1 && info.ifm_count == 1) {
    const auto input = read_file(c.file(ins[0]["file"].get<std::string>()));
    Buf ib(dev, static_cast<uint32_t>(input.size()));
    ib.put(0, input);
    ib.set(0, static_cast<uint32_t>(input.size()));
    const uint32_t out_bytes = outs[0]["bytes"].get<uint32_t>();
    Buf ob(dev, out_bytes + 64);
    ob.set(8, 0);  // output buffers start empty; the driver grows them by the output
    const ResultStatus s2 = infer(net, {ib.fd}, {ob.fd}, INFERENCE_MODEL, {}, name + " MODEL (per-tensor)");
    check(s2.status == STATUS_OK, name + ": per-tensor MODEL inference status OK");
    const Buffer grown = ob.get();
    check(grown.offset == 8 && grown.size == out_bytes, name + ": the OFM buffer grew by the output size");
    const size_t before = static_cast<size_t>(g_failures);
    compare(ob.bytes(8, out_bytes), c.file(outs[0]["expected_file"].get<std::string>()), name + " MODEL (per-tensor)");
    all = all && s2.status == STATUS_OK && static_cast<size_t>(g_failures) == before;
    // An OFM buffer without room for the output: the firmware rejects the inference.
    Buf small(dev, out_bytes);
    small.set(1, 0);
    check(infer(net, {ib.fd}, {small.fd}, INFERENCE_MODEL, {}, name + " MODEL (small OFM)").status == STATUS_ERROR,
          name + ": an OFM buffer too small for the output ends in ERROR");
    check(small.get().size == 0, name + ": a failed inference does not grow the OFM buffer");
  }
  exact += all;
  close(net);
}

// The COP1 payload's stream in Vela 5's COP2 layout (Regor's CreateDriverPayload2): a 16-byte header, the
// COMMAND_STREAM entry with its VEUM metadata (the COP1 payload's CONFIG and ID words, network-wide addressing)
// and 0xFF padding to byte 64.
std::vector<uint8_t> as_cop2(const std::vector<uint8_t>& cop1) {
  const uint32_t stream = static_cast<uint32_t>(cop1.size() - 32);
  uint32_t config = 0, id = 0;
  std::memcpy(&config, cop1.data() + 8, 4);
  std::memcpy(&id, cop1.data() + 12, 4);
  const uint32_t words[16] = {0x32504F43, 1, 48 + stream, 0, 1, 40 + stream, 36, 0x4D554556, 1, 20, config, id, 1, 0,
                              0, 0xFFFFFFFF};
  std::vector<uint8_t> out(sizeof words);
  std::memcpy(out.data(), words, sizeof words);
  out.insert(out.end(), cop1.begin() + 32, cop1.end());
  return out;
}

// OP mode as NXP's delegate submits one ethos-u operator (its COP1 payload, or with cop2 the same stream as Vela 5's
// --cop-format COP2 writes it). A payload compiled for the other U65 variant than the simulated one (foreign) must
// be rejected, as the core driver checks the optimizer configuration.
void op_tests(int dev, const Case& c, int& exact, bool foreign = false, bool cop2 = false) {
  const std::string name = c.dir.parent_path().filename().string() + "/" + c.dir.filename().string() +
                           (cop2 ? " (COP2)" : "");
  const auto cop1 = read_file(c.file(c.m["driver_payload"]["file"].get<std::string>()));
  const auto payload = cop2 ? as_cop2(cop1) : cop1;
  const auto flash = read_file(c.file(c.m["regions"]["0"]["file"].get<std::string>()));
  const auto& ins = c.m["npu_inputs"];
  const auto& outs = c.m["npu_outputs"];
  Buf nb(dev, static_cast<uint32_t>(payload.size() + 64));
  nb.put(64, payload);
  nb.set(64, static_cast<uint32_t>(payload.size()));
  const int net = network_of(dev, nb);
  check(net >= 0, name + ": NETWORK_CREATE (OP)");
  if (net < 0) return;
  NetworkInfoV2 info{};
  info.ifm_count = 99;
  check(ioctl(net, IOCTL_NETWORK_INFO_V2, &info) == 0 && info.ifm_count == 0 && info.ofm_count == 0,
        name + ": NETWORK_INFO of a COP1 payload answers no tensors");
  const uint32_t arena_bytes = c.m["regions"]["1"]["size_bytes"].get<uint32_t>();
  Buf arena(dev, arena_bytes);
  for (const auto& in : ins) arena.put(in["offset"].get<uint32_t>(), read_file(c.file(in["file"].get<std::string>())));
  arena.set(0, arena_bytes);
  // Layout: n_in, n_out, u32 base_addr_size[N] (flash, scratch, fast scratch, inputs, outputs), u64 base_addr[N].
  const uint32_t n_in = static_cast<uint32_t>(ins.size()), n_out = static_cast<uint32_t>(outs.size());
  const uint32_t n = n_in + n_out + 3;
  std::vector<uint8_t> layout(kLayoutHeaderBytes + n * kLayoutEntryBytes, 0);
  std::memcpy(layout.data(), &n_in, 4);
  std::memcpy(layout.data() + 4, &n_out, 4);
  const uint32_t sizes[3] = {static_cast<uint32_t>(flash.size()), arena_bytes,
                             c.m["regions"]["2"]["size_bytes"].get<uint32_t>()};
  std::memcpy(layout.data() + kLayoutHeaderBytes, sizes, sizeof sizes);
  // As NXP's delegate leaves them: the layout and flash buffers keep size 0 (the firmware takes pointers).
  Buf lb(dev, static_cast<uint32_t>(layout.size()));
  lb.put(0, layout);
  Buf fb(dev, static_cast<uint32_t>(flash.size()));
  fb.put(0, flash);
  // The delegate's profiling buffer: starts empty, receives QreadEvent records.
  Buf prof(dev, 16 * sizeof(QreadEvent));
  const PmuConfig pmu = pmu_cycles_active();
  const ResultStatus st = infer(net, {arena.fd, lb.fd, fb.fd}, {prof.fd}, INFERENCE_OP, pmu, name + " OP");
  if (foreign) {
    check(st.status == STATUS_ERROR, name + ": a payload for the other NPU variant ends in ERROR");
    close(net);
    return;
  }
  check(st.status == STATUS_OK, name + ": OP inference status OK");
  check_pmu(st, pmu, name + " OP");
  QreadEvent last{};
  const auto prof_bytes = prof.bytes(0, sizeof last);
  if (prof_bytes.size() == sizeof last) std::memcpy(&last, prof_bytes.data(), sizeof last);
  check(prof.get().size == sizeof(QreadEvent) && last.cycle_count == st.pmu_count.cycle_count &&
            last.pmu[0].event_config == pmu.events[0] && last.pmu[0].event_count == st.pmu_count.events[0] &&
            last.qread + (cop2 ? 64 : 32) == payload.size(),
        name + ": the profiling buffer holds the end-of-job sample");
  bool all = st.status == STATUS_OK;
  for (const auto& o : outs) {
    const size_t before = static_cast<size_t>(g_failures);
    compare(arena.bytes(o["offset"].get<uint32_t>(), o["bytes"].get<uint32_t>()),
            c.file(o["expected_file"].get<std::string>()), name + " OP");
    all = all && static_cast<size_t>(g_failures) == before;
  }
  // An arena far smaller than the stream's accesses: the NPU faults, the inference ends in ERROR.
  Buf tiny(dev, 16);
  check(infer(net, {tiny.fd, lb.fd, fb.fd}, {}, INFERENCE_OP, {}, name + " OP tiny arena").status == STATUS_ERROR,
        name + ": OP with an arena too small for the stream ends in ERROR");
  // A layout buffer too short for its base-pointer count is rejected by the firmware.
  Buf shortl(dev, 8);
  shortl.put(0, std::vector<uint8_t>(layout.begin(), layout.begin() + 8));
  shortl.set(0, 8);
  check(infer(net, {arena.fd, shortl.fd, fb.fd}, {}, INFERENCE_OP, {}, name + " OP short layout").status ==
            STATUS_ERROR,
        name + ": OP with a truncated layout ends in ERROR");
  exact += all;
  close(net);
}

// Two inferences queued back to back; cancelling the second either drops it (ABORTED) or, when it already
// ran, answers ERROR and leaves it OK.
void cancel_test(int dev, const Case& c) {
  const auto model = read_file(c.file(c.m["vela"]["compiled_model"].get<std::string>()));
  Buf nb(dev, static_cast<uint32_t>(model.size()));
  nb.put(0, model);
  nb.set(0, static_cast<uint32_t>(model.size()));
  const int net = network_of(dev, nb);
  const uint32_t arena_bytes = c.m["regions"]["1"]["size_bytes"].get<uint32_t>();
  Buf arena(dev, arena_bytes);
  arena.set(0, arena_bytes);
  InferenceCreate req{};
  req.ifm_count = 1;
  req.ifm_fd[0] = static_cast<uint32_t>(arena.fd);
  const int first = ioctl(net, IOCTL_INFERENCE_CREATE, &req);
  const int second = ioctl(net, IOCTL_INFERENCE_CREATE, &req);
  check(first >= 0 && second >= 0, "cancel test: two INFERENCE_CREATEs");
  CancelInferenceStatus cs{STATUS_RUNNING};
  check(ioctl(second, IOCTL_INFERENCE_CANCEL, &cs) == 0, "INFERENCE_CANCEL");
  pollfd p[2] = {{first, POLLIN, 0}, {second, POLLIN, 0}};
  for (auto& one : p) check(poll(&one, 1, 600 * 1000) == 1, "cancel test: both inferences complete");
  ResultStatus s1{}, s2{};
  check(ioctl(first, IOCTL_INFERENCE_STATUS, &s1) == 0 && s1.status == STATUS_OK, "cancel test: first OK");
  check(ioctl(second, IOCTL_INFERENCE_STATUS, &s2) == 0, "cancel test: second STATUS");
  check((cs.status == STATUS_OK && s2.status == STATUS_ABORTED) || (cs.status == STATUS_ERROR && s2.status == STATUS_OK),
        "cancel test: cancel " + std::to_string(cs.status) + " with inference status " + std::to_string(s2.status));
  std::printf("cancel of a queued inference: cancel status %u, inference status %u\n", cs.status, s2.status);
  close(first);
  close(second);
  close(net);
}


// ---- without the corpus: OP mode on a case folder ----

// Vela's COP1 header for a U65-256 stream: COP1, OPTIMIZER_CONFIG (CONFIG 0x10003008, ID 0x10060000), three NOPs,
// COMMAND_STREAM with the length in words.
std::vector<uint8_t> cop1(const std::vector<uint8_t>& stream) {
  const auto n = static_cast<uint32_t>(stream.size() / 4);
  const uint32_t header[] = {0x31504F43, 0x00100001, 0x10003008, 0x10060000, 5, 5, 5,
                             0x02u | ((n >> 16) & 0xFF) << 8 | (n & 0xFFFF) << 16};
  std::vector<uint8_t> out(sizeof header);
  std::memcpy(out.data(), header, sizeof header);
  out.insert(out.end(), stream.begin(), stream.end());
  return out;
}

struct OpJob {
  std::vector<uint8_t> payload, flash, layout, input, expected;
  uint32_t arena_bytes = 0, input_offset = 0, output_offset = 0;
};

OpJob op_job(const fs::path& dir) {
  const nlohmann::json m = nlohmann::json::parse(read_file(dir / "manifest.json"));
  OpJob j;
  j.payload = cop1(read_file(dir / m["cmdstream"]["file"].get<std::string>()));
  j.flash = read_file(dir / m["regions"]["0"]["file"].get<std::string>());
  j.arena_bytes = m["regions"]["1"]["size_bytes"].get<uint32_t>();
  j.input = read_file(dir / m["inputs"][0]["file"].get<std::string>());
  j.input_offset = m["inputs"][0]["offset"].get<uint32_t>();
  j.expected = read_file(dir / m["outputs"][0]["file"].get<std::string>());
  j.output_offset = m["outputs"][0]["offset"].get<uint32_t>();
  const uint32_t counts[2] = {1, 1}, sizes[5] = {static_cast<uint32_t>(j.flash.size()), j.arena_bytes, 0, 0, 0};
  j.layout.assign(kLayoutHeaderBytes + 5 * kLayoutEntryBytes, 0);
  std::memcpy(j.layout.data(), counts, sizeof counts);
  std::memcpy(j.layout.data() + kLayoutHeaderBytes, sizes, sizeof sizes);
  return j;
}

// One OP inference of the job; returns its status and checks the output when `exact`.
ResultStatus run_op(int dev, const OpJob& j, const PmuConfig& pmu, const std::string& what, bool exact) {
  Buf nb(dev, static_cast<uint32_t>(j.payload.size()));
  nb.put(0, j.payload);
  nb.set(0, static_cast<uint32_t>(j.payload.size()));
  const int net = network_of(dev, nb);
  Buf arena(dev, j.arena_bytes), lb(dev, static_cast<uint32_t>(j.layout.size())), fb(dev, static_cast<uint32_t>(j.flash.size()));
  arena.put(j.input_offset, j.input);
  arena.set(0, j.arena_bytes);
  lb.put(0, j.layout);
  fb.put(0, j.flash);
  const ResultStatus st = infer(net, {arena.fd, lb.fd, fb.fd}, {}, INFERENCE_OP, pmu, what);
  if (exact) {
    check(st.status == STATUS_OK, what + ": status OK");
    check(arena.bytes(j.output_offset, static_cast<uint32_t>(j.expected.size())) == j.expected, what + ": output bit-exact");
  }
  close(net);
  return st;
}


// A network buffer holding `model`, and its NETWORK_INFO.
struct Network {
  std::unique_ptr<Buf> buffer;
  int fd = -1;
  NetworkInfoV2 info{};
};

Network network(int dev, const std::vector<uint8_t>& model, const std::string& what) {
  Network n;
  n.buffer = std::make_unique<Buf>(dev, static_cast<uint32_t>(model.size()));
  n.buffer->put(0, model);
  n.buffer->set(0, static_cast<uint32_t>(model.size()));
  n.fd = network_of(dev, *n.buffer);
  check(n.fd >= 0 && ioctl(n.fd, IOCTL_NETWORK_INFO_V2, &n.info) == 0, what + ": NETWORK_CREATE and NETWORK_INFO");
  return n;
}

// The stateful model twice on one arena, then with per-tensor buffers: the output is the state's reset value (the
// int8 zero point -3) every time, though the stream leaves the input in the state.
void state_test(int dev, const fs::path& model) {
  Network n = network(dev, read_file(model), "state model");
  check(n.info.ifm_count == 1 && n.info.ofm_count == 1 && n.info.ofm_size[0] == 16, "state model: NETWORK_INFO");
  const std::vector<uint8_t> input(16, 0x11), reset(16, 0xFD);
  Buf arena(dev, 4096);
  arena.set(0, 4096);
  for (int run = 1; run <= 2; ++run) {
    arena.put(n.info.ifm_offset[0], input);
    const std::string what = "state model, inference " + std::to_string(run) + " on one arena";
    check(infer(n.fd, {arena.fd}, {}, INFERENCE_MODEL, {}, what).status == STATUS_OK, what + ": status OK");
    check(arena.bytes(n.info.ofm_offset[0], 16) == reset, what + ": the output is the state's reset value");
    check(arena.bytes(16, 16) == input, what + ": the stream left the input in the state");
  }
  Buf ib(dev, 16), ob(dev, 16);
  ib.put(0, input);
  ib.set(0, 16);
  ob.set(0, 0);
  check(infer(n.fd, {ib.fd}, {ob.fd}, INFERENCE_MODEL, {}, "state model, per-tensor").status == STATUS_OK &&
            ob.bytes(0, 16) == reset,
        "state model, per-tensor buffers: the output is the state's reset value");
  close(n.fd);
}

int run_model(const fs::path& model, const fs::path& input_file, const fs::path& out_dir) {
  const int dev = open("/dev/ethosu0", O_RDWR);
  if (dev < 0) {
    std::printf("FAIL: cannot open /dev/ethosu0 (%s)\n", std::strerror(errno));
    return 1;
  }
  Network n = network(dev, read_file(model), model.filename().string());
  const std::vector<uint8_t> input = read_file(input_file);
  check(n.info.ifm_count == 1 && n.info.ifm_size[0] == input.size(), "one graph input of the input file's size");
  Buf ib(dev, static_cast<uint32_t>(input.size()));
  ib.put(0, input);
  ib.set(0, static_cast<uint32_t>(input.size()));
  std::vector<std::unique_ptr<Buf>> ofms;
  std::vector<int> ofm_fds;
  uint32_t arena_end = n.info.ifm_offset[0] + n.info.ifm_size[0];
  for (uint32_t k = 0; k < n.info.ofm_count && k < kFdMax; ++k) {
    ofms.push_back(std::make_unique<Buf>(dev, n.info.ofm_size[k]));
    ofms.back()->set(0, 0);
    ofm_fds.push_back(ofms.back()->fd);
    arena_end = std::max(arena_end, n.info.ofm_offset[k] + n.info.ofm_size[k]);
  }
  const ResultStatus st = infer(n.fd, {ib.fd}, ofm_fds, INFERENCE_MODEL, {}, "MODEL, per-tensor buffers");
  check(st.status == STATUS_OK, "MODEL inference with per-tensor buffers: status OK");
  fs::create_directories(out_dir);
  for (size_t k = 0; k < ofms.size(); ++k) {
    const auto bytes = ofms[k]->bytes(0, ofms[k]->get().size);
    check(bytes.size() == n.info.ofm_size[k], "output " + std::to_string(k) + " filled");
    std::ofstream(out_dir / ("nxp_output" + std::to_string(k) + ".bin"), std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  // The arena as ifm[0], the input and outputs at NETWORK_INFO's offsets: the same bytes.
  const uint32_t arena_bytes = (arena_end + 4095) / 4096 * 4096 + 65536;
  Buf arena(dev, arena_bytes);
  arena.put(n.info.ifm_offset[0], input);
  arena.set(0, arena_bytes);
  check(infer(n.fd, {arena.fd}, {}, INFERENCE_MODEL, {}, "MODEL, arena").status == STATUS_OK,
        "MODEL inference on an arena: status OK");
  for (size_t k = 0; k < ofms.size(); ++k)
    check(arena.bytes(n.info.ofm_offset[k], n.info.ofm_size[k]) == ofms[k]->bytes(0, n.info.ofm_size[k]),
          "output " + std::to_string(k) + ": the arena at NETWORK_INFO's offset holds the per-tensor result");
  close(n.fd);
  close(dev);
  std::printf("%s: MODEL mode, %u outputs: %s\n", model.c_str(), n.info.ofm_count, g_failures ? "FAILED" : "PASSED");
  return g_failures ? 1 : 0;
}

// A thread writing a counter into bytes of a buffer no inference writes, and checking before each write that the
// last one is still there. It is writing once constructed.
class CounterWriter {
 public:
  explicit CounterWriter(uint8_t* at) : thread_([this, at] {
    auto* p = reinterpret_cast<uint64_t*>(at);
    for (uint64_t c = 0; !done_.load(); ++c) {
      reverted_ += __atomic_load_n(p, __ATOMIC_RELAXED) != c;
      __atomic_store_n(p, c + 1, __ATOMIC_RELAXED);
      writes_.fetch_add(1, std::memory_order_relaxed);
    }
  }) {
    while (writes_.load() == 0) std::this_thread::yield();
  }
  ~CounterWriter() { stop(); }
  CounterWriter(const CounterWriter&) = delete;
  CounterWriter& operator=(const CounterWriter&) = delete;
  void stop() {
    done_ = true;
    if (thread_.joinable()) thread_.join();
  }
  uint64_t writes() const { return writes_.load(); }
  uint64_t reverted() const { return reverted_; }

 private:
  std::atomic<bool> done_{false};
  std::atomic<uint64_t> writes_{0};
  uint64_t reverted_ = 0;
  std::thread thread_;
};

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// The firmware reads of a buffer what the inference uses and writes back what it changed: inferences on arenas
// with room to spare (MODEL mode: the state model on 64 MiB, as NXP's Interpreter hands the firmware 16 MiB or
// more; OP mode: the sample job with 8 MiB more) while another thread writes a counter in the room. The shim once copied the
// whole arena in and back: each inference cost 0.15-0.4 s and ~90 MB for a 3 KB model on 16 MiB, and the
// counter's writes made meanwhile were reverted.
void arena_room_test(int dev, const OpJob& j, const fs::path& state_model) {
  constexpr uint32_t kModelArena = 64u << 20;
  constexpr int kInferences = 10;
  Network n = network(dev, read_file(state_model), "state model");
  const std::vector<uint8_t> input(16, 0x11), reset(16, 0xFD);
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  {
    Buf arena(dev, kModelArena);
    arena.set(0, kModelArena);
    CounterWriter writer(arena.map + kModelArena / 2);
    uint64_t during = 0;  // writes made while an inference ran
    const double start = cpu_seconds();
    for (int k = 0; k < kInferences; ++k) {
      arena.put(n.info.ifm_offset[0], input);
      const std::string what = "state model on a 64 MiB arena, inference " + std::to_string(k);
      const uint64_t writes = writer.writes();
      check(infer(n.fd, {arena.fd}, {}, INFERENCE_MODEL, {}, what).status == STATUS_OK, what + ": status OK");
      during += writer.writes() - writes;
      check(arena.bytes(n.info.ofm_offset[0], 16) == reset, what + ": the output is the state's reset value");
    }
    const double per_inference = (cpu_seconds() - start) / kInferences;
    writer.stop();
    check(writer.reverted() == 0,
          "MODEL mode: " + std::to_string(writer.reverted()) + " of " + std::to_string(writer.writes()) +
              " writes to the arena's room were reverted (" + std::to_string(during) + " during inferences)");
    std::printf("MODEL mode on a 64 MiB arena: %.1f ms of CPU per inference, %llu counter writes kept (%llu during "
                "inferences)\n",
                1e3 * per_inference, static_cast<unsigned long long>(writer.writes()),
                static_cast<unsigned long long>(during));
  }
  getrusage(RUSAGE_SELF, &after);
  check(after.ru_maxrss - before.ru_maxrss < 32 * 1024,
        "inferences on a 64 MiB arena grew the client by " + std::to_string((after.ru_maxrss - before.ru_maxrss) / 1024) +
            " MiB");
  close(n.fd);

  Buf nb(dev, static_cast<uint32_t>(j.payload.size()));
  nb.put(0, j.payload);
  nb.set(0, static_cast<uint32_t>(j.payload.size()));
  const int net = network_of(dev, nb);
  constexpr uint32_t kRoom = 8u << 20;
  Buf arena(dev, j.arena_bytes + kRoom), lb(dev, static_cast<uint32_t>(j.layout.size())),
      fb(dev, static_cast<uint32_t>(j.flash.size()));
  arena.set(0, j.arena_bytes + kRoom);
  lb.put(0, j.layout);
  fb.put(0, j.flash);
  CounterWriter writer(arena.map + j.arena_bytes + kRoom / 2);
  uint64_t during = 0;
  for (int k = 0; k < 5 * kInferences; ++k) {
    arena.put(j.input_offset, j.input);
    const std::string what = "OP with room after the arena, inference " + std::to_string(k);
    const uint64_t writes = writer.writes();
    check(infer(net, {arena.fd, lb.fd, fb.fd}, {}, INFERENCE_OP, {}, what).status == STATUS_OK, what + ": status OK");
    during += writer.writes() - writes;
    check(arena.bytes(j.output_offset, static_cast<uint32_t>(j.expected.size())) == j.expected, what + ": bit-exact");
  }
  writer.stop();
  check(writer.reverted() == 0,
        "OP mode: " + std::to_string(writer.reverted()) + " of " + std::to_string(writer.writes()) +
            " writes to the arena's room were reverted (" + std::to_string(during) + " during inferences)");
  std::printf("OP mode with room after the arena: %llu counter writes kept (%llu during inferences)\n",
              static_cast<unsigned long long>(writer.writes() - writer.reverted()), static_cast<unsigned long long>(during));
  close(net);
}

int robustness(const fs::path& dir, const fs::path& models) {
  if (!fs::is_regular_file(dir / "manifest.json")) {
    std::printf("SKIP: no case at %s\n", dir.c_str());
    return 77;
  }
  const int dev = open("/dev/ethosu0", O_RDWR);
  if (dev < 0) {
    std::printf("FAIL: cannot open /dev/ethosu0 (%s)\n", std::strerror(errno));
    return 1;
  }
  const OpJob j = op_job(dir);
  state_test(dev, models / "state_model.tflite");
  // The board recorder records every arena whole (a gigabyte here): the shim's copies are not its to test.
  if (const char* recording = std::getenv("ETHOSU_RECORD_DIR"); !recording || !*recording)
    arena_room_test(dev, j, models / "state_model.tflite");

  // PMU events 257 and 261: the kernel's u8 makes them 1 (CYCLE) and 5 (NPU_ACTIVE); both counted and reported so.
  PmuConfig pmu{};
  pmu.events[0] = 257;
  pmu.events[1] = 261;
  pmu.cycle_count = 1;
  const ResultStatus st = run_op(dev, j, pmu, "OP with PMU events 257 and 261", true);
  check(st.pmu_config.events[0] == 1 && st.pmu_config.events[1] == 5,
        "PMU events reported as the kernel's u8: " + std::to_string(st.pmu_config.events[0]) + ", " +
            std::to_string(st.pmu_config.events[1]));
  if (!g_functional)
    check(st.pmu_count.events[0] > 0 && st.pmu_count.events[1] > 0 && st.pmu_count.events[1] <= st.pmu_count.events[0],
          "PMU events 257 and 261 count CYCLE and NPU_ACTIVE");

  // Three IFM buffers of 4 GiB each (of zeros: a layout of no tensors, the arena and flash the stream reads): the
  // firmware reads only what the inference uses, so the client's memory does not grow by them.
  {
    rusage before{}, after{};
    getrusage(RUSAGE_SELF, &before);
    Buf nb(dev, static_cast<uint32_t>(j.payload.size()));
    nb.put(0, j.payload);
    nb.set(0, static_cast<uint32_t>(j.payload.size()));
    const int net = network_of(dev, nb);
    const uint32_t huge = 0xFFFFF000u;
    std::vector<int> fds;
    for (int i = 0; i < 3; ++i) {
      BufferCreate req{huge};
      const int fd = ioctl(dev, IOCTL_BUFFER_CREATE, &req);
      check(fd >= 0, "BUFFER_CREATE of 4 GiB");
      Buffer all{0, huge};
      check(ioctl(fd, IOCTL_BUFFER_SET, &all) == 0, "BUFFER_SET of 4 GiB");
      fds.push_back(fd);
    }
    const uint32_t status = infer(net, fds, {}, INFERENCE_OP, {}, "three 4 GiB IFMs").status;
    check(status == STATUS_OK || status == STATUS_ERROR, "an inference over three 4 GiB IFM buffers ends");
    getrusage(RUSAGE_SELF, &after);
    check(after.ru_maxrss - before.ru_maxrss < 256 * 1024,
          "three 4 GiB IFMs grew the client by " + std::to_string((after.ru_maxrss - before.ru_maxrss) / 1024) + " MiB");
    for (int fd : fds) close(fd);
    close(net);
  }

  // fork(): the child's inference cannot run (the firmware thread is the parent's) and must end, in ERROR.
  const pid_t child = fork();
  if (child == 0) {
    const ResultStatus c = run_op(dev, j, {}, "OP inference in a fork child", false);
    _exit(c.status == STATUS_ERROR && g_failures == 0 ? 0 : 1);
  }
  int status = 0;
  check(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0,
        "the fork child's inference ended in ERROR");
  run_op(dev, j, {}, "OP after the fork, in the parent", true);
  close(dev);
  std::printf("robustness: PMU u8 events, arenas with room, 4 GiB IFMs, fork child: %s (%d failed checks)\n",
              g_failures ? "FAILED" : "PASSED", g_failures);
  return g_failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);  // every check's line reaches the log even if the shim kills the process
  const char* functional_env = std::getenv("ETHOSU_SIM_FUNCTIONAL");
  g_functional = functional_env && std::string(functional_env) == "1";
  if (argc == 4 && std::string(argv[1]) == "--robustness") return robustness(argv[2], argv[3]);
  if (argc == 5 && std::string(argv[1]) == "--model") return run_model(argv[2], argv[3], argv[4]);
  fs::path shared;
  bool u65_512 = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--u65-512") u65_512 = true;
    else shared = a;
  }
  if (const char* env = std::getenv("ETHOSU_SIM_SHARED_DIR"); env && *env) shared = env;
  if (shared.empty() || !fs::is_directory(shared / "corpus")) {
    std::printf("SKIP: no conformance corpus at '%s' (set ETHOSU_SIM_SHARED_DIR)\n", shared.c_str());
    return 77;
  }
  const int dev = open("/dev/ethosu0", O_RDWR | O_NONBLOCK);
  if (dev < 0) {
    std::printf("FAIL: cannot open /dev/ethosu0 (%s); run under LD_PRELOAD=libethosu-sim-nxp.so\n",
                std::strerror(errno));
    return 1;
  }
  interface_tests(dev, u65_512);

  std::vector<Case> cases;
  for (const auto& e : fs::directory_iterator(shared / "corpus")) {
    const fs::path dir = u65_512 ? e.path() / "u65_512" : e.path();
    if (!fs::is_regular_file(dir / "manifest.json")) continue;
    std::ifstream f(dir / "manifest.json");
    cases.push_back(Case{dir, nlohmann::json::parse(f)});
  }
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.dir < b.dir; });
  int model_runnable = 0, model_exact = 0, op_exact = 0;
  for (const Case& c : cases) {
    model_runnable += c.m["vela"]["ops_after_vela_rewrite"]["cpu"].get<int>() == 0;
    model_tests(dev, c, model_exact);
    op_tests(dev, c, op_exact);
  }
  int cop2_exact = 0;
  for (size_t k = 0; k < cases.size() && k < 3; ++k) op_tests(dev, cases[k], cop2_exact, false, true);
  check(cop2_exact == static_cast<int>(std::min<size_t>(cases.size(), 3)), "COP2 payloads run bit-exact in OP mode");
  for (const Case& c : cases) {
    const fs::path other = u65_512 ? c.dir.parent_path() : c.dir / "u65_512";
    if (!fs::is_regular_file(other / "manifest.json")) continue;
    std::ifstream f(other / "manifest.json");
    int unused = 0;
    op_tests(dev, Case{other, nlohmann::json::parse(f)}, unused, true);
    break;
  }
  for (const Case& c : cases)
    if (c.m["vela"]["ops_after_vela_rewrite"]["cpu"].get<int>() == 0) {
      cancel_test(dev, c);
      break;
    }
  close(dev);
  std::printf("MODEL mode: %d of %d NPU-only models bit-exact; OP mode: %d of %zu payloads bit-exact\n", model_exact,
              model_runnable, op_exact, cases.size());
  check(!cases.empty(), "the corpus has cases");
  std::printf("%s (%d failed checks)\n", g_failures ? "FAILED" : "PASSED", g_failures);
  return g_failures ? 1 : 0;
}
