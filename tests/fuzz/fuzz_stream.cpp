// libFuzzer target: any bytes through the decoder, the validator (with region sizes taken from the
// input), and the disassembler/assembler round trip, which must reproduce the input exactly. The first byte
// also picks the configuration (every U55, U65 and U85), so both command sets are decoded and validated.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "isa/architecture.h"
#include "isa/assembler.h"
#include "isa/decoder.h"
#include "isa/disasm.h"
#include "isa/validator.h"
#include "tests/fuzz/fuzz_defaults.h"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  ethosu::fuzz::default_max_len(argc, argv, 1024);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& variants = ethosu::isa::variants();
  const ethosu::isa::Variant variant = size > 0 ? variants[data[0] % variants.size()] : ethosu::isa::kDefaultVariant;
  const auto stream = ethosu::isa::decode(data, size, ethosu::isa::architecture(variant));
  ethosu::isa::ValidatorOptions opt;
  opt.variant = variant;
  if (size > 0) {
    for (size_t r = 0; r < opt.region_size_bytes.size(); ++r) opt.region_size_bytes[r] = uint64_t{data[0]} << (r + 4);
  }
  (void)ethosu::isa::render(ethosu::isa::validate(stream, opt));
  (void)ethosu::isa::disassemble(stream, ethosu::isa::DisasmFormat::VELA);
  const std::vector<uint8_t> original(data, data + size);
  if (ethosu::isa::assemble(ethosu::isa::disassemble(stream)) != original) std::abort();
  return 0;
}
