// CONV_2D: 2-D convolution of an NHWC (or NCHW) input [batches, height, width, inDepth] with a
// filter [outDepth, filterHeight, filterWidth, inDepth], plus bias, fused activation, strides,
// explicit or implicit padding and dilation.
//
// Types: float32; float16 (computed in float32); quant8 asymm and asymm signed with a filter of the
// same type or TENSOR_QUANT8_SYMM_PER_CHANNEL (channelDim 0) and an int32 bias.
//
// Kernel: for each output pixel the receptive field is gathered once into a contiguous patch in
// filter order (ky, kx, ic) - zero-point-adjusted int16 for quantized types, so padding is 0 -
// and every output channel is one dot product with its filter row. The sum order is TFLite's
// reference order; quantized accumulators are exact int32 and requantized as TFLite does.
#include <algorithm>
#include <vector>

#include "ConvOperands.h"
#include "weft/kernels/ConvParams.h"
#include "weft/kernels/Layout.h"
#include "weft/kernels/OperationUtils.h"
#include "weft/kernels/QuantUtils.h"

namespace weft::nn::conv_2d {

constexpr uint32_t kInput = 0;
constexpr uint32_t kFilter = 1;
constexpr uint32_t kBias = 2;
constexpr uint32_t kOutput = 0;

namespace {

struct Geometry {
  uint32_t batches, inHeight, inWidth, inDepth;
  uint32_t outHeight, outWidth, outDepth;
  uint32_t filterHeight, filterWidth;
  Window2D window;
  size_t patchSize() const { return size_t{filterHeight} * filterWidth * inDepth; }
};

// Copies the receptive field of output (b, oy, ox) into `patch`, converting each element with
// `convert` and writing `padValue` where the window leaves the input.
template <typename In, typename P, typename Convert>
void gatherPatch(const In* input, const Geometry& g, uint32_t b, uint32_t oy, uint32_t ox, P padValue,
                 Convert convert, P* patch) {
  const int32_t y0 = static_cast<int32_t>(oy) * g.window.strideHeight - g.window.padTop;
  const int32_t x0 = static_cast<int32_t>(ox) * g.window.strideWidth - g.window.padLeft;
  P* out = patch;
  for (uint32_t ky = 0; ky < g.filterHeight; ++ky) {
    const int32_t y = y0 + static_cast<int32_t>(ky) * g.window.dilationHeight;
    for (uint32_t kx = 0; kx < g.filterWidth; ++kx, out += g.inDepth) {
      const int32_t x = x0 + static_cast<int32_t>(kx) * g.window.dilationWidth;
      if (y < 0 || y >= static_cast<int32_t>(g.inHeight) || x < 0 || x >= static_cast<int32_t>(g.inWidth)) {
        std::fill(out, out + g.inDepth, padValue);
        continue;
      }
      const In* in = input + ((size_t{b} * g.inHeight + y) * g.inWidth + x) * g.inDepth;
      for (uint32_t c = 0; c < g.inDepth; ++c) out[c] = convert(in[c]);
    }
  }
}

int32_t dotInt16(const int16_t* a, const int16_t* b, size_t n) {
  int32_t acc = 0;
  for (size_t i = 0; i < n; ++i) acc += static_cast<int32_t>(a[i]) * static_cast<int32_t>(b[i]);
  return acc;
}

float dotFloat(const float* a, const float* b, size_t n) {
  float acc = 0.0f;
  for (size_t i = 0; i < n; ++i) acc += a[i] * b[i];
  return acc;
}

void convFloat(const float* input, const float* filter, const float* bias, const Geometry& g,
               FusedActivationFunc activation, float* output) {
  const FloatRange range = floatActivationRange(activation);
  const size_t k = g.patchSize();
  std::vector<float> patch(k);
  for (uint32_t b = 0; b < g.batches; ++b)
    for (uint32_t oy = 0; oy < g.outHeight; ++oy)
      for (uint32_t ox = 0; ox < g.outWidth; ++ox) {
        gatherPatch(input, g, b, oy, ox, 0.0f, [](float v) { return v; }, patch.data());
        float* out = output + ((size_t{b} * g.outHeight + oy) * g.outWidth + ox) * g.outDepth;
        for (uint32_t oc = 0; oc < g.outDepth; ++oc) {
          const float v = dotFloat(patch.data(), filter + oc * k, k) + bias[oc];
          out[oc] = std::min(std::max(v, range.min), range.max);
        }
      }
}

// Quantized convolution; the requantization holds one entry per output channel (repeated for a
// per-tensor filter). Kept out of line: inlined into the type dispatch of executeConvolution, the
// dot product loses registers to it and the 224x224x32 -> 64 benchmark runs ~25% slower.
template <typename T, typename F>
__attribute__((noinline)) void convQuant(const T* input, const F* filter, const int32_t* bias, const Geometry& g,
               const ConvQuantization& quant, T* output) {
  const int32_t inputZeroPoint = quant.inputZeroPoint, filterZeroPoint = quant.filterZeroPoint;
  const int32_t outputZeroPoint = quant.outputZeroPoint;
  const int32_t* multiplier = quant.requantization.multiplier.data();
  const int* shift = quant.requantization.shift.data();
  const QuantizedRange range = quant.range;
  const size_t k = g.patchSize();
  std::vector<int16_t> weights(size_t{g.outDepth} * k);
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<int16_t>(filter[i] - filterZeroPoint);
  std::vector<int16_t> patch(k);
  for (uint32_t b = 0; b < g.batches; ++b)
    for (uint32_t oy = 0; oy < g.outHeight; ++oy)
      for (uint32_t ox = 0; ox < g.outWidth; ++ox) {
        gatherPatch(input, g, b, oy, ox, int16_t{0},
                    [inputZeroPoint](T v) { return static_cast<int16_t>(static_cast<int32_t>(v) - inputZeroPoint); },
                    patch.data());
        T* out = output + ((size_t{b} * g.outHeight + oy) * g.outWidth + ox) * g.outDepth;
        for (uint32_t oc = 0; oc < g.outDepth; ++oc) {
          const int32_t acc = dotInt16(patch.data(), weights.data() + oc * k, k) + bias[oc];
          const int32_t q = multiplyByQuantizedMultiplier(acc, multiplier[oc], shift[oc]) + outputZeroPoint;
          out[oc] = static_cast<T>(std::clamp(q, range.min, range.max));
        }
      }
}

Result<Geometry> geometry(const Shape& input, const Shape& filter, const ConvParams& p) {
  NN_RET_CHECK_EQ(input.dimensions.size(), 4u) << "input must be 4-D";
  NN_RET_CHECK_EQ(filter.dimensions.size(), 4u) << "filter must be 4-D";
  Geometry g{};
  g.batches = input.dimensions[0];
  g.inHeight = input.dimensions[1];
  g.inWidth = input.dimensions[2];
  g.inDepth = input.dimensions[3];
  g.outDepth = filter.dimensions[0];
  g.filterHeight = filter.dimensions[1];
  g.filterWidth = filter.dimensions[2];
  NN_RET_CHECK_EQ(filter.dimensions[3], g.inDepth) << "filter depth must equal input depth";
  NN_RET_CHECK(g.filterHeight > 0 && g.filterWidth > 0 && g.outDepth > 0) << "empty filter";
  g.window = p.window;
  NN_TRY(computeWindowOutSize(g.window, g.inHeight, g.inWidth, g.filterHeight, g.filterWidth, &g.outHeight,
                              &g.outWidth));
  return g;
}

Result<Geometry> readGeometry(const IOperationExecutionContext* context, ConvParams* params) {
  const bool nchw = convUsesNchw(context, 0);
  const Shape input = toNhwcShape(context->getInputShape(kInput), nchw);
  const Shape filter = context->getInputShape(kFilter);
  NN_RET_CHECK_EQ(input.dimensions.size(), 4u) << "input must be 4-D";
  NN_RET_CHECK_EQ(filter.dimensions.size(), 4u) << "filter must be 4-D";
  auto p = readConvParams(context, 0, input.dimensions[1], input.dimensions[2], filter.dimensions[1],
                          filter.dimensions[2]);
  if (!p.ok()) return p.error();
  *params = *p;
  const Shape bias = context->getInputShape(kBias);
  NN_RET_CHECK(bias.dimensions.size() == 1 && bias.dimensions[0] == filter.dimensions[0])
      << "bias must be [outDepth]";
  return geometry(input, filter, *params);
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 7, 13));
  NN_TRY(validateOutputCount(context, 1));
  NN_TRY(validateConvOperands(context));
  return validateConvParams(context, 0, true);
}

Status prepare(IOperationExecutionContext* context) {
  ConvParams p;
  auto g = readGeometry(context, &p);
  if (!g.ok()) return g.error();
  return setNhwcOutputShape(context, kOutput, {g->batches, g->outHeight, g->outWidth, g->outDepth}, p.useNchw);
}

Status execute(IOperationExecutionContext* context) {
  ConvParams p;
  auto g = readGeometry(context, &p);
  if (!g.ok()) return g.error();
  return executeConvolution(
      context, p.useNchw, g->outDepth, p.activation, /*perChannelDim=*/0,
      [&](const float* input, const float* filter, const float* bias, float* output) {
        convFloat(input, filter, bias, *g, p.activation, output);
      },
      [&](const auto* input, const auto* filter, const int32_t* bias, const ConvQuantization& quant, auto* output) {
        convQuant(input, filter, bias, *g, quant, output);
      });
}

}  // namespace weft::nn::conv_2d

NN_REGISTER_OPERATION(CONV_2D, "CONV_2D", conv_2d::validate, conv_2d::prepare, conv_2d::execute,
                      .allowZeroSizedInput = true)
