// TENSOR_FLOAT16 CONV_2D and FULLY_CONNECTED on the fp16 datapath (weft16fp, approx backend)
// against the CPU reference within NNAPI's float16 tolerance (atol = rtol = 5 x 2^-10, the
// corpus's rule): random shapes, padding, strides, dilation, batches and fused activations, with
// channels that are and are not whole scratchpad rows (so the im2col, packed and windowed input
// modes all run). Without the fp16 datapath (weft16) the accelerator does not claim them.
// The vector unit's binary16 layers too: DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, MAX_POOL_2D, MEAN and
// the activations (RELU, RELU1, RELU6 exact; LOGISTIC, TANH through 256 linear pieces).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <set>

#include "AccelTestUtil.h"
#include "PreparedModel.h"
#include "weft/hw/fp16.h"
#include "weft/kernels/Extensions.h"

namespace weft::accel::test {
namespace {

using nn::OperandType;
namespace fp = hw::fp;

struct Fp16Conv {
  uint32_t batches = 1, height = 6, width = 6, inChannels = 3, outChannels = 5;
  uint32_t filterH = 3, filterW = 3, stride = 1, dilation = 1;
  int32_t padding = 1;  // SAME 1, VALID 2
  int32_t activation = 0;
  bool nchw = false;  // input and output [N, C, H, W] (the layout operand true)
  bool atExecution = false;  // filter and bias model inputs (after the input), not constants
  std::string describe() const {
    return fmt::format("fp16 conv {}x{}x{}x{} -> {}, filter {}x{} stride {} dilation {} {} act {}{}{}", batches, height,
                       width, inChannels, outChannels, filterH, filterW, stride, dilation,
                       padding == 1 ? "SAME" : "VALID", activation, nchw ? " NCHW" : "",
                       atExecution ? ", filter and bias given at execution" : "");
  }
};

OpModel makeFp16Conv(const Fp16Conv& c, std::mt19937& rng) {
  ModelBuilder b;
  const nn::Dimensions inDims = c.nchw ? nn::Dimensions{c.batches, c.inChannels, c.height, c.width}
                                       : nn::Dimensions{c.batches, c.height, c.width, c.inChannels};
  const uint32_t in = b.input(OperandType::TENSOR_FLOAT16, inDims, 0, 0);
  const uint32_t k = c.filterH * c.filterW * c.inChannels;
  const auto filterBytes = randomHalves(rng, size_t{c.outChannels} * k, 1.0f);
  const auto biasBytes = randomHalves(rng, c.outChannels, 2.0f);
  const nn::Dimensions filterDims{c.outChannels, c.filterH, c.filterW, c.inChannels};
  const uint32_t filter = c.atExecution ? b.input(OperandType::TENSOR_FLOAT16, filterDims, 0, 0)
                                        : b.constant(OperandType::TENSOR_FLOAT16, filterDims, filterBytes.data(),
                                                     filterBytes.size());
  const uint32_t bias = c.atExecution ? b.input(OperandType::TENSOR_FLOAT16, {c.outChannels}, 0, 0)
                                      : b.constant(OperandType::TENSOR_FLOAT16, {c.outChannels}, biasBytes.data(),
                                                   biasBytes.size());
  std::vector<uint32_t> inputs{in, filter, bias, b.int32Scalar(c.padding), b.int32Scalar(static_cast<int32_t>(c.stride)),
                               b.int32Scalar(static_cast<int32_t>(c.stride)), b.int32Scalar(c.activation)};
  if (c.dilation != 1 || c.nchw) {
    inputs.push_back(b.boolScalar(c.nchw));
    inputs.push_back(b.int32Scalar(static_cast<int32_t>(c.dilation)));
    inputs.push_back(b.int32Scalar(static_cast<int32_t>(c.dilation)));
  }
  const uint32_t out = b.tensor(OperandType::TENSOR_FLOAT16, {});
  b.output(out);
  b.operation(nn::OperationType::CONV_2D, inputs, {out});
  OpModel m;
  m.model = b.build();
  m.inputs.push_back(randomHalves(rng, nn::numberOfElements(inDims), 1.0f));
  if (c.atExecution) {
    m.inputs.push_back(filterBytes);
    m.inputs.push_back(biasBytes);
  }
  const uint32_t eff = (c.filterH - 1) * c.dilation + 1;
  const uint32_t oh = c.padding == 1 ? (c.height + c.stride - 1) / c.stride : (c.height - eff) / c.stride + 1;
  const uint32_t ow = c.padding == 1 ? (c.width + c.stride - 1) / c.stride : (c.width - eff) / c.stride + 1;
  m.outputBytes.push_back(size_t{2} * c.batches * oh * ow * c.outChannels);
  return m;
}

OpModel makeFp16Fc(uint32_t batch, uint32_t inputSize, uint32_t units, int32_t activation, std::mt19937& rng,
                   bool atExecution = false) {
  ModelBuilder b;
  const uint32_t in = b.input(OperandType::TENSOR_FLOAT16, {batch, inputSize}, 0, 0);
  const auto w = randomHalves(rng, size_t{units} * inputSize, 1.0f);
  const uint32_t weights = atExecution ? b.input(OperandType::TENSOR_FLOAT16, {units, inputSize}, 0, 0)
                                       : b.constant(OperandType::TENSOR_FLOAT16, {units, inputSize}, w.data(), w.size());
  const auto bias = randomHalves(rng, units, 2.0f);
  const uint32_t biasOp = atExecution ? b.input(OperandType::TENSOR_FLOAT16, {units}, 0, 0)
                                      : b.constant(OperandType::TENSOR_FLOAT16, {units}, bias.data(), bias.size());
  const uint32_t out = b.tensor(OperandType::TENSOR_FLOAT16, {batch, units});
  b.output(out);
  b.operation(nn::OperationType::FULLY_CONNECTED, {in, weights, biasOp, b.int32Scalar(activation)}, {out});
  OpModel m;
  m.model = b.build();
  m.inputs.push_back(randomHalves(rng, size_t{batch} * inputSize, 1.0f));
  if (atExecution) {
    m.inputs.push_back(w);
    m.inputs.push_back(bias);
  }
  m.outputBytes.push_back(size_t{2} * batch * units);
  return m;
}

// The device claims every operation, prepares and runs the model; every output value (binary16,
// or float32 when `float32`) is within the float16 tolerance of the CPU reference's. Returns the
// compiled tiling of its first operation.
std::string expectWithinTolerance(const hal::IDevice& device, const OpModel& m, const std::string& what,
                                  bool float32 = false) {
  SCOPED_TRACE(what);
  auto supported = device.getSupportedOperations(m.model);
  EXPECT_TRUE(supported.ok() && supported.value() == std::vector<bool>(m.model.main.operations.size(), true))
      << "the accelerator does not claim it";
  auto prepared = prepare(device, m.model);
  if (!prepared.ok()) {
    ADD_FAILURE() << prepared.error().message;
    return "";
  }
  auto got = runOnPrepared(*prepared.value(), m);
  auto want = runOnCpu(m);
  if (!got.ok() || !want.ok()) {
    ADD_FAILURE() << (got.ok() ? want.error().message : got.error().message);
    return "";
  }
  const auto& a = got.value().outputs.at(0);
  const auto& e = want.value().outputs.at(0);
  EXPECT_EQ(a.size(), e.size());
  constexpr double kTolerance = 5.0 / 1024;
  size_t bad = 0;
  auto valueAt = [&](const std::vector<uint8_t>& bytes, size_t i) -> double {
    if (!float32) return fp::fp16Value(static_cast<uint16_t>(bytes[2 * i] | bytes[2 * i + 1] << 8));
    uint32_t bits;
    std::memcpy(&bits, &bytes[4 * i], 4);
    return fp::toFloat(bits);
  };
  const size_t valueBytes = float32 ? 4 : 2;
  for (size_t i = 0; i < std::min(a.size(), e.size()) / valueBytes; ++i) {
    const double x = valueAt(a, i), y = valueAt(e, i);
    if (!(std::fabs(x - y) <= kTolerance + kTolerance * std::fabs(y)) && bad++ < 5) {
      ADD_FAILURE() << "value " << i << ": accelerator " << x << ", reference " << y;
    }
  }
  EXPECT_EQ(bad, 0u);
  return static_cast<const PreparedModel&>(*prepared.value()).compiled().operations.at(0).tiling;
}

TEST(Fp16, RandomConvolutionsMatchTheReferenceWithinTolerance) {
  auto device = approxDevice("weft16fp");
  std::mt19937 rng(2024);
  std::set<std::string> modes;
  for (int i = 0; i < 24; ++i) {
    Fp16Conv c;
    c.batches = 1 + rng() % 2;
    c.height = 3 + rng() % 10;
    c.width = 3 + rng() % 10;
    // Every third case has channels in whole rows of 16 bytes (8 values): the windowed mode's.
    c.inChannels = i % 3 == 0 ? 8 * (1 + rng() % 3) : 1 + rng() % 20;
    c.outChannels = 1 + rng() % 40;
    c.filterH = c.filterW = 1 + rng() % 3;
    c.stride = 1 + rng() % 2;
    c.dilation = rng() % 4 == 0 ? 2 : 1;
    c.padding = 1 + rng() % 2;
    c.activation = static_cast<int32_t>(rng() % 4);
    c.nchw = i % 4 == 1;  // the host's copies reorder whole binary16 values
    const uint32_t eff = (c.filterH - 1) * c.dilation + 1;
    if (c.padding == 2 && (eff > c.height || eff > c.width)) c.padding = 1;
    const std::string tiling = expectWithinTolerance(*device, makeFp16Conv(c, rng), c.describe());
    if (HasFatalFailure()) return;
    for (const char* mode : {"windowed", "packed", "im2col"}) {
      if (tiling.find(mode) != std::string::npos) modes.insert(mode);
    }
  }
  EXPECT_GE(modes.size(), 2u) << "the cases should reach more than one input mode";
}

// One vector-unit operation on a [batches, h, w, c] binary16 image (NHWC, or NCHW where the
// operation takes a layout).
struct Fp16Window {
  nn::OperationType type = nn::OperationType::DEPTHWISE_CONV_2D;
  uint32_t batches = 1, height = 6, width = 6, channels = 5;
  uint32_t kh = 3, kw = 3, stride = 1;
  int32_t padding = 1;  // SAME 1, VALID 2
  int32_t activation = 0;
  bool nchw = false;
  uint32_t depthMultiplier = 1;  // DEPTHWISE_CONV_2D
  bool atExecution = false;      // DEPTHWISE_CONV_2D: filter and bias model inputs, not constants
  std::string describe() const {
    return fmt::format("fp16 {} {}x{}x{}x{} window {}x{} stride {} {} act {}{}{}", nn::toString(type), batches, height,
                       width, channels, kh, kw, stride, padding == 1 ? "SAME" : "VALID", activation,
                       nchw ? " NCHW" : "", atExecution ? ", filter and bias given at execution" : "");
  }
};

OpModel makeFp16Window(const Fp16Window& c, std::mt19937& rng) {
  ModelBuilder b;
  const nn::Dimensions inDims = c.nchw ? nn::Dimensions{c.batches, c.channels, c.height, c.width}
                                       : nn::Dimensions{c.batches, c.height, c.width, c.channels};
  const uint32_t in = b.input(OperandType::TENSOR_FLOAT16, inDims, 0, 0);
  const uint32_t out = b.tensor(OperandType::TENSOR_FLOAT16, {});
  const auto s = static_cast<int32_t>(c.stride);
  std::vector<uint32_t> inputs{in};
  const bool depthwise = c.type == nn::OperationType::DEPTHWISE_CONV_2D;
  const uint32_t outChannels = depthwise ? c.channels * c.depthMultiplier : c.channels;
  std::vector<std::vector<uint8_t>> given;  // the values of inputs given at execution
  if (depthwise) {
    const auto filter = randomHalves(rng, size_t{c.kh} * c.kw * outChannels, 1.0f);
    const auto bias = randomHalves(rng, outChannels, 2.0f);
    if (c.atExecution) {
      inputs.push_back(b.input(OperandType::TENSOR_FLOAT16, {1, c.kh, c.kw, outChannels}, 0, 0));
      inputs.push_back(b.input(OperandType::TENSOR_FLOAT16, {outChannels}, 0, 0));
      given = {filter, bias};
    } else {
      inputs.push_back(
          b.constant(OperandType::TENSOR_FLOAT16, {1, c.kh, c.kw, outChannels}, filter.data(), filter.size()));
      inputs.push_back(b.constant(OperandType::TENSOR_FLOAT16, {outChannels}, bias.data(), bias.size()));
    }
    for (uint32_t v : {b.int32Scalar(c.padding), b.int32Scalar(s), b.int32Scalar(s),
                       b.int32Scalar(static_cast<int32_t>(c.depthMultiplier)), b.int32Scalar(c.activation)}) {
      inputs.push_back(v);
    }
  } else {
    for (uint32_t v : {b.int32Scalar(c.padding), b.int32Scalar(s), b.int32Scalar(s),
                       b.int32Scalar(static_cast<int32_t>(c.kw)), b.int32Scalar(static_cast<int32_t>(c.kh)),
                       b.int32Scalar(c.activation)}) {
      inputs.push_back(v);
    }
  }
  if (c.nchw) inputs.push_back(b.boolScalar(true));
  b.output(out);
  b.operation(c.type, inputs, {out});
  OpModel m;
  m.model = b.build();
  m.inputs.push_back(randomHalves(rng, nn::numberOfElements(inDims), 4.0f));
  for (auto& values : given) m.inputs.push_back(std::move(values));
  const uint32_t oh = c.padding == 1 ? (c.height + c.stride - 1) / c.stride : (c.height - c.kh) / c.stride + 1;
  const uint32_t ow = c.padding == 1 ? (c.width + c.stride - 1) / c.stride : (c.width - c.kw) / c.stride + 1;
  m.outputBytes.push_back(size_t{2} * c.batches * oh * ow * outChannels);
  return m;
}

// One operation from a binary16 tensor to one of its shape, with the scalar operands `params`
// adds after the input.
OpModel makeFp16Activation(nn::OperationType type, const nn::Dimensions& dims, float range, std::mt19937& rng,
                           const std::function<std::vector<uint32_t>(ModelBuilder&)>& params = {}) {
  ModelBuilder b;
  const uint32_t in = b.input(OperandType::TENSOR_FLOAT16, dims, 0, 0);
  const uint32_t out = b.tensor(OperandType::TENSOR_FLOAT16, dims);
  b.output(out);
  std::vector<uint32_t> inputs{in};
  if (params) {
    for (uint32_t p : params(b)) inputs.push_back(p);
  }
  b.operation(type, inputs, {out});
  OpModel m;
  m.model = b.build();
  m.inputs.push_back(randomHalves(rng, nn::numberOfElements(dims), range));
  m.outputBytes.push_back(2 * nn::numberOfElements(dims));
  return m;
}

TEST(Fp16, RandomVectorUnitWindowsMatchTheReferenceWithinTolerance) {
  auto device = approxDevice("weft16fp");
  std::mt19937 rng(31);
  const nn::OperationType types[] = {nn::OperationType::DEPTHWISE_CONV_2D, nn::OperationType::AVERAGE_POOL_2D,
                                     nn::OperationType::MAX_POOL_2D};
  for (int i = 0; i < 36; ++i) {
    Fp16Window c;
    c.type = types[i % 3];
    c.batches = 1 + rng() % 2;
    c.height = 2 + rng() % 12;
    c.width = 2 + rng() % 12;
    // Channels that are and are not whole scratchpad rows (8 binary16 values at weft16fp).
    c.channels = i % 4 == 0 ? 8 * (1 + rng() % 3) : 1 + rng() % 30;
    c.kh = 1 + rng() % 3;
    c.kw = 1 + rng() % 3;
    c.stride = 1 + rng() % 2;
    c.padding = 1 + rng() % 2;
    c.activation = static_cast<int32_t>(rng() % 4);
    c.nchw = i % 5 == 2;
    if (c.padding == 2 && (c.kh > c.height || c.kw > c.width)) c.padding = 1;
    const OpModel m = makeFp16Window(c, rng);
    const std::string tiling = expectWithinTolerance(*device, m, c.describe());
    if (HasFatalFailure()) return;
    EXPECT_NE(tiling.find("fp16"), std::string::npos) << c.describe() << ": " << tiling;
  }
}

// Each activation over every binary16 value of a range: the RELUs are exact, LOGISTIC and TANH
// within tolerance everywhere, the steep middle and the flat tails alike.
TEST(Fp16, ActivationsOnTheVectorUnitMatchTheReferenceWithinTolerance) {
  auto device = approxDevice("weft16fp");
  std::mt19937 rng(37);
  for (auto type : {nn::OperationType::RELU, nn::OperationType::RELU1, nn::OperationType::RELU6,
                    nn::OperationType::LOGISTIC, nn::OperationType::TANH}) {
    for (const nn::Dimensions& dims : {nn::Dimensions{1, 1, 1, 11}, nn::Dimensions{2, 5, 7, 9}, nn::Dimensions{3, 300}}) {
      const OpModel m = makeFp16Activation(type, dims, 12.0f, rng);
      const std::string what = fmt::format("fp16 {} over {} values", nn::toString(type), nn::numberOfElements(dims));
      const std::string tiling = expectWithinTolerance(*device, m, what);
      if (HasFatalFailure()) return;
      EXPECT_NE(tiling.find("lut fp16"), std::string::npos) << what << ": " << tiling;
    }
  }
}

// org.weft.accel's WEFT_GELU in binary16, both forms, through the same 256 pieces: within
// tolerance over the curved middle and the tails (0 below, the identity above).
TEST(Fp16, GeluOnTheVectorUnitMatchesTheReferenceWithinTolerance) {
  auto device = approxDevice("weft16fp");
  std::mt19937 rng(41);
  for (const int32_t form : {nn::weft_extension::kGeluExact, nn::weft_extension::kGeluTanh}) {
    for (const nn::Dimensions& dims : {nn::Dimensions{2, 5, 7, 9}, nn::Dimensions{3, 300}}) {
      ModelBuilder b;
      const uint32_t in = b.input(OperandType::TENSOR_FLOAT16, dims, 0, 0);
      const uint32_t out = b.tensor(OperandType::TENSOR_FLOAT16, dims);
      b.output(out);
      b.operation(weftOperationType(nn::weft_extension::kGelu), {in, b.int32Scalar(form)}, {out});
      OpModel m;
      m.model = b.build();
      m.model.extensionNameToPrefix = {{std::string(nn::weft_extension::kName), kWeftPrefix}};
      m.inputs.push_back(randomHalves(rng, nn::numberOfElements(dims), 6.0f));
      m.outputBytes.push_back(2 * nn::numberOfElements(dims));
      const std::string what = fmt::format("fp16 GELU form {} over {} values", form, nn::numberOfElements(dims));
      const std::string tiling = expectWithinTolerance(*device, m, what);
      if (HasFatalFailure()) return;
      EXPECT_NE(tiling.find("lut fp16"), std::string::npos) << what << ": " << tiling;
    }
  }
}

// SOFTMAX in binary16 (the SOFTMAX command's fp16 mode): along the last axis (rows of 1 to 4096
// values, across lanes, the last row partly filled) and along another axis (a lane a position),
// with the betas attention and the corpus use; values spread so that some exponentials vanish.
OpModel makeFp16Softmax(const nn::Dimensions& dims, uint16_t beta, std::optional<int32_t> axis, float range,
                        std::mt19937& rng) {
  return makeFp16Activation(nn::OperationType::SOFTMAX, dims, range, rng, [&](ModelBuilder& b) {
    std::vector<uint32_t> params{b.constant(OperandType::FLOAT16, {}, &beta, 2)};
    if (axis) params.push_back(b.int32Scalar(*axis));
    return params;
  });
}

TEST(Fp16, SoftmaxOnTheVectorUnitMatchesTheReferenceWithinTolerance) {
  auto device = approxDevice("weft16fp");
  std::mt19937 rng(47);
  struct Case {
    nn::Dimensions dims;
    uint16_t beta;  // binary16: 1, 0.125 (1/sqrt(64)), 0.0883 (1/sqrt(128), rounded), 3
    std::optional<int32_t> axis;
    float range;
  };
  const Case cases[] = {
      {{1, 1}, 0x3c00, std::nullopt, 4},       {{1, 7}, 0x3c00, std::nullopt, 4},
      {{3, 9}, 0x3000, std::nullopt, 40},      {{2, 12, 77}, 0x2da8, std::nullopt, 30},
      {{1, 4096}, 0x3c00, std::nullopt, 8},    {{2, 3, 5, 16}, 0x4200, std::nullopt, 6},
      {{2, 3, 5, 7}, 0x3c00, 1, 5},            {{4, 21}, 0x3c00, 0, 10},
      {{1, 1000}, 0x3c00, -1, 60},
  };
  for (const Case& c : cases) {
    const OpModel m = makeFp16Softmax(c.dims, c.beta, c.axis, c.range, rng);
    const std::string what = fmt::format("fp16 softmax over {} (beta 0x{:04x}, axis {})", fmt::join(c.dims, "x"), c.beta,
                                         c.axis.value_or(-1));
    const std::string tiling = expectWithinTolerance(*device, m, what);
    if (HasFatalFailure()) return;
    EXPECT_NE(tiling.find("softmax fp16"), std::string::npos) << what << ": " << tiling;
  }
}

// MEAN in binary16: over the spatial axes, over the innermost (one value a lane), and over two
// groups around a kept axis; with and without keep_dims.
TEST(Fp16, MeanOnTheVectorUnitMatchesTheReferenceWithinTolerance) {
  auto device = approxDevice("weft16fp");
  std::mt19937 rng(43);
  struct Case {
    nn::Dimensions dims;
    std::vector<int32_t> axes;
    int32_t keep;
  };
  for (const Case& c : {Case{{2, 5, 7, 9}, {1, 2}, 1}, Case{{2, 3, 4, 5}, {3}, 0}, Case{{4, 3, 2}, {0, 2}, 1},
                        Case{{3, 300}, {-1}, 0}}) {
    ModelBuilder b;
    const uint32_t in = b.input(OperandType::TENSOR_FLOAT16, c.dims, 0, 0);
    const uint32_t axes = b.constant(OperandType::TENSOR_INT32, {static_cast<uint32_t>(c.axes.size())}, c.axes.data(),
                                     4 * c.axes.size());
    const uint32_t out = b.tensor(OperandType::TENSOR_FLOAT16, {});
    b.output(out);
    b.operation(nn::OperationType::MEAN, {in, axes, b.int32Scalar(c.keep)}, {out});
    OpModel m;
    m.model = b.build();
    m.inputs.push_back(randomHalves(rng, nn::numberOfElements(c.dims), 8.0f));
    size_t kept = 1;
    for (size_t a = 0; a < c.dims.size(); ++a) {
      const auto axis = static_cast<int32_t>(a);
      const bool reduced = std::find(c.axes.begin(), c.axes.end(), axis) != c.axes.end() ||
                           std::find(c.axes.begin(), c.axes.end(), axis - static_cast<int32_t>(c.dims.size())) != c.axes.end();
      if (!reduced) kept *= c.dims[a];
    }
    m.outputBytes.push_back(2 * kept);
    const std::string what = fmt::format("fp16 MEAN over axes {} of {} values", c.axes.size(), nn::numberOfElements(c.dims));
    const std::string tiling = expectWithinTolerance(*device, m, what);
    if (HasFatalFailure()) return;
    EXPECT_NE(tiling.find("mean fp16"), std::string::npos) << what << ": " << tiling;
  }
}

TEST(Fp16, RandomFullyConnectedMatchTheReferenceWithinTolerance) {
  auto device = approxDevice("weft16fp");
  std::mt19937 rng(7);
  for (int i = 0; i < 12; ++i) {
    const uint32_t batch = 1 + rng() % 6, inputSize = 1 + rng() % 300, units = 1 + rng() % 50;
    const auto activation = static_cast<int32_t>(rng() % 4);
    expectWithinTolerance(*device, makeFp16Fc(batch, inputSize, units, activation, rng),
                          fmt::format("fp16 fc {}x{} -> {} act {}", batch, inputSize, units, activation));
    if (HasFatalFailure()) return;
  }
}

// The three-layer chain (AccelTestUtil.h) all on the accelerator, in binary16 and in float32
// relaxed to float16 (the host converts the model's input and output; the tensors between the
// layers stay binary16 on the device, the first with a halo of +0.0).
TEST(Fp16, ChainedLayersKeepBinary16BetweenThem) {
  auto device = approxDevice("weft16fp");
  std::mt19937 rng(11);
  expectWithinTolerance(*device, makeFp16Chain(OperandType::TENSOR_FLOAT16, rng), "float16 chain");
  expectWithinTolerance(*device, makeFp16Chain(OperandType::TENSOR_FLOAT32, rng), "relaxed float32 chain",
                        /*float32=*/true);
}

// The same chain in NCHW: the fully connected layer flattens its input channel-major, so its
// weights are permuted a binary16 value (two bytes) at a time to the image's pixel-major bytes.
TEST(Fp16, AFullyConnectedLayerReadsAnNchwImage) {
  auto device = approxDevice("weft16fp");
  std::mt19937 rng(13);
  expectWithinTolerance(*device, makeFp16Chain(OperandType::TENSOR_FLOAT16, rng, /*nchw=*/true), "NCHW float16 chain");
  expectWithinTolerance(*device, makeFp16Chain(OperandType::TENSOR_FLOAT32, rng, /*nchw=*/true),
                        "NCHW relaxed float32 chain", /*float32=*/true);
}

// Float32 is computed in float16 only where the model allows it.
TEST(Fp16, Float32NeedsARelaxedModel) {
  auto device = approxDevice("weft16fp");
  std::mt19937 rng(5);
  OpModel m = makeFp16Chain(OperandType::TENSOR_FLOAT32, rng);
  m.model.relaxComputationFloat32toFloat16 = false;
  auto supported = device->getSupportedOperations(m.model);
  ASSERT_TRUE(supported.ok()) << supported.error().message;
  EXPECT_EQ(supported.value(), std::vector<bool>(3, false));
}

// The device does not claim the model's one operation, and its preparation fails saying `reason`.
void expectNotClaimed(const hal::IDevice& device, const OpModel& m, const std::string& reason) {
  auto supported = device.getSupportedOperations(m.model);
  ASSERT_TRUE(supported.ok()) << supported.error().message;
  EXPECT_EQ(supported.value(), std::vector<bool>{false});
  auto prepared = prepare(device, m.model);
  ASSERT_FALSE(prepared.ok());
  EXPECT_NE(prepared.error().message.find(reason), std::string::npos) << prepared.error().message;
}

// ADD and MUL in binary16 with NNAPI's broadcasting (same shapes, a channel vector, a value per
// pixel, a scalar) and fused activations; SUB is left to the CPU, saying why.
OpModel makeFp16Binary(nn::OperationType type, const nn::Dimensions& a, const nn::Dimensions& b, int32_t activation,
                       std::mt19937& rng) {
  ModelBuilder mb;
  const uint32_t x = mb.input(OperandType::TENSOR_FLOAT16, a, 0, 0);
  const uint32_t y = mb.input(OperandType::TENSOR_FLOAT16, b, 0, 0);
  const size_t rank = std::max(a.size(), b.size());
  nn::Dimensions dims(rank);
  for (size_t i = 0; i < rank; ++i) {
    const auto dim = [&](const nn::Dimensions& d) { return i + d.size() >= rank ? d[i + d.size() - rank] : 1u; };
    dims[i] = std::max(dim(a), dim(b));
  }
  const uint32_t out = mb.tensor(OperandType::TENSOR_FLOAT16, dims);
  mb.output(out);
  mb.operation(type, {x, y, mb.int32Scalar(activation)}, {out});
  OpModel m;
  m.model = mb.build();
  m.inputs.push_back(randomHalves(rng, nn::numberOfElements(a), 6.0f));
  m.inputs.push_back(randomHalves(rng, nn::numberOfElements(b), 6.0f));
  m.outputBytes.push_back(2 * nn::numberOfElements(dims));
  return m;
}

TEST(Fp16, AddSubAndMulOnTheVectorUnitMatchTheReferenceWithinTolerance) {
  auto device = approxDevice("weft16fp");
  std::mt19937 rng(59);
  const std::vector<std::pair<nn::Dimensions, nn::Dimensions>> shapes = {
      {{2, 5, 7, 19}, {2, 5, 7, 19}}, {{1, 6, 9, 24}, {24}}, {{2, 4, 5, 11}, {2, 4, 5, 1}},
      {{3, 37}, {1}},                 {{1}, {4, 3, 10}},    {{3, 1, 8, 16}, {1, 6, 1, 16}}};
  for (auto type : {nn::OperationType::ADD, nn::OperationType::SUB, nn::OperationType::MUL}) {
    for (size_t i = 0; i < shapes.size(); ++i) {
      const auto& [a, b] = shapes[i];
      const int32_t activation = static_cast<int32_t>(i % 4);
      const OpModel m = makeFp16Binary(type, a, b, activation, rng);
      const std::string what = fmt::format("fp16 {} of {} and {} elements, activation {}", nn::toString(type),
                                           nn::numberOfElements(a), nn::numberOfElements(b), activation);
      const std::string tiling = expectWithinTolerance(*device, m, what);
      if (HasFatalFailure()) return;
      // SUB is an add whose second operand's sign the lanes flip.
      EXPECT_NE(tiling.find(type == nn::OperationType::MUL ? "mul fp16" : "add fp16"), std::string::npos)
          << what << ": " << tiling;
    }
  }
}

// DIV by one constant value: a MUL by its reciprocal (rounded to binary16 when the model compiles)
// within the float16 tolerance, in float16 and in a relaxed float32 model, fused activations
// too; a divisor given at execution or of several values stays on the CPU, saying why.
OpModel makeDivisionByConstant(OperandType type, const nn::Dimensions& dims, float divisor, int32_t activation,
                               bool relaxed, std::mt19937& rng) {
  ModelBuilder mb;
  const uint32_t x = mb.input(type, dims, 0, 0);
  uint32_t y;
  if (type == OperandType::TENSOR_FLOAT16) {
    const uint16_t h = fp::fp32ToFp16(fp::bitsOf(divisor));
    y = mb.constant(type, {1}, &h, 2);
  } else {
    y = mb.constant(type, {1}, &divisor, 4);
  }
  const uint32_t out = mb.tensor(type, dims);
  mb.output(out);
  mb.operation(nn::OperationType::DIV, {x, y, mb.int32Scalar(activation)}, {out});
  OpModel m;
  m.model = mb.build();
  m.model.relaxComputationFloat32toFloat16 = relaxed;
  std::vector<uint8_t> values = randomHalves(rng, nn::numberOfElements(dims), 6.0f);
  if (type == OperandType::TENSOR_FLOAT32) {  // the same values, widened
    std::vector<uint8_t> wide(4 * nn::numberOfElements(dims));
    for (size_t i = 0; i < nn::numberOfElements(dims); ++i) {
      const uint32_t bits = fp::fp16ToFp32(static_cast<uint16_t>(values[2 * i] | values[2 * i + 1] << 8));
      std::memcpy(&wide[4 * i], &bits, 4);
    }
    values = std::move(wide);
  }
  m.inputs.push_back(std::move(values));
  m.outputBytes.push_back((type == OperandType::TENSOR_FLOAT16 ? 2 : 4) * nn::numberOfElements(dims));
  return m;
}

TEST(Fp16, DivisionByAConstantIsAMultiplicationByItsReciprocal) {
  auto device = approxDevice("weft16fp");
  std::mt19937 rng(61);
  int activation = 0;
  for (float divisor : {8.0f, 3.0f, -0.7f, 11.3137f}) {  // sqrt(128): attention's scaling
    for (const nn::Dimensions& dims : {nn::Dimensions{2, 12, 37, 37}, nn::Dimensions{5, 19}}) {
      const std::string what = fmt::format("fp16 DIV of {} values by {}, activation {}", nn::numberOfElements(dims),
                                           divisor, activation % 4);
      const std::string tiling = expectWithinTolerance(
          *device, makeDivisionByConstant(OperandType::TENSOR_FLOAT16, dims, divisor, activation++ % 4, false, rng),
          what);
      if (HasFatalFailure()) return;
      EXPECT_NE(tiling.find("mul fp16"), std::string::npos) << what << ": " << tiling;
    }
  }
  expectWithinTolerance(*device,
                        makeDivisionByConstant(OperandType::TENSOR_FLOAT32, {3, 40}, 5.0f, 0, /*relaxed=*/true, rng),
                        "relaxed float32 DIV", /*float32=*/true);
  OpModel atExecution = makeDivisionByConstant(OperandType::TENSOR_FLOAT16, {4, 4}, 2.0f, 0, false, rng);
  auto& divisor = atExecution.model.main.operands[atExecution.model.main.operations[0].inputs[1]];
  divisor.lifetime = nn::Operand::LifeTime::SUBGRAPH_INPUT;
  divisor.location = {};
  atExecution.model.main.inputIndexes.push_back(atExecution.model.main.operations[0].inputs[1]);
  expectNotClaimed(*device, atExecution, "only a division by one constant value");
}

// A beta that is not a positive finite binary16 (a relaxed model's 1e-9 rounds to 0) and a row
// longer than the accumulator's half holds (512 rows of 8 values at weft16fp) stay on the CPU.
TEST(Fp16, SoftmaxRefusalsSayWhy) {
  auto device = approxDevice("weft16fp");
  std::mt19937 rng(53);
  expectNotClaimed(*device, makeFp16Softmax({1, 8}, 0x0000, std::nullopt, 1, rng), "beta must be positive");
  expectNotClaimed(*device, makeFp16Softmax({1, 8}, 0x7c00, std::nullopt, 1, rng), "beta must be positive");
  expectNotClaimed(*device, makeFp16Softmax({1, 4104}, 0x3c00, std::nullopt, 1, rng), "longer than the buffers");
}

// org.weft.accel's WEFT_LAYER_NORM in binary16 (the LAYER_NORM command's fp16 mode, STOREs in
// fp16_affine mode): TENSOR_FLOAT16 with FLOAT16 gamma, beta and epsilon, or a relaxed model's
// TENSOR_FLOAT32 with FLOAT32 ones; rows centred away from zero (mean up to three standard
// deviations), gammas of both signs and some zeros.
OpModel makeFp16LayerNorm(const nn::Dimensions& dims, bool relaxed, float epsilon, std::mt19937& rng,
                          bool gammaAtExecution = false) {
  const uint32_t width = dims.back();
  const uint64_t count = nn::numberOfElements(dims);
  const OperandType tensor = relaxed ? OperandType::TENSOR_FLOAT32 : OperandType::TENSOR_FLOAT16;
  const size_t eb = relaxed ? 4 : 2;
  // Values of `tensor` as bytes (float32, or binary16).
  auto bytesOf = [&](const std::vector<float>& v) {
    std::vector<uint8_t> out(v.size() * eb);
    for (size_t i = 0; i < v.size(); ++i) {
      if (relaxed) {
        std::memcpy(&out[4 * i], &v[i], 4);
      } else {
        const uint16_t h = fp::fp32ToFp16(fp::bitsOf(v[i]));
        std::memcpy(&out[2 * i], &h, 2);
      }
    }
    return out;
  };
  std::normal_distribution<float> g(1.0f, 0.5f), bt(0.0f, 0.5f), unit(0.0f, 1.0f);
  std::vector<float> gamma(width), beta(width), x(count);
  for (uint32_t i = 0; i < width; ++i) {
    gamma[i] = rng() % 13 == 0 ? 0.0f : g(rng);
    beta[i] = bt(rng);
  }
  for (uint64_t r = 0; r < count; r += width) {
    const float sigma = std::ldexp(1.0f, static_cast<int>(rng() % 9) - 4);  // 1/16 .. 16
    const float centre = sigma * static_cast<float>(static_cast<int>(rng() % 7) - 3);
    for (uint32_t i = 0; i < width; ++i) x[r + i] = centre + sigma * unit(rng);
  }
  ModelBuilder b;
  OpModel m;
  const uint32_t in = b.input(tensor, dims, 0, 0);
  m.inputs.push_back(bytesOf(x));
  const std::vector<uint8_t> gammaBytes = bytesOf(gamma), betaBytes = bytesOf(beta);
  uint32_t gammaOperand;
  if (gammaAtExecution) {
    gammaOperand = b.input(tensor, {width}, 0, 0);
    m.inputs.push_back(gammaBytes);
  } else {
    gammaOperand = b.constant(tensor, {width}, gammaBytes.data(), gammaBytes.size());
  }
  const uint32_t betaOperand = b.constant(tensor, {width}, betaBytes.data(), betaBytes.size());
  const uint16_t halfEpsilon = fp::fp32ToFp16(fp::bitsOf(epsilon));
  const uint32_t eps = relaxed ? b.constant(OperandType::FLOAT32, {}, &epsilon, 4)
                               : b.constant(OperandType::FLOAT16, {}, &halfEpsilon, 2);
  const uint32_t out = b.tensor(tensor, dims);
  b.output(out);
  b.operation(weftOperationType(nn::weft_extension::kLayerNorm), {in, gammaOperand, betaOperand, eps}, {out});
  m.model = b.build();
  m.model.relaxComputationFloat32toFloat16 = relaxed;
  m.model.extensionNameToPrefix = {{std::string(nn::weft_extension::kName), kWeftPrefix}};
  m.outputBytes.push_back(count * eb);
  return m;
}

// Rows of one value (a zero variance: the output is beta), of a few, of BERT's 768 over 40 tokens,
// and longer than the parameter memory holds (64 rows of 8 values at weft16fp: the chunked
// program), at widths that leave the last scratchpad row partly filled.
TEST(Fp16, LayerNormOnTheVectorUnitMatchesTheReferenceWithinTolerance) {
  auto device = approxDevice("weft16fp");
  std::mt19937 rng(71);
  struct Case {
    nn::Dimensions dims;
    bool relaxed;
    float epsilon;
  };
  const Case cases[] = {
      {{3, 1}, false, 1e-5f},        {{3, 40}, false, 1e-5f},        {{2, 12, 77}, false, 1e-3f},
      {{1, 40, 768}, false, 1e-5f},  {{1, 40, 768}, true, 1e-12f},   {{5, 1000}, false, 1e-5f},
      {{2, 3, 2049}, true, 1e-5f},   {{2, 2, 3, 9}, true, 0.0f},
  };
  for (const Case& c : cases) {
    const OpModel m = makeFp16LayerNorm(c.dims, c.relaxed, c.epsilon, rng);
    const std::string what = fmt::format("{} layer norm over {} (epsilon {})", c.relaxed ? "relaxed" : "fp16",
                                         fmt::join(c.dims, "x"), c.epsilon);
    const std::string tiling = expectWithinTolerance(*device, m, what, c.relaxed);
    if (HasFatalFailure()) return;
    EXPECT_NE(tiling.find("layer norm fp16"), std::string::npos) << what << ": " << tiling;
  }
}

// gamma given at execution (it is the STOREs' parameters), and a row longer than the accumulator
// holds (1023 rows of 8 values at weft16fp), stay on the CPU with the reason.
TEST(Fp16, LayerNormRefusalsSayWhy) {
  std::mt19937 rng(72);
  auto device = approxDevice("weft16fp");
  expectNotClaimed(*device, makeFp16LayerNorm({2, 16}, false, 1e-5f, rng, true), "gamma and beta must be constant");
  expectNotClaimed(*device, makeFp16LayerNorm({1, 9000}, false, 1e-5f, rng), "layer-norm row of 9000 elements");
}

TEST(Fp16, DivisionNeedsTheFp16Datapath) {
  std::mt19937 rng(62);
  expectNotClaimed(*approxDevice("weft16"),
                   makeDivisionByConstant(OperandType::TENSOR_FLOAT16, {4, 4}, 2.0f, 0, false, rng), "DIV");
}

// The copies in binary16: their lanes move bytes, two a value, so channel offsets count bytes.
// CONCATENATION over every axis of odd shapes, PAD (0.0) and PAD_V2 with a border of one byte
// twice, RESHAPE; the results are exact.
OpModel makeFp16Concat(const std::vector<nn::Dimensions>& inputs, int32_t axis, std::mt19937& rng) {
  ModelBuilder b;
  std::vector<uint32_t> operands;
  nn::Dimensions outDims = inputs.front();
  outDims[axis] = 0;
  OpModel m;
  for (const auto& d : inputs) {
    operands.push_back(b.input(OperandType::TENSOR_FLOAT16, d, 0, 0));
    m.inputs.push_back(randomHalves(rng, nn::numberOfElements(d), 8.0f));
    outDims[axis] += d[axis];
  }
  operands.push_back(b.int32Scalar(axis));
  const uint32_t out = b.tensor(OperandType::TENSOR_FLOAT16, outDims);
  b.output(out);
  b.operation(nn::OperationType::CONCATENATION, operands, {out});
  m.model = b.build();
  m.outputBytes.push_back(2 * nn::numberOfElements(outDims));
  return m;
}

OpModel makeFp16Pad(const nn::Dimensions& dims, const std::vector<int32_t>& paddings, std::optional<uint16_t> value,
                    std::mt19937& rng) {
  ModelBuilder b;
  const uint32_t in = b.input(OperandType::TENSOR_FLOAT16, dims, 0, 0);
  const uint32_t pads = b.constant(OperandType::TENSOR_INT32, {static_cast<uint32_t>(dims.size()), 2},
                                   paddings.data(), paddings.size() * 4);
  nn::Dimensions outDims = dims;
  for (size_t d = 0; d < dims.size(); ++d) outDims[d] += paddings[2 * d] + paddings[2 * d + 1];
  const uint32_t out = b.tensor(OperandType::TENSOR_FLOAT16, outDims);
  b.output(out);
  if (value) {
    const uint32_t v = b.constant(OperandType::FLOAT16, {}, &*value, 2);
    b.operation(nn::OperationType::PAD_V2, {in, pads, v}, {out});
  } else {
    b.operation(nn::OperationType::PAD, {in, pads}, {out});
  }
  OpModel m;
  m.model = b.build();
  m.inputs.push_back(randomHalves(rng, nn::numberOfElements(dims), 8.0f));
  m.outputBytes.push_back(2 * nn::numberOfElements(outDims));
  return m;
}

TEST(Fp16, CopiesOnTheVectorUnitMoveTheValuesExactly) {
  auto device = approxDevice("weft16fp");
  std::mt19937 rng(47);
  for (int32_t axis = 0; axis < 4; ++axis) {
    nn::Dimensions a{2, 3, 5, 7}, c{2, 3, 5, 7};
    a[axis] = 3;
    c[axis] = 1;
    const OpModel m = makeFp16Concat({a, nn::Dimensions{2, 3, 5, 7}, c}, axis, rng);
    const std::string tiling = expectWithinTolerance(*device, m, fmt::format("fp16 concatenation on axis {}", axis));
    if (HasFatalFailure()) return;
    EXPECT_NE(tiling.find("copy fp16"), std::string::npos) << tiling;
  }
  const OpModel rank2 = makeFp16Concat({{4, 9}, {4, 17}}, 1, rng);
  expectWithinTolerance(*device, rank2, "fp16 concatenation of rank 2");
  const OpModel pad = makeFp16Pad({1, 4, 5, 3}, {0, 0, 1, 2, 2, 1, 0, 3}, std::nullopt, rng);
  expectWithinTolerance(*device, pad, "fp16 PAD with 0.0");
  const OpModel padV2 = makeFp16Pad({2, 6, 9}, {1, 0, 0, 2, 3, 1}, uint16_t{0x3c3c}, rng);
  expectWithinTolerance(*device, padV2, "fp16 PAD_V2 with 0x3c3c (1.0588)");
}

// PAD_V2's border holds its binary16 value whole, whatever its two bytes (1.0 is 0x3c00, -9.3
// 0xc8a6), on every side and at odd channel counts.
TEST(Fp16, PadV2FillsTheBorderWithItsValue) {
  auto device = approxDevice("weft16fp");
  std::mt19937 rng(53);
  for (uint16_t value : {uint16_t{0x3c00}, uint16_t{0xc8a6}, uint16_t{0x7bff}}) {
    const OpModel m = makeFp16Pad({1, 3, 3, 3}, {0, 1, 1, 2, 2, 1, 1, 2}, value, rng);
    expectWithinTolerance(*device, m, fmt::format("fp16 PAD_V2 with 0x{:04x}", value));
    const OpModel flat = makeFp16Pad({5, 7}, {2, 1, 0, 3}, value, rng);
    expectWithinTolerance(*device, flat, fmt::format("fp16 PAD_V2 of rank 2 with 0x{:04x}", value));
  }
}

// A filter and bias given at execution (model inputs) run on the device: the filter copied into
// the weight image or read in place, the binary16 bias widened to binary32 into the parameter
// rows (ELTWISE fp16, STORE raw32). Output channels below, at and past a row of parameters (16
// on the array, 8 on the vector unit) and odd counts, so partial rows are written too.
TEST(Fp16, FiltersAndBiasesGivenAtExecutionMatchTheReference) {
  auto device = approxDevice("weft16fp");
  std::mt19937 rng(59);
  for (uint32_t outChannels : {1u, 5u, 16u, 17u, 40u}) {
    Fp16Conv c;
    c.outChannels = outChannels;
    c.inChannels = 1 + rng() % 9;
    c.stride = 1 + rng() % 2;
    c.atExecution = true;
    expectWithinTolerance(*device, makeFp16Conv(c, rng), c.describe());
    expectWithinTolerance(*device, makeFp16Fc(1 + rng() % 4, 3 + rng() % 40, outChannels, 0, rng, true),
                          fmt::format("fp16 fully connected -> {}, given at execution", outChannels));
    Fp16Window w;
    w.channels = outChannels;
    w.depthMultiplier = outChannels % 2 == 0 ? 2 : 1;
    w.atExecution = true;
    expectWithinTolerance(*device, makeFp16Window(w, rng), w.describe());
  }
}

// Without the fp16 datapath the accelerator leaves them to the CPU, saying why.
TEST(Fp16, NotClaimedWithoutTheDatapath) {
  auto device = approxDevice("weft16");
  std::mt19937 rng(3);
  const OpModel m = makeFp16Conv(Fp16Conv{}, rng);
  expectNotClaimed(*device, m, "needs the fp16 datapath (Fp16 1");
  // The vector unit's binary16 layers alike.
  const OpModel pool = makeFp16Window(Fp16Window{nn::OperationType::AVERAGE_POOL_2D}, rng);
  auto poolSupported = device->getSupportedOperations(pool.model);
  ASSERT_TRUE(poolSupported.ok()) << poolSupported.error().message;
  EXPECT_EQ(poolSupported.value(), std::vector<bool>{false});
  expectNotClaimed(*device, makeFp16LayerNorm({2, 16}, false, 1e-5f, rng), "needs the fp16 datapath");
}

// Depth multipliers in binary16: a group of 8 output values (weft16fp) reads its input values
// from channel (group * 8) / dm on, the lanes mapped by the command's phase; multipliers that do
// and do not divide the group, over channel counts that do and do not fill one.
TEST(Fp16, DepthwiseWithDepthMultipliersMatchesTheReferenceWithinTolerance) {
  auto device = approxDevice("weft16fp");
  std::mt19937 rng(41);
  for (int i = 0; i < 16; ++i) {
    Fp16Window c;
    c.depthMultiplier = 2 + rng() % 4;
    c.channels = 1 + rng() % 12;
    c.batches = 1 + rng() % 2;
    c.height = 2 + rng() % 10;
    c.width = 2 + rng() % 10;
    c.kh = 1 + rng() % 3;
    c.kw = 1 + rng() % 3;
    c.stride = 1 + rng() % 2;
    c.padding = c.kh > c.height || c.kw > c.width ? 1 : 1 + static_cast<int32_t>(rng() % 2);
    c.activation = static_cast<int32_t>(rng() % 4);
    c.nchw = i % 4 == 1;
    const OpModel m = makeFp16Window(c, rng);
    const std::string what = fmt::format("{} depth multiplier {}", c.describe(), c.depthMultiplier);
    const std::string tiling = expectWithinTolerance(*device, m, what);
    if (HasFatalFailure()) return;
    EXPECT_NE(tiling.find("fp16"), std::string::npos) << what << ": " << tiling;
  }
}

}  // namespace
}  // namespace weft::accel::test
