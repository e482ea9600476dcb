// libFuzzer target: the weight stream decoder on any bytes, which must either decode or throw InputError,
// never crash, hang or read outside the bytes (each input is its own exactly sized allocation under ASan),
// and decode the same bytes to the same weights again.
//
// Input: byte 0 chooses the use. Even: the rest is one stream for decode_stream (capped at 2^16 weights). Odd:
// bytes 1..4 give a layout (kind, OFM depth, IFM depth, kernel size, OFM tile depth, weight order, IFM
// precision, U65-512 core) and the rest is that core's stream for decode_weights, as an operation would use it;
// decode_weights decodes a slice at a time as it scatters, and must agree with decoding the whole stream first and
// reordering it: the same weights, or an error with the same message.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "models/kernels/weights/weight_decoder.h"
#include "sim/error.h"
#include "tests/fuzz/fuzz_defaults.h"

namespace w = ethosu::weights;

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  ethosu::fuzz::default_max_len(argc, argv, 4096);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const bool layout_use = data[0] & 1;
  const size_t header = layout_use ? 5 : 1;
  if (size < header) return 0;
  const size_t n = size - header;
  const std::unique_ptr<uint8_t[]> stream(new uint8_t[n ? n : 1]);
  if (n) std::memcpy(stream.get(), data + header, n);
  if (!layout_use) {
    std::vector<int16_t> first, again;
    bool threw = false;
    try {
      w::decode_stream(stream.get(), n, first, size_t{1} << 16);
    } catch (const ethosu::InputError&) {
      threw = true;
    }
    try {
      w::decode_stream(stream.get(), n, again, size_t{1} << 16);
      if (threw || again != first) std::abort();
    } catch (const ethosu::InputError&) {
      if (!threw) std::abort();
    }
    return 0;
  }
  w::WeightLayout l;
  l.kind = static_cast<w::OpKind>(data[1] % 3);
  l.ofm_depth = 1 + (data[1] >> 2) % 48;
  l.ifm_depth = 1 + data[2] % 48;
  l.kernel_height = 1 + (data[2] >> 6);
  l.kernel_width = 1 + (data[3] & 3);
  l.dilation_y = 1 + ((data[3] >> 2) & 1);
  l.dilation_x = 1 + ((data[3] >> 3) & 1);
  l.ofm_block_depth = 8 * (1 + ((data[3] >> 4) & 7));
  l.part_kernel_first = data[3] >> 7;
  l.ifm_bits = (data[4] & 1) ? 16 : 8;
  l.cores = 1 + ((data[4] >> 1) & 1);
  l.core = l.cores == 2 ? (data[4] >> 2) & 1 : 0;
  size_t count = 0;
  bool valid = true;
  try {
    count = w::stream_weight_count(l);
  } catch (const ethosu::InputError&) {
    valid = false;
  }
  w::DenseWeights pulled, whole;
  std::string pulled_error, whole_error;
  try {
    w::decode_weights(l, stream.get(), n, pulled);
  } catch (const ethosu::InputError& e) {
    pulled_error = e.what();
  }
  // The reference: the whole stream decoded first (capped at the layout's count, as decode_weights caps it), then
  // reordered. Only where the layout is valid and has weights: otherwise decode_weights' checks come first.
  if (!valid || count == 0) {
    if (!valid && pulled_error.empty()) std::abort();
    return 0;
  }
  try {
    std::vector<int16_t> s;
    w::decode_stream(stream.get(), n, s, count);
    w::prepare(l, whole);
    w::reorder(l, s.data(), s.size(), whole);
  } catch (const ethosu::InputError& e) {
    whole_error = e.what();
  }
  if (pulled_error != whole_error) std::abort();
  if (pulled_error.empty() && pulled.values != whole.values) std::abort();
  return 0;
}
