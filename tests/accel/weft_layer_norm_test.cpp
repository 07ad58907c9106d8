// org.weft.accel's WEFT_LAYER_NORM on the accelerator's vector unit (approx backend): the
// LAYER_NORM command's fixed-point normalization and the STORE's per-column gamma and beta against
// the reference kernel's double-precision result, within NNAPI's quant8 tolerance (one unit), for
// random shapes and quantizations, BERT's row length, gammas of zero and of both signs, constant
// rows. And the models the driver leaves to the CPU, with its reason.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>

#include "AccelTestUtil.h"
#include "weft/kernels/Extensions.h"

namespace weft::accel::test {
namespace {

using nn::OperandType;
namespace ext = nn::weft_extension;

struct LayerNormCase {
  nn::Dimensions dims{3, 40};
  Quant in{OperandType::TENSOR_QUANT8_ASYMM, 0.05f, 128};
  Quant out{OperandType::TENSOR_QUANT8_ASYMM, 0.03f, 128};
  float epsilon = 1e-5f;
  bool gammaAtExecution = false;
  OperandType affine = OperandType::TENSOR_FLOAT32;
  std::string describe() const {
    std::string d;
    for (uint32_t v : dims) d += fmt::format("{}x", v);
    d.pop_back();
    return fmt::format("layer norm {}, in {}/{} out {}/{} ({}), epsilon {}", d, in.scale, in.zeroPoint, out.scale,
                       out.zeroPoint, in.type == OperandType::TENSOR_QUANT8_ASYMM ? "unsigned" : "signed", epsilon);
  }
};

// gamma and beta of `width`: both signs, some exact zeros among the gammas.
struct Affine {
  std::vector<float> gamma, beta;
};
Affine randomAffine(std::mt19937& rng, uint32_t width) {
  std::normal_distribution<float> g(1.0f, 0.6f), b(0.0f, 0.5f);
  Affine a;
  for (uint32_t i = 0; i < width; ++i) {
    a.gamma.push_back(rng() % 17 == 0 ? 0.0f : g(rng));
    a.beta.push_back(b(rng));
  }
  return a;
}

OpModel makeLayerNormModel(const LayerNormCase& c, const Affine& a, std::vector<uint8_t> values) {
  ModelBuilder b;
  OpModel m;
  const uint32_t width = c.dims.back();
  const uint32_t in = b.input(c.in.type, c.dims, c.in.scale, c.in.zeroPoint);
  m.inputs.push_back(std::move(values));
  uint32_t gamma;
  if (c.gammaAtExecution) {
    gamma = b.input(c.affine, {width}, 0, 0);
    std::vector<uint8_t> bytes(4 * width);
    std::memcpy(bytes.data(), a.gamma.data(), bytes.size());
    m.inputs.push_back(std::move(bytes));
  } else {
    gamma = b.constant(c.affine, {width}, a.gamma.data(), 4 * width);
  }
  const uint32_t beta = b.constant(c.affine, {width}, a.beta.data(), 4 * width);
  const uint32_t eps = b.constant(OperandType::FLOAT32, {}, &c.epsilon, 4);
  const uint32_t out = b.tensor(c.out.type, c.dims, c.out.scale, c.out.zeroPoint);
  b.output(out);
  b.operation(weftOperationType(ext::kLayerNorm), {in, gamma, beta, eps}, {out});
  m.model = b.build();
  m.model.extensionNameToPrefix = {{std::string(ext::kName), kWeftPrefix}};
  m.outputBytes.push_back(nn::numberOfElements(c.dims));
  return m;
}

// Rows around a random centre with a random spread (from one level to the whole byte).
std::vector<uint8_t> randomRows(std::mt19937& rng, const nn::Dimensions& dims) {
  const uint32_t width = dims.back();
  std::vector<uint8_t> v(nn::numberOfElements(dims));
  for (size_t r = 0; r < v.size(); r += width) {
    const int centre = static_cast<int>(rng() % 256), spread = static_cast<int>(rng() % 128);
    for (uint32_t i = 0; i < width; ++i) {
      const int x = centre + (spread == 0 ? 0 : static_cast<int>(rng() % (2 * spread + 1)) - spread);
      v[r + i] = static_cast<uint8_t>(std::clamp(x, 0, 255));
    }
  }
  return v;
}

// The device claims the operation, runs it, and every output element is within one unit of the
// reference's.
void expectWithinOneUnit(const hal::IDevice& device, const OpModel& m, const std::string& what) {
  auto cpu = runOnCpu(m);
  ASSERT_TRUE(cpu.ok()) << what << ": " << cpu.error().message;
  auto supported = device.getSupportedOperations(m.model);
  ASSERT_TRUE(supported.ok());
  if (!supported.value().at(0)) {
    auto reasons = device.getUnsupportedReasons(m.model);
    FAIL() << what << ": not claimed: " << (reasons.ok() && reasons.value().count(0) ? reasons.value().at(0) : "");
  }
  auto prepared = prepare(device, m.model);
  ASSERT_TRUE(prepared.ok()) << what << ": " << prepared.error().message;
  auto dev = runOnPrepared(*prepared.value(), m);
  ASSERT_TRUE(dev.ok()) << what << ": " << dev.error().message;
  const bool isSigned = m.model.main.operands[m.model.main.outputIndexes[0]].type ==
                        OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  const auto& got = dev.value().outputs[0];
  const auto& want = cpu.value().outputs[0];
  ASSERT_EQ(got.size(), want.size());
  size_t worst = 0;
  int worstDiff = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const int a = isSigned ? static_cast<int8_t>(got[i]) : got[i], b = isSigned ? static_cast<int8_t>(want[i]) : want[i];
    if (std::abs(a - b) > worstDiff) {
      worstDiff = std::abs(a - b);
      worst = i;
    }
  }
  EXPECT_LE(worstDiff, 1) << what << ": element " << worst << " is " << int(got[worst]) << ", the reference says "
                          << int(want[worst]);
}

LayerNormCase randomCase(std::mt19937& rng, uint32_t maxWidth) {
  auto pick = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
  LayerNormCase c;
  c.dims.clear();
  const uint32_t rank = pick(1, 4);
  for (uint32_t i = 0; i + 1 < rank; ++i) c.dims.push_back(pick(1, 5));
  c.dims.push_back(pick(1, maxWidth));
  const OperandType type = rng() % 2 ? OperandType::TENSOR_QUANT8_ASYMM_SIGNED : OperandType::TENSOR_QUANT8_ASYMM;
  const int32_t lowest = type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? -128 : 0;
  c.in = {type, std::ldexp(1.0f + static_cast<float>(pick(0, 99)) / 100, -static_cast<int>(pick(1, 9))),
          lowest + static_cast<int32_t>(pick(0, 255))};
  // Outputs around the normalized range (gamma ~ 1): a few units to tens.
  c.out = {type, 0.005f + static_cast<float>(pick(0, 100)) / 1000, lowest + static_cast<int32_t>(pick(64, 192))};
  // (Not 0: a constant row's 0 / 0 is NaN in the reference's arithmetic, undefined.)
  c.epsilon = std::array{1e-5f, 1e-12f, 0.1f}[pick(0, 2)];
  return c;
}

TEST(WeftLayerNorm, RandomQuant8WithinOneUnitOfTheReference) {
  std::mt19937 rng(6100);
  for (const char* config : {"weft8", "weft16"}) {
    auto device = approxDevice(config);
    for (int i = 0; i < 14; ++i) {
      const LayerNormCase c = randomCase(rng, i < 10 ? 100 : std::string(config) == "weft8" ? 256 : 1024);
      const Affine a = randomAffine(rng, c.dims.back());
      expectWithinOneUnit(*device, makeLayerNormModel(c, a, randomRows(rng, c.dims)),
                          fmt::format("{} {}", config, c.describe()));
      if (HasFatalFailure()) return;
    }
  }
}

// BERT's rows (768) over 40 tokens at weft16: 48 parameter rows of its 64, three tokens a group
// (the accumulator's half holds 512 rows). At weft8 the row needs 96 parameter rows of its 32:
// they come in three chunks, each loaded for a group's STOREs of its column tiles.
TEST(WeftLayerNorm, BertRows) {
  std::mt19937 rng(6101);
  LayerNormCase c;
  c.dims = {1, 40, 768};
  c.in = {OperandType::TENSOR_QUANT8_ASYMM_SIGNED, 0.08f, -3};
  c.out = {OperandType::TENSOR_QUANT8_ASYMM_SIGNED, 0.04f, 2};
  c.epsilon = 1e-12f;
  const Affine a = randomAffine(rng, 768);
  const OpModel m = makeLayerNormModel(c, a, randomRows(rng, c.dims));
  expectWithinOneUnit(*approxDevice("weft16"), m, c.describe());
  expectWithinOneUnit(*approxDevice("weft8"), m, "weft8 " + c.describe());
}

// Rows longer than the parameter memory holds (256 elements at weft8, 1024 at weft16), up to the
// longest the accumulator holds (4088 at weft8: 511 of its 512 rows, the last kept for the
// relays), at odd widths and token counts: chunks that end mid-STORE, a last chunk of one
// parameter row, a last tile of few lanes, groups of one token.
TEST(WeftLayerNorm, RowsLongerThanTheParameterMemory) {
  std::mt19937 rng(6104);
  const std::vector<std::pair<const char*, nn::Dimensions>> cases = {
      {"weft8", {5, 257}},  {"weft8", {3, 7, 520}}, {"weft8", {9, 1000}}, {"weft8", {2, 2049}},
      {"weft8", {3, 4088}}, {"weft16", {3, 1500}},  {"weft16", {2, 2, 5000}}};
  for (const auto& [config, dims] : cases) {
    LayerNormCase c = randomCase(rng, 100);
    c.dims = dims;
    const Affine a = randomAffine(rng, c.dims.back());
    expectWithinOneUnit(*approxDevice(config), makeLayerNormModel(c, a, randomRows(rng, c.dims)),
                        fmt::format("{} {}", config, c.describe()));
    if (HasFatalFailure()) return;
  }
}

// Rows of equal elements: zero variance, so the normalized row is 0 and the output is beta. The
// epsilon is small enough to round to 0 in the command's units (V = 0: the reciprocal is 0).
TEST(WeftLayerNorm, ConstantRowsGiveBeta) {
  std::mt19937 rng(6102);
  LayerNormCase c;
  c.dims = {4, 33};
  c.epsilon = 1e-9f;
  const Affine a = randomAffine(rng, 33);
  std::vector<uint8_t> rows(4 * 33);
  for (int r = 0; r < 4; ++r) std::fill_n(rows.begin() + r * 33, 33, static_cast<uint8_t>(rng()));
  expectWithinOneUnit(*approxDevice("weft16"), makeLayerNormModel(c, a, rows), c.describe());
}

TEST(WeftLayerNorm, LeftToTheCpuWithTheDriversReason) {
  std::mt19937 rng(6103);
  auto device = approxDevice("weft8");
  {
    LayerNormCase c;  // gamma given at execution: it is the STOREs' parameters
    c.gammaAtExecution = true;
    const Affine a = randomAffine(rng, c.dims.back());
    expectRefusedOnDevice(*device, makeLayerNormModel(c, a, randomRows(rng, c.dims)).model, "gamma and beta");
  }
  {
    LayerNormCase c;  // a row longer than the accumulator holds (511 rows of 8 lanes at weft8)
    c.dims = {2, 4089};
    const Affine a = randomAffine(rng, c.dims.back());
    expectRefusedOnDevice(*device, makeLayerNormModel(c, a, randomRows(rng, c.dims)).model,
                          "a row of at most 4088 elements");
  }
  {
    LayerNormCase c;  // a row longer than the 32-bit sums hold
    c.dims = {40000};
    const Affine a = randomAffine(rng, c.dims.back());
    expectRefusedOnDevice(*device, makeLayerNormModel(c, a, randomRows(rng, c.dims)).model, "the hardware sums");
  }
  {
    LayerNormCase c;  // output of another type than the input
    c.out = {OperandType::TENSOR_QUANT8_ASYMM_SIGNED, 0.03f, 0};
    const Affine a = randomAffine(rng, c.dims.back());
    const OpModel m = makeLayerNormModel(c, a, randomRows(rng, c.dims));
    auto supported = device->getSupportedOperations(m.model);
    ASSERT_TRUE(supported.ok());
    EXPECT_FALSE(supported.value().at(0));
  }
  {
    LayerNormCase c;  // float32 on an 8-bit configuration
    c.in = {OperandType::TENSOR_FLOAT32, 0, 0};
    c.out = {OperandType::TENSOR_FLOAT32, 0, 0};
    const Affine a = randomAffine(rng, c.dims.back());
    const OpModel m = makeLayerNormModel(c, a, std::vector<uint8_t>(4 * nn::numberOfElements(c.dims), 0));
    expectRefusedOnDevice(*device, m.model);
  }
}

}  // namespace
}  // namespace weft::accel::test
