#include "host/backends/nxp/nxp_inference.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <memory>

#include "host/firmware/cpu_ops.h"
#include "host/formats/payload.h"
#include "host/run/run_job.h"
#include "host/config/config.h"
#include "isa/architecture.h"
#include "isa/decoder.h"
#include "isa/registers.h"
#include "isa/validator.h"
#include "sim/error.h"

namespace ethosu::nxp {

namespace {

// The NPU the shim simulates: the variant the configuration resolves to with no job-specific variant.
std::string device_variant(const host::ShimSettings& settings) {
  return host::resolve_config(settings.request, isa::variant_name(isa::kDefaultVariant)).param("npu.variant").as_string();
}

std::string bytes_text(uint64_t n) { return std::to_string(n) + " bytes"; }

struct Tensor {
  uint64_t size_bytes = 0;
  uint32_t arena_offset = 0;  // in `region`
  uint32_t region = 1;        // the arena, or the input / output region of a --separate-io-regions model
};

// A Vela model as the firmware's TFLM interpreter sees it: the NPU operator and the graph's inputs and outputs
// with their arena offsets.
struct ModelPlan {
  host::VelaModel model;
  host::EthosuOperator op;
  uint64_t arena_bytes = 0;  // the NPU's scratch and what the CPU operators exchange (host/firmware/cpu_ops.h)
  std::vector<Tensor> inputs, outputs;
  // Variable (state) tensors in the arena and the byte TFLM's AllocateTensors() resets them to: the zero point
  // for int8, 0 otherwise (tflite::ResetVariableTensor).
  std::vector<std::pair<Tensor, uint8_t>> variables;
};

ModelPlan plan_model(const std::vector<uint8_t>& network) {
  host::NpuFile file = host::read_npu_file(network, "network buffer");
  if (file.kind != host::NpuFileKind::TFLITE) throw InputError("network buffer: not a .tflite model");
  ModelPlan plan;
  plan.model = std::move(*file.model);
  host::size_cpu_outputs(plan.model);
  const host::VelaModel& vm = plan.model;
  // The firmware's resolver: ethos-u, DEQUANTIZE and detection post-processing; any other operator fails.
  host::check_cpu_operators(vm, "network buffer");
  if (!vm.offline_plan) throw InputError("network buffer: no OfflineMemoryAllocation metadata (not a Vela model)");
  plan.op = vm.ethosu_operators.front();
  plan.arena_bytes = host::arena_bytes(vm);
  const host::TfliteSubgraph& sg = vm.model.subgraphs.at(plan.op.subgraph);
  const bool separate = plan.op.payload.separate_io_regions;
  auto describe = [&](const std::vector<int32_t>& indices, const char* what, uint32_t separate_region) {
    std::vector<Tensor> out;
    for (int32_t i : indices) {
      if (i < 0 || static_cast<size_t>(i) >= sg.tensors.size())
        throw InputError(std::string("network buffer: graph ") + what + " tensor index out of range");
      const auto offset = host::arena_offset(vm, static_cast<uint32_t>(i));
      if (!offset)
        throw InputError(std::string("network buffer: graph ") + what + " '" + sg.tensors[i].name +
                         "' has no offline-planned arena offset");
      out.push_back({host::tflite_tensor_bytes(sg.tensors[i], "network buffer"), *offset, separate ? separate_region : 1});
    }
    return out;
  };
  plan.inputs = describe(sg.inputs, "input", host::kSeparateInputRegion);
  plan.outputs = describe(sg.outputs, "output", host::kSeparateOutputRegion);
  for (size_t i = 0; i < sg.tensors.size(); ++i) {
    const host::TfliteTensor& t = sg.tensors[i];
    if (!t.is_variable) continue;
    const auto offset = vm.offline_plan->offset_of(vm.model, plan.op.subgraph, static_cast<uint32_t>(i));
    if (!offset) continue;  // planned by the interpreter, outside what the NPU sees
    const bool int8 = t.type == static_cast<int>(host::TfliteType::INT8);
    const auto value = static_cast<uint8_t>(int8 && !t.zero_point.empty() ? t.zero_point.front() : 0);
    plan.variables.push_back({{host::tflite_tensor_bytes(t, "network buffer"), *offset}, value});
  }
  return plan;
}

// Memory the firmware provides itself (its tensor arena in per-tensor MODEL mode, its fast memory), checked
// before it is allocated so that a hostile model cannot claim unbounded host memory. The i.MX 93 firmware's own
// arena is a few MiB of Cortex-M33 memory; the simulated one allows far more [I: 256 MiB].
constexpr uint64_t kFirmwareArenaBytes = uint64_t{256} << 20;

struct MemoryLimit {
  uint64_t bytes;
  const char* name;
};

std::vector<uint8_t> firmware_memory(uint64_t bytes, const MemoryLimit& limit, const std::string& what) {
  if (bytes > limit.bytes)
    throw InputError(what + " of " + bytes_text(bytes) + " does not fit the " + limit.name + " of " +
                     bytes_text(limit.bytes));
  return std::vector<uint8_t>(bytes, 0);
}

constexpr MemoryLimit kFirmwareArena{kFirmwareArenaBytes, "firmware's tensor arena"};

// The fast memory that replaces region 2: the on-chip SRAM the shim reports (ETHOSU_SIM_SRAM_SIZE or the preset's).
MemoryLimit fast_memory(const host::ShimSettings& settings) {
  if (!settings.sram_size_bytes) return {kFirmwareArenaBytes, "firmware's memory"};
  return {settings.sram_size_bytes, "fast memory (on-chip SRAM)"};
}

void place(std::vector<uint8_t>& arena, const Tensor& t, const std::vector<uint8_t>& data, const std::string& what) {
  if (data.size() != t.size_bytes)
    throw InputError(what + ": " + bytes_text(data.size()) + ", the model's input has " + bytes_text(t.size_bytes));
  if (t.arena_offset + t.size_bytes > arena.size())
    throw InputError(what + ": arena offset " + std::to_string(t.arena_offset) + " + " + bytes_text(t.size_bytes) +
                     " lies outside the arena of " + bytes_text(arena.size()));
  std::copy(data.begin(), data.end(), arena.begin() + t.arena_offset);
}

struct Prepared {
  host::Job job;
  std::optional<host::VelaModel> cpu_model;  // MODEL: CPU operators to run on the arena after the job
  bool arena_in_ifm = false;        // ifm[0] holds the arena (region 1) and gets it back
  std::vector<uint8_t> arena_before;  // its bytes as read, to tell what the inference changed
  std::vector<Tensor> outputs;      // MODEL: copied into the OFM buffers
  std::vector<Tensor> arena_outputs;  // MODEL: the graph outputs in the arena
  std::vector<std::pair<uint64_t, uint64_t>> arena_results;  // OP: the bytes of the arena the stream may write
  bool profiling = false;           // OP: ofm[0] receives a QreadEvent
};

// Reads the IFM buffers for one inference, never more than kMaxJobRegionBytes in all.
class IfmReader {
 public:
  explicit IfmReader(const InferenceRequest& r) : r_(r) {}
  size_t count() const { return r_.ifm_window_bytes.size(); }
  uint64_t window(size_t k) const { return r_.ifm_window_bytes.at(k); }
  // A buffer's data: the first `size` bytes of its window.
  uint64_t data_bytes(size_t k) const {
    return k < r_.ifm_sizes.size() ? std::min<uint64_t>(r_.ifm_sizes[k], window(k)) : 0;
  }
  std::vector<uint8_t> read(size_t k, uint64_t bytes) {
    bytes = std::min(bytes, window(k));
    read_bytes_ += bytes;
    if (read_bytes_ > host::kMaxJobRegionBytes)
      throw InputError("the inference reads " + bytes_text(read_bytes_) + " of its IFM buffers or more, over the " +
                       bytes_text(host::kMaxJobRegionBytes) + " the simulator copies for one inference");
    std::vector<uint8_t> out = r_.read_ifm(k, bytes);
    if (out.size() != bytes) throw InputError("ifm[" + std::to_string(k) + "] could not be read");
    return out;
  }

 private:
  const InferenceRequest& r_;
  uint64_t read_bytes_ = 0;
};

// Per region, the end of the bytes `stream` reaches (0 where it uses none) and the [begin, end) of those it may
// write (OFM and DMA destinations), walked as on two cores, which reach every byte one core would.
struct StreamReach {
  std::array<uint64_t, isa::kRegionCount> end{};
  std::array<std::pair<uint64_t, uint64_t>, isa::kRegionCount> written{};
};

StreamReach stream_reach(const std::vector<uint8_t>& stream) {
  isa::ValidatorOptions both_cores;
  both_cores.variant = isa::most_cores(isa::kDefaultVariant);  // NXP's NPU: the i.MX 93's U65
  const isa::Report report = isa::validate(isa::decode(stream), both_cores);
  const auto end = [](const isa::Extent& e) { return e.used && e.end > 0 ? static_cast<uint64_t>(e.end) : 0; };
  StreamReach reach;
  for (unsigned r = 0; r < isa::kRegionCount; ++r) {
    reach.end[r] = end(report.region_extent(r));
    const isa::Extent w = report.writes(r);
    reach.written[r] = {static_cast<uint64_t>(std::max<int64_t>(w.lowest, 0)), end(w)};
  }
  return reach;
}

Prepared prepare_model(const InferenceRequest& r, const host::ShimSettings& settings, IfmReader& ifms) {
  ModelPlan plan = plan_model(r.network);
  Prepared p;
  p.job.name = "MODEL inference";
  p.job.stream = plan.op.payload.command_stream;
  if (plan.op.payload.config) p.job.variant = plan.op.payload.config->accelerator();
  p.job.regions[0] = plan.op.flash;
  p.job.regions[2] = firmware_memory(plan.op.scratch_fast_bytes, fast_memory(settings), "fast scratch");
  // One IFM per graph input with exactly its size, and OFM buffers for the outputs: the firmware copies them into
  // and out of its own arena. Otherwise ifm[0] is the arena (it then also receives the outputs).
  bool per_input = ifms.count() == plan.inputs.size() && ifms.count() != 0 && !r.ofm_free_bytes.empty();
  for (size_t i = 0; per_input && i < ifms.count(); ++i) per_input = ifms.data_bytes(i) == plan.inputs[i].size_bytes;
  size_t first_input_ifm = 0;
  if (plan.op.payload.separate_io_regions) {
    if (!per_input && ifms.count() != 0)
      throw InputError("the model keeps its inputs and outputs in regions of their own (--separate-io-regions), "
                       "not in the arena: give one IFM buffer per input and OFM buffers for the outputs");
    p.job.regions[host::kSeparateInputRegion] =
        firmware_memory(plan.op.input_region_bytes, kFirmwareArena, "input region");
    p.job.regions[host::kSeparateOutputRegion] =
        firmware_memory(plan.op.output_region_bytes, kFirmwareArena, "output region");
  }
  if (per_input || ifms.count() == 0) {
    p.job.regions[1] = firmware_memory(plan.arena_bytes, kFirmwareArena, "tensor arena");
  } else {
    if (ifms.count() != 1 && ifms.count() != plan.inputs.size() + 1)
      throw InputError(std::to_string(ifms.count()) + " IFM buffers for a model with " +
                       std::to_string(plan.inputs.size()) + " input(s): give one per input, or the arena first");
    if (ifms.data_bytes(0) < plan.arena_bytes)
      throw InputError("arena buffer (ifm[0]) has " + bytes_text(ifms.data_bytes(0)) + ", the model needs " +
                       bytes_text(plan.arena_bytes));
    // The model's arena, and any further bytes the stream reaches: the rest of the buffer is the client's.
    p.job.regions[1] =
        ifms.read(0, std::min(ifms.data_bytes(0), std::max(plan.arena_bytes, stream_reach(p.job.stream).end[1])));
    p.arena_in_ifm = true;
    first_input_ifm = 1;
  }
  // The firmware builds a new interpreter for every inference: its variable tensors start from their reset value,
  // whatever the arena held before.
  for (const auto& [t, value] : plan.variables) {
    if (t.arena_offset + t.size_bytes > p.job.regions[1].size())
      throw InputError("variable tensor at arena offset " + std::to_string(t.arena_offset) + " lies outside the arena");
    std::fill_n(p.job.regions[1].begin() + t.arena_offset, t.size_bytes, value);
  }
  for (size_t i = first_input_ifm; i < ifms.count(); ++i)
    place(p.job.regions[plan.inputs[i - first_input_ifm].region], plan.inputs[i - first_input_ifm],
          ifms.read(i, ifms.data_bytes(i)), "ifm[" + std::to_string(i) + "]");
  if (!r.ofm_free_bytes.empty() && r.ofm_free_bytes.size() != plan.outputs.size())
    throw InputError(std::to_string(r.ofm_free_bytes.size()) + " OFM buffers for a model with " +
                     std::to_string(plan.outputs.size()) + " output(s)");
  for (size_t i = 0; i < r.ofm_free_bytes.size(); ++i) {
    if (r.ofm_free_bytes[i] < plan.outputs[i].size_bytes)
      throw InputError("ofm[" + std::to_string(i) + "] has room for " + bytes_text(r.ofm_free_bytes[i]) +
                       ", the output has " + bytes_text(plan.outputs[i].size_bytes));
    if (plan.outputs[i].arena_offset + plan.outputs[i].size_bytes > p.job.regions[plan.outputs[i].region].size())
      throw InputError("output " + std::to_string(i) + " lies outside the arena");
  }
  p.outputs = r.ofm_free_bytes.empty() ? std::vector<Tensor>{} : plan.outputs;
  for (const Tensor& t : plan.outputs)
    if (t.region == 1) p.arena_outputs.push_back(t);
  if (!plan.model.cpu_operators.empty()) p.cpu_model = std::move(plan.model);
  return p;
}

Prepared prepare_op(const InferenceRequest& r, const host::ShimSettings& settings, IfmReader& ifms) {
  const host::DriverPayload payload = host::parse_driver_payload(r.network, "network buffer (driver payload)");
  if (ifms.count() < 2 || ifms.count() > 3)
    throw InputError("OP mode takes 2 or 3 IFM buffers (arena, layout, optional flash), got " +
                     std::to_string(ifms.count()));
  if (r.ofm_free_bytes.size() > 1)
    throw InputError("OP mode takes at most one OFM buffer (profiling), got " + std::to_string(r.ofm_free_bytes.size()));
  if (ifms.window(1) < kLayoutHeaderBytes) throw InputError("layout buffer (ifm[1]) is shorter than its header");
  const std::vector<uint8_t> header = ifms.read(1, kLayoutHeaderBytes);
  uint32_t n_in = 0, n_out = 0;
  std::memcpy(&n_in, header.data(), 4);
  std::memcpy(&n_out, header.data() + 4, 4);
  const uint64_t n = uint64_t{n_in} + n_out + 3;
  if (ifms.window(1) < kLayoutHeaderBytes + n * kLayoutEntryBytes)
    throw InputError("layout buffer (ifm[1]) has " + bytes_text(ifms.window(1)) + ", " + std::to_string(n) +
                     " base pointers need " + bytes_text(kLayoutHeaderBytes + n * kLayoutEntryBytes));
  const std::vector<uint8_t> layout = ifms.read(1, kLayoutHeaderBytes + n * kLayoutEntryBytes);
  Prepared p;
  p.job.name = "OP inference";
  p.job.stream = payload.command_stream;
  if (payload.config) p.job.variant = payload.config->accelerator();
  // The arena and the flash as far as the stream reaches into them: the firmware hands the NPU pointers, and the
  // NPU touches nothing else (beyond a buffer's end the stream faults, as before).
  const StreamReach reach = stream_reach(p.job.stream);
  p.job.regions[1] = ifms.read(0, reach.end[1]);
  p.arena_in_ifm = true;
  p.job.regions[0] = ifms.read(ifms.count() == 3 ? 2 : 0, reach.end[0]);
  if (reach.written[1].second > reach.written[1].first) p.arena_results.push_back(reach.written[1]);
  // base_addr_size[2] is the fast scratch the firmware's fast memory replaces.
  uint32_t fast_bytes = 0;
  std::memcpy(&fast_bytes, layout.data() + kLayoutHeaderBytes + 2 * 4, 4);
  p.job.regions[2] = firmware_memory(fast_bytes, fast_memory(settings), "fast scratch (layout base_addr_size[2])");
  p.profiling = !r.ofm_free_bytes.empty();
  return p;
}

struct Ran {
  bool ok = false;
  std::string fault;
  uint32_t status_reg = 0;
  uint64_t cycles = 0;
  std::array<uint32_t, isa::kMaxEventCounters> events{};  // the U65's first 4
  bool timed = false;
  uint32_t regioncfg = 0;
  std::map<std::string, std::string> parameters;
};

Ran execute(host::Job& job, const host::ShimSettings& settings, const std::array<uint16_t, isa::kMaxEventCounters>& hw_events) {
  const sim::Config config = host::resolve_config(settings.request, job.variant);
  Ran ran;
  for (const sim::Param* p : config.params())
    if (p->source() != sim::Source::DEFAULT) ran.parameters[p->name()] = p->value_text();
  ran.timed = !settings.functional;
  host::RunOptions options = host::run_options(config, ran.timed);
  ran.regioncfg = options.regioncfg;
  // Region 2 is the fast memory the shim already sized to its limit, whatever mem.sram.size_bytes says.
  options.sram_size_bytes = fast_memory(settings).bytes;
  if (options.timed) options.pmu_events = hw_events;
  const host::RunOutcome out = host::run_job(job, options);
  ran.ok = !out.fault;
  if (out.fault) ran.fault = *out.fault;
  ran.status_reg = out.status;
  ran.cycles = out.cycle_counter;
  ran.events = out.event_counters;
  return ran;
}

}  // namespace

InferenceResult run_inference(const InferenceRequest& r, const host::ShimSettings& settings) {
  InferenceResult res;
  // The kernel's message to the firmware carries each event number as a u8: 257 counts, and reports, event 1.
  res.pmu_config = r.pmu;
  for (uint32_t& event : res.pmu_config.events) event = static_cast<uint8_t>(event);
  res.ofm_appended.resize(r.ofm_free_bytes.size());
  try {
    if (r.network_is_index) throw InputError("the firmware has no built-in networks (index network)");
    IfmReader ifms(r);
    Prepared p = r.inference_type == INFERENCE_OP ? prepare_op(r, settings, ifms) : prepare_model(r, settings, ifms);
    if (p.arena_in_ifm) p.arena_before = p.job.regions[1];
    const std::string npu = device_variant(settings);
    if (p.job.variant != npu)
      throw InputError("the network was compiled for " + p.job.variant + ", the NPU is " + npu);
    // Driver-API event indices to the hardware ids the firmware programs; an unknown index counts nothing.
    std::array<uint16_t, isa::kMaxEventCounters> hw{};
    for (size_t i = 0; i < kPmuEventMax; ++i) {
      const isa::PmuEventInfo* e = isa::find_pmu_event_by_driver_index(static_cast<uint16_t>(res.pmu_config.events[i]));
      hw[i] = e ? e->hw_id : 0;
    }
    host::Capture cap;
    cap.source = "nxp-ethosu";
    cap.variant = p.job.variant;
    cap.stream = p.job.stream;
    cap.regions_before = p.job.regions;
    if (!p.job.regions[2].empty()) cap.sram_region = 2;

    const Ran ran = execute(p.job, settings, hw);
    cap.timed = ran.timed;
    if (ran.timed) cap.pmu_events = hw;  // the functional model has no PMU
    cap.regioncfg = ran.regioncfg;
    cap.parameters = ran.parameters;
    cap.regions_after[1] = p.job.regions[1];
    cap.regions_after[2] = p.job.regions[2];
    cap.regions_after[host::kSeparateOutputRegion] = p.job.regions[host::kSeparateOutputRegion];
    cap.status = ran.status_reg;
    cap.cycle_counter = ran.cycles;
    cap.event_counters = ran.events;
    res.capture = std::move(cap);
    if (!ran.ok) {
      res.message = "NPU fault: " + ran.fault;
      return res;
    }
    if (p.cpu_model) host::run_cpu_operators(*p.cpu_model, p.job.regions[1], "network buffer");
    if (p.arena_in_ifm) {
      res.arena_results = p.arena_results;
      for (const Tensor& t : p.arena_outputs) res.arena_results.push_back({t.arena_offset, t.arena_offset + t.size_bytes});
      res.arena = ArenaChange{std::move(p.arena_before), std::move(p.job.regions[1])};
    }
    for (size_t i = 0; i < p.outputs.size(); ++i) {
      const auto begin = p.job.regions[p.outputs[i].region].begin() + p.outputs[i].arena_offset;
      res.ofm_appended[i].assign(begin, begin + static_cast<std::ptrdiff_t>(p.outputs[i].size_bytes));
    }
    for (size_t i = 0; i < kPmuEventMax; ++i) res.pmu_count.events[i] = hw[i] ? ran.events[i] : 0;
    res.pmu_count.cycle_count = r.pmu.cycle_count ? ran.cycles : 0;
    if (p.profiling && r.ofm_free_bytes[0] >= sizeof(QreadEvent)) {
      // One sample at the end of the job: QREAD has reached the end of the stream.
      QreadEvent e{};
      e.cycle_count = ran.cycles;
      e.qread = static_cast<uint32_t>(p.job.stream.size());
      e.status = ran.status_reg;
      for (size_t i = 0; i < kPmuEventMax; ++i) e.pmu[i] = {res.pmu_config.events[i], res.pmu_count.events[i]};
      const auto* bytes = reinterpret_cast<const uint8_t*>(&e);
      res.ofm_appended[0].assign(bytes, bytes + sizeof e);
    }
    res.status = STATUS_OK;
  } catch (const std::exception& e) {  // InputError, or anything the run throws: the firmware reports ERROR
    res.message = e.what();
    res.pmu_count = {};
    res.arena.reset();
    res.arena_results.clear();
    res.ofm_appended.assign(r.ofm_free_bytes.size(), {});
  }
  return res;
}

void InferenceRequest::hold_ifms(std::vector<std::vector<uint8_t>> ifms) {
  const auto held = std::make_shared<const std::vector<std::vector<uint8_t>>>(std::move(ifms));
  ifm_window_bytes.clear();
  for (size_t k = 0; k < held->size(); ++k) {
    ifm_window_bytes.push_back((*held)[k].size());
    if (ifm_sizes.size() <= k) ifm_sizes.push_back((*held)[k].size());
  }
  read_ifm = [held](size_t k, uint64_t bytes) {
    const std::vector<uint8_t>& b = held->at(k);
    return std::vector<uint8_t>(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(std::min<uint64_t>(bytes, b.size())));
  };
}

std::optional<NetworkInfoV2> network_info(const std::vector<uint8_t>& network) {
  try {
    host::NpuFile file = host::read_npu_file(network, "network buffer");
    if (file.kind == host::NpuFileKind::DRIVER_PAYLOAD) return NetworkInfoV2{};
    if (file.kind != host::NpuFileKind::TFLITE || file.model->model.subgraphs.empty()) return std::nullopt;
    host::size_cpu_outputs(*file.model);
    const host::VelaModel& vm = *file.model;
    const host::TfliteSubgraph& sg = vm.model.subgraphs.front();
    if (sg.inputs.size() > kFdMax || sg.outputs.size() > kFdMax) return std::nullopt;
    // Where the tensor is in the arena: as the firmware lays it out for a model it runs, else Vela's plan.
    const bool runnable = vm.ethosu_operators.size() == 1 && [&] {
      try {
        host::check_cpu_operators(vm, "network buffer");
        return true;
      } catch (const InputError&) {
        return false;
      }
    }();
    const auto arena_offset = [&](uint32_t t) {
      return (runnable ? host::arena_offset(vm, t) : vm.offline_plan->offset_of(vm.model, 0, t)).value_or(0);
    };
    NetworkInfoV2 info{};
    std::snprintf(info.desc, sizeof info.desc, "%s", vm.model.description.c_str());  // the firmware's answer
    info.is_vela = vm.ethosu_operators.empty() ? 0 : 1;
    auto fill = [&](const std::vector<int32_t>& indices, uint32_t& count, uint32_t* size, uint32_t* type,
                    uint32_t* offset, uint32_t* dims, uint32_t (*shape)[kDimMax]) {
      count = static_cast<uint32_t>(indices.size());
      for (size_t k = 0; k < indices.size(); ++k) {
        const int32_t t = indices[k];
        if (t < 0 || static_cast<size_t>(t) >= sg.tensors.size()) throw InputError("tensor index out of range");
        const host::TfliteTensor& tensor = sg.tensors[t];
        const uint64_t bytes = host::tflite_tensor_bytes(tensor, "network buffer");
        if (bytes > UINT32_MAX) throw InputError("tensor too large");
        size[k] = static_cast<uint32_t>(bytes);
        type[k] = static_cast<uint32_t>(tensor.type);
        if (vm.offline_plan) offset[k] = arena_offset(static_cast<uint32_t>(t));
        dims[k] = static_cast<uint32_t>(std::min<size_t>(tensor.shape.size(), kDimMax));
        for (size_t d = 0; d < dims[k]; ++d) shape[k][d] = static_cast<uint32_t>(tensor.shape[d]);
      }
    };
    fill(sg.inputs, info.ifm_count, info.ifm_size, info.ifm_types, info.ifm_offset, info.ifm_dims, info.ifm_shapes);
    fill(sg.outputs, info.ofm_count, info.ofm_size, info.ofm_types, info.ofm_offset, info.ofm_dims, info.ofm_shapes);
    return info;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

DeviceCapabilities capabilities(const host::ShimSettings& settings) {
  // The i.MX 93 firmware's reply (spec 06 §5.1): the NPU's ID and CONFIG fields, core driver 0.16.0.
  const isa::Architecture& arch = isa::architecture(*isa::parse_variant(device_variant(settings)));
  using isa::RegField;
  DeviceCapabilities c{};
  c.hw_id.version_status = isa::get(arch.id, RegField::ID_version_status);
  c.hw_id.version_minor = isa::get(arch.id, RegField::ID_version_minor);
  c.hw_id.version_major = isa::get(arch.id, RegField::ID_version_major);
  c.hw_id.product_major = isa::get(arch.id, RegField::ID_product_major);
  c.hw_id.arch_major_rev = isa::get(arch.id, RegField::ID_arch_major_rev);
  c.hw_id.arch_minor_rev = isa::get(arch.id, RegField::ID_arch_minor_rev);
  c.hw_id.arch_patch_rev = isa::get(arch.id, RegField::ID_arch_patch_rev);
  c.hw_cfg.macs_per_cc = isa::get(arch.config, RegField::CONFIG_macs_per_cc);
  c.hw_cfg.cmd_stream_version = 0;
  c.hw_cfg.custom_dma = 0;
  c.driver_major_rev = 0;
  c.driver_minor_rev = 16;
  c.driver_patch_rev = 0;
  return c;
}

}  // namespace ethosu::nxp
