// The functional model and the timed platform run one command-controller engine: on hostile streams made by
// the project's assembler (a bad DMA, a LUT beyond the SHRAM, the work limit, a truncated stream, an unknown
// opcode, a corrupt weight stream, an OFM outside its region) and on a clean one, both must end with the
// same fault as the driver reports it, the same STATUS and the same bytes in every region. The corpus suite
// does the same over every corpus case (run_corpus_test).
#include <gtest/gtest.h>

#include <string>

#include "host/run/run_job.h"
#include "isa/assembler.h"
#include "tests/unit/npu_streams.h"

namespace ethosu::host {
namespace {

using npu::test::conv_1x1;
using npu::test::kStop;
using npu::test::pool;
using npu::test::zero_weights;

// Regions 1 and 2 of 8 KiB (region 1 on AXI1, region 2 on AXI0 in the default REGIONCFG), filled with a
// pattern so that copies show; the stream from the assembler text.
Job make_job(const std::string& text) {
  Job job;
  job.name = "hostile";
  job.stream = isa::assemble(text);
  for (unsigned r : {1u, 2u}) {
    job.regions[r].resize(8192);
    for (size_t i = 0; i < job.regions[r].size(); ++i) job.regions[r][i] = static_cast<uint8_t>(i * 13 + r);
  }
  return job;
}

// A 256-byte DMA from `src` in region 1 to `dst` in region 2.
std::string dma(uint64_t src, uint64_t dst, uint64_t len = 256) {
  return "NPU_SET_DMA0_SRC_REGION region=1\nNPU_SET_DMA0_DST_REGION region=2\nNPU_SET_DMA0_SRC addr=" +
         std::to_string(src) + "\nNPU_SET_DMA0_DST addr=" + std::to_string(dst) + "\nNPU_SET_DMA0_LEN length=" +
         std::to_string(len) + "\nNPU_OP_DMA_START\n";
}

// Runs copies of `job` on both models; returns the timed run's fault ("none" without one).
std::string expect_same(const Job& job, RunOptions options = {}) {
  Job functional = job, timed = job;
  options.timed = false;
  const RunOutcome f = run_job(functional, options);
  options.timed = true;
  const RunOutcome t = run_job(timed, options);
  EXPECT_EQ(f.fault.value_or("none"), t.fault.value_or("none"));
  EXPECT_EQ(f.status, t.status) << std::hex << f.status << " vs " << t.status;
  EXPECT_EQ(f.hazards, t.hazards);
  for (size_t r = 0; r < isa::kRegionCount; ++r) EXPECT_TRUE(functional.regions[r] == timed.regions[r]) << "region " << r;
  return t.fault.value_or("none");
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(ModelsAgree, CleanJob) {
  Job job = make_job(dma(0, 0x1000) + "NPU_OP_DMA_WAIT k=0\n" + pool(2, 4, 2, 2, 0x1000, 2, 0x1800) + "NPU_OP_POOL\n" +
                     kStop);
  EXPECT_EQ(expect_same(job), "none");
}

TEST(ModelsAgree, DmaOutsideItsRegion) {
  const std::string fault = expect_same(make_job(dma(0, 8000) + kStop));
  EXPECT_TRUE(has(fault, "bus error at 0x") && has(fault, "destination bytes [0x1f40, 0x2040) outside region 2")) << fault;
}

TEST(ModelsAgree, LutBeyondTheShram) {
  // A 16-bit table from slot 7 runs past the end of the 48 KiB SHRAM.
  const std::string fault = expect_same(make_job("NPU_SET_ACTIVATION activation_function=TABLE_7\n" +
                                                 pool(1, 1, 1, 2, 0, 2, 0x100) +
                                                 "NPU_SET_OFM_PRECISION activation_type=SIGNED activation_precision=B16\n"
                                                 "NPU_OP_POOL\n" + kStop));
  EXPECT_TRUE(has(fault, "LUT SHRAM bytes")) << fault;
}

TEST(ModelsAgree, WorkLimit) {
  RunOptions options;
  options.config.limits.work = 64;  // one 2x4x16 pool needs more
  const std::string fault =
      expect_same(make_job(pool(2, 4, 2, 2, 0x1000, 2, 0x1800) + "NPU_OP_POOL\n" + kStop), options);
  EXPECT_TRUE(has(fault, "simulation limit at") && has(fault, "NPU_OP_POOL: needs up to")) << fault;
}

TEST(ModelsAgree, TruncatedStream) {
  Job job = make_job(dma(0, 0x1000) + pool(2, 4, 2, 2, 0x1000, 2, 0x1800) + "NPU_OP_POOL\n" + kStop);
  job.stream.resize(job.stream.size() - 4);  // no NPU_OP_STOP
  EXPECT_TRUE(has(expect_same(job), "command parse error at"));
}

TEST(ModelsAgree, UnknownOpcode) {
  Job job = make_job(dma(0, 0x1000) + ".word 0x00000004\n" + pool(2, 4, 2, 2, 0x1000, 2, 0x1800) + "NPU_OP_POOL\n" +
                     kStop);
  EXPECT_TRUE(has(expect_same(job), "unknown cmd0 opcode"));
}

TEST(ModelsAgree, CorruptWeightStream) {
  Job job = make_job(conv_1x1(144) + "NPU_OP_CONV\n" + kStop);
  // conv_1x1 keeps everything in region 1: weights at 0x1100, scales at 0x1000.
  std::vector<uint8_t> w = zero_weights(16 * 32);
  w[0] = 0x05;  // ZDIV 5 is reserved
  std::copy(w.begin(), w.end(), job.regions[1].begin() + 0x1100);
  EXPECT_TRUE(has(expect_same(job), "weight decoder fault at"));
}

TEST(ModelsAgree, OfmOutsideItsRegion) {
  const std::string fault = expect_same(make_job(pool(2, 4, 2, 2, 0, 2, 8100) + "NPU_OP_POOL\n" + kStop));
  EXPECT_TRUE(has(fault, "OFM bytes")) << fault;
}

}  // namespace
}  // namespace ethosu::host
