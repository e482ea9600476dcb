// validate: per-region extents and every problem a stream has.
#include <iostream>

#include "isa/architecture.h"
#include "host/cli/args.h"
#include "host/cli/commands.h"
#include "host/cli/inputs.h"
#include "isa/validator.h"

namespace ethosu::cli {

const char* const kValidateHelp =
    "usage: ethosu-sim validate FILE [--region N=SIZE ...] [--variant NAME]\n"
    "\n"
    "Walks the command stream as the Linux accel/ethosu driver does, tracking the sticky state, and\n"
    "prints for each region the lowest and highest byte touched by IFM, IFM2, OFM, weights, scales and\n"
    "DMA, then every problem: decoder errors, accesses outside a region whose size is given, block\n"
    "configurations that do not fit the configuration's SHRAM, commands and operations it does not have,\n"
    "alignment rules, and what the Linux driver would reject. FILE: bare stream, COP1/COP2 payload or Vela .tflite\n"
    "(for a .tflite, regions 0-2 default to the flash, scratch and scratch_fast tensor sizes).\n"
    "\n"
    "  --region N=SIZE   size of region N (0-7) in bytes; K, M, G suffixes allowed; repeatable\n"
    "  --variant NAME    the configuration (ethosu-sim run --list-variants; default: the one\n"
    "                    a payload's header names, else ethos-u65-256)\n"
    "\n"
    "exit status: 0 no errors, 1 errors found, 2 usage or input error\n";

int run_validate(const std::vector<std::string>& argv) {
  Args a(argv, {{"--region", "", true, true}, {"--variant", "", true, false}});
  a.expect_positionals(1, 1, "FILE");
  isa::ValidatorOptions opt;
  const std::optional<isa::Variant> named = variant_option(a);
  std::array<std::optional<uint64_t>, isa::kRegionCount> given{};
  for (const auto& r : a.values("--region")) {
    auto [n, size] = split_assignment(r, "--region");
    if (n.size() != 1 || n[0] < '0' || n[0] > '7') throw UsageError("--region: region must be 0-7, got '" + n + "'");
    given[static_cast<size_t>(n[0] - '0')] = parse_size(size, "--region " + n);
  }
  const auto streams = load_streams(a.positionals()[0]);
  int status = 0;
  for (const auto& st : streams) {
    opt.region_size_bytes = st.region_size_bytes;
    const isa::Architecture& arch = architecture_of(st, named);
    opt.variant = arch.variant;
    for (size_t i = 0; i < given.size(); ++i)
      if (given[i]) opt.region_size_bytes[i] = given[i];
    const auto report = isa::validate(isa::decode(st.bytes, arch), opt);
    if (!st.label.empty()) std::cout << "== " << st.label << "\n";
    std::cout << isa::render(report);
    if (!report.ok()) status = 1;
  }
  return status;
}

}  // namespace ethosu::cli
