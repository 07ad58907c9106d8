// org.weft.accel's WEFT_GELU and WEFT_UNARY on the accelerator's vector unit (approx backend). An
// 8-bit GELU (or EXP, LOG, ...) is a function of the input byte, so the driver fills the lookup
// table from the reference kernel itself: bit-exact against the CPU, in every form, for any
// quantization. (Float16 through the
// lookup's linear pieces is in fp16_test.cpp.) And the models the driver leaves to the CPU, with
// its reason.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "../../driver/accel/ModelCompiler.h"
#include "AccelTestUtil.h"
#include "weft/kernels/Extensions.h"

namespace weft::accel::test {
namespace {

using nn::OperandType;
namespace ext = nn::weft_extension;

struct GeluCase {
  nn::Dimensions dims{2, 3};
  Quant in{OperandType::TENSOR_QUANT8_ASYMM, 0.05f, 128};
  Quant out{OperandType::TENSOR_QUANT8_ASYMM, 0.03f, 10};
  std::optional<int32_t> form;  // nullopt: the operand omitted (WEFT_GELU_EXACT)
  bool formAtExecution = false;  // the form a model input rather than a constant
  std::string describe() const {
    return fmt::format("GELU {} elements, in {}/{} out {}/{}, form {}{}", nn::numberOfElements(dims), in.scale,
                       in.zeroPoint, out.scale, out.zeroPoint, form ? std::to_string(*form) : "omitted",
                       formAtExecution ? " at execution" : "");
  }
};

OpModel makeGeluModel(const GeluCase& c, std::mt19937& rng, std::vector<uint8_t> values = {}) {
  ModelBuilder b;
  OpModel m;
  const uint32_t in = b.input(c.in.type, c.dims, c.in.scale, c.in.zeroPoint);
  const size_t count = nn::numberOfElements(c.dims);
  if (values.empty()) {
    values.resize(count);
    for (auto& v : values) v = static_cast<uint8_t>(rng());
  }
  m.inputs.push_back(std::move(values));
  std::vector<uint32_t> inputs{in};
  if (c.formAtExecution) {
    inputs.push_back(b.input(OperandType::INT32, {}, 0, 0));
    const int32_t form = c.form.value_or(ext::kGeluExact);
    m.inputs.emplace_back(reinterpret_cast<const uint8_t*>(&form), reinterpret_cast<const uint8_t*>(&form) + 4);
  } else if (c.form) {
    inputs.push_back(b.int32Scalar(*c.form));
  }
  const uint32_t out = b.tensor(c.out.type, c.dims, c.out.scale, c.out.zeroPoint);
  b.output(out);
  b.operation(weftOperationType(ext::kGelu), inputs, {out});
  m.model = b.build();
  m.model.extensionNameToPrefix = {{std::string(ext::kName), kWeftPrefix}};
  m.outputBytes.push_back(count);
  return m;
}

GeluCase randomCase(std::mt19937& rng) {
  auto pick = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
  GeluCase c;
  c.dims.clear();
  const uint32_t rank = pick(1, 4);
  for (uint32_t i = 0; i < rank; ++i) c.dims.push_back(pick(1, i + 1 == rank ? 90 : 9));
  const OperandType type = rng() % 2 ? OperandType::TENSOR_QUANT8_ASYMM_SIGNED : OperandType::TENSOR_QUANT8_ASYMM;
  const int32_t lowest = type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? -128 : 0;
  // Inputs spanning a few units to tens (the tails: 0 and the identity), outputs of any range.
  const float inScale = std::ldexp(1.0f + static_cast<float>(pick(0, 99)) / 100, -static_cast<int>(pick(2, 7)));
  c.in = {type, inScale, lowest + static_cast<int32_t>(pick(0, 255))};
  c.out = {type, inScale * (0.25f + static_cast<float>(pick(0, 300)) / 100), lowest + static_cast<int32_t>(pick(0, 255))};
  switch (rng() % 3) {
    case 0: break;
    case 1: c.form = ext::kGeluExact; break;
    default: c.form = ext::kGeluTanh; break;
  }
  return c;
}

TEST(WeftGelu, RandomQuant8MatchTheReferenceBitExact) {
  std::mt19937 rng(5100);
  for (const char* config : {"weft8", "weft16"}) {
    auto device = approxDevice(config);
    for (int i = 0; i < 10; ++i) {
      const GeluCase c = randomCase(rng);
      expectBitExactOnDevice(*device, makeGeluModel(c, rng), fmt::format("{} {}", config, c.describe()));
      if (HasFatalFailure()) return;
    }
  }
}

// Every input byte once, in each form and signedness: the whole table is the kernel's.
TEST(WeftGelu, EveryInputByteInBothForms) {
  std::mt19937 rng(5101);
  std::vector<uint8_t> every(256);
  for (int b = 0; b < 256; ++b) every[b] = static_cast<uint8_t>(b);
  for (const auto type : {OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}) {
    for (const int32_t form : {ext::kGeluExact, ext::kGeluTanh}) {
      GeluCase c;
      c.dims = {256};
      const int32_t offset = type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? -128 : 0;
      c.in = {type, 0.04f, offset + 150};
      c.out = {type, 0.02f, offset + 40};
      c.form = form;
      expectBitExactOnDevice(*approxDevice("weft8"), makeGeluModel(c, rng, every), c.describe());
    }
  }
}

// The reasons the device gives for the operation it does not claim.
std::string refusal(const hal::IDevice& device, const OpModel& m) {
  auto supported = device.getSupportedOperations(m.model);
  EXPECT_TRUE(supported.ok());
  if (!supported.ok() || supported.value().at(0)) return "claimed";
  auto reasons = device.getUnsupportedReasons(m.model);
  EXPECT_TRUE(reasons.ok());
  return reasons.ok() && reasons.value().count(0) ? reasons.value().at(0) : "no reason";
}

TEST(WeftGelu, LeftToTheCpuWithTheDriversReason) {
  std::mt19937 rng(5102);
  auto device = approxDevice("weft8");
  {
    GeluCase c;  // the form known only at execution: the table cannot be built
    c.form = ext::kGeluTanh;
    c.formAtExecution = true;
    EXPECT_NE(refusal(*device, makeGeluModel(c, rng)).find("approximation"), std::string::npos);
  }
  {
    GeluCase c;  // a form the kernel does not define: both devices refuse
    c.form = 5;
    EXPECT_NE(refusal(*device, makeGeluModel(c, rng)).find("neither WEFT_GELU_EXACT"), std::string::npos);
  }
  {
    GeluCase c;  // rank 5: beyond the vector unit's images
    c.dims = {2, 1, 2, 3, 2};
    EXPECT_NE(refusal(*device, makeGeluModel(c, rng)).find("rank"), std::string::npos);
  }
  {
    GeluCase c;  // output of another type than the input: the kernel's rule
    c.out.type = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    c.out.zeroPoint = 0;
    EXPECT_NE(refusal(*device, makeGeluModel(c, rng)), "claimed");
  }
  {
    GeluCase c;  // float32 on an 8-bit configuration
    c.in = {OperandType::TENSOR_FLOAT32, 0, 0};
    c.out = {OperandType::TENSOR_FLOAT32, 0, 0};
    std::vector<uint8_t> values(4 * nn::numberOfElements(c.dims), 0);
    OpModel m = makeGeluModel(c, rng, values);
    EXPECT_NE(refusal(*device, m), "claimed");
  }
}

// WEFT_UNARY of `function` (an INT32 constant, or a model input when `atExecution`) over `values`.
OpModel makeUnaryModel(int32_t function, const Quant& in, const Quant& out, const nn::Dimensions& dims,
                       std::vector<uint8_t> values, bool atExecution = false) {
  ModelBuilder b;
  OpModel m;
  const uint32_t x = b.input(in.type, dims, in.scale, in.zeroPoint);
  m.inputs.push_back(std::move(values));
  uint32_t f;
  if (atExecution) {
    f = b.input(OperandType::INT32, {}, 0, 0);
    m.inputs.emplace_back(reinterpret_cast<const uint8_t*>(&function), reinterpret_cast<const uint8_t*>(&function) + 4);
  } else {
    f = b.int32Scalar(function);
  }
  const uint32_t y = b.tensor(out.type, dims, out.scale, out.zeroPoint);
  b.output(y);
  b.operation(weftOperationType(ext::kUnary), {x, f}, {y});
  m.model = b.build();
  m.model.extensionNameToPrefix = {{std::string(ext::kName), kWeftPrefix}};
  m.outputBytes.push_back(nn::numberOfElements(dims) * (in.type == OperandType::TENSOR_FLOAT16 ? 2 : 1));
  return m;
}

// Every function, every input byte, both signednesses (ln and sqrt of negative bytes are NaN: the
// zero point; ln 0 saturates), and random quantizations and shapes: the table is the kernel's.
TEST(WeftUnary, EveryFunctionAndInputByteBitExact) {
  std::mt19937 rng(5103);
  std::vector<uint8_t> every(256);
  for (int b = 0; b < 256; ++b) every[b] = static_cast<uint8_t>(b);
  for (int32_t f = 0; f < ext::kUnaryFunctions; ++f) {
    for (const auto type : {OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}) {
      const int32_t offset = type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? -128 : 0;
      const Quant in{type, 0.03f, offset + 120}, out{type, 0.05f, offset + 30};
      expectBitExactOnDevice(*approxDevice("weft8"), makeUnaryModel(f, in, out, {256}, every),
                             fmt::format("WEFT_UNARY {} {}", nn::weft_unary::name(f), nn::toString(type)));
      GeluCase c = randomCase(rng);  // its shape and quantizations
      std::vector<uint8_t> values(nn::numberOfElements(c.dims));
      for (auto& v : values) v = static_cast<uint8_t>(rng());
      expectBitExactOnDevice(*approxDevice("weft16"), makeUnaryModel(f, c.in, c.out, c.dims, values),
                             fmt::format("WEFT_UNARY {} {}", nn::weft_unary::name(f), c.describe()));
    }
  }
}

TEST(WeftUnary, LeftToTheCpuWithTheDriversReason) {
  auto device = approxDevice("weft8");
  const Quant q{OperandType::TENSOR_QUANT8_ASYMM, 0.03f, 120};
  const std::vector<uint8_t> values(6, 7);
  // The function known only at execution: the table cannot be built.
  EXPECT_NE(refusal(*device, makeUnaryModel(ext::kExp, q, q, {2, 3}, values, true)).find("function"), std::string::npos);
  // No such function: both devices refuse.
  EXPECT_NE(refusal(*device, makeUnaryModel(9, q, q, {2, 3}, values)).find("is none of WEFT_UNARY_EXP"), std::string::npos);
  // Binary16 (on the fp16 datapath): 256 linear pieces do not follow exp closely enough.
  const Quant half{OperandType::TENSOR_FLOAT16, 0, 0};
  std::map<uint32_t, std::string> reasons;
  supportedOperations(makeUnaryModel(ext::kExp, half, half, {2, 3}, std::vector<uint8_t>(12, 0)).model,
                      hw::HwConfig::load("weft16fp"), &reasons);
  EXPECT_NE(reasons[0].find("8-bit only"), std::string::npos) << reasons[0];
}

}  // namespace
}  // namespace weft::accel::test
