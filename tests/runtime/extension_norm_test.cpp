// WEFT_LAYER_NORM and WEFT_GELU of org.weft.accel (weft/WeftExtension.h) through the NNAPI C API
// on the CPU device: float32 against the formulas in double, quant8 against the documented
// requantization, float16 within its rounding, and the validation of their operands. Run with an
// allowlist naming this program (CMakeLists.txt).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "NnapiTestUtils.h"
#include "weft/WeftExtension.h"
#include "weft/kernels/Extensions.h"

namespace weft::test {
namespace {

static_assert(nn::weft_extension::kLayerNorm == WEFT_LAYER_NORM);
static_assert(nn::weft_extension::kGelu == WEFT_GELU);
static_assert(nn::weft_extension::kGeluExact == WEFT_GELU_EXACT && nn::weft_extension::kGeluTanh == WEFT_GELU_TANH);
static_assert(nn::weft_extension::kUnary == WEFT_UNARY);
static_assert(nn::weft_extension::kExp == WEFT_UNARY_EXP && nn::weft_extension::kLog == WEFT_UNARY_LOG &&
              nn::weft_extension::kSqrt == WEFT_UNARY_SQRT && nn::weft_extension::kAbs == WEFT_UNARY_ABS &&
              nn::weft_extension::kSin == WEFT_UNARY_SIN && nn::weft_extension::kNeg == WEFT_UNARY_NEG &&
              nn::weft_extension::kSoftplus == WEFT_UNARY_SOFTPLUS &&
              nn::weft_extension::kReciprocal == WEFT_UNARY_RECIPROCAL && nn::weft_extension::kUnaryFunctions == 8);

constexpr int kOk = ANEURALNETWORKS_NO_ERROR;

ANeuralNetworksOperationType extensionOperation(const Model& model, uint16_t code) {
  ANeuralNetworksOperationType type = -1;
  EXPECT_EQ(ANeuralNetworksModel_getExtensionOperationType(model.get(), WEFT_EXTENSION_NAME, code, &type), kOk);
  return type;
}

double gelu(double x, bool tanhForm) {
  if (!tanhForm) return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}

// Finishes a one-operation model and runs it on the CPU device: input 0 from `input` (raw
// bytes), output 0 into `output` (its size). Returns the compute status.
int runOnCpu(Model& model, const void* input, size_t inputBytes, std::vector<uint8_t>& output) {
  if (model.finish() != kOk) return -2;
  Compilation compilation(model, {cpuDevice()});
  if (compilation.finish() != kOk) return -1;
  Execution execution(compilation);
  EXPECT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, input, inputBytes), kOk);
  EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, output.data(), output.size()), kOk);
  return execution.compute();
}

// The runtime leaves extension operations to the devices: a model breaking a rule finishes, and
// the CPU device (the reference kernel's validation) refuses to compile it.
void expectRefusedByTheDevice(Model& model) {
  ASSERT_EQ(model.finish(), kOk);
  Compilation compilation(model, {cpuDevice()});
  EXPECT_EQ(compilation.finish(), ANEURALNETWORKS_BAD_DATA);
  const ANeuralNetworksDevice* device = cpuDevice();
  bool supported = true;
  ASSERT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model.get(), &device, 1, &supported), kOk);
  EXPECT_FALSE(supported);
}

TEST(ExtensionNorm, GeluFloat32BothForms) {
  for (const int32_t form : {WEFT_GELU_EXACT, WEFT_GELU_TANH}) {
    Model model;
    const uint32_t in = model.addOperand(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 5});
    const uint32_t approximation = model.addInt32Constant(form);
    const uint32_t out = model.addOperand(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 5});
    ASSERT_EQ(model.addOperation(extensionOperation(model, WEFT_GELU), {in, approximation}, {out}), kOk);
    ASSERT_EQ(model.identify({in}, {out}), kOk);
    const std::vector<float> x = {-4, -2.5f, -1, -0.25f, 0, 0.1f, 0.5f, 1, 2, 6};
    std::vector<uint8_t> bytes(x.size() * 4);
    ASSERT_EQ(runOnCpu(model, x.data(), x.size() * 4, bytes), kOk);
    for (size_t i = 0; i < x.size(); ++i) {
      float y;
      std::memcpy(&y, bytes.data() + 4 * i, 4);
      EXPECT_NEAR(y, gelu(x[i], form == WEFT_GELU_TANH), 1e-6) << "x " << x[i] << " form " << form;
    }
  }
}

TEST(ExtensionNorm, GeluQuant8IsTheRequantizedFunctionOfEachByte) {
  Model model;
  const uint32_t in = model.addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED, {256}, 0.05f, -3);
  const uint32_t out = model.addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED, {256}, 0.03f, -100);
  ASSERT_EQ(model.addOperation(extensionOperation(model, WEFT_GELU), {in}, {out}), kOk);  // exact by default
  ASSERT_EQ(model.identify({in}, {out}), kOk);
  std::vector<int8_t> x(256);
  for (int i = 0; i < 256; ++i) x[i] = static_cast<int8_t>(i - 128);
  std::vector<uint8_t> y(256);
  ASSERT_EQ(runOnCpu(model, x.data(), x.size(), y), kOk);
  for (int i = 0; i < 256; ++i) {
    const double want = std::round(gelu((x[i] + 3) * double(0.05f), false) / double(0.03f)) - 100;
    EXPECT_EQ(static_cast<int8_t>(y[i]), static_cast<int8_t>(std::clamp(want, -128.0, 127.0))) << "byte " << i;
  }
}

TEST(ExtensionNorm, EveryDeviceAskedTheCpuRunsThem) {
  // The accelerator declares org.weft.accel but does not claim these yet: the partitioner gives
  // them to the CPU device, and a compilation for every device still runs.
  Model model;
  const uint32_t in = model.addOperand(ANEURALNETWORKS_TENSOR_FLOAT32, {4});
  const uint32_t out = model.addOperand(ANEURALNETWORKS_TENSOR_FLOAT32, {4});
  ASSERT_EQ(model.addOperation(extensionOperation(model, WEFT_GELU), {in}, {out}), kOk);
  ASSERT_EQ(model.identify({in}, {out}), kOk);
  ASSERT_EQ(model.finish(), kOk);
  Compilation compilation(model);
  ASSERT_EQ(compilation.finish(), kOk);
  Execution execution(compilation);
  std::vector<float> x = {-1, 0, 1, 2}, y(4);
  ASSERT_EQ(execution.setInput(0, x), kOk);
  ASSERT_EQ(execution.setOutput(0, y), kOk);
  ASSERT_EQ(execution.compute(), kOk);
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(y[i], gelu(x[i], false), 1e-6);
}

TEST(ExtensionNorm, GeluRefusesAnUnknownForm) {
  Model model;
  const uint32_t in = model.addOperand(ANEURALNETWORKS_TENSOR_FLOAT32, {3});
  const uint32_t approximation = model.addInt32Constant(7);
  const uint32_t out = model.addOperand(ANEURALNETWORKS_TENSOR_FLOAT32, {3});
  ASSERT_EQ(model.addOperation(extensionOperation(model, WEFT_GELU), {in, approximation}, {out}), kOk);
  ASSERT_EQ(model.identify({in}, {out}), kOk);
  expectRefusedByTheDevice(model);
}

double unary(int32_t f, double x) {
  switch (f) {
    case WEFT_UNARY_EXP: return std::exp(x);
    case WEFT_UNARY_LOG: return std::log(x);
    case WEFT_UNARY_SQRT: return std::sqrt(x);
    case WEFT_UNARY_ABS: return std::fabs(x);
    case WEFT_UNARY_SIN: return std::sin(x);
    case WEFT_UNARY_NEG: return -x;
    case WEFT_UNARY_RECIPROCAL: return 1 / x;
    default: return std::log(1 + std::exp(x));  // WEFT_UNARY_SOFTPLUS
  }
}

TEST(ExtensionNorm, UnaryFunctionsInFloat32) {
  const std::vector<float> x = {-3, -0.5f, 0, 0.25f, 1, 2.5f, 8};
  for (int32_t f = WEFT_UNARY_EXP; f <= WEFT_UNARY_RECIPROCAL; ++f) {
    Model model;
    const uint32_t in = model.addOperand(ANEURALNETWORKS_TENSOR_FLOAT32, {7});
    const uint32_t function = model.addInt32Constant(f);
    const uint32_t out = model.addOperand(ANEURALNETWORKS_TENSOR_FLOAT32, {7});
    ASSERT_EQ(model.addOperation(extensionOperation(model, WEFT_UNARY), {in, function}, {out}), kOk);
    ASSERT_EQ(model.identify({in}, {out}), kOk);
    std::vector<uint8_t> bytes(x.size() * 4);
    ASSERT_EQ(runOnCpu(model, x.data(), x.size() * 4, bytes), kOk);
    for (size_t i = 0; i < x.size(); ++i) {
      float y;
      std::memcpy(&y, bytes.data() + 4 * i, 4);
      const double want = unary(f, x[i]);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(y)) << "function " << f << " x " << x[i];
      } else if (std::isinf(want)) {
        EXPECT_EQ(y, want) << "function " << f << " x " << x[i];  // ln 0
      } else {
        EXPECT_NEAR(y, want, 1e-6 * std::max(1.0, std::fabs(want))) << "function " << f << " x " << x[i];
      }
    }
  }
}

// 8 bits: the function of each byte requantized; ln 0 saturates at the bottom, a NaN (ln and sqrt
// of negative values) is the output's zero point.
TEST(ExtensionNorm, UnaryQuant8IsTheRequantizedFunctionOfEachByte) {
  for (int32_t f = WEFT_UNARY_EXP; f <= WEFT_UNARY_RECIPROCAL; ++f) {
    Model model;
    const uint32_t in = model.addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {256}, 0.02f, 100);
    const uint32_t function = model.addInt32Constant(f);
    const uint32_t out = model.addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {256}, 0.01f, 60);
    ASSERT_EQ(model.addOperation(extensionOperation(model, WEFT_UNARY), {in, function}, {out}), kOk);
    ASSERT_EQ(model.identify({in}, {out}), kOk);
    std::vector<uint8_t> x(256), y(256);
    for (int i = 0; i < 256; ++i) x[i] = static_cast<uint8_t>(i);
    ASSERT_EQ(runOnCpu(model, x.data(), x.size(), y), kOk);
    for (int i = 0; i < 256; ++i) {
      const double v = unary(f, (i - 100) * double(0.02f));
      const double want = std::isnan(v) ? 60 : std::clamp(std::round(v / double(0.01f)) + 60, 0.0, 255.0);
      EXPECT_EQ(y[i], static_cast<uint8_t>(want)) << "function " << f << " byte " << i;
    }
  }
}

TEST(ExtensionNorm, UnaryRefusesAnUnknownFunctionOrNone) {
  for (const bool omitted : {false, true}) {
    Model model;
    const uint32_t in = model.addOperand(ANEURALNETWORKS_TENSOR_FLOAT32, {3});
    const uint32_t out = model.addOperand(ANEURALNETWORKS_TENSOR_FLOAT32, {3});
    std::vector<uint32_t> inputs{in};
    if (!omitted) inputs.push_back(model.addInt32Constant(8));
    ASSERT_EQ(model.addOperation(extensionOperation(model, WEFT_UNARY), inputs, {out}), kOk);
    ASSERT_EQ(model.identify({in}, {out}), kOk);
    expectRefusedByTheDevice(model);
  }
}

// Layer norm rows of `width` with gamma/beta constants; input 0 the rows.
struct NormProblem {
  uint32_t rows = 3, width = 8;
  std::vector<float> gamma, beta;
  float epsilon = 1e-5f;
  NormProblem() {
    for (uint32_t c = 0; c < width; ++c) {
      gamma.push_back(0.5f + 0.25f * c);
      beta.push_back(-0.3f + 0.1f * c);
    }
  }
  std::vector<double> expected(const std::vector<double>& x) const {
    std::vector<double> y(x.size());
    for (uint32_t r = 0; r < rows; ++r) {
      double mean = 0, variance = 0;
      for (uint32_t c = 0; c < width; ++c) mean += x[r * width + c] / width;
      for (uint32_t c = 0; c < width; ++c) variance += std::pow(x[r * width + c] - mean, 2) / width;
      for (uint32_t c = 0; c < width; ++c) {
        y[r * width + c] = (x[r * width + c] - mean) / std::sqrt(variance + epsilon) * gamma[c] + beta[c];
      }
    }
    return y;
  }
};

uint32_t addEpsilon(Model& model, float value) {
  const uint32_t e = model.addOperand(ANEURALNETWORKS_FLOAT32);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), e, &value, sizeof(value)), kOk);
  return e;
}

TEST(ExtensionNorm, LayerNormFloat32) {
  NormProblem p;
  Model model;
  const uint32_t in = model.addOperand(ANEURALNETWORKS_TENSOR_FLOAT32, {p.rows, p.width});
  const uint32_t gamma = model.addFloatTensorConstant({p.width}, p.gamma);
  const uint32_t beta = model.addFloatTensorConstant({p.width}, p.beta);
  const uint32_t out = model.addOperand(ANEURALNETWORKS_TENSOR_FLOAT32, {p.rows, p.width});
  ASSERT_EQ(model.addOperation(extensionOperation(model, WEFT_LAYER_NORM), {in, gamma, beta, addEpsilon(model, p.epsilon)},
                               {out}),
            kOk);
  ASSERT_EQ(model.identify({in}, {out}), kOk);
  std::vector<float> x;
  std::vector<double> xd;
  for (uint32_t i = 0; i < p.rows * p.width; ++i) {
    x.push_back(std::sin(0.7f * i) * (1 + i % 5) + (i / p.width));
    xd.push_back(x.back());
  }
  std::vector<uint8_t> bytes(x.size() * 4);
  ASSERT_EQ(runOnCpu(model, x.data(), x.size() * 4, bytes), kOk);
  const auto want = p.expected(xd);
  for (size_t i = 0; i < x.size(); ++i) {
    float y;
    std::memcpy(&y, bytes.data() + 4 * i, 4);
    EXPECT_NEAR(y, want[i], 1e-5) << i;
  }
}

TEST(ExtensionNorm, LayerNormQuant8WithinOneStep) {
  NormProblem p;
  const float inScale = 0.04f, outScale = 0.02f;
  const int32_t inZero = 120, outZero = 128;
  Model model;
  const uint32_t in = model.addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {p.rows, p.width}, inScale, inZero);
  const uint32_t gamma = model.addFloatTensorConstant({p.width}, p.gamma);
  const uint32_t beta = model.addFloatTensorConstant({p.width}, p.beta);
  const uint32_t out = model.addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {p.rows, p.width}, outScale, outZero);
  ASSERT_EQ(model.addOperation(extensionOperation(model, WEFT_LAYER_NORM), {in, gamma, beta, addEpsilon(model, p.epsilon)},
                               {out}),
            kOk);
  ASSERT_EQ(model.identify({in}, {out}), kOk);
  std::vector<uint8_t> x;
  std::vector<double> xd;
  for (uint32_t i = 0; i < p.rows * p.width; ++i) {
    x.push_back(static_cast<uint8_t>((37 * i + 11 * (i / p.width)) % 256));
    xd.push_back((x.back() - inZero) * double(inScale));
  }
  std::vector<uint8_t> y(x.size());
  ASSERT_EQ(runOnCpu(model, x.data(), x.size(), y), kOk);
  const auto want = p.expected(xd);
  for (size_t i = 0; i < x.size(); ++i) {
    const double q = std::clamp(std::round(want[i] / outScale) + outZero, 0.0, 255.0);
    EXPECT_NEAR(y[i], q, 1.0) << i;  // the same formula, evaluated in another order
  }
}

TEST(ExtensionNorm, LayerNormRefusesMismatchedGamma) {
  Model model;
  const uint32_t in = model.addOperand(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 8});
  const uint32_t gamma = model.addFloatTensorConstant({7}, std::vector<float>(7, 1.0f));
  const uint32_t beta = model.addFloatTensorConstant({8}, std::vector<float>(8, 0.0f));
  const uint32_t out = model.addOperand(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 8});
  ASSERT_EQ(model.addOperation(extensionOperation(model, WEFT_LAYER_NORM), {in, gamma, beta, addEpsilon(model, 1e-5f)},
                               {out}),
            kOk);
  ASSERT_EQ(model.identify({in}, {out}), kOk);
  expectRefusedByTheDevice(model);
}

TEST(ExtensionNorm, LayerNormRefusesQuantizedGammaOfTheInputsType) {
  Model model;
  const uint32_t in = model.addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2, 4}, 0.1f, 0);
  const uint32_t gamma = model.addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {4}, 0.1f, 0);  // a model input
  const uint32_t beta = model.addFloatTensorConstant({4}, std::vector<float>(4, 0.0f));
  const uint32_t out = model.addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2, 4}, 0.1f, 0);
  ASSERT_EQ(model.addOperation(extensionOperation(model, WEFT_LAYER_NORM), {in, gamma, beta, addEpsilon(model, 1e-5f)},
                               {out}),
            kOk);
  ASSERT_EQ(model.identify({in, gamma}, {out}), kOk);
  expectRefusedByTheDevice(model);
}

}  // namespace
}  // namespace weft::test
