// DEPTHWISE_CONV_2D: each input channel ic is convolved with depthMultiplier filters of its own:
// output channel ic * depthMultiplier + j. Input [batches, height, width, inDepth] (or NCHW),
// filter [1, filterHeight, filterWidth, outDepth], bias [outDepth].
//
// Types: float32; float16 (computed in float32); quant8 asymm / asymm signed with a filter of the
// same type or TENSOR_QUANT8_SYMM_PER_CHANNEL (channelDim 3) and an int32 bias. Sums run in
// TFLite's reference order (ky, kx), quantized accumulators are exact int32.
#include <algorithm>
#include <vector>

#include "weft/kernels/ConvParams.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/Layout.h"
#include "weft/kernels/OperationUtils.h"
#include "weft/kernels/QuantUtils.h"

namespace weft::nn::depthwise_conv_2d {

constexpr uint32_t kInput = 0;
constexpr uint32_t kFilter = 1;
constexpr uint32_t kBias = 2;
constexpr uint32_t kOutput = 0;
constexpr uint32_t kExtraInputs = 1;  // the depth multiplier

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
void depthwiseQuant(const T* input, int32_t inputZeroPoint, const F* filter, int32_t filterZeroPoint,
                    const int32_t* bias, const Geometry& g, const std::vector<int32_t>& multiplier,
                    const std::vector<int>& shift, int32_t outputZeroPoint, QuantizedRange range, T* output) {
  forEachOutput(g, [&](size_t o, uint32_t oc, auto&& accumulate) {
    int32_t acc = 0;
    accumulate([&](size_t i, size_t k) {
      acc += (static_cast<int32_t>(input[i]) - inputZeroPoint) * (static_cast<int32_t>(filter[k]) - filterZeroPoint);
    });
    acc += bias[oc];
    const int32_t q = multiplyByQuantizedMultiplier(acc, multiplier[oc], shift[oc]) + outputZeroPoint;
    output[o] = static_cast<T>(std::clamp(q, range.min, range.max));
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
  auto h = computeOutSize(g.inHeight, g.filterHeight, g.window.strideHeight, g.window.dilationHeight,
                          g.window.padTop, g.window.padBottom);
  if (!h.ok()) return h.error();
  auto w = computeOutSize(g.inWidth, g.filterWidth, g.window.strideWidth, g.window.dilationWidth, g.window.padLeft,
                          g.window.padRight);
  if (!w.ok()) return w.error();
  g.outHeight = *h;
  g.outWidth = *w;
  return g;
}

template <typename T>
Status executeQuant(IOperationExecutionContext* context, const Geometry& g, const ConvParams& p) {
  const Shape input = context->getInputShape(kInput);
  const Shape filter = context->getInputShape(kFilter);
  const Shape bias = context->getInputShape(kBias);
  const Shape output = context->getOutputShape(kOutput);
  std::vector<int32_t> multiplier(g.outDepth);
  std::vector<int> shift(g.outDepth);
  if (filter.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    const auto& params = std::get<SymmPerChannelQuantParams>(filter.extraParams);
    NN_RET_CHECK_EQ(params.channelDim, 3u) << "per-channel depthwise filter must be quantized along dimension 3";
    NN_RET_CHECK_EQ(params.scales.size(), g.outDepth);
    auto m = perChannelMultipliers(input.scale, params.scales, output.scale);
    if (!m.ok()) return m.error();
    multiplier = m->multiplier;
    shift = m->shift;
  } else {
    double real = 0.0;
    NN_TRY(getQuantizedConvolutionMultiplier(input.scale, filter.scale, bias.scale, output.scale, &real));
    NN_TRY(quantizeMultiplier(real, &multiplier[0], &shift[0]));
    std::fill(multiplier.begin(), multiplier.end(), multiplier[0]);
    std::fill(shift.begin(), shift.end(), shift[0]);
  }
  const QuantizedRange range = quantizedActivationRange<T>(p.activation, output.scale, output.offset);
  NhwcInput<T> in(context->getInputBuffer<T>(kInput), input, p.useNchw);
  NhwcOutput<T> out(context->getOutputBuffer<T>(kOutput), output, p.useNchw);
  const int32_t* biasData = context->getInputBuffer<int32_t>(kBias);
  if (filter.type == OperandType::TENSOR_QUANT8_ASYMM) {
    depthwiseQuant(in.data(), input.offset, context->getInputBuffer<uint8_t>(kFilter), filter.offset, biasData, g,
                   multiplier, shift, output.offset, range, out.data());
  } else {
    depthwiseQuant(in.data(), input.offset, context->getInputBuffer<int8_t>(kFilter), filter.offset, biasData, g,
                   multiplier, shift, output.offset, range, out.data());
  }
  out.commit();
  return {};
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 8, 14));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType inputType = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", inputType,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  const OperandType filterType = context->getInputType(kFilter);
  const OperandType biasType = context->getInputType(kBias);
  if (inputType == OperandType::TENSOR_FLOAT32 || inputType == OperandType::TENSOR_FLOAT16) {
    NN_RET_CHECK(filterType == inputType && biasType == inputType) << "filter and bias must have the input's type";
  } else {
    NN_RET_CHECK(filterType == inputType || filterType == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL)
        << "quantized filter must match the input type or be per-channel, got " << toString(filterType);
    NN_RET_CHECK(biasType == OperandType::TENSOR_INT32) << "quantized bias must be TENSOR_INT32";
    if (filterType == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
      const auto* params = std::get_if<SymmPerChannelQuantParams>(&context->getInputExtraParams(kFilter));
      NN_RET_CHECK(params != nullptr && params->channelDim == 3) << "per-channel depthwise filter needs channelDim 3";
    }
  }
  NN_TRY(validateOutputTypes(context, {inputType}));
  NN_TRY(validateInputRank(context, kInput, 4, 4));
  NN_TRY(validateInputRank(context, kFilter, 4, 4));
  NN_TRY(validateInputRank(context, kBias, 1, 1));
  return validateConvParams(context, kExtraInputs, true);
}

Status prepare(IOperationExecutionContext* context) {
  ConvParams p;
  auto g = readGeometry(context, &p);
  if (!g.ok()) return g.error();
  Shape output = context->getOutputShape(kOutput);
  const Dimensions nhwc = {g->batches, g->outHeight, g->outWidth, g->outDepth};
  output.dimensions = p.useNchw ? nhwcToNchwDims(nhwc) : nhwc;
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  ConvParams p;
  auto g = readGeometry(context, &p);
  if (!g.ok()) return g.error();
  const Shape input = context->getInputShape(kInput);
  const Shape output = context->getOutputShape(kOutput);
  switch (input.type) {
    case OperandType::TENSOR_FLOAT32: {
      NhwcInput<float> in(context->getInputBuffer<float>(kInput), input, p.useNchw);
      NhwcOutput<float> out(context->getOutputBuffer<float>(kOutput), output, p.useNchw);
      depthwiseFloat(in.data(), context->getInputBuffer<float>(kFilter), context->getInputBuffer<float>(kBias), *g,
                     p.activation, out.data());
      out.commit();
      return {};
    }
    case OperandType::TENSOR_FLOAT16: {
      const auto input32 = toFloat32(context->getInputBuffer<Float16>(kInput), getNumberOfElements(input));
      const auto filter32 = toFloat32(context->getInputBuffer<Float16>(kFilter),
                                      getNumberOfElements(context->getInputShape(kFilter)));
      const auto bias32 = toFloat32(context->getInputBuffer<Float16>(kBias), g->outDepth);
      std::vector<float> output32(getNumberOfElements(output));
      NhwcInput<float> in(input32.data(), input, p.useNchw);
      NhwcOutput<float> out(output32.data(), output, p.useNchw);
      depthwiseFloat(in.data(), filter32.data(), bias32.data(), *g, p.activation, out.data());
      out.commit();
      fromFloat32(output32.data(), output32.size(), context->getOutputBuffer<Float16>(kOutput));
      return {};
    }
    case OperandType::TENSOR_QUANT8_ASYMM:
      return executeQuant<uint8_t>(context, *g, p);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return executeQuant<int8_t>(context, *g, p);
    default:
      return NN_ERROR(BAD_DATA) << "unsupported input type " << toString(input.type);
  }
}

}  // namespace weft::nn::depthwise_conv_2d

NN_REGISTER_OPERATION(DEPTHWISE_CONV_2D, "DEPTHWISE_CONV_2D", depthwise_conv_2d::validate, depthwise_conv_2d::prepare,
                      depthwise_conv_2d::execute, .allowZeroSizedInput = true)
