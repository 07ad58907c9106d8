// DEPTHWISE_CONV_2D: each input channel ic is convolved with depthMultiplier filters of its own:
// output channel ic * depthMultiplier + j. Input [batches, height, width, inDepth] (or NCHW),
// filter [1, filterHeight, filterWidth, outDepth], bias [outDepth].
//
// Types: float32; float16 (computed in float32); quant8 asymm / asymm signed with a filter of the
// same type or TENSOR_QUANT8_SYMM_PER_CHANNEL (channelDim 3) and an int32 bias. Sums run in
// TFLite's reference order (ky, kx), quantized accumulators are exact int32.
#include <algorithm>
#include <vector>

#include "ConvOperands.h"
#include "weft/kernels/ConvParams.h"
#include "weft/kernels/Layout.h"
#include "weft/kernels/OperationUtils.h"
#include "weft/kernels/QuantUtils.h"

namespace weft::nn::depthwise_conv_2d {

constexpr uint32_t kInput = 0;
constexpr uint32_t kFilter = 1;
constexpr uint32_t kBias = 2;
constexpr uint32_t kOutput = 0;
constexpr uint32_t kExtraInputs = 1;  // the depth multiplier
constexpr uint32_t kPerChannelDim = 3;  // a per-channel filter [1, h, w, outDepth] is quantized along outDepth

namespace {

struct Geometry {
  uint32_t batches, inHeight, inWidth, inDepth;
  uint32_t outHeight, outWidth, outDepth;
  uint32_t filterHeight, filterWidth, depthMultiplier;
  Window2D window;
};

// Calls f(outputIndex, outChannel, accumulate) for every output element, where accumulate(g) feeds
// g(inputIndex, filterIndex) each in-bounds tap in (ky, kx) order.
template <typename F>
void forEachOutput(const Geometry& g, F&& f) {
  for (uint32_t b = 0; b < g.batches; ++b)
    for (uint32_t oy = 0; oy < g.outHeight; ++oy)
      for (uint32_t ox = 0; ox < g.outWidth; ++ox) {
        const int32_t y0 = static_cast<int32_t>(oy) * g.window.strideHeight - g.window.padTop;
        const int32_t x0 = static_cast<int32_t>(ox) * g.window.strideWidth - g.window.padLeft;
        const size_t outBase = ((size_t{b} * g.outHeight + oy) * g.outWidth + ox) * g.outDepth;
        for (uint32_t oc = 0; oc < g.outDepth; ++oc) {
          const uint32_t ic = oc / g.depthMultiplier;
          auto accumulate = [&](auto&& tap) {
            for (uint32_t ky = 0; ky < g.filterHeight; ++ky) {
              const int32_t y = y0 + static_cast<int32_t>(ky) * g.window.dilationHeight;
              if (y < 0 || y >= static_cast<int32_t>(g.inHeight)) continue;
              for (uint32_t kx = 0; kx < g.filterWidth; ++kx) {
                const int32_t x = x0 + static_cast<int32_t>(kx) * g.window.dilationWidth;
                if (x < 0 || x >= static_cast<int32_t>(g.inWidth)) continue;
                tap(((size_t{b} * g.inHeight + y) * g.inWidth + x) * g.inDepth + ic,
                    (size_t{ky} * g.filterWidth + kx) * g.outDepth + oc);
              }
            }
          };
          f(outBase + oc, oc, accumulate);
        }
      }
}

void depthwiseFloat(const float* input, const float* filter, const float* bias, const Geometry& g,
                    FusedActivationFunc activation, float* output) {
  const FloatRange range = floatActivationRange(activation);
  forEachOutput(g, [&](size_t o, uint32_t oc, auto&& accumulate) {
    float total = 0.0f;
    accumulate([&](size_t i, size_t k) { total += input[i] * filter[k]; });
    output[o] = std::min(std::max(total + bias[oc], range.min), range.max);
  });
}

template <typename T, typename F>
void depthwiseQuant(const T* input, const F* filter, const int32_t* bias, const Geometry& g,
                    const ConvQuantization& quant, T* output) {
  const int32_t inputZeroPoint = quant.inputZeroPoint, filterZeroPoint = quant.filterZeroPoint;
  const std::vector<int32_t>& multiplier = quant.requantization.multiplier;
  const std::vector<int>& shift = quant.requantization.shift;
  forEachOutput(g, [&](size_t o, uint32_t oc, auto&& accumulate) {
    int32_t acc = 0;
    accumulate([&](size_t i, size_t k) {
      acc += (static_cast<int32_t>(input[i]) - inputZeroPoint) * (static_cast<int32_t>(filter[k]) - filterZeroPoint);
    });
    acc += bias[oc];
    const int32_t q = multiplyByQuantizedMultiplier(acc, multiplier[oc], shift[oc]) + quant.outputZeroPoint;
    output[o] = static_cast<T>(std::clamp(q, quant.range.min, quant.range.max));
  });
}

Result<Geometry> readGeometry(const IOperationExecutionContext* context, ConvParams* params) {
  const bool nchw = convUsesNchw(context, kExtraInputs);
  const Shape input = toNhwcShape(context->getInputShape(kInput), nchw);
  const Shape filter = context->getInputShape(kFilter);
  NN_RET_CHECK_EQ(input.dimensions.size(), 4u) << "input must be 4-D";
  NN_RET_CHECK_EQ(filter.dimensions.size(), 4u) << "filter must be 4-D";
  NN_RET_CHECK_EQ(filter.dimensions[0], 1u) << "depthwise filter must be [1, h, w, outDepth]";
  auto p = readConvParams(context, kExtraInputs, input.dimensions[1], input.dimensions[2], filter.dimensions[1],
                          filter.dimensions[2]);
  if (!p.ok()) return p.error();
  *params = *p;
  Geometry g{};
  g.batches = input.dimensions[0];
  g.inHeight = input.dimensions[1];
  g.inWidth = input.dimensions[2];
  g.inDepth = input.dimensions[3];
  g.filterHeight = filter.dimensions[1];
  g.filterWidth = filter.dimensions[2];
  g.outDepth = filter.dimensions[3];
  const int32_t multiplier = p->extra.at(0);
  NN_RET_CHECK_GT(multiplier, 0) << "depth multiplier";
  g.depthMultiplier = static_cast<uint32_t>(multiplier);
  NN_RET_CHECK(g.filterHeight > 0 && g.filterWidth > 0 && g.inDepth > 0) << "empty filter or input depth";
  NN_RET_CHECK_EQ(size_t{g.inDepth} * g.depthMultiplier, size_t{g.outDepth})
      << "output depth must be input depth * depth multiplier";
  const Shape bias = context->getInputShape(kBias);
  NN_RET_CHECK(bias.dimensions.size() == 1 && bias.dimensions[0] == g.outDepth) << "bias must be [outDepth]";
  g.window = p->window;
  NN_TRY(computeWindowOutSize(g.window, g.inHeight, g.inWidth, g.filterHeight, g.filterWidth, &g.outHeight,
                              &g.outWidth));
  return g;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 8, 14));
  NN_TRY(validateOutputCount(context, 1));
  NN_TRY(validateConvOperands(context, kPerChannelDim, /*checkBiasScale=*/false));
  return validateConvParams(context, kExtraInputs, true);
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
      context, p.useNchw, g->outDepth, p.activation, kPerChannelDim,
      [&](const float* input, const float* filter, const float* bias, float* output) {
        depthwiseFloat(input, filter, bias, *g, p.activation, output);
      },
      [&](const auto* input, const auto* filter, const int32_t* bias, const ConvQuantization& quant, auto* output) {
        depthwiseQuant(input, filter, bias, *g, quant, output);
      });
}

}  // namespace weft::nn::depthwise_conv_2d

NN_REGISTER_OPERATION(DEPTHWISE_CONV_2D, "DEPTHWISE_CONV_2D", depthwise_conv_2d::validate, depthwise_conv_2d::prepare,
                      depthwise_conv_2d::execute, .allowZeroSizedInput = true)
