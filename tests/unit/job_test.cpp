// Job builders: a model's inputs in its graph order and by name, separate I/O regions (COP2), and the
// payload header check for Vela 3.2's product-0 headers. Models and payloads are made with the project's own
// writers (tests/unit/flatbuffer_builder.h, host::make_driver_payload).
#include "host/run/job.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "sim/files.h"
#include "host/formats/payload.h"
#include "host/run/run_job.h"
#include "host/config/config.h"
#include "sim/error.h"
#include "tests/unit/flatbuffer_builder.h"
#include "tests/unit/input_errors.h"
#include "tests/unit/io_models.h"

namespace ethosu::host {
namespace {

namespace tb = ethosu::testing;
namespace fs = std::filesystem;

const std::vector<uint32_t> kStream = {0x0000FFFF};  // NPU_OP_STOP

class JobFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ethosu_job_test_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name, const std::vector<uint8_t>& bytes) {
    const std::string path = (dir_ / name).string();
    sim::write_file(path, bytes);
    return path;
  }
  fs::path dir_;
};

tb::Bytes cop1() {
  return make_driver_payload(tb::words_to_bytes(kStream), PayloadFormat::COP1, 0x10003008, kVelaIdWord);
}

std::vector<uint8_t> bytes_at(const std::vector<uint8_t>& region, size_t offset, size_t n) {
  return {region.begin() + static_cast<std::ptrdiff_t>(offset), region.begin() + static_cast<std::ptrdiff_t>(offset + n)};
}

TEST_F(JobFiles, InputsFollowTheModelsGraphOrderAndNames) {
  const std::string model = file("m.tflite", tb::two_input_model(cop1(), false));
  const std::string a = file("a.bin", {1, 2, 3, 4}), b = file("b.bin", {5, 6, 7, 8});
  const Job by_order = job_from_tflite(model, {a, b});
  EXPECT_EQ(bytes_at(by_order.regions[1], 0x40, 4), (std::vector<uint8_t>{1, 2, 3, 4}));
  EXPECT_EQ(bytes_at(by_order.regions[1], 0x80, 4), (std::vector<uint8_t>{5, 6, 7, 8}));
  ASSERT_EQ(by_order.input_mapping.size(), 2u);
  EXPECT_EQ(by_order.input_mapping[0], "input 0 'a' (region 1, offset 64, 4 bytes) <- " + a);
  EXPECT_EQ(by_order.input_mapping[1], "input 1 'b' (region 1, offset 128, 4 bytes) <- " + b);
  // By name, in any order; an unnamed file takes the first input left.
  const Job by_name = job_from_tflite(model, {"b=" + a, b});
  EXPECT_EQ(bytes_at(by_name.regions[1], 0x80, 4), (std::vector<uint8_t>{1, 2, 3, 4}));
  EXPECT_EQ(bytes_at(by_name.regions[1], 0x40, 4), (std::vector<uint8_t>{5, 6, 7, 8}));
  const Job one = job_from_tflite(model, {"b=" + b});
  EXPECT_EQ(one.input_mapping[0], "input 0 'a' (region 1, offset 64, 4 bytes) <- zeros");
  ASSERT_EQ(one.outputs.size(), 1u);
  EXPECT_EQ(one.outputs[0].name, "y");
  EXPECT_EQ(one.outputs[0].region, 1u);
  EXPECT_NE(tb::input_error_of([&] { job_from_tflite(model, {"a=" + a, "a=" + b}); }).find("input 'a' given twice"),
            std::string::npos);
  EXPECT_NE(tb::input_error_of([&] { job_from_tflite(model, {a, b, a}); }).find("more input files than the model's 2"),
            std::string::npos);
  EXPECT_NE(tb::input_error_of([&] { job_from_tflite(model, {b, a + "x"}); }).find(a + "x"), std::string::npos);
}

TEST_F(JobFiles, SeparateIoRegionsPlaceInputsAndOutputsInRegions3And4) {
  const tb::Bytes payload =
      make_driver_payload(tb::words_to_bytes(kStream), PayloadFormat::COP2, 0x10003008, kVelaIdWord, true);
  const std::string model = file("m.tflite", tb::two_input_model(payload, true));
  const Job job = job_from_tflite(model, {file("a.bin", {1, 2, 3, 4}), file("b.bin", {5, 6, 7, 8})});
  EXPECT_EQ(job.regions[3], (std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(job.regions[4].size(), 8u);
  EXPECT_EQ(job.regions[1].size(), 256u);
  ASSERT_EQ(job.outputs.size(), 1u);
  EXPECT_EQ(job.outputs[0].region, 4u);
  EXPECT_EQ(job.stream, tb::words_to_bytes(kStream));

  // A stream that copies the input region into the output region runs, and the output comes back from region 4.
  const tb::Bytes copying = make_driver_payload(tb::copy_inputs_to_output(), PayloadFormat::COP2, 0x10003008, kVelaIdWord, true);
  Job run = job_from_tflite(file("c.tflite", tb::two_input_model(copying, true)),
                            {file("a.bin", {1, 2, 3, 4}), file("b.bin", {5, 6, 7, 8})});
  RunOptions functional;
  functional.timed = false;
  const RunOutcome outcome = run_job(run, functional);
  ASSERT_FALSE(outcome.fault) << *outcome.fault;
  EXPECT_EQ(run.output_bytes(run.outputs[0]), (std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST_F(JobFiles, APayloadRunsWhereItsHeaderSaysAndOnlyThere) {
  // A U55-256's header (product 0, 2^8 MACs, 48 KiB) on a stream the U55 has every command of.
  const Job u55 = job_from_stream(file("u55.bin", make_driver_payload(tb::words_to_bytes(kStream), PayloadFormat::COP1,
                                                                     0x00003008, kVelaIdWord)),
                                  {{1, std::nullopt, 64}}, {}, {});
  EXPECT_EQ(u55.variant, "ethos-u55-256");
  EXPECT_FALSE(u55.header_variant);
  EXPECT_FALSE(check_variant(u55, resolve_config({}, u55.variant)));
  // Another configuration is refused as Arm's core driver refuses it.
  MachineRequest other;
  other.variant = "ethos-u55-128";
  const std::string refused = tb::input_error_of([&] { check_variant(u55, resolve_config(other, u55.variant)); });
  EXPECT_NE(refused.find("compiled for ethos-u55-256 (CONFIG word 0x00003008)"), std::string::npos) << refused;
  EXPECT_NE(refused.find("macs_per_cc 8 (the NPU's 7)"), std::string::npos) << refused;
  // A current U65 header needs no check.
  const Job current = job_from_stream(file("new.bin", cop1()), {{1, std::nullopt, 64}}, {}, {});
  EXPECT_EQ(current.variant, "ethos-u65-256");
  EXPECT_FALSE(current.header_variant);
  EXPECT_FALSE(check_variant(current, resolve_config({}, current.variant)));
}

TEST_F(JobFiles, OldPayloadHeadersRunOnlyOnAVariantTheUserNames) {
  // Vela 3.2 and older wrote product 0 for every target: the same CONFIG word as a U55-256's, told apart by the
  // stream, which sets NPU_SET_PARALLEL_MODE (the U55 has no such command).
  const std::vector<uint32_t> u65_stream = {0x00000123, 0x0000FFFF};  // NPU_SET_PARALLEL_MODE 0, NPU_OP_STOP
  const std::string stream = file(
      "old.bin", make_driver_payload(tb::words_to_bytes(u65_stream), PayloadFormat::COP1, 0x00003008, kVelaIdWord));
  const Job job = job_from_stream(stream, {{1, std::nullopt, 64}}, {}, {});
  ASSERT_TRUE(job.header_variant);
  EXPECT_EQ(*job.header_variant, "ethos-u55-256 (CONFIG word 0x00003008, product 0)");
  EXPECT_EQ(job.variant, "ethos-u65-256");
  const std::string refused = tb::input_error_of([&] { check_variant(job, resolve_config({}, job.variant)); });
  EXPECT_NE(refused.find("Arm's core driver refuses such a payload"), std::string::npos) << refused;
  EXPECT_NE(refused.find("--variant ethos-u65-256"), std::string::npos) << refused;
  MachineRequest named;
  named.variant = "ethos-u65-512";
  const auto warning = check_variant(job, resolve_config(named, job.variant));
  ASSERT_TRUE(warning);
  EXPECT_NE(warning->find("names ethos-u55-256 (CONFIG word 0x00003008, product 0)"), std::string::npos) << *warning;
  EXPECT_NE(warning->find("running it on ethos-u65-512"), std::string::npos) << *warning;
  // Product 0 with 2^9 MACs is no configuration at all: the U65-512 of an old Vela.
  const Job old512 = job_from_stream(file("old512.bin", make_driver_payload(tb::words_to_bytes(u65_stream),
                                                                            PayloadFormat::COP1, 0x00006009, kVelaIdWord)),
                                     {{1, std::nullopt, 64}}, {}, {});
  ASSERT_TRUE(old512.header_variant);
  EXPECT_EQ(old512.variant, "ethos-u65-512");
}

// A job with regions of the given sizes, compiled for `compiled_for`.
Job sized_job(const std::string& compiled_for, std::vector<size_t> sizes) {
  Job job;
  job.name = "case";
  job.variant = job.compiled_for = compiled_for;
  job.stream = tb::words_to_bytes({0xFFFF0000});  // NPU_OP_STOP mask=0xFFFF
  for (size_t r = 0; r < sizes.size(); ++r) job.regions[r].assign(sizes[r], 0);
  return job;
}

TEST(SramSize, RegionsMappedToTheSramMustFitIt) {
  Job job = sized_job("ethos-u65-256", {1000, 383 * 1024, 384 * 1024});
  MachineRequest r;
  RunOptions fits = run_options(resolve_config(r, job.variant), false);  // imx93: region 2 in a 384 KiB SRAM
  EXPECT_NO_THROW(check_sram_fits(job, fits));
  const RunOutcome ran = run_job(job, fits);
  EXPECT_FALSE(ran.fault) << *ran.fault;
  r.assignments = {"mem.sram.size_bytes=1"};
  const RunOptions tiny = run_options(resolve_config(r, job.variant), false);
  const std::string refused = tb::input_error_of([&] { run_job(job, tiny); });
  EXPECT_NE(refused.find("case: region 2 (AXI0, 393216 bytes) is mapped to the SRAM by REGIONCFG (393216 bytes), "
                         "but the on-chip SRAM holds 1 bytes (mem.sram.size_bytes)"),
            std::string::npos)
      << refused;
  // Shared_Sram puts the arena there too: both count.
  r.memory_mode = "Shared_Sram";
  r.assignments = {"mem.sram.size_bytes=512Ki"};
  const std::string both =
      tb::input_error_of([&] { check_sram_fits(job, run_options(resolve_config(r, job.variant))); });
  EXPECT_NE(both.find("region 1 (AXI0, 392192 bytes), region 2 (AXI0, 393216 bytes) are mapped"), std::string::npos)
      << both;
  r.assignments = {"mem.sram.size_bytes=unbounded"};
  EXPECT_NO_THROW(check_sram_fits(job, run_options(resolve_config(r, job.variant))));
  // 0 is no SRAM: a region left on it is refused, saying how to spell an unbounded one; No_Sram maps none there.
  r.memory_mode.reset();
  r.assignments = {"mem.sram.size_bytes=0"};
  EXPECT_NE(tb::input_error_of([&] { check_sram_fits(job, run_options(resolve_config(r, job.variant))); })
                .find("there is no on-chip SRAM (mem.sram.size_bytes = 0; `unbounded`"),
            std::string::npos);
  r.assignments.clear();
  r.memory_mode = "No_Sram";
  EXPECT_NO_THROW(check_sram_fits(job, run_options(resolve_config(r, job.variant))));
}

TEST(VariantCheck, AnotherVariantThanTheCaseIsRefusedUnlessAllowed) {
  const Job job = sized_job("ethos-u65-256", {16});
  MachineRequest r;
  EXPECT_FALSE(check_variant(job, resolve_config(r, job.variant)));
  r.variant = "ethos-u65-512";
  const sim::Config bigger = resolve_config(r, job.variant);
  const std::string refused = tb::input_error_of([&] { check_variant(job, bigger); });
  EXPECT_NE(refused.find("case: compiled for ethos-u65-256, asked to run on ethos-u65-512 (set by variant), whose "
                         "second core is idle on this stream"),
            std::string::npos)
      << refused;
  EXPECT_NE(refused.find("--force-variant (Python: allow_variant_mismatch=True)"), std::string::npos) << refused;
  const auto warning = check_variant(job, bigger, true);
  ASSERT_TRUE(warning);
  EXPECT_NE(warning->find("the cycles are the ethos-u65-256's"), std::string::npos) << *warning;
  const Job u55 = sized_job("ethos-u55-128", {16});
  r.variant = "ethos-u55-256";
  const auto what_if = check_variant(u55, resolve_config(r, u55.variant), true);
  ASSERT_TRUE(what_if);
  EXPECT_NE(what_if->find("runs the stream as it is"), std::string::npos) << *what_if;
}

}  // namespace
}  // namespace ethosu::host
