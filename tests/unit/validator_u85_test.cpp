// The validator on Ethos-U85 streams: feature maps in the chaining buffer touch no memory and must pass from one
// operation to the next, NPU_OP_BRANCH lands on a command, and what the Linux validator versions disagree on
// (mainline sizes chained feature maps from registers Vela never writes; the hardened one refuses NPU_OP_RESIZE)
// is reported as such rather than refused. The U65's rules stay as they were.
#include <algorithm>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "isa/assembler.h"
#include "isa/decoder.h"
#include "isa/validator.h"

namespace {

using namespace ethosu::isa;

Report check(std::string_view text, Variant v = Variant::U85_256) {
  const std::vector<uint8_t> bytes = assemble(text, "<test>", architecture(v).isa);
  ValidatorOptions o;
  o.variant = v;
  return validate(decode(bytes, architecture(v).isa), o);
}

// Findings of a category whose message contains `what`.
size_t count(const Report& r, Category c, std::string_view what, Severity s = Severity::ERROR) {
  return static_cast<size_t>(std::count_if(r.findings.begin(), r.findings.end(), [&](const Finding& f) {
    return f.category == c && f.severity == s && f.message.find(what) != std::string::npos;
  }));
}

constexpr std::string_view kChainedOfm = R"(.isa 2
NPU_SET_IFM_BROADCAST broadcast_mode=NONE
NPU_SET_IFM2_BROADCAST broadcast_mode=SCALAR
NPU_SET_OFM_PRECISION activation_storage=CHAINED
NPU_OP_ELEMENTWISE elementwise_mode=ADD
)";

TEST(ValidatorU85, ChainConsumedByTheNextOperation) {
  const Report r = check(std::string(kChainedOfm) + R"(NPU_SET_IFM_PRECISION activation_storage=CHAINED
NPU_SET_OFM_PRECISION activation_storage=TILE2X2
NPU_OP_ELEMENTWISE elementwise_mode=ADD
NPU_OP_STOP mask=0
)");
  EXPECT_EQ(count(r, Category::LINUX, "chain"), 0u);
  EXPECT_EQ(count(r, Category::LINUX_VERSION, "mainline Linux rejects the stream: it sizes the chained OFM",
                  Severity::WARNING),
            1u);
  EXPECT_EQ(count(r, Category::LINUX_VERSION, "chained IFM ", Severity::WARNING), 1u);
  EXPECT_EQ(count(r, Category::SHRAM, ""), 0u);  // the U85 has no SHRAM
  EXPECT_EQ(count(r, Category::SHRAM, "", Severity::WARNING), 0u);
}

TEST(ValidatorU85, ChainNotConsumed) {
  const Report r = check(std::string(kChainedOfm) + R"(NPU_SET_OFM_PRECISION activation_storage=TILE2X2
NPU_OP_ELEMENTWISE elementwise_mode=ADD
NPU_OP_STOP mask=0
)");
  EXPECT_EQ(count(r, Category::LINUX, "does not read the chained OFM of the operation at 0x00000c"), 1u);
}

TEST(ValidatorU85, ChainLeftAtStop) {
  const Report r = check(std::string(kChainedOfm) + "NPU_OP_STOP mask=0\n");
  EXPECT_EQ(count(r, Category::LINUX, "ends with the chained OFM"), 1u);
}

TEST(ValidatorU85, ChainedInputWithoutProducer) {
  const Report r = check(R"(.isa 2
NPU_SET_IFM_BROADCAST broadcast_mode=NONE
NPU_SET_IFM2_BROADCAST broadcast_mode=SCALAR
NPU_SET_IFM_PRECISION activation_storage=CHAINED
NPU_OP_ELEMENTWISE elementwise_mode=ADD
NPU_OP_STOP mask=0
)");
  EXPECT_EQ(count(r, Category::LINUX, "reads a chained input that no previous operation left"), 1u);
}

TEST(ValidatorU85, ResizeIsAVersionDifferenceNotARejection) {
  const Report r = check(R"(.isa 2
NPU_OP_RESIZE resize_mode=NEAREST
NPU_OP_STOP mask=0
)");
  EXPECT_EQ(count(r, Category::LINUX_VERSION, "hardened Linux validator rejects NPU_OP_RESIZE", Severity::WARNING),
            1u);
  EXPECT_EQ(count(r, Category::LINUX, "RESIZE"), 0u);
}

TEST(ValidatorU85, BranchTargetMustBeACommand) {
  EXPECT_EQ(count(check(".isa 2\nNPU_OP_BRANCH branch_target=6\nNPU_OP_STOP mask=0\n"), Category::LINUX,
                  "branch target 0x6 is not a command"),
            1u);
  EXPECT_EQ(count(check(".isa 2\nNPU_OP_BRANCH branch_target=8\nNPU_OP_STOP mask=0\n"), Category::LINUX, "branch"),
            0u);
}

TEST(ValidatorU85, ConvParamIsWeightsFromIfm2OnTheU85Only) {
  EXPECT_EQ(count(check(".isa 2\nNPU_OP_CONV weights_ifm2=1\nNPU_OP_STOP mask=0\n"), Category::LINUX,
                  "non-zero param"),
            0u);
  const std::vector<uint8_t> u65 = {0x02, 0x00, 0x01, 0x00, 0x00, 0x00, 0xFF, 0xFF};  // NPU_OP_CONV param 1, STOP
  ValidatorOptions o;
  const Report r = validate(decode(u65), o);
  EXPECT_EQ(count(r, Category::LINUX, "non-zero param on the U65"), 1u);
}

TEST(ValidatorU85, HardenedRequirementsOfTheU85) {
  const Report r = check(".isa 2\nNPU_OP_ELEMENTWISE elementwise_mode=ADD\nNPU_OP_STOP mask=0\n");
  EXPECT_EQ(count(r, Category::LINUX, "NPU_SET_IFM_BROADCAST", Severity::WARNING), 1u);
  EXPECT_EQ(count(r, Category::LINUX, "NPU_SET_IFM2_BROADCAST", Severity::WARNING), 1u);
}

}  // namespace
