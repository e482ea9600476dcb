// run: execute a job on the simulator and write (and check) its outputs.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>

#include "host/recording/capture.h"
#include "host/cli/args.h"
#include "host/cli/commands.h"
#include "host/cli/machine_options.h"
#include "host/firmware/cpu_ops.h"
#include "sim/files.h"
#include "host/run/job.h"
#include "host/formats/payload.h"
#include "host/run/report.h"
#include "host/run/run_job.h"
#include "host/config/config.h"
#include "host/config/system_config.h"
#include "models/npu/npu.h"
#include "isa/architecture.h"
#include "isa/registers.h"
#include "models/kernels/weight_cache.h"
#include "sim/error.h"

namespace ethosu::cli {

const std::string kRunHelp =
    std::string(
    "usage: ethosu-sim run CASE_DIR [--out DIR]\n"
    "       ethosu-sim run STREAM --region N=FILE[:SIZE] ... [--input R:OFFSET=FILE ...]\n"
    "                             [--dump R:OFFSET:SIZE=FILE ...]\n"
    "       ethosu-sim run MODEL_vela.tflite [--input [NAME=]FILE ...] [--out DIR]\n"
    "\n"
    "Runs a command stream on the simulated NPU and writes what it leaves in memory.\n"
    "\n"
    "CASE_DIR   a folder with manifest.json, cmdstream.bin, region files and inputs (the conformance\n"
    "           corpus layout): regions are laid out as the manifest says, inputs placed, the stream\n"
    "           run, and output<k>.bin written to --out (default: the current folder) in the order of the\n"
    "           manifest's outputs. When expected outputs exist they are compared: exact, or the number\n"
    "           and largest difference of mismatching bytes. Also a compilation folder CASE/<accelerator> of\n"
    "           the U55 and U85 corpora: Vela's model_vela.tflite for that configuration, run on the inputs\n"
    "           CASE/info.json names, its outputs compared with the expected ones by tensor name.\n"
    "STREAM     a bare command stream or a COP1/COP2 driver payload, with:\n"
    "  --region N=FILE[:SIZE]   region N (0-7) loaded from FILE, optionally enlarged to SIZE bytes;\n"
    "  --region N=:SIZE         or SIZE zero bytes (K, M, G suffixes allowed)\n"
    "  --input R:OFFSET=FILE    copy FILE into region R at byte OFFSET before the run\n"
    "  --dump R:OFFSET:SIZE=FILE  write SIZE bytes of region R at OFFSET to FILE after the run\n"
    "MODEL      a Vela-compiled .tflite whose graph is one ethos-u operator: region 0 = flash tensor,\n"
    "           1 = arena, 2 = fast scratch (3 = inputs, 4 = outputs when compiled with\n"
    "           --separate-io-regions). --input FILE fills the next input in the model's graph-input order\n"
    "           (as TFLite takes them), --input NAME=FILE the input tensor NAME; each input is placed at its\n"
    "           offline-planned offset and the mapping is printed. Outputs go to --out as output<k>.bin in\n"
    "           the model's output order, each listed with its tensor name. CPU operators after it that\n"
    "           NXP's firmware runs (DEQUANTIZE, TFLite_Detection_PostProcess: SSD-style models) then run on\n"
    "           the host, and the graph's outputs go to --out as graph_output<k>.bin; any other CPU\n"
    "           operator is an error naming it.\n"
    "\n"
    "  --out DIR       where output<k>.bin files go (created if needed)\n"
    "  --allow-outside-case  let a case's manifest name files outside its folder (by default they must lie\n"
    "                  inside it, or inside its parent case for a nested build such as u65_512/)\n"
    "  --vela-layers FILE  name the operations' layers from Vela's register listing (vela_cmdstream.txt) or\n"
    "                  per-layer CSV (vela_per_layer.csv); by default those beside a case or model are read\n"
    "\n"
    "The job runs on the cycle-level SystemC platform, driven through the NPU's registers the way the\n"
    "Linux and Arm core drivers do, and prints a table of cycles per operation. Machine:\n")
    + kMachineOptionsHelp +
    std::string(
    "  --list-params        print every parameter with its value, unit, meaning and range, and exit\n"
    "  --list-variants      print every NPU configuration the simulator models, and exit\n"
    "Results:\n"
    "  --pmu EVENT,...      PMU events for the event counters, 4 (U55, U65) or 8 (U85) (names such as MAC_ACTIVE or ids)\n"
    "  --list-pmu-events    print every PMU event with its id, whether the model counts it and its meaning, and exit\n"
    "  --report FILE.json   totals, per-operation cycles, traffic, stalls, PMU and the resolved config\n"
    "  --trace FILE.json    a Chrome/Perfetto trace: operations on CC and DMA, OFM tiles on WD, MAC and AO,\n"
    "                       traffic per operation on AXI0 and AXI1 (open in ui.perfetto.dev)\n"
    "  --functional         the functional model: the same command-controller engine without time, the same\n"
    "                       outputs, faults and STATUS, no cycles\n"
    "  --capture DIR        write a capture of the submission and its results to DIR, for 'ethosu-sim replay'\n"
    "                       (host/recording/CAPTURE.md); also when the NPU faults\n"
    "\n"
    "exit status: 0 ran (and matched), 1 the NPU faulted or an output differs, 2 usage or input error\n");

namespace {

uint32_t parse_region(const std::string& s, const std::string& opt) {
  if (s.size() != 1 || s[0] < '0' || s[0] > '7') throw UsageError(opt + ": region must be 0-7, got '" + s + "'");
  return static_cast<uint32_t>(s[0] - '0');
}

// "R:OFFSET" or "R:OFFSET:SIZE" at ':', an event list at ','; empty pieces are kept.
std::vector<std::string> split(const std::string& s, char separator) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == separator) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

// A model whose NPU part is followed by CPU operators the firmware runs (host/firmware/cpu_ops.h): runs them on the arena
// the job left and writes each graph output as graph_output<k>.bin (float32 for detection post-processing).
void write_graph_outputs(const std::filesystem::path& model, const host::Job& job, const std::filesystem::path& out_dir) {
  host::NpuFile file = host::read_npu_file(host::read_npu_file_bytes(model), model.string());
  host::size_cpu_outputs(*file.model);
  const host::VelaModel& vm = *file.model;
  if (vm.cpu_operators.empty()) return;
  std::vector<uint8_t> arena = job.regions[1];
  arena.resize(host::arena_bytes(vm));
  host::run_cpu_operators(vm, arena, model.string());
  const host::TfliteSubgraph& sg = vm.model.subgraphs.at(vm.ethosu_operators.front().subgraph);
  std::cout << "CPU operators:";
  for (const auto& op : vm.cpu_operators) std::cout << " " << op.name;
  std::cout << "\n";
  for (size_t k = 0; k < sg.outputs.size(); ++k) {
    const auto index = static_cast<uint32_t>(sg.outputs[k]);
    const host::TfliteTensor& t = sg.tensors.at(index);
    const auto offset = host::arena_offset(vm, index);
    const uint64_t bytes = host::tflite_tensor_bytes(t, model.string());
    if (!offset) throw InputError(model.string() + ": graph output '" + t.name + "' has no place in the arena");
    const std::filesystem::path path = out_dir / ("graph_output" + std::to_string(k) + ".bin");
    sim::write_file(path.string(), std::vector<uint8_t>(arena.begin() + *offset, arena.begin() + *offset + bytes));
    std::cout << "graph output " << k << " (" << t.name << "): " << bytes << " bytes -> " << path.string() << "\n";
  }
}

}  // namespace

int run_run(const std::vector<std::string>& argv) {
  std::vector<OptionSpec> specs = machine_option_specs(ALL_MACHINE_OPTIONS);
  specs.insert(specs.end(), {{"--out", "", true, false},
                {"--region", "", true, true},
                {"--input", "", true, true},
                {"--dump", "", true, true},
                {"--list-params", "", false, false},
                {"--list-pmu-events", "", false, false},
                {"--list-variants", "", false, false},
                {"--pmu", "", true, false},
                {"--report", "", true, false},
                {"--trace", "", true, false},
                {"--functional", "", false, false},
                {"--allow-outside-case", "", false, false},
                {"--vela-layers", "", true, false},
                {"--capture", "", true, false}});
  Args a(argv, specs);
  if (a.flag("--list-params")) {
    const sim::Config config = host::make_config();  // outlives the loop: params() points into it
    for (const auto* p : config.params())
      std::cout << p->name() << " = " << p->value_text() << (p->unit().empty() ? "" : " " + p->unit()) << "  # "
                << p->description() << "; " << p->range_text() << "\n";
    return 0;
  }
  if (a.flag("--list-variants")) {
    for (isa::Variant v : isa::variants()) {
      const isa::Architecture& arch = isa::architecture(v);
      // Micro-blocks as width x height x depth (Vela's Block order); the U85 has several, and RAMs for a SHRAM.
      std::string ublocks;
      for (const auto& m : arch.microblocks)
        ublocks += (ublocks.empty() ? "" : ", ") + std::to_string(m.second.w) + "x" + std::to_string(m.second.h) + "x" +
                   std::to_string(m.second.d);
      if (ublocks.empty())
        ublocks = std::to_string(arch.ofm_ublock.w) + "x" + std::to_string(arch.ofm_ublock.h) + "x" +
                  std::to_string(arch.ofm_ublock.d);
      const auto kib = [](unsigned bytes) {
        return bytes % 1024 ? std::to_string(bytes / 1024) + "." + std::to_string(bytes % 1024 * 100 / 1024)
                            : std::to_string(bytes / 1024);
      };
      const std::string memory =
          arch.shram_banks ? "SHRAM " + std::to_string(arch.shram_banks) + " KiB per core"
                           : "IFM " + kib(arch.buffers.ifm_bytes) + " / accumulator " + kib(arch.buffers.acc_bytes) +
                                 " / output " + kib(arch.buffers.ob_bytes) + " / chaining " + kib(arch.buffers.cb_bytes) +
                                 " / LUT " + kib(arch.buffers.lut_bytes) + " KiB, " +
                                 std::to_string(arch.weight_decoders) + " weight decoder(s), " +
                                 std::to_string(arch.axi_sram_ports) + " SRAM + " + std::to_string(arch.axi_ext_ports) +
                                 " external AXI ports";
      std::cout << arch.name << "  # " << arch.describe() << ": " << arch.cores << " core(s), OFM micro-block"
                << (arch.microblocks.size() > 1 ? "s " : " ") << ublocks << ", " << memory << ", "
                << arch.axi_bytes_per_beat * 8 << "-bit AXI, " << arch.address_bits << "-bit addresses, default system "
                << arch.default_system << "\n";
    }
    return 0;
  }
  if (a.flag("--list-pmu-events")) {
    // The events of the configuration --variant names (the U55's and U65's list by default).
    const isa::Variant v = a.value("--variant") ? host::variant_named(*a.value("--variant"), "--variant")
                                                : isa::kDefaultVariant;
    for (const isa::PmuEventInfo* e : isa::architecture(v).pmu_events) {
      if (e->event == isa::PmuEvent::NO_EVENT) continue;
      std::cout << e->name << " = " << e->hw_id << "  # "
                << (host::pmu_event_modelled(e->hw_id, v) ? "" : "not modelled (counts 0): ") << e->description << "\n";
    }
    return 0;
  }
  a.expect_positionals(1, 1, "CASE_DIR, STREAM or MODEL");
  const std::filesystem::path target = a.positionals()[0];
  const bool is_dir = std::filesystem::is_directory(target);
  const bool is_tflite = !is_dir && target.extension() == ".tflite";

  host::Job job;
  if (is_dir) {
    if (!a.values("--region").empty() || !a.values("--input").empty() || !a.values("--dump").empty())
      throw UsageError("--region, --input and --dump are for raw streams, not case folders");
    job = host::job_from_folder(target, a.flag("--allow-outside-case"));
  } else if (is_tflite) {
    if (!a.values("--region").empty() || !a.values("--dump").empty())
      throw UsageError("--region and --dump are for raw streams; a .tflite brings its own regions");
    job = host::job_from_tflite(target, a.values("--input"));
    for (const auto& line : job.input_mapping) std::cout << line << "\n";
  } else {
    if (a.value("--out")) throw UsageError("--out is for case folders and models; raw streams use --dump");
    std::vector<host::RegionArg> regions;
    for (const auto& r : a.values("--region")) {
      auto [n, spec] = split_assignment(r, "--region");
      host::RegionArg ra;
      ra.region = parse_region(n, "--region");
      const auto colon = spec.rfind(':');
      std::string file = spec, size;
      if (colon != std::string::npos) {
        file = spec.substr(0, colon);
        size = spec.substr(colon + 1);
      }
      if (!file.empty()) ra.file = file;
      if (!size.empty()) ra.size_bytes = parse_size(size, "--region " + n);
      if (!ra.file && !ra.size_bytes) throw UsageError("--region " + n + ": give FILE, FILE:SIZE or :SIZE");
      regions.push_back(ra);
    }
    std::vector<host::PlacementArg> inputs, dumps;
    for (const auto& in : a.values("--input")) {
      auto [where, file] = split_assignment(in, "--input");
      auto parts = split(where, ':');
      if (parts.size() != 2) throw UsageError("--input expects R:OFFSET=FILE, got '" + in + "'");
      inputs.push_back({parse_region(parts[0], "--input"), parse_size(parts[1], "--input offset"), 0, file});
    }
    for (const auto& d : a.values("--dump")) {
      auto [where, file] = split_assignment(d, "--dump");
      auto parts = split(where, ':');
      if (parts.size() != 3) throw UsageError("--dump expects R:OFFSET:SIZE=FILE, got '" + d + "'");
      dumps.push_back({parse_region(parts[0], "--dump"), parse_size(parts[1], "--dump offset"),
                       parse_size(parts[2], "--dump size"), file});
    }
    if (regions.empty()) throw UsageError("a raw stream needs at least one --region");
    job = host::job_from_stream(target, regions, inputs, dumps);
  }
  if (const auto layers = a.value("--vela-layers")) {
    host::name_job_layers(job, std::filesystem::path(*layers), {});
    std::cerr << "ethosu-sim run: " << job.layers_note << "\n";
  }
  host::RunOptions options;
  options.timed = !a.flag("--functional");
  const host::MachineRequest request = machine_request(a, ALL_MACHINE_OPTIONS);
  const sim::Config config = host::resolve_config(request, job.variant);
  if (request.system && !request.vela_ini.empty()) {
    host::VelaIni ini;
    for (const auto& f : request.vela_ini) ini.add_file(f);
    for (const auto& w : ini.ignored_keys(*request.system, request.memory_mode.value_or("Dedicated_Sram")))
      std::cerr << "ethosu-sim run: warning: " << w << "\n";
  }
  job.variant = config.param("npu.variant").as_string();
  if (const auto warning = host::check_variant(job, config, request.allow_variant_mismatch))
    std::cerr << "ethosu-sim run: warning: " << *warning << "\n";
  options = host::run_options(config, options.timed);
  if (auto pmu = a.value("--pmu")) {
    if (!options.timed) throw UsageError("--pmu needs the timed platform (drop --functional)");
    host::PmuSelection sel;
    try {
      sel = host::parse_pmu_events(split(*pmu, ','), host::variant_named(job.variant, "npu.variant"));
    } catch (const InputError& e) {
      throw UsageError(std::string("--pmu: ") + e.what());
    }
    for (const auto& name : sel.not_modelled)
      std::cerr << "ethosu-sim run: warning: PMU event " << name << " is not modelled and will count 0\n";
    options.pmu_events = sel.events;
  }
  if ((a.value("--report") || a.value("--trace")) && !options.timed)
    throw UsageError("--report and --trace need the timed platform (drop --functional)");
  sim::Trace trace;
  if (auto path = a.value("--trace")) {
    trace.open(*path, "ethosu-sim: " + job.name + " on " + job.variant);
    options.trace = &trace;
  }

  // The capture needs the regions as submitted; run_job() leaves the results in the job.
  std::optional<std::array<std::vector<uint8_t>, isa::kRegionCount>> regions_before;
  if (auto dir = a.value("--capture")) {
    host::check_capture_dir(*dir);
    regions_before = job.regions;
  }
  // This process runs one job once: weights that only one operation uses need not stay cached.
  kernels::WeightCache::shared().set_admit_on_reuse(true);
  const host::RunOutcome outcome = host::run_job(job, options);
  trace.close();
  if (trace.dropped())
    std::cerr << "ethosu-sim run: warning: the trace holds its first " << sim::Trace::kDefaultMaxEvents
              << " events; " << trace.dropped() << " more were dropped\n";
  if (auto dir = a.value("--capture")) {
    host::write_capture(*dir, host::capture_run("cli", *regions_before, job, options, outcome, config));
    std::cout << "capture -> " << *dir << "\n";
  }
  std::cout << outcome.summary;
  if (outcome.report) {
    std::cout << host::summary_table(*outcome.report);
    if (auto path = a.value("--report"))
      sim::write_text_file(*path, host::report_json(*outcome.report, config.to_json()));
  }
  if (outcome.fault) {
    std::cerr << "ethosu-sim run: NPU fault: " << *outcome.fault << "\n";
    return 1;
  }

  const std::filesystem::path out_dir = a.value("--out").value_or(".");
  if (is_dir || is_tflite) std::filesystem::create_directories(out_dir);
  bool all_match = true;
  for (size_t k = 0; k < job.outputs.size(); ++k) {
    const auto& o = job.outputs[k];
    const auto bytes = job.output_bytes(o);
    const std::filesystem::path file = (is_dir || is_tflite) ? out_dir / ("output" + std::to_string(k) + ".bin")
                                                             : std::filesystem::path(o.name);
    sim::write_file(file.string(), bytes);
    std::cout << "output " << k << " (" << o.name << "): " << bytes.size() << " bytes -> " << file.string();
    if (o.expected) {
      const auto expect = sim::read_file(o.expected->string());
      const auto cmp = host::compare_bytes(bytes, expect, o.element_bytes, o.element_signed);
      std::cout << ": " << cmp.text;
      if (!cmp.exact) all_match = false;
    }
    std::cout << "\n";
  }
  if (is_tflite) write_graph_outputs(target, job, out_dir);
  return all_match ? 0 : 1;
}

}  // namespace ethosu::cli
