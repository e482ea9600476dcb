// The run report (host/run/report.h): the JSON's keys in the order and layout nlohmann writes them, every value; the
// text table's rows as printf would format them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "host/run/report.h"

namespace ethosu::host {
namespace {

// A report with every field set: all stall causes, all traffic classes, a DMA next to a kernel operation.
npu::JobReport full_report() {
  npu::JobReport r;
  r.total_cycles = 5000;
  r.clock_hz = 1e9;
  npu::OpRecord conv;
  conv.offset = 0x40;
  conv.kind = "CONV";
  conv.layer = "net/conv;fused";
  conv.ofm_shape = {7, 8, 9};
  conv.block_config = {2, 4, 16};
  conv.tiles = 12;
  conv.start_cycle = 10;
  conv.end_cycle = 1010;
  conv.macs = 123456;
  conv.mac_busy_cycles = 900;
  conv.ao_busy_cycles = 800;
  conv.wd_busy_cycles = 700;
  conv.mac_utilisation = 0.4821875;
  npu::OpRecord dma = conv;
  dma.kind = "DMA";
  dma.layer.clear();
  dma.exclusive_cycles[static_cast<size_t>(npu::OpTime::DMA)] = 321;
  for (size_t k = 0; k < npu::kStallKinds; ++k) {
    conv.stall_cycles[k] = 100 + k;
    conv.held_cycles[k] = 300 + k;
    r.cc_stall_cycles[k] = 200 + k;
    r.controller_wait_cycles[k] = 400 + k;
  }
  for (size_t k = 0; k < npu::kOpTimeKinds; ++k) {
    conv.exclusive_cycles[k] = 500 + k;
    r.op_time_cycles[k] = 600 + k;
  }
  r.controller_parse_cycles = 77;
  for (size_t p = 0; p < 2; ++p)
    for (size_t k = 0; k < isa::kAccessCount; ++k) {
      conv.ports[p].read_bytes[k] = 1000 * p + k + 1;
      conv.ports[p].write_bytes[k] = 2000 * p + k + 1;
      r.ports[p].read_bytes[k] = 3000 * p + k + 1;
    }
  r.ops = {conv, dma};
  r.ops_not_listed = 3;
  r.pmu = {{"PMCCNTR", 5000}, {"MAC_ACTIVE", 900}};
  // "npu.a-b.x" sorts before "npu.a.x" as a path but its block "npu.a-b" after "npu.a".
  r.stats = {{"npu.a.x", {1, "cycles", "the \"x\" of a"}}, {"npu.a-b.x", {2, "bytes", "x\\y"}},
             {"npu.a.y", {3, "", "line\nbreak"}}, {"nodot", {4, "u", "d"}}};
  r.hazards = {"read of \"dst\" at 0x10"};
  r.status = "ok";
  r.host = {1.5, 0.25, 0.5, 0.125, 0.0625};
  return r;
}

TEST(ReportJson, KeysSortedAndLaidOutAsNlohmannDumpsThem) {
  const std::string text = report_json(full_report(), {{"b", {{"value", 2}}}, {"a", "x"}});
  EXPECT_EQ(nlohmann::json::parse(text).dump(1) + "\n", text);
}

TEST(ReportJson, EveryValueReadsBack) {
  const auto j = nlohmann::json::parse(report_json(full_report(), nlohmann::json::object()));
  EXPECT_EQ(j["total_cycles"], 5000u);
  EXPECT_TRUE(j["clock_hz"].is_number_float());
  EXPECT_EQ(j["time_s"], 5e-6);
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["ops_not_listed"], 3u);
  EXPECT_EQ(j["host"]["kernels_seconds"], 0.5);
  EXPECT_EQ(j["pmu"]["MAC_ACTIVE"], 900u);
  EXPECT_EQ(j["hazards"][0], "read of \"dst\" at 0x10");
  EXPECT_EQ(j["cc_stall_cycles"][npu::stall_name(npu::Stall::CMD_FETCH)], 209u);
  EXPECT_EQ(j["cc_stall_cycles"].size(), npu::kStallKinds);
  EXPECT_EQ(j["traffic"]["axi1"]["read_bytes"]["weights"], 3004u);
  EXPECT_EQ(j["traffic"]["axi0"]["write_bytes"].size(), 0u);
  EXPECT_EQ(j["stats"]["npu.a"]["y"]["description"], "line\nbreak");
  EXPECT_EQ(j["stats"]["npu.a-b"]["x"]["unit"], "bytes");
  EXPECT_EQ(j["stats"]["nodot"]["nodot"]["value"], 4u);
  const auto& conv = j["ops"][0];
  EXPECT_EQ(conv["index"], 0u);
  EXPECT_EQ(conv["offset"], 0x40u);
  EXPECT_EQ(conv["kind"], "CONV");
  EXPECT_EQ(conv["cycles"], 1000u);
  EXPECT_EQ(conv["ofm_shape"], nlohmann::json({7, 8, 9}));
  EXPECT_EQ(conv["block_config"], nlohmann::json({2, 4, 16}));
  EXPECT_EQ(conv["mac_utilisation"], 0.4821875);
  EXPECT_EQ(conv["busy_cycles"], nlohmann::json({{"mac", 900}, {"ao", 800}, {"wd", 700}}));
  EXPECT_EQ(conv["stall_cycles"]["blockdep"], 100u);
  EXPECT_EQ(conv["held_cycles"]["shram_reconfig"], 301u);
  EXPECT_EQ(conv["exclusive_cycles"]["ifm_read"], 503u);
  EXPECT_EQ(conv["exclusive_cycles"].size(), npu::kOpTimeKinds);
  EXPECT_EQ(j["time_breakdown"]["operations"]["idle"], 607u);
  EXPECT_EQ(j["time_breakdown"]["controller"]["parse"], 77u);
  EXPECT_EQ(j["time_breakdown"]["controller"]["write_response"], 410u);
  EXPECT_EQ(j["time_breakdown"]["controller"].size(), 1 + npu::kStallKinds);
  EXPECT_EQ(conv["traffic"]["axi1"]["write_bytes"]["ifm"], 2001u);
  EXPECT_EQ(conv["layer"], "net/conv;fused");
  const auto& dma = j["ops"][1];
  EXPECT_EQ(dma["index"], 1u);
  EXPECT_EQ(dma["kind"], "DMA");
  EXPECT_EQ(dma["exclusive_cycles"]["dma"], 321u);
  EXPECT_FALSE(dma.contains("layer"));  // none known
  for (const char* kernel_only :
       {"ofm_shape", "block_config", "tiles", "macs", "mac_utilisation", "busy_cycles", "held_cycles"})
    EXPECT_FALSE(dma.contains(kernel_only)) << kernel_only;
  EXPECT_EQ(dma["stall_cycles"].size(), 0u);
}

// The table's rows are formatted by hand; they must read as this printf format writes them, field for field,
// including the edges: offset 0 (no 0x), cells wider than their columns, no stall, no exclusive cycles, utilisation
// not a number.
TEST(SummaryTable, RowsReadAsPrintfWritesThem) {
  npu::JobReport r;
  const auto add = [&](uint32_t offset, std::string kind, std::array<uint32_t, 3> shape, uint64_t cycles, double util,
                       size_t stall, uint64_t stall_cycles) {
    npu::OpRecord op;
    op.offset = offset;
    op.kind = std::move(kind);
    op.ofm_shape = shape;
    op.end_cycle = cycles;
    op.mac_utilisation = util;
    if (stall_cycles) op.stall_cycles[stall] = stall_cycles;
    // Some exclusive cycles, by a cause that varies with the row (none on the first).
    if (!r.ops.empty()) op.exclusive_cycles[r.ops.size() % npu::kOpTimeKinds] = cycles / 2;
    r.ops.push_back(op);
  };
  add(0, "CONV", {1, 1, 1}, 0, 0.0, 0, 0);
  add(0x124, "DMA", {}, 52838, 0.0, 0, 0);
  add(0xFFFFFFFF, "ELEMENTWISE.SHR_WITH_A_VERY_LONG_NAME", {4294967295u, 4294967295u, 4294967295u},
      std::numeric_limits<uint64_t>::max(), 1.0, npu::kStallKinds - 1, std::numeric_limits<uint64_t>::max());
  add(0x10bd0, "POOL.AVERAGE", {1, 49, 10}, 274, 0.0049999, 1, 64);
  add(0x40, "DEPTHWISE", {112, 112, 96}, 1234567890123ull, 0.05, 2, 7);
  add(0x48, "CONV", {7, 7, 1280}, 99, 0.12345, 0, 1);
  add(0x4c, "CONV", {7, 7, 1280}, 99, std::nan(""), 0, 0);
  add(0x50, "CONV", {7, 7, 1280}, 99, std::numeric_limits<double>::infinity(), 0, 0);
  std::istringstream table(summary_table(r));
  std::string row;
  std::getline(table, row);  // the heading
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const auto& op = r.ops[i];
    char shape[48] = "", util[16] = "", expected[512];
    if (op.kind != "DMA") {
      std::snprintf(shape, sizeof shape, "%ux%ux%u", op.ofm_shape[0], op.ofm_shape[1], op.ofm_shape[2]);
      std::snprintf(util, sizeof util, "%.1f", 100.0 * op.mac_utilisation);
    }
    const auto worst = std::max_element(op.stall_cycles.begin(), op.stall_cycles.end());
    const std::string stall =
        *worst ? std::string(npu::stall_name(static_cast<npu::Stall>(worst - op.stall_cycles.begin()))) + " " +
                     std::to_string(*worst)
               : "-";
    const auto mostly = std::max_element(op.exclusive_cycles.begin(), op.exclusive_cycles.end());
    const char* cause =
        *mostly ? npu::op_time_name(static_cast<npu::OpTime>(mostly - op.exclusive_cycles.begin())) : "-";
    std::snprintf(expected, sizeof expected, "%4zu %#8x  %-22s %-16s %10llu %10llu %6s  %-11s %s", i, op.offset,
                  op.kind.c_str(), shape, static_cast<unsigned long long>(op.cycles()),
                  static_cast<unsigned long long>(op.exclusive()), util, cause, stall.c_str());
    ASSERT_TRUE(std::getline(table, row)) << "row " << i;
    EXPECT_EQ(row, expected) << "row " << i;
  }
  // With layer names: the stall padded, then the layer's first name.
  r.ops[1].layer = "net/conv1/Relu6;net/conv1/BiasAdd";
  std::istringstream named(summary_table(r));
  std::getline(named, row);
  EXPECT_EQ(row.substr(row.size() - 30), "largest stall            layer") << row;
  const std::string no_stall = "-" + std::string(23, ' ') + " ";
  std::getline(named, row);
  EXPECT_EQ(row.substr(row.size() - no_stall.size()), no_stall) << row;  // no layer known
  std::getline(named, row);
  EXPECT_EQ(row.substr(row.size() - no_stall.size() - 15), no_stall + "net/conv1/Relu6") << row;
}

}  // namespace
}  // namespace ethosu::host
