// The DRAM's one data bus on a whole network: MobileNetV2 with every region in DRAM (no SRAM) at 1 GB/s moves its
// reads and writes through one 1 B/cycle bus, so its AXI1 bytes over its cycles cannot pass 1 B/cycle (before the
// bus was shared, 18.96 MB of reads and 8.87 MB of writes took 21.47 M cycles: 1.30 B/cycle). Outputs stay exact.
#include <gtest/gtest.h>

#include "corpus/corpus_paths.h"
#include "host/config/config.h"
#include "host/run/job.h"
#include "host/run/run_job.h"

using namespace ethosu;

TEST(SharedDram, MobileNetV2WithoutSramStaysWithinTheBandwidth) {
  const auto dir = test::shared_root() / "corpus" / "mobilenet_v2_100_224_uint8_coral";
  if (!std::filesystem::exists(dir / "manifest.json")) GTEST_SKIP() << test::skip_message();
  host::Job job = host::job_from_folder(dir);
  host::MachineRequest request;
  request.assignments = {"mem.axi1.bytes_per_cycle=1", "regions.2.port=1"};  // 1 GB/s at 1 GHz, no SRAM
  host::RunOptions options = host::run_options(host::resolve_config(request, job.variant));
  const host::RunOutcome r = host::run_job(job, options);
  ASSERT_FALSE(r.fault) << *r.fault;
  ASSERT_TRUE(r.report);
  uint64_t read = 0, written = 0, axi0 = 0;
  for (size_t k = 0; k < isa::kAccessCount; ++k) {
    read += r.report->ports[1].read_bytes[k];
    written += r.report->ports[1].write_bytes[k];
    axi0 += r.report->ports[0].read_bytes[k] + r.report->ports[0].write_bytes[k];
  }
  const double cycles = double(r.report->total_cycles);
  std::cout << "[ dram     ] MobileNetV2, no SRAM, 1 GB/s: " << read << " B read + " << written << " B written on AXI1 in "
            << r.report->total_cycles << " cycles = " << double(read + written) / cycles << " B/cycle\n";
  EXPECT_EQ(axi0, 0u);
  EXPECT_LE(double(read + written), cycles);
  // DRAM-bound: the bus is busy most of the time.
  EXPECT_GT(double(read + written), 0.7 * cycles);
  for (const auto& o : job.outputs) {
    if (!o.expected) continue;
    const auto cmp =
        host::compare_bytes(job.output_bytes(o), test::read_file(*o.expected), o.element_bytes, o.element_signed);
    EXPECT_TRUE(cmp.exact) << o.name << ": " << cmp.text;
  }
}
