// The public Memory (include/ethosu_sim/memory.h) as a TLM target: byte enables honoured, the standard error
// responses, no host memory touched outside the mapped buffers.
#include <array>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include <tlm_utils/simple_initiator_socket.h>

#include "ethosu_sim/memory.h"

namespace ethosu_sim {
namespace {

// The memory with an initiator bound to it (DMI invalidations need one), elaborated once.
struct Rig : sc_core::sc_module {
  Memory memory{"memory"};
  tlm_utils::simple_initiator_socket<Rig> initiator{"initiator"};
  Rig() : sc_module("rig") {
    initiator.bind(memory.socket);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
};
Rig& rig() {
  static Rig r;
  return r;
}
Memory& memory() { return rig().memory; }

tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t address, uint8_t* data, unsigned length,
                                const std::vector<unsigned char>& enables = {}, bool empty_enables = false) {
  tlm::tlm_generic_payload gp;
  std::vector<unsigned char> be = enables;
  gp.set_command(cmd);
  gp.set_address(address);
  gp.set_data_ptr(data);
  gp.set_data_length(length);
  gp.set_streaming_width(length);
  if (!be.empty() || empty_enables) {
    be.push_back(TLM_BYTE_ENABLED);  // a pointer even for the empty pattern
    gp.set_byte_enable_ptr(be.data());
    gp.set_byte_enable_length(empty_enables ? 0 : static_cast<unsigned>(enables.size()));
  }
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  rig().initiator->b_transport(gp, delay);
  EXPECT_EQ(delay, sc_core::SC_ZERO_TIME);
  return gp.get_response_status();
}

TEST(Memory, ByteEnablesMoveOnlyTheEnabledBytes) {
  std::vector<uint8_t> backing(16, 0xEE);
  memory().unmap_all();
  memory().map(0x1000, backing.data(), backing.size());
  std::array<uint8_t, 8> data{1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<unsigned char> all(8, TLM_BYTE_ENABLED);
  EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, 0x1000, data.data(), 8, all), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(std::vector<uint8_t>(backing.begin(), backing.begin() + 8), std::vector<uint8_t>(data.begin(), data.end()));
  // The pattern repeats over the data: every other byte.
  std::array<uint8_t, 8> other{9, 9, 9, 9, 9, 9, 9, 9};
  EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, 0x1000, other.data(), 8, {TLM_BYTE_DISABLED, TLM_BYTE_ENABLED}),
            tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(std::vector<uint8_t>(backing.begin(), backing.begin() + 8),
            (std::vector<uint8_t>{1, 9, 3, 9, 5, 9, 7, 9}));
  std::array<uint8_t, 4> read{0, 0, 0, 0};
  EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0x1000, read.data(), 4, {TLM_BYTE_ENABLED, TLM_BYTE_DISABLED}),
            tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(read, (std::array<uint8_t, 4>{1, 0, 3, 0}));
  memory().unmap_all();
}

TEST(Memory, ErrorResponses) {
  std::vector<uint8_t> backing(16, 0);
  memory().unmap_all();
  memory().map(0x1000, backing.data(), backing.size());
  std::array<uint8_t, 8> data{};
  EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0x100C, data.data(), 8), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0x2000, data.data(), 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0x1000, data.data(), 4, {}, true), tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
  memory().unmap_all();
}

}  // namespace
}  // namespace ethosu_sim
