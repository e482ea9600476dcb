// libFuzzer target: any bytes through the decoder, the validator (with region sizes taken from the
// input), and the disassembler/assembler round trip, which must reproduce the input exactly.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

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
  const auto stream = ethosu::isa::decode(data, size);
  ethosu::isa::ValidatorOptions opt;
  if (size > 0) {
    opt.variant = (data[0] & 1) ? ethosu::isa::Variant::U65_512 : ethosu::isa::Variant::U65_256;
    for (size_t r = 0; r < opt.region_size_bytes.size(); ++r) opt.region_size_bytes[r] = uint64_t{data[0]} << (r + 4);
  }
  (void)ethosu::isa::render(ethosu::isa::validate(stream, opt));
  (void)ethosu::isa::disassemble(stream, ethosu::isa::DisasmFormat::VELA);
  const std::vector<uint8_t> original(data, data + size);
  if (ethosu::isa::assemble(ethosu::isa::disassemble(stream)) != original) std::abort();
  return 0;
}
