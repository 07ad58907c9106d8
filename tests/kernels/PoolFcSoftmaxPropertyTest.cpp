// Randomized AVERAGE/MAX/L2_POOL_2D, FULLY_CONNECTED and SOFTMAX against plain-loop double
// formulations, in float32 and quant8 (asymm and asymm signed) where NNAPI defines them.
#include <gtest/gtest.h>

#include <sstream>

#include "OpModelBuilder.h"
#include "PropertyTestUtils.h"

namespace weft::test {
namespace {

using nn::OperandType;
using nn::OperationType;

template <typename T>
constexpr OperandType quantType() {
  return std::is_same_v<T, uint8_t> ? OperandType::TENSOR_QUANT8_ASYMM : OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
}

// --- Pooling -----------------------------------------------------------------------------------

struct PoolCase {
  OperationType op;
  uint32_t batches, h, w, c, fh, fw, outH, outW;
  int strideW, strideH, padL, padR, padT, padB, activation;
  bool implicit;
  int scheme;
  std::string describe() const {
    std::ostringstream s;
    s << nn::toString(op) << " in " << batches << "x" << h << "x" << w << "x" << c << " filter " << fh << "x" << fw
      << " stride " << strideW << "," << strideH << " pads " << padL << "," << padR << "," << padT << "," << padB
      << (implicit ? (scheme == 1 ? " SAME" : " VALID") : " explicit") << " act " << activation;
    return s.str();
  }
};

PoolCase randomPool(Random& r, OperationType op) {
  for (;;) {
    PoolCase p{};
    p.op = op;
    p.batches = r.uniform(1, 2);
    p.h = r.uniform(1, 8);
    p.w = r.uniform(1, 8);
    p.c = r.uniform(1, 4);
    p.fh = r.uniform(1, 4);
    p.fw = r.uniform(1, 4);
    p.strideW = r.uniform(1, 3);
    p.strideH = r.uniform(1, 3);
    p.activation = r.uniform(0, 3);
    p.implicit = r.coin();
    p.scheme = r.uniform(1, 2);
    if (p.implicit) {
      auto pads = [&](uint32_t in, int stride, uint32_t f, int* head, int* tail) {
        *head = *tail = 0;
        if (p.scheme == 2) return;
        const int out = (static_cast<int>(in) + stride - 1) / stride;
        const int total = std::max((out - 1) * stride + static_cast<int>(f) - static_cast<int>(in), 0);
        *head = total / 2;
        *tail = total - total / 2;
      };
      pads(p.h, p.strideH, p.fh, &p.padT, &p.padB);
      pads(p.w, p.strideW, p.fw, &p.padL, &p.padR);
    } else {
      // Paddings smaller than the filter, so every window sees at least one input element.
      p.padL = r.uniform(0, static_cast<int>(p.fw) - 1);
      p.padR = r.uniform(0, static_cast<int>(p.fw) - 1);
      p.padT = r.uniform(0, static_cast<int>(p.fh) - 1);
      p.padB = r.uniform(0, static_cast<int>(p.fh) - 1);
    }
    const int paddedH = static_cast<int>(p.h) + p.padT + p.padB, paddedW = static_cast<int>(p.w) + p.padL + p.padR;
    if (paddedH < static_cast<int>(p.fh) || paddedW < static_cast<int>(p.fw)) continue;
    p.outH = static_cast<uint32_t>((paddedH - static_cast<int>(p.fh)) / p.strideH + 1);
    p.outW = static_cast<uint32_t>((paddedW - static_cast<int>(p.fw)) / p.strideW + 1);
    return p;
  }
}

// Pooled real values over windows clipped to the input.
std::vector<double> referencePool(const PoolCase& p, const std::vector<double>& in) {
  std::vector<double> out(size_t{p.batches} * p.outH * p.outW * p.c);
  for (uint32_t b = 0; b < p.batches; ++b)
    for (uint32_t oy = 0; oy < p.outH; ++oy)
      for (uint32_t ox = 0; ox < p.outW; ++ox)
        for (uint32_t ch = 0; ch < p.c; ++ch) {
          double sum = 0, sumSq = 0, mx = -1e300;
          int count = 0;
          for (uint32_t ky = 0; ky < p.fh; ++ky)
            for (uint32_t kx = 0; kx < p.fw; ++kx) {
              const int y = static_cast<int>(oy) * p.strideH - p.padT + static_cast<int>(ky);
              const int x = static_cast<int>(ox) * p.strideW - p.padL + static_cast<int>(kx);
              if (y < 0 || x < 0 || y >= static_cast<int>(p.h) || x >= static_cast<int>(p.w)) continue;
              const double v = in[((size_t{b} * p.h + y) * p.w + x) * p.c + ch];
              sum += v;
              sumSq += v * v;
              mx = std::max(mx, v);
              ++count;
            }
          double v = p.op == OperationType::MAX_POOL_2D ? mx
                     : p.op == OperationType::AVERAGE_POOL_2D ? sum / count
                                                              : std::sqrt(sumSq / count);
          out[((size_t{b} * p.outH + oy) * p.outW + ox) * p.c + ch] = v;
        }
  return out;
}

std::vector<uint32_t> addPoolParams(OpModelBuilder& m, const PoolCase& p, uint32_t input) {
  std::vector<uint32_t> ins{input};
  if (p.implicit) {
    ins.push_back(m.int32Scalar(p.scheme));
  } else {
    for (int v : {p.padL, p.padR, p.padT, p.padB}) ins.push_back(m.int32Scalar(v));
  }
  for (int v : {p.strideW, p.strideH, static_cast<int>(p.fw), static_cast<int>(p.fh), p.activation}) {
    ins.push_back(m.int32Scalar(v));
  }
  return ins;
}

class PoolProperty : public testing::TestWithParam<OperationType> {};

TEST_P(PoolProperty, Float32MatchesPlainLoops) {
  Random r(500 + static_cast<int>(GetParam()));
  for (int i = 0; i < 200; ++i) {
    const PoolCase p = randomPool(r, GetParam());
    const auto input = r.floats(size_t{p.batches} * p.h * p.w * p.c, -8.0f, 8.0f);
    OpModelBuilder m;
    const auto in = m.input({OperandType::TENSOR_FLOAT32, {p.batches, p.h, p.w, p.c}}, OpModelBuilder::bytesOf(input));
    const auto out = m.output({OperandType::TENSOR_FLOAT32, {p.batches, p.outH, p.outW, p.c}});
    m.operation(p.op, addPoolParams(m, p, in), {out});
    ASSERT_TRUE(m.validate().ok()) << p.describe() << ": " << m.validate().error().message;
    auto run = m.run();
    ASSERT_TRUE(run.result.ok()) << p.describe() << ": " << run.result.error().message;
    ASSERT_TRUE(run.guardsIntact);
    const auto ref = referencePool(p, std::vector<double>(input.begin(), input.end()));
    const auto got = OpModelBuilder::as<float>(run.outputs[0]);
    for (size_t k = 0; k < ref.size(); ++k) {
      const double expected = activate(ref[k], p.activation);
      ASSERT_TRUE(closeFloat(got[k], expected)) << p.describe() << " element " << k << ": " << got[k] << " vs " << expected;
    }
  }
}

template <typename T>
void quantPool(OperationType op, Random& r) {
  for (int i = 0; i < 200; ++i) {
    const PoolCase p = randomPool(r, op);
    const float scale = r.uniformReal(0.01f, 0.2f);
    const int32_t zp = r.uniform(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
    const auto input = r.quantized<T>(size_t{p.batches} * p.h * p.w * p.c);
    OpModelBuilder m;
    const auto in = m.input({quantType<T>(), {p.batches, p.h, p.w, p.c}, scale, zp}, OpModelBuilder::bytesOf(input));
    const auto out = m.output({quantType<T>(), {p.batches, p.outH, p.outW, p.c}, scale, zp});
    m.operation(p.op, addPoolParams(m, p, in), {out});
    ASSERT_TRUE(m.validate().ok()) << p.describe() << ": " << m.validate().error().message;
    auto run = m.run();
    ASSERT_TRUE(run.result.ok()) << p.describe() << ": " << run.result.error().message;
    ASSERT_TRUE(run.guardsIntact);
    std::vector<double> real(input.size());
    for (size_t k = 0; k < input.size(); ++k) real[k] = (double(input[k]) - zp) * scale;
    const auto ref = referencePool(p, real);
    const auto got = OpModelBuilder::as<T>(run.outputs[0]);
    for (size_t k = 0; k < ref.size(); ++k) {
      const int32_t expected = expectedQuantized<T>(ref[k], scale, zp, p.activation);
      ASSERT_LE(std::abs(int32_t(got[k]) - expected), 1)
          << p.describe() << " element " << k << ": " << int32_t(got[k]) << " vs " << expected;
    }
  }
}

// NNAPI defines L2_POOL_2D for float types only.
class QuantPoolProperty : public testing::TestWithParam<OperationType> {};

TEST_P(QuantPoolProperty, Quant8WithinOneOfRealValued) {
  Random r(600 + static_cast<int>(GetParam()));
  quantPool<uint8_t>(GetParam(), r);
  quantPool<int8_t>(GetParam(), r);
}

INSTANTIATE_TEST_SUITE_P(Kernels, PoolProperty,
                         testing::Values(OperationType::AVERAGE_POOL_2D, OperationType::MAX_POOL_2D,
                                         OperationType::L2_POOL_2D),
                         [](const testing::TestParamInfo<OperationType>& info) { return nn::toString(info.param); });
INSTANTIATE_TEST_SUITE_P(Kernels, QuantPoolProperty,
                         testing::Values(OperationType::AVERAGE_POOL_2D, OperationType::MAX_POOL_2D),
                         [](const testing::TestParamInfo<OperationType>& info) { return nn::toString(info.param); });

// --- FULLY_CONNECTED ---------------------------------------------------------------------------

TEST(FullyConnectedProperty, Float32MatchesPlainLoops) {
  Random r(700);
  for (int i = 0; i < 200; ++i) {
    const uint32_t batches = r.uniform(1, 4), inputSize = r.uniform(1, 40), units = r.uniform(1, 12);
    const int activation = r.uniform(0, 3);
    const auto input = r.floats(size_t{batches} * inputSize), weights = r.floats(size_t{units} * inputSize);
    const auto bias = r.floats(units);
    OpModelBuilder m;
    // A rank-3 input is flattened to [batches, inputSize].
    const auto in = m.input({OperandType::TENSOR_FLOAT32, {batches, 1, inputSize}}, OpModelBuilder::bytesOf(input));
    const auto w = m.constant({OperandType::TENSOR_FLOAT32, {units, inputSize}}, weights);
    const auto b = m.constant({OperandType::TENSOR_FLOAT32, {units}}, bias);
    const auto out = m.output({OperandType::TENSOR_FLOAT32, {batches, units}});
    m.operation(OperationType::FULLY_CONNECTED, {in, w, b, m.int32Scalar(activation)}, {out});
    auto run = m.run();
    ASSERT_TRUE(run.result.ok()) << run.result.error().message;
    const auto got = OpModelBuilder::as<float>(run.outputs[0]);
    for (uint32_t bb = 0; bb < batches; ++bb)
      for (uint32_t u = 0; u < units; ++u) {
        double sum = bias[u];
        for (uint32_t k = 0; k < inputSize; ++k) sum += double(input[bb * inputSize + k]) * weights[u * inputSize + k];
        ASSERT_TRUE(closeFloat(got[bb * units + u], activate(sum, activation)));
      }
  }
}

template <typename T>
void quantFullyConnected(Random& r) {
  for (int i = 0; i < 200; ++i) {
    const uint32_t batches = r.uniform(1, 4), inputSize = r.uniform(1, 40), units = r.uniform(1, 12);
    const int activation = r.uniform(0, 3);
    const float inScale = r.uniformReal(0.01f, 0.1f), wScale = r.uniformReal(0.005f, 0.05f);
    const int32_t inZp = r.uniform(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
    const int32_t wZp = r.uniform(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
    const auto input = r.quantized<T>(size_t{batches} * inputSize), weights = r.quantized<T>(size_t{units} * inputSize);
    std::vector<int32_t> bias(units);
    for (auto& v : bias) v = r.uniform(-3000, 3000);
    std::vector<double> ref(size_t{batches} * units);
    double maxAbs = 1e-3;
    for (uint32_t bb = 0; bb < batches; ++bb)
      for (uint32_t u = 0; u < units; ++u) {
        double sum = bias[u] * double(inScale * wScale);
        for (uint32_t k = 0; k < inputSize; ++k) {
          sum += (double(input[bb * inputSize + k]) - inZp) * inScale * (double(weights[u * inputSize + k]) - wZp) * wScale;
        }
        ref[bb * units + u] = sum;
        maxAbs = std::max(maxAbs, std::fabs(sum));
      }
    const float outScale = static_cast<float>(maxAbs / 100);
    const int32_t outZp = r.uniform(std::numeric_limits<T>::min() + 100, std::numeric_limits<T>::max() - 100);
    OpModelBuilder m;
    const auto in = m.input({quantType<T>(), {batches, inputSize}, inScale, inZp}, OpModelBuilder::bytesOf(input));
    const auto w = m.constant({quantType<T>(), {units, inputSize}, wScale, wZp}, weights);
    const auto b = m.constant({OperandType::TENSOR_INT32, {units}, inScale * wScale, 0}, bias);
    const auto out = m.output({quantType<T>(), {batches, units}, outScale, outZp});
    m.operation(OperationType::FULLY_CONNECTED, {in, w, b, m.int32Scalar(activation)}, {out});
    ASSERT_TRUE(m.validate().ok()) << m.validate().error().message;
    auto run = m.run();
    ASSERT_TRUE(run.result.ok()) << run.result.error().message;
    const auto got = OpModelBuilder::as<T>(run.outputs[0]);
    for (size_t k = 0; k < ref.size(); ++k) {
      const int32_t expected = expectedQuantized<T>(ref[k], outScale, outZp, activation);
      ASSERT_LE(std::abs(int32_t(got[k]) - expected), 1) << "element " << k;
    }
  }
}

TEST(FullyConnectedProperty, Quant8WithinOneOfRealValued) {
  Random r(701);
  quantFullyConnected<uint8_t>(r);
  quantFullyConnected<int8_t>(r);
}

// --- SOFTMAX -----------------------------------------------------------------------------------

// softmax of row `values` with `beta`, in double.
std::vector<double> referenceSoftmax(const std::vector<double>& values, double beta) {
  double mx = -1e300, sum = 0;
  for (double v : values) mx = std::max(mx, v);
  std::vector<double> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) sum += out[i] = std::exp((values[i] - mx) * beta);
  for (double& v : out) v /= sum;
  return out;
}

// Runs SOFTMAX over a random [d0, d1, d2] tensor along a random axis and compares every slice.
// T = float for the float32 path, uint8_t / int8_t for the quantized ones.
template <typename T>
void softmaxCase(Random& r) {
  const nn::Dimensions dims = {static_cast<uint32_t>(r.uniform(1, 3)), static_cast<uint32_t>(r.uniform(1, 6)),
                               static_cast<uint32_t>(r.uniform(1, 6))};
  const int axis = r.uniform(-3, 2);
  const uint32_t a = static_cast<uint32_t>(axis < 0 ? axis + 3 : axis);
  const float beta = r.uniformReal(0.1f, 2.0f);
  const size_t n = nn::numberOfElements(dims);
  OpModelBuilder m;
  std::vector<double> real(n);
  uint32_t in, out;
  float scale = 0;
  int32_t zp = 0;
  if constexpr (std::is_integral_v<T>) {
    scale = r.uniformReal(0.02f, 0.2f);
    zp = r.uniform(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
    const auto input = r.quantized<T>(n);
    for (size_t i = 0; i < n; ++i) real[i] = (double(input[i]) - zp) * scale;
    in = m.input({quantType<T>(), dims, scale, zp}, OpModelBuilder::bytesOf(input));
    out = m.output({quantType<T>(), dims, 1.0f / 256, std::is_same_v<T, uint8_t> ? 0 : -128});
  } else {
    const auto input = r.floats(n, -4.0f, 4.0f);
    for (size_t i = 0; i < n; ++i) real[i] = input[i];
    in = m.input({OperandType::TENSOR_FLOAT32, dims}, OpModelBuilder::bytesOf(input));
    out = m.output({OperandType::TENSOR_FLOAT32, dims});
  }
  m.operation(OperationType::SOFTMAX, {in, m.floatScalar(beta), m.int32Scalar(axis)}, {out});
  ASSERT_TRUE(m.validate().ok()) << m.validate().error().message;
  auto run = m.run();
  ASSERT_TRUE(run.result.ok()) << run.result.error().message;
  size_t inner = 1;
  for (uint32_t d = a + 1; d < 3; ++d) inner *= dims[d];
  const size_t outer = n / (inner * dims[a]);
  for (size_t o = 0; o < outer; ++o)
    for (size_t i = 0; i < inner; ++i) {
      std::vector<double> row(dims[a]);
      for (size_t k = 0; k < dims[a]; ++k) row[k] = real[(o * dims[a] + k) * inner + i];
      const auto expected = referenceSoftmax(row, beta);
      for (size_t k = 0; k < dims[a]; ++k) {
        const size_t idx = (o * dims[a] + k) * inner + i;
        if constexpr (std::is_integral_v<T>) {
          const T got = OpModelBuilder::as<T>(run.outputs[0])[idx];
          const int32_t want = expectedQuantized<T>(expected[k], 1.0f / 256, std::is_same_v<T, uint8_t> ? 0 : -128, 0);
          ASSERT_LE(std::abs(int32_t(got) - want), 1) << "axis " << axis << " element " << idx;
        } else {
          const float got = OpModelBuilder::as<float>(run.outputs[0])[idx];
          ASSERT_TRUE(closeFloat(got, expected[k], 1e-5)) << "axis " << axis << " element " << idx;
        }
      }
    }
}

TEST(SoftmaxProperty, Float32MatchesPlainLoops) {
  Random r(800);
  for (int i = 0; i < 200; ++i) softmaxCase<float>(r);
}

TEST(SoftmaxProperty, Quant8WithinOneOfRealValued) {
  Random r(801);
  for (int i = 0; i < 200; ++i) softmaxCase<uint8_t>(r);
  for (int i = 0; i < 200; ++i) softmaxCase<int8_t>(r);
}

}  // namespace
}  // namespace weft::test
