#include "host/run/report.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <string_view>
#include <tuple>
#include <vector>

#include "host/run/json_writer.h"

namespace ethosu::host {

namespace {

// The names of an enum's values 0..N-1, in name order: the report's objects keep their keys sorted, as nlohmann's do.
struct Named {
  size_t index;
  std::string_view name;
};

template <size_t N, typename NameOf>
std::array<Named, N> by_name(NameOf name_of) {
  std::array<Named, N> names;
  for (size_t k = 0; k < N; ++k) names[k] = {k, name_of(k)};
  std::sort(names.begin(), names.end(), [](const Named& a, const Named& b) { return a.name < b.name; });
  return names;
}

const std::array<Named, isa::kAccessCount>& access_keys() {
  static const auto names = by_name<isa::kAccessCount>([](size_t k) { return isa::access_key(static_cast<isa::Access>(k)); });
  return names;
}

const std::array<Named, npu::kStallKinds>& stall_names() {
  static const auto names = by_name<npu::kStallKinds>([](size_t k) { return npu::stall_name(static_cast<npu::Stall>(k)); });
  return names;
}

const std::array<Named, npu::kOpTimeKinds>& op_time_names() {
  static const auto names =
      by_name<npu::kOpTimeKinds>([](size_t k) { return npu::op_time_name(static_cast<npu::OpTime>(k)); });
  return names;
}

// {"name": value, ...} of the entries that are not zero: cycles by cause, bytes by traffic class.
template <size_t N>
void write_nonzero(JsonWriter& w, const std::array<uint64_t, N>& values, const std::array<Named, N>& names) {
  w.begin_object();
  for (const auto& [k, name] : names)
    if (values[k]) {
      w.key(name);
      w.value(values[k]);
    }
  w.end_object();
}

// {"axi0": {"read_bytes": {...}, "write_bytes": {...}}, "axi1": ...}
void write_traffic(JsonWriter& w, const std::array<npu::PortTraffic, 2>& ports) {
  w.begin_object();
  for (size_t p = 0; p < ports.size(); ++p) {
    w.key(p == 0 ? "axi0" : "axi1");
    w.begin_object();
    w.key("read_bytes");
    write_nonzero(w, ports[p].read_bytes, access_keys());
    w.key("write_bytes");
    write_nonzero(w, ports[p].write_bytes, access_keys());
    w.end_object();
  }
  w.end_object();
}

void write_triple(JsonWriter& w, const std::array<uint32_t, 3>& v) {
  w.begin_array();
  for (const uint32_t x : v) w.value(uint64_t{x});
  w.end_array();
}

void write_op(JsonWriter& w, size_t index, const npu::OpRecord& op) {
  const bool kernel = op.kind != "DMA";
  w.begin_object();
  if (kernel) {
    w.key("block_config");
    write_triple(w, op.block_config);
    w.key("busy_cycles");
    w.begin_object();
    w.key("ao");
    w.value(op.ao_busy_cycles);
    w.key("mac");
    w.value(op.mac_busy_cycles);
    w.key("wd");
    w.value(op.wd_busy_cycles);
    w.end_object();
  }
  w.key("cycles");
  w.value(op.cycles());
  w.key("end_cycle");
  w.value(op.end_cycle);
  w.key("exclusive_cycles");
  write_nonzero(w, op.exclusive_cycles, op_time_names());
  if (kernel) {
    w.key("held_cycles");
    write_nonzero(w, op.held_cycles, stall_names());
  }
  w.key("index");
  w.value(uint64_t{index});
  w.key("kind");
  w.value(op.kind);
  if (!op.layer.empty()) {
    w.key("layer");
    w.value(op.layer);
  }
  if (kernel) {
    w.key("mac_utilisation");
    w.value(op.mac_utilisation);
    w.key("macs");
    w.value(op.macs);
  }
  w.key("offset");
  w.value(uint64_t{op.offset});
  if (kernel) {
    w.key("ofm_shape");
    write_triple(w, op.ofm_shape);
  }
  w.key("stall_cycles");
  write_nonzero(w, op.stall_cycles, stall_names());
  w.key("start_cycle");
  w.value(op.start_cycle);
  if (kernel) {
    w.key("tiles");
    w.value(op.tiles);
  }
  w.key("traffic");
  write_traffic(w, op.ports);
  w.end_object();
}

// {"npu.mac": {"active_cycles": {"description", "unit", "value"}, ...}, ...}, as sim::Stats writes it. Sorted by
// block, then statistic: the paths' own order differs where a block's name continues with a character below '.'.
void write_stats(JsonWriter& w, const std::map<std::string, npu::StatValue>& stats) {
  struct Entry {
    std::string_view block, name;
    const npu::StatValue* stat;
  };
  std::vector<Entry> entries;
  entries.reserve(stats.size());
  for (const auto& [path, v] : stats) {
    const std::string_view p = path;
    const size_t dot = p.rfind('.');
    entries.push_back({p.substr(0, dot), p.substr(dot + 1), &v});  // no dot: the path is both
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return std::tie(a.block, a.name) < std::tie(b.block, b.name); });
  w.begin_object();
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    if (i == 0 || e.block != entries[i - 1].block) {
      if (i) w.end_object();
      w.key(e.block);
      w.begin_object();
    }
    w.key(e.name);
    w.begin_object();
    w.key("description");
    w.value(e.stat->description);
    w.key("unit");
    w.value(e.stat->unit);
    w.key("value");
    w.value(e.stat->value);
    w.end_object();
  }
  if (!entries.empty()) w.end_object();
  w.end_object();
}

template <size_t N>
uint64_t sum(const std::array<uint64_t, N>& a) {
  uint64_t s = 0;
  for (uint64_t v : a) s += v;
  return s;
}

// {"controller": {"parse": n, <wait cause>: n, ...}, "operations": {<OpTime>: n, ...}}: the exclusive breakdown
// of total_cycles, non-zero entries only.
void write_time_breakdown(JsonWriter& w, const npu::JobReport& r) {
  std::vector<std::pair<std::string_view, uint64_t>> controller;
  if (r.controller_parse_cycles) controller.emplace_back("parse", r.controller_parse_cycles);
  for (size_t k = 0; k < npu::kStallKinds; ++k)
    if (r.controller_wait_cycles[k])
      controller.emplace_back(npu::stall_name(static_cast<npu::Stall>(k)), r.controller_wait_cycles[k]);
  std::sort(controller.begin(), controller.end());
  w.begin_object();
  w.key("controller");
  w.begin_object();
  for (const auto& [name, cycles] : controller) {
    w.key(name);
    w.value(cycles);
  }
  w.end_object();
  w.key("operations");
  write_nonzero(w, r.op_time_cycles, op_time_names());
  w.end_object();
}

}  // namespace

std::string report_json(const npu::JobReport& r, const nlohmann::json& config) {
  std::string out;
  out.reserve(4096 + 600 * r.ops.size());  // about what an operation takes
  JsonWriter w(out);
  w.begin_object();
  w.key("cc_stall_cycles");
  write_nonzero(w, r.cc_stall_cycles, stall_names());
  w.key("clock_hz");
  w.value(r.clock_hz);
  w.key("config");
  w.value(config);
  w.key("hazards");
  w.begin_array();
  for (const auto& h : r.hazards) w.value(h);
  w.end_array();
  w.key("host");
  w.begin_object();
  w.key("dma_seconds");
  w.value(r.host.dma);
  w.key("kernels_seconds");
  w.value(r.host.kernels);
  w.key("timing_seconds");
  w.value(r.host.timing);
  w.key("total_seconds");
  w.value(r.host.total);
  w.key("weights_seconds");
  w.value(r.host.weights);
  w.end_object();
  w.key("ops");
  w.begin_array();
  for (size_t i = 0; i < r.ops.size(); ++i) write_op(w, i, r.ops[i]);
  w.end_array();
  w.key("ops_not_listed");
  w.value(r.ops_not_listed);
  w.key("pmu");
  w.begin_object();
  for (const auto& [name, value] : r.pmu) {
    w.key(name);
    w.value(value);
  }
  w.end_object();
  w.key("stats");
  write_stats(w, r.stats);
  w.key("status");
  w.value(r.status);
  w.key("time_breakdown");
  write_time_breakdown(w, r);
  w.key("time_s");
  w.value(r.clock_hz > 0 ? double(r.total_cycles) / r.clock_hz : 0.0);
  w.key("total_cycles");
  w.value(r.total_cycles);
  w.key("traffic");
  write_traffic(w, r.ports);
  w.end_object();
  out += '\n';
  return out;
}

namespace {

// The table's cells without printf, which costs about 2,000 instructions a call: a job of a few hundred operations
// (an unrolled LSTM) spent a tenth of its `run` process printing them.
void pad_to(std::string& out, size_t start, size_t width, bool left) {
  const size_t len = out.size() - start;
  if (len >= width) return;
  if (left)
    out.append(width - len, ' ');
  else
    out.insert(start, width - len, ' ');
}

template <typename Number>
void append_number(std::string& out, Number v, int base = 10) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, v, base).ptr;
  out.append(digits, end);
}

}  // namespace

std::string summary_table(const npu::JobReport& r) {
  std::string out;
  char line[256];
  // A layer column when Vela's files named the operations: the layer's first name (TFLite joins the names of
  // fused tensors with ';'; the report has them all).
  const bool layers =
      std::any_of(r.ops.begin(), r.ops.end(), [](const npu::OpRecord& op) { return !op.layer.empty(); });
  std::snprintf(line, sizeof line, layers ? "%4s %8s  %-22s %-16s %10s %10s %6s  %-11s %-24s %s\n"
                                          : "%4s %8s  %-22s %-16s %10s %10s %6s  %-11s %s%s\n",
                "#", "offset", "operation", "OFM HxWxC", "cycles", "exclusive", "MAC%", "mostly", "largest stall",
                layers ? "layer" : "");
  out += line;
  const uint64_t macs = r.stat("npu.mac.macs");
  out.reserve(out.size() + r.ops.size() * 90);
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const auto& op = r.ops[i];
    const bool dma = op.kind == "DMA";
    // "%4zu %#8x  %-22s %-16s %10llu %10llu %6s  %-11s %s\n"
    size_t start = out.size();
    append_number(out, i);
    pad_to(out, start, 4, false);
    out += ' ';
    start = out.size();
    if (op.offset) out += "0x";  // as %#x: no prefix for zero
    append_number(out, op.offset, 16);
    pad_to(out, start, 8, false);
    out += "  ";
    start = out.size();
    out += op.kind;
    pad_to(out, start, 22, true);
    out += ' ';
    start = out.size();
    if (!dma) {
      append_number(out, op.ofm_shape[0]);
      out += 'x';
      append_number(out, op.ofm_shape[1]);
      out += 'x';
      append_number(out, op.ofm_shape[2]);
    }
    pad_to(out, start, 16, true);
    out += ' ';
    start = out.size();
    append_number(out, static_cast<unsigned long long>(op.cycles()));
    pad_to(out, start, 10, false);
    out += ' ';
    start = out.size();
    append_number(out, static_cast<unsigned long long>(op.exclusive()));
    pad_to(out, start, 10, false);
    out += ' ';
    start = out.size();
    if (!dma) {
      char util[32];
      const auto end = std::to_chars(util, util + sizeof util, 100.0 * op.mac_utilisation, std::chars_format::fixed, 1).ptr;
      out.append(util, end);
    }
    pad_to(out, start, 6, false);
    out += "  ";
    start = out.size();
    const auto mostly = std::max_element(op.exclusive_cycles.begin(), op.exclusive_cycles.end());
    out += *mostly ? npu::op_time_name(static_cast<npu::OpTime>(mostly - op.exclusive_cycles.begin())) : "-";
    pad_to(out, start, 11, true);
    out += ' ';
    start = out.size();
    const auto worst = std::max_element(op.stall_cycles.begin(), op.stall_cycles.end());
    if (*worst) {
      out += npu::stall_name(static_cast<npu::Stall>(worst - op.stall_cycles.begin()));
      out += ' ';
      append_number(out, *worst);
    } else {
      out += '-';
    }
    if (layers) {
      pad_to(out, start, 24, true);
      out += ' ';
      out += std::string_view(op.layer).substr(0, op.layer.find(';'));
    }
    out += '\n';
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
  // The exclusive breakdown, which adds up to the total.
  std::string time = "time by cause (each cycle once):";
  const auto share = [&](const char* name, uint64_t cycles) {
    if (!cycles) return;
    std::snprintf(line, sizeof line, " %s %llu (%.1f%%)", name, static_cast<unsigned long long>(cycles),
                  r.total_cycles ? 100.0 * double(cycles) / double(r.total_cycles) : 0.0);
    time += line;
  };
  for (size_t k = 0; k < npu::kOpTimeKinds; ++k)
    share(npu::op_time_name(static_cast<npu::OpTime>(k)), r.op_time_cycles[k]);
  time += "; controller alone:";
  share("parse", r.controller_parse_cycles);
  for (size_t k = 0; k < npu::kStallKinds; ++k)
    share(npu::stall_name(static_cast<npu::Stall>(k)), r.controller_wait_cycles[k]);
  out += time + "\n";
  std::string waits;
  for (size_t k = 0; k < npu::kStallKinds; ++k)
    if (r.cc_stall_cycles[k])
      waits += std::string(" ") + npu::stall_name(static_cast<npu::Stall>(k)) + " " + std::to_string(r.cc_stall_cycles[k]);
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
