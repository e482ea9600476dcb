#include "host/report.h"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace ethosu::host {

namespace {

nlohmann::json traffic_json(const timing::PortTraffic& t) {
  nlohmann::json read = nlohmann::json::object(), write = nlohmann::json::object();
  for (size_t k = 0; k < isa::kAccessCount; ++k) {
    const char* name = isa::access_key(static_cast<isa::Access>(k));
    if (t.read_bytes[k]) read[name] = t.read_bytes[k];
    if (t.write_bytes[k]) write[name] = t.write_bytes[k];
  }
  return {{"read_bytes", read}, {"write_bytes", write}};
}

uint64_t sum(const std::array<uint64_t, isa::kAccessCount>& a) {
  uint64_t s = 0;
  for (uint64_t v : a) s += v;
  return s;
}

}  // namespace

nlohmann::json report_json(const timing::JobReport& r, const nlohmann::json& config) {
  nlohmann::json ops = nlohmann::json::array();
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const auto& op = r.ops[i];
    nlohmann::json stalls = nlohmann::json::object();
    for (size_t k = 0; k < timing::kStallKinds; ++k)
      if (op.stall_cycles[k]) stalls[timing::stall_name(static_cast<timing::Stall>(k))] = op.stall_cycles[k];
    nlohmann::json o = {{"index", i},
                        {"offset", op.offset},
                        {"kind", op.kind},
                        {"start_cycle", op.start_cycle},
                        {"end_cycle", op.end_cycle},
                        {"cycles", op.cycles()},
                        {"traffic", {{"axi0", traffic_json(op.ports[0])}, {"axi1", traffic_json(op.ports[1])}}},
                        {"stall_cycles", std::move(stalls)}};
    if (op.kind != "DMA") {
      o["ofm_shape"] = op.ofm_shape;
      o["block_config"] = op.block;
      o["blocks"] = op.blocks;
      o["macs"] = op.macs;
      o["mac_utilisation"] = op.mac_utilisation;
      o["busy_cycles"] = {{"mac", op.mac_busy_cycles}, {"ao", op.ao_busy_cycles}, {"wd", op.wd_busy_cycles}};
    }
    ops.push_back(std::move(o));
  }
  nlohmann::json cc = nlohmann::json::object();
  for (size_t k = 0; k < timing::kStallKinds; ++k)
    if (r.cc_stall_cycles[k]) cc[timing::stall_name(static_cast<timing::Stall>(k))] = r.cc_stall_cycles[k];
  // {"npu.mac": {"active_cycles": {"value", "unit", "description"}, ...}, ...}, as sim::Stats writes it.
  nlohmann::json stats = nlohmann::json::object();
  for (const auto& [path, v] : r.stats) {
    const size_t dot = path.rfind('.');
    stats[path.substr(0, dot)][path.substr(dot + 1)] = {{"value", v.value}, {"unit", v.unit}, {"description", v.description}};
  }
  return {{"total_cycles", r.total_cycles},
          {"clock_hz", r.clock_hz},
          {"time_s", r.clock_hz > 0 ? double(r.total_cycles) / r.clock_hz : 0.0},
          {"status", r.status},
          {"ops", std::move(ops)},  // moved: the ops are most of a report, and a copy doubles its cost
          {"ops_not_listed", r.ops_not_listed},
          {"traffic", {{"axi0", traffic_json(r.ports[0])}, {"axi1", traffic_json(r.ports[1])}}},
          {"cc_stall_cycles", std::move(cc)},
          {"pmu", r.pmu},
          {"stats", std::move(stats)},
          {"hazards", r.hazards},
          {"host",
           {{"total_seconds", r.host.total},
            {"weights_seconds", r.host.weights},
            {"kernels_seconds", r.host.kernels},
            {"dma_seconds", r.host.dma},
            {"timing_seconds", r.host.timing}}},
          {"config", config}};
}

std::string summary_table(const timing::JobReport& r) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%4s %8s  %-22s %-16s %10s %6s  %s\n", "#", "offset", "operation", "OFM HxWxC",
                "cycles", "MAC%", "largest stall");
  out += line;
  const uint64_t macs = r.stat("npu.mac.macs");
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const auto& op = r.ops[i];
    char shape[48] = "";
    if (op.kind != "DMA")
      std::snprintf(shape, sizeof shape, "%ux%ux%u", op.ofm_shape[0], op.ofm_shape[1], op.ofm_shape[2]);
    const auto worst = std::max_element(op.stall_cycles.begin(), op.stall_cycles.end());
    std::string stall = "-";
    if (*worst) stall = std::string(timing::stall_name(static_cast<timing::Stall>(worst - op.stall_cycles.begin()))) + " " +
                        std::to_string(*worst);
    char util[16] = "";
    if (op.kind != "DMA") std::snprintf(util, sizeof util, "%.1f", 100.0 * op.mac_utilisation);
    std::snprintf(line, sizeof line, "%4zu %#8x  %-22s %-16s %10llu %6s  %s\n", i, op.offset, op.kind.c_str(), shape,
                  static_cast<unsigned long long>(op.cycles()), util, stall.c_str());
    out += line;
  }
  if (r.ops_not_listed) out += "(" + std::to_string(r.ops_not_listed) + " more operations not listed)\n";
  const double us = r.clock_hz > 0 ? 1e6 * double(r.total_cycles) / r.clock_hz : 0.0;
  // Whole MHz for real NPU clocks; a what-if clock below 1 MHz keeps its significant digits.
  char clock[32];
  if (r.clock_hz >= 1e6)
    std::snprintf(clock, sizeof clock, "%.0f MHz", r.clock_hz / 1e6);
  else
    std::snprintf(clock, sizeof clock, "%.6g Hz", r.clock_hz);
  std::snprintf(line, sizeof line, "total: %llu cycles = %.1f us at %s, %llu MACs\n",
                static_cast<unsigned long long>(r.total_cycles), us, clock, static_cast<unsigned long long>(macs));
  out += line;
  std::string waits;
  for (size_t k = 0; k < timing::kStallKinds; ++k)
    if (r.cc_stall_cycles[k])
      waits += std::string(" ") + timing::stall_name(static_cast<timing::Stall>(k)) + " " + std::to_string(r.cc_stall_cycles[k]);
  if (!waits.empty()) out += "command controller waits:" + waits + "\n";
  for (unsigned p = 0; p < 2; ++p) {
    std::snprintf(line, sizeof line, "AXI%u: %llu bytes read, %llu bytes written\n", p,
                  static_cast<unsigned long long>(sum(r.ports[p].read_bytes)),
                  static_cast<unsigned long long>(sum(r.ports[p].write_bytes)));
    out += line;
  }
  if (!r.pmu.empty()) {
    out += "PMU:";
    for (const auto& [name, value] : r.pmu) out += " " + name + "=" + std::to_string(value);
    out += "\n";
  }
  return out;
}

}  // namespace ethosu::host
