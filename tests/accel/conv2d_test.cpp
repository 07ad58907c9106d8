// CONV_2D on the accelerator (approx backend) against the CPU reference, bit-exact: randomized
// shapes smaller and larger than the array and not multiples of it, explicit / SAME / VALID
// padding, strides, dilation, NHWC and NCHW, fused activations, uint8 / int8 / per-channel;
// and the same with every windowable layer forced onto on-chip windows, or packed rows, or
// ramped ends (Tiling.h).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include "AccelTestUtil.h"
#include "PreparedModel.h"

namespace weft::accel::test {
namespace {

void expectBitExact(const hal::IDevice& device, const ConvCase& c, std::mt19937& rng) {
  expectBitExactOnDevice(device, makeConvModel(c, rng), c.describe());
}

class ConvRandom : public ::testing::TestWithParam<int> {};

TEST_P(ConvRandom, MatchesTheCpuReferenceBitExactOnWeft8) {
  auto device = approxDevice("weft8");
  std::mt19937 rng(1000 + GetParam());
  for (int i = 0; i < 6; ++i) {
    const ConvCase c = randomConvCase(rng, 14, 24);
    SCOPED_TRACE(c.describe());
    expectBitExact(*device, c, rng);
    if (HasFatalFailure()) return;
  }
}
INSTANTIATE_TEST_SUITE_P(Seeds, ConvRandom, ::testing::Range(0, 10));

// The tiling the compiler chose for the model's first operation ("" when it does not prepare).
std::string firstTiling(const hal::IDevice& device, const nn::Model& model) {
  auto prepared = prepare(device, model);
  if (!prepared.ok()) {
    ADD_FAILURE() << prepared.error().message;
    return "";
  }
  return static_cast<const PreparedModel&>(*prepared.value()).compiled().operations.at(0).tiling;
}

// Restricts the tiling search to one way of feeding the array (WEFT_ACCEL_INPUT_MODE) for a test.
class ForcedInputMode : public ::testing::TestWithParam<const char*> {
 protected:
  void force(const char* mode) { setenv("WEFT_ACCEL_INPUT_MODE", mode, 1); }
  void TearDown() override { unsetenv("WEFT_ACCEL_INPUT_MODE"); }
};

// Random convolutions whose channels are whole scratchpad rows, compiled with
// WEFT_ACCEL_INPUT_MODE=windowed: padding on every side, strides, dilation, batches, signed
// and per-channel tensors through the windowed tile loads and strided GEMMs.
class ConvWindowed : public ForcedInputMode {
 protected:
  void SetUp() override { force("windowed"); }
};

TEST_P(ConvWindowed, MatchesTheCpuReferenceBitExact) {
  auto device = approxDevice(GetParam());
  const uint32_t rows = std::string(GetParam()) == "weft8" ? 8 : 16;
  std::mt19937 rng(77);
  int windowed = 0;
  for (int i = 0; i < 16; ++i) {
    ConvCase c = randomConvCase(rng, 18, 40);
    c.inChannels = rows * (1 + rng() % 3);
    c.nchw = false;
    SCOPED_TRACE(c.describe());
    const OpModel m = makeConvModel(c, rng);
    expectBitExactOnDevice(*device, m, c.describe());
    if (HasFatalFailure()) return;
    windowed += firstTiling(*device, m.model).find("inputs windowed") != std::string::npos;
  }
  EXPECT_EQ(windowed, 16) << "every layer here is windowable";
}
INSTANTIATE_TEST_SUITE_P(Configurations, ConvWindowed, ::testing::Values("weft8", "weft16"));

// Random convolutions whose filter rows leave scratchpad rows partly empty (channels not whole
// rows), compiled with WEFT_ACCEL_INPUT_MODE=packed: the packed LOADs assemble each pixel's K
// bytes into full rows (Tiling.h), through padding, strides, dilation, batches and NCHW views.
class ConvPacked : public ForcedInputMode {
 protected:
  void SetUp() override { force("packed"); }
};

TEST_P(ConvPacked, MatchesTheCpuReferenceBitExact) {
  auto device = approxDevice(GetParam());
  const uint32_t rows = std::string(GetParam()) == "weft8" ? 8 : 16;
  std::mt19937 rng(91);
  int packed = 0, tried = 0;
  for (int i = 0; i < 16; ++i) {
    ConvCase c = randomConvCase(rng, 18, 40);
    c.inChannels = 1 + rng() % (rows - 1);
    SCOPED_TRACE(c.describe());
    const OpModel m = makeConvModel(c, rng);
    expectBitExactOnDevice(*device, m, c.describe());
    if (HasFatalFailure()) return;
    ++tried;
    packed += firstTiling(*device, m.model).find("packed") != std::string::npos;
  }
  // Packing applies only where the runs leave rows partly empty (not to 1x1 filters, single
  // runs, or a filter as wide as the padded image, whose rows are one run).
  std::printf("%d of %d layers packed\n", packed, tried);
  EXPECT_GE(packed, tried / 2) << "most of these layers pack";
}
INSTANTIATE_TEST_SUITE_P(Configurations, ConvPacked, ::testing::Values("weft8", "weft16"));

// Random convolutions large enough for several boxes, compiled with WEFT_ACCEL_RAMP=always: the
// first and last boxes cut into smaller ones (images into rows, rows into segments, aligned to
// the output-stationary block), the first weights loaded in ranges and the parameter rows
// late (rampedPlan, Tiling.h), through every input mode the search picks, batches and NCHW.
class ConvRamped : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override { setenv("WEFT_ACCEL_RAMP", "always", 1); }
  void TearDown() override { unsetenv("WEFT_ACCEL_RAMP"); }
};

TEST_P(ConvRamped, MatchesTheCpuReferenceBitExact) {
  auto device = approxDevice(GetParam());
  std::mt19937 rng(313);
  int ramped = 0;
  constexpr int kCases = 12;
  for (int i = 0; i < kCases; ++i) {
    ConvCase c = randomConvCase(rng, 40, 40);
    c.height = 24 + rng() % 40;
    c.width = 8 + rng() % 60;
    c.batches = 1 + rng() % 3;
    SCOPED_TRACE(c.describe());
    const OpModel m = makeConvModel(c, rng);
    expectBitExactOnDevice(*device, m, c.describe());
    if (HasFatalFailure()) return;
    const std::string tiling = firstTiling(*device, m.model);
    ramped += tiling.find("ramped ends") != std::string::npos;
  }
  // A plan of one or two boxes has no ends to ramp (nor a layer with a single candidate
  // tiling); most of these layers have several.
  std::printf("%d of %d layers ramped\n", ramped, kCases);
  EXPECT_GE(ramped, kCases / 2);
}
INSTANTIATE_TEST_SUITE_P(Configurations, ConvRamped, ::testing::Values("weft8", "weft16", "weft8os"));

ConvCase basic(uint32_t h, uint32_t w, uint32_t cin, uint32_t cout, uint32_t f) {
  ConvCase c;
  c.height = h;
  c.width = w;
  c.inChannels = cin;
  c.outChannels = cout;
  c.filterH = c.filterW = f;
  c.implicitPadding = true;
  c.paddingScheme = 1;
  c.in = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.5f, 127};
  c.filter = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.25f, 130};
  c.out = {nn::OperandType::TENSOR_QUANT8_ASYMM, 8.0f, 120};
  return c;
}

// ResNet's first layer (7x7/2 over 3 channels, here on a small image): K = 147 bytes in 21-byte
// filter rows packs into ceil(147 / Rows) chunks instead of 7 x ceil(21 / Rows).
TEST(Conv2d, ResNetStemPacksItsFilterRows) {
  for (const char* hw : {"weft8", "weft16"}) {
    SCOPED_TRACE(hw);
    std::mt19937 rng(12);
    ConvCase c = basic(64, 64, 3, 20, 7);
    c.strideH = c.strideW = 2;
    auto device = approxDevice(hw);
    const OpModel m = makeConvModel(c, rng);
    expectBitExactOnDevice(*device, m, c.describe());
    const std::string tiling = firstTiling(*device, m.model);
    const unsigned rows = std::string(hw) == "weft8" ? 8 : 16;
    EXPECT_NE(tiling.find(fmt::format("packed (7 pieces), {} chunks", (147 + rows - 1) / rows)), std::string::npos)
        << tiling;
  }
}

TEST(Conv2d, OneByOneChannelIsSmallerThanTheArray) {
  std::mt19937 rng(1);
  expectBitExact(*approxDevice("weft8"), basic(1, 1, 1, 1, 1), rng);
}

TEST(Conv2d, ChannelsNotMultiplesOfTheArray) {
  std::mt19937 rng(2);
  expectBitExact(*approxDevice("weft8"), basic(5, 7, 17, 33, 3), rng);
}

TEST(Conv2d, ManyOutputPixelsSpanSeveralTiles) {
  std::mt19937 rng(3);
  ConvCase c = basic(40, 37, 6, 10, 3);
  c.batches = 2;
  expectBitExact(*approxDevice("weft8"), c, rng);
}

TEST(Conv2d, RowsWiderThanTheAccumulatorAreSplit) {
  std::mt19937 rng(4);
  ConvCase c = basic(2, 700, 3, 5, 3);
  expectBitExact(*approxDevice("weft8"), c, rng);
}

TEST(Conv2d, MoreChannelsThanTheParameterMemoryHoldsUseSeveralEpochs) {
  std::mt19937 rng(5);
  ConvCase c = basic(3, 3, 4, 300, 1);  // weft8: 38 n-tiles, 32 parameter rows
  expectBitExact(*approxDevice("weft8"), c, rng);
}

TEST(Conv2d, LargeReductionAndStrides) {
  std::mt19937 rng(6);
  ConvCase c = basic(9, 11, 70, 9, 5);
  c.strideH = 2;
  c.strideW = 3;
  c.implicitPadding = false;
  c.padTop = 2;
  c.padBottom = 1;
  c.padLeft = 0;
  c.padRight = 4;
  c.activation = 3;
  expectBitExact(*approxDevice("weft8"), c, rng);
}

// Large enough (tens of thousands of GEMMs per candidate tiling) that the compiler searches
// its tilings on two threads.
TEST(Conv2d, ALargeLayerWhoseTilingSearchIsShared) {
  std::mt19937 rng(9);
  ConvCase c = basic(56, 56, 64, 64, 3);
  expectBitExact(*approxDevice("weft8"), c, rng);
}

TEST(Conv2d, DilatedNchwPerChannel) {
  std::mt19937 rng(7);
  ConvCase c = basic(12, 10, 5, 7, 3);
  c.dilationH = 2;
  c.dilationW = 3;
  c.nchw = true;
  c.in = {nn::OperandType::TENSOR_QUANT8_ASYMM_SIGNED, 0.5f, -3};
  c.out = {nn::OperandType::TENSOR_QUANT8_ASYMM_SIGNED, 4.0f, 10};
  c.filter = {nn::OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, 0.0f, 0};
  for (int i = 0; i < 7; ++i) c.perChannelScales.push_back(0.1f * (i + 1));
  c.activation = 1;
  expectBitExact(*approxDevice("weft8"), c, rng);
}

}  // namespace
}  // namespace weft::accel::test
