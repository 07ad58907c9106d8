// Randomized CONV_2D and DEPTHWISE_CONV_2D against a plain-loop double-precision convolution:
// random shapes, strides, explicit and implicit paddings, dilations, layouts, activations, and
// float32 / quant8 asymm / asymm signed / per-channel filters. Quantized results must be within 1
// of round(real / scale) + zeroPoint (NNAPI's quant8 tolerance), floats within 1e-4 relative.
#include <gtest/gtest.h>

#include "OpModelBuilder.h"
#include "PropertyTestUtils.h"

namespace weft::test {
namespace {

using nn::OperandType;
using nn::OperationType;

enum class Quant { FLOAT32, UINT8, INT8, UINT8_PER_CHANNEL, INT8_PER_CHANNEL };

struct ConvCase {
  bool depthwise = false;
  uint32_t batches, inH, inW, inC, outC, fh, fw, multiplier = 1;
  int strideW, strideH, dilW, dilH;
  bool implicit;
  int scheme;  // 1 SAME, 2 VALID
  int padL, padR, padT, padB;
  bool nchw, dynamicOutput;
  int activation;
  uint32_t outH = 0, outW = 0;
};

// Output size and paddings from first principles (not the kernel library's helpers).
void resolveGeometry(ConvCase& c) {
  const int effH = (static_cast<int>(c.fh) - 1) * c.dilH + 1, effW = (static_cast<int>(c.fw) - 1) * c.dilW + 1;
  if (c.implicit) {
    auto pads = [&](int in, int stride, int eff, int* head, int* tail) {
      if (c.scheme == 2) {
        *head = *tail = 0;
        return;
      }
      const int out = (in + stride - 1) / stride;
      const int total = std::max((out - 1) * stride + eff - in, 0);
      *head = total / 2;
      *tail = total - total / 2;
    };
    pads(static_cast<int>(c.inH), c.strideH, effH, &c.padT, &c.padB);
    pads(static_cast<int>(c.inW), c.strideW, effW, &c.padL, &c.padR);
  }
  c.outH = static_cast<uint32_t>((static_cast<int>(c.inH) + c.padT + c.padB - effH) / c.strideH + 1);
  c.outW = static_cast<uint32_t>((static_cast<int>(c.inW) + c.padL + c.padR - effW) / c.strideW + 1);
}

ConvCase randomCase(Random& r, bool depthwise) {
  ConvCase c;
  c.depthwise = depthwise;
  for (;;) {
    c.batches = r.uniform(1, 2);
    c.inH = r.uniform(1, 9);
    c.inW = r.uniform(1, 9);
    c.inC = r.uniform(1, 6);
    c.multiplier = depthwise ? r.uniform(1, 3) : 1;
    c.outC = depthwise ? c.inC * c.multiplier : r.uniform(1, 6);
    c.fh = r.uniform(1, 4);
    c.fw = r.uniform(1, 4);
    c.strideW = r.uniform(1, 3);
    c.strideH = r.uniform(1, 3);
    const bool dilate = r.uniform(0, 3) == 0;
    c.dilW = dilate ? r.uniform(1, 3) : 1;
    c.dilH = dilate ? r.uniform(1, 3) : 1;
    c.implicit = r.coin();
    c.scheme = r.uniform(1, 2);
    c.padL = r.uniform(0, 2);
    c.padR = r.uniform(0, 2);
    c.padT = r.uniform(0, 2);
    c.padB = r.uniform(0, 2);
    c.nchw = r.coin();
    c.dynamicOutput = r.uniform(0, 3) == 0;
    c.activation = r.uniform(0, 3);
    const int effH = (static_cast<int>(c.fh) - 1) * c.dilH + 1, effW = (static_cast<int>(c.fw) - 1) * c.dilW + 1;
    ConvCase probe = c;
    if (probe.implicit && probe.scheme == 2 && (effH > static_cast<int>(c.inH) || effW > static_cast<int>(c.inW))) {
      continue;
    }
    if (!probe.implicit && (static_cast<int>(c.inH) + c.padT + c.padB < effH ||
                            static_cast<int>(c.inW) + c.padL + c.padR < effW)) {
      continue;
    }
    resolveGeometry(c);
    return c;
  }
}

// Real-valued convolution in NHWC: input [b, h, w, inC], filter [outC, fh, fw, inC] (conv) or
// [1, fh, fw, outC] (depthwise).
std::vector<double> referenceConv(const ConvCase& c, const std::vector<double>& in, const std::vector<double>& filter,
                                  const std::vector<double>& bias) {
  std::vector<double> out(size_t{c.batches} * c.outH * c.outW * c.outC);
  for (uint32_t b = 0; b < c.batches; ++b)
    for (uint32_t oy = 0; oy < c.outH; ++oy)
      for (uint32_t ox = 0; ox < c.outW; ++ox)
        for (uint32_t oc = 0; oc < c.outC; ++oc) {
          double sum = bias[oc];
          for (uint32_t ky = 0; ky < c.fh; ++ky)
            for (uint32_t kx = 0; kx < c.fw; ++kx) {
              const int y = static_cast<int>(oy) * c.strideH - c.padT + static_cast<int>(ky) * c.dilH;
              const int x = static_cast<int>(ox) * c.strideW - c.padL + static_cast<int>(kx) * c.dilW;
              if (y < 0 || x < 0 || y >= static_cast<int>(c.inH) || x >= static_cast<int>(c.inW)) continue;
              const size_t inBase = ((size_t{b} * c.inH + y) * c.inW + x) * c.inC;
              if (c.depthwise) {
                sum += in[inBase + oc / c.multiplier] * filter[(size_t{ky} * c.fw + kx) * c.outC + oc];
              } else {
                for (uint32_t ic = 0; ic < c.inC; ++ic) {
                  sum += in[inBase + ic] * filter[((size_t{oc} * c.fh + ky) * c.fw + kx) * c.inC + ic];
                }
              }
            }
          out[((size_t{b} * c.outH + oy) * c.outW + ox) * c.outC + oc] = sum;
        }
  return out;
}

template <typename T>
std::vector<T> toNchw(const std::vector<T>& nhwc, uint32_t n, uint32_t h, uint32_t w, uint32_t ch) {
  std::vector<T> out(nhwc.size());
  for (uint32_t b = 0; b < n; ++b)
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x)
        for (uint32_t k = 0; k < ch; ++k) out[((size_t{b} * ch + k) * h + y) * w + x] = nhwc[((size_t{b} * h + y) * w + x) * ch + k];
  return out;
}

template <typename T>
std::vector<T> fromNchw(const std::vector<T>& nchw, uint32_t n, uint32_t h, uint32_t w, uint32_t ch) {
  std::vector<T> out(nchw.size());
  for (uint32_t b = 0; b < n; ++b)
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x)
        for (uint32_t k = 0; k < ch; ++k) out[((size_t{b} * h + y) * w + x) * ch + k] = nchw[((size_t{b} * ch + k) * h + y) * w + x];
  return out;
}

nn::Dimensions imageDims(uint32_t n, uint32_t h, uint32_t w, uint32_t c, bool nchw) {
  return nchw ? nn::Dimensions{n, c, h, w} : nn::Dimensions{n, h, w, c};
}

// Adds the scalar parameters after input, filter and bias in the signature the case asks for.
std::vector<uint32_t> addParams(OpModelBuilder& m, const ConvCase& c, std::vector<uint32_t> ins) {
  const bool withDilation = c.dilW != 1 || c.dilH != 1;
  if (c.implicit) {
    ins.push_back(m.int32Scalar(c.scheme));
  } else {
    for (int p : {c.padL, c.padR, c.padT, c.padB}) ins.push_back(m.int32Scalar(p));
  }
  ins.push_back(m.int32Scalar(c.strideW));
  ins.push_back(m.int32Scalar(c.strideH));
  if (c.depthwise) ins.push_back(m.int32Scalar(static_cast<int32_t>(c.multiplier)));
  ins.push_back(m.int32Scalar(c.activation));
  if (c.nchw || withDilation) ins.push_back(m.boolScalar(c.nchw));
  if (withDilation) {
    ins.push_back(m.int32Scalar(c.dilW));
    ins.push_back(m.int32Scalar(c.dilH));
  }
  return ins;
}

nn::Dimensions filterDims(const ConvCase& c) {
  return c.depthwise ? nn::Dimensions{1, c.fh, c.fw, c.outC} : nn::Dimensions{c.outC, c.fh, c.fw, c.inC};
}

std::string describe(const ConvCase& c) {
  std::ostringstream s;
  s << (c.depthwise ? "depthwise " : "conv ") << "in " << c.batches << "x" << c.inH << "x" << c.inW << "x" << c.inC
    << " out " << c.outH << "x" << c.outW << "x" << c.outC << " filter " << c.fh << "x" << c.fw << " stride "
    << c.strideW << "," << c.strideH << " dilation " << c.dilW << "," << c.dilH
    << (c.implicit ? (c.scheme == 1 ? " SAME" : " VALID") : " explicit") << " pads " << c.padL << "," << c.padR
    << "," << c.padT << "," << c.padB << (c.nchw ? " NCHW" : " NHWC") << " act " << c.activation
    << (c.dynamicOutput ? " dynamic" : "");
  return s.str();
}

void runFloatCase(const ConvCase& c, Random& r) {
  const auto input = r.floats(size_t{c.batches} * c.inH * c.inW * c.inC);
  const auto filter = r.floats(nn::numberOfElements(filterDims(c)));
  const auto bias = r.floats(c.outC);
  auto ref = referenceConv(c, std::vector<double>(input.begin(), input.end()),
                           std::vector<double>(filter.begin(), filter.end()), std::vector<double>(bias.begin(), bias.end()));
  OpModelBuilder m;
  const auto in = m.input({OperandType::TENSOR_FLOAT32, imageDims(c.batches, c.inH, c.inW, c.inC, c.nchw)},
                          OpModelBuilder::bytesOf(c.nchw ? toNchw(input, c.batches, c.inH, c.inW, c.inC) : input));
  const auto f = m.constant({OperandType::TENSOR_FLOAT32, filterDims(c)}, filter);
  const auto bi = m.constant({OperandType::TENSOR_FLOAT32, {c.outC}}, bias);
  const auto ins = addParams(m, c, {in, f, bi});
  const nn::Dimensions outDims = imageDims(c.batches, c.outH, c.outW, c.outC, c.nchw);
  const auto out = m.output({OperandType::TENSOR_FLOAT32, c.dynamicOutput ? nn::Dimensions{0, 0, 0, 0} : outDims},
                            nn::sizeOfData(OperandType::TENSOR_FLOAT32, outDims));
  m.operation(c.depthwise ? OperationType::DEPTHWISE_CONV_2D : OperationType::CONV_2D, ins, {out});
  ASSERT_TRUE(m.validate().ok()) << describe(c) << ": " << m.validate().error().message;
  auto run = m.run();
  ASSERT_TRUE(run.result.ok()) << describe(c) << ": " << run.result.error().message;
  ASSERT_EQ(run.result->at(0).dimensions, outDims) << describe(c);
  ASSERT_TRUE(run.guardsIntact) << describe(c);
  auto got = OpModelBuilder::as<float>(run.outputs[0]);
  if (c.nchw) got = fromNchw(got, c.batches, c.outH, c.outW, c.outC);
  for (size_t i = 0; i < ref.size(); ++i) {
    const double expected = activate(ref[i], c.activation);
    ASSERT_TRUE(closeFloat(got[i], expected)) << describe(c) << " element " << i << ": " << got[i] << " vs " << expected;
  }
}

template <typename T>
void runQuantCase(const ConvCase& c, Random& r, bool perChannel) {
  const OperandType type = std::is_same_v<T, uint8_t> ? OperandType::TENSOR_QUANT8_ASYMM
                                                      : OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  const float inScale = r.uniformReal(0.01f, 0.1f);
  const int32_t inZp = r.uniform(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  const auto input = r.quantized<T>(size_t{c.batches} * c.inH * c.inW * c.inC);
  const nn::Dimensions fDims = filterDims(c);
  const size_t filterCount = nn::numberOfElements(fDims);
  // Per-tensor: a filter of the input's type; per-channel: symmetric int8 with one scale per channel.
  std::vector<float> filterScales(c.outC, r.uniformReal(0.005f, 0.05f));
  int32_t filterZp = 0;
  std::vector<T> filterT;
  std::vector<int8_t> filterPc;
  std::vector<double> filterReal(filterCount);
  const uint32_t channelDim = c.depthwise ? 3 : 0;
  auto channelOf = [&](size_t i) { return c.depthwise ? i % c.outC : i / (filterCount / c.outC); };
  if (perChannel) {
    for (auto& s : filterScales) s = r.uniformReal(0.005f, 0.05f);
    filterPc = r.quantized<int8_t>(filterCount);
    for (size_t i = 0; i < filterCount; ++i) filterReal[i] = double(filterPc[i]) * filterScales[channelOf(i)];
  } else {
    filterZp = r.uniform(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
    filterT = r.quantized<T>(filterCount);
    for (size_t i = 0; i < filterCount; ++i) filterReal[i] = (double(filterT[i]) - filterZp) * filterScales[0];
  }
  std::vector<int32_t> bias(c.outC);
  std::vector<double> biasReal(c.outC);
  for (uint32_t oc = 0; oc < c.outC; ++oc) {
    bias[oc] = r.uniform(-2000, 2000);
    biasReal[oc] = bias[oc] * double(inScale * filterScales[perChannel ? oc : 0]);
  }
  std::vector<double> inputReal(input.size());
  for (size_t i = 0; i < input.size(); ++i) inputReal[i] = (double(input[i]) - inZp) * inScale;
  const auto ref = referenceConv(c, inputReal, filterReal, biasReal);
  double maxAbs = 1e-3;
  for (double v : ref) maxAbs = std::max(maxAbs, std::fabs(v));
  const float outScale = static_cast<float>(maxAbs / 100.0);
  const int32_t outZp = r.uniform(std::numeric_limits<T>::min() + 100, std::numeric_limits<T>::max() - 100);

  OpModelBuilder m;
  const auto in = m.input({type, imageDims(c.batches, c.inH, c.inW, c.inC, c.nchw), inScale, inZp},
                          OpModelBuilder::bytesOf(c.nchw ? toNchw(input, c.batches, c.inH, c.inW, c.inC) : input));
  uint32_t f;
  if (perChannel) {
    f = m.constant({OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, fDims, 0.0f, 0,
                    nn::SymmPerChannelQuantParams{filterScales, channelDim}},
                   filterPc);
  } else {
    f = m.constant({type, fDims, filterScales[0], filterZp}, filterT);
  }
  const auto bi = m.constant({OperandType::TENSOR_INT32, {c.outC}, perChannel ? 0.0f : inScale * filterScales[0], 0}, bias);
  const auto ins = addParams(m, c, {in, f, bi});
  const nn::Dimensions outDims = imageDims(c.batches, c.outH, c.outW, c.outC, c.nchw);
  const auto out = m.output({type, c.dynamicOutput ? nn::Dimensions{0, 0, 0, 0} : outDims, outScale, outZp},
                            nn::sizeOfData(type, outDims));
  m.operation(c.depthwise ? OperationType::DEPTHWISE_CONV_2D : OperationType::CONV_2D, ins, {out});
  ASSERT_TRUE(m.validate().ok()) << describe(c) << ": " << m.validate().error().message;
  auto run = m.run();
  ASSERT_TRUE(run.result.ok()) << describe(c) << ": " << run.result.error().message;
  ASSERT_EQ(run.result->at(0).dimensions, outDims) << describe(c);
  ASSERT_TRUE(run.guardsIntact) << describe(c);
  auto got = OpModelBuilder::as<T>(run.outputs[0]);
  if (c.nchw) got = fromNchw(got, c.batches, c.outH, c.outW, c.outC);
  for (size_t i = 0; i < ref.size(); ++i) {
    const int32_t expected = expectedQuantized<T>(ref[i], outScale, outZp, c.activation);
    ASSERT_LE(std::abs(int32_t(got[i]) - expected), 1)
        << describe(c) << (perChannel ? " per-channel" : "") << " element " << i << ": " << int32_t(got[i]) << " vs "
        << expected << " (real " << ref[i] << ")";
  }
}

class ConvProperty : public testing::TestWithParam<bool> {};  // param: depthwise

TEST_P(ConvProperty, Float32MatchesPlainLoops) {
  Random r(GetParam() ? 101 : 100);
  for (int i = 0; i < 150; ++i) runFloatCase(randomCase(r, GetParam()), r);
}

TEST_P(ConvProperty, Quant8AsymmWithinOneOfRealValued) {
  Random r(GetParam() ? 201 : 200);
  for (int i = 0; i < 150; ++i) runQuantCase<uint8_t>(randomCase(r, GetParam()), r, false);
}

TEST_P(ConvProperty, Quant8AsymmSignedWithinOneOfRealValued) {
  Random r(GetParam() ? 301 : 300);
  for (int i = 0; i < 150; ++i) runQuantCase<int8_t>(randomCase(r, GetParam()), r, false);
}

TEST_P(ConvProperty, PerChannelWithinOneOfRealValued) {
  Random r(GetParam() ? 401 : 400);
  for (int i = 0; i < 100; ++i) runQuantCase<uint8_t>(randomCase(r, GetParam()), r, true);
  for (int i = 0; i < 100; ++i) runQuantCase<int8_t>(randomCase(r, GetParam()), r, true);
}

INSTANTIATE_TEST_SUITE_P(Kernels, ConvProperty, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool>& info) {
                           return info.param ? "DEPTHWISE_CONV_2D" : "CONV_2D";
                         });

}  // namespace
}  // namespace weft::test
