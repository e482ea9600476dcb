// The NXP firmware emulation (host/backends/nxp/nxp_inference) with Vela 5's payloads: a MODEL-mode network
// compiled with separate I/O regions (COP2) takes per-tensor buffers in the model's input order, and refuses the
// arena-in-ifm[0] layout, whose arena holds no inputs. Models are made with the project's own writers.
#include "host/backends/nxp/nxp_inference.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "host/formats/payload.h"
#include "tests/unit/io_models.h"

namespace ethosu::nxp {
namespace {

namespace tb = ethosu::testing;

InferenceRequest model_request(const tb::Bytes& network, std::vector<std::vector<uint8_t>> ifms) {
  InferenceRequest r;
  r.network = network;
  r.hold_ifms(std::move(ifms));
  r.ofm_free_bytes = {64};
  return r;
}

TEST(NxpInference, SeparateIoRegionsModelTakesOneBufferPerInput) {
  host::ShimSettings settings;
  settings.functional = true;
  const tb::Bytes payload = host::make_driver_payload(tb::copy_inputs_to_output(), host::PayloadFormat::COP2,
                                                      0x10003008, host::kVelaIdWord, true);
  const tb::Bytes network = tb::two_input_model(payload, true);
  // Graph order: a then b (the operator takes b first).
  const InferenceResult ok = run_inference(model_request(network, {{1, 2, 3, 4}, {5, 6, 7, 8}}), settings);
  ASSERT_EQ(ok.status, STATUS_OK) << ok.message;
  ASSERT_EQ(ok.ofm_appended.size(), 1u);
  EXPECT_EQ(ok.ofm_appended[0], (std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  ASSERT_TRUE(ok.capture);
  EXPECT_EQ(ok.capture->regions_after[host::kSeparateOutputRegion], (std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  // The arena as ifm[0]: the model keeps no inputs there.
  const InferenceResult arena = run_inference(model_request(network, {std::vector<uint8_t>(256)}), settings);
  EXPECT_EQ(arena.status, STATUS_ERROR);
  EXPECT_NE(arena.message.find("regions of their own (--separate-io-regions)"), std::string::npos) << arena.message;
}

}  // namespace
}  // namespace ethosu::nxp
