#include "corpus/golden_record.h"

#include <cstdio>
#include <map>
#include <optional>

#include "host/run/run_job.h"
#include "host/config/config.h"
#include "isa/access.h"

namespace ethosu::test {

using nlohmann::json;

host::RunOutcome run_of(const GoldenCase& c, const std::vector<std::string>& assignments) {
  host::Job job = c.load(c.source);
  // As cmd_run.cpp configures a run: the job's variant, the default system, then --set.
  host::MachineRequest request;
  request.assignments = assignments;
  const sim::Config config = host::resolve_config(request, job.variant);
  job.variant = config.param("npu.variant").as_string();
  host::RunOptions options = host::run_options(config);
  options.pmu_events = host::parse_pmu_events({kRecordedPmuEvents.begin(), kRecordedPmuEvents.end()}).events;
  return host::run_job(job, options);
}

json record_of(const GoldenCase& c, const std::vector<std::string>& assignments) {
  const host::RunOutcome outcome = run_of(c, assignments);
  const npu::JobReport& report = *outcome.report;

  json record = json::object();
  record["status"] = outcome.fault.value_or("ok");
  record["total_cycles"] = report.total_cycles;
  json& ops = record["ops"] = json::array();
  for (const npu::OpRecord& op : report.ops)
    ops.push_back(
        {{"offset", op.offset}, {"kind", op.kind}, {"start_cycle", op.start_cycle}, {"end_cycle", op.end_cycle}});
  json& pmu = record["pmu"];
  pmu["PMCCNTR"] = outcome.cycle_counter;
  for (size_t k = 0; k < kRecordedPmuEvents.size(); ++k)
    pmu["PMEVCNTR" + std::to_string(k) + " " + kRecordedPmuEvents[k]] = outcome.event_counters[k];
  json& stats = record["stats"] = json::object();
  for (const auto& [path, stat] : report.stats) stats[path] = stat.value;
  json& axi_bytes = record["axi_bytes"];
  for (size_t p = 0; p < report.ports.size(); ++p) {
    json& port = axi_bytes["axi" + std::to_string(p)];
    for (size_t k = 0; k < isa::kAccessCount; ++k) {
      const char* traffic_class = isa::access_key(static_cast<isa::Access>(k));
      port["read"][traffic_class] = report.ports[p].read_bytes[k];
      port["write"][traffic_class] = report.ports[p].write_bytes[k];
    }
  }
  return record;
}

namespace {

void write_value(std::string& out, const json& v, const std::string& indent, bool one_line) {
  const bool container = v.is_object() || v.is_array();
  if (!container || v.empty()) {
    out += v.dump();
    return;
  }
  const char* separator = one_line ? ", " : ",\n";
  const std::string inner = one_line ? "" : indent + " ";
  out += v.is_object() ? '{' : '[';
  if (!one_line) out += '\n';
  bool first = true;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!first) out += separator;
    first = false;
    out += inner;
    if (v.is_object()) out += json(it.key()).dump() + ": ";
    // An array's elements (the operations) each take one line: a diff then names the operations that changed.
    write_value(out, *it, inner, one_line || v.is_array());
  }
  if (!one_line) out += '\n' + indent;
  out += v.is_object() ? '}' : ']';
}

// The operations by stream offset, when every element is one and no offset repeats (offsets identify the NPU_OP_*
// commands): an operation added or removed then shows alone rather than shifting every later one.
std::optional<std::map<uint64_t, const json*>> by_offset(const json& elements) {
  std::map<uint64_t, const json*> ops;
  for (const json& e : elements) {
    if (!e.is_object() || !e.contains("offset") || !e["offset"].is_number_unsigned() || !e.contains("kind") ||
        !e["kind"].is_string())
      return {};
    if (!ops.emplace(e["offset"].get<uint64_t>(), &e).second) return {};
  }
  return ops;
}

// " (offset 0x1a4, CONV)": the operation a difference comes from, as the disassembly and the run table name it.
std::string op_label(uint64_t offset, const json& op) {
  char hex[32];
  std::snprintf(hex, sizeof hex, "%#llx", static_cast<unsigned long long>(offset));
  return std::string(" (offset ") + hex + ", " + op["kind"].get<std::string>() + ")";
}

void differences(const json& expected, const json& actual, const std::string& path, std::vector<std::string>& out) {
  static const json absent;  // null: a record holds no nulls
  auto text = [](const json& v) { return v.is_null() ? std::string("absent") : v.dump(); };
  if (expected.is_object() && actual.is_object()) {
    json keys = json::object();  // the union of both sides' keys, sorted
    for (auto it = expected.begin(); it != expected.end(); ++it) keys[it.key()] = true;
    for (auto it = actual.begin(); it != actual.end(); ++it) keys[it.key()] = true;
    for (auto it = keys.begin(); it != keys.end(); ++it) {
      const json& e = expected.contains(it.key()) ? expected[it.key()] : absent;
      const json& a = actual.contains(it.key()) ? actual[it.key()] : absent;
      differences(e, a, path.empty() ? it.key() : path + "." + it.key(), out);
    }
  } else if (expected.is_array() && actual.is_array()) {
    if (expected.size() != actual.size())
      out.push_back(path + ": " + std::to_string(expected.size()) + " -> " + std::to_string(actual.size()) +
                    " elements");
    const auto expected_ops = by_offset(expected), actual_ops = by_offset(actual);
    if (expected_ops && actual_ops) {
      std::map<uint64_t, const json*> all = *expected_ops;
      all.insert(actual_ops->begin(), actual_ops->end());
      for (const auto& [offset, op] : all) {
        const auto e = expected_ops->find(offset), a = actual_ops->find(offset);
        differences(e == expected_ops->end() ? absent : *e->second, a == actual_ops->end() ? absent : *a->second,
                    path + op_label(offset, *op), out);
      }
      return;
    }
    for (size_t i = 0; i < std::max(expected.size(), actual.size()); ++i)
      differences(i < expected.size() ? expected[i] : absent, i < actual.size() ? actual[i] : absent,
                  path + "[" + std::to_string(i) + "]", out);
  } else if (expected != actual) {
    out.push_back(path + ": " + text(expected) + " -> " + text(actual));
  }
}

}  // namespace

std::string record_text(const json& record) {
  std::string out;
  write_value(out, record, "", false);
  out += '\n';
  return out;
}

std::vector<std::string> record_differences(const json& expected, const json& actual) {
  std::vector<std::string> out;
  differences(expected, actual, "", out);
  return out;
}

}  // namespace ethosu::test
