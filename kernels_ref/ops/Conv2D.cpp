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

#include "weft/kernels/ConvParams.h"
#include "weft/kernels/Float16.h"
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

// Quantized convolution; `multiplier`/`shift` hold one entry per output channel (repeated for a
// per-tensor filter).
template <typename T, typename F>
void convQuant(const T* input, int32_t inputZeroPoint, const F* filter, int32_t filterZeroPoint, const int32_t* bias,
               const Geometry& g, const std::vector<int32_t>& multiplier, const std::vector<int>& shift,
               int32_t outputZeroPoint, QuantizedRange range, T* output) {
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
    NN_RET_CHECK_EQ(params.channelDim, 0u) << "per-channel filter must be quantized along its output channels";
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
    convQuant(in.data(), input.offset, context->getInputBuffer<uint8_t>(kFilter), filter.offset, biasData, g,
              multiplier, shift, output.offset, range, out.data());
  } else {
    convQuant(in.data(), input.offset, context->getInputBuffer<int8_t>(kFilter), filter.offset, biasData, g,
              multiplier, shift, output.offset, range, out.data());
  }
  out.commit();
  return {};
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 7, 13));
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
      NN_RET_CHECK(params != nullptr && params->channelDim == 0) << "per-channel filter needs channelDim 0";
    } else {
      const Shape in = context->getInputShape(kInput), f = context->getInputShape(kFilter),
                  b = context->getInputShape(kBias);
      NN_RET_CHECK(std::abs(static_cast<double>(in.scale) * f.scale - b.scale) <=
                   1e-6 * std::min(static_cast<double>(in.scale) * f.scale, static_cast<double>(b.scale)))
          << "bias scale must be input scale * filter scale";
    }
  }
  NN_TRY(validateOutputTypes(context, {inputType}));
  NN_TRY(validateInputRank(context, kInput, 4, 4));
  NN_TRY(validateInputRank(context, kFilter, 4, 4));
  NN_TRY(validateInputRank(context, kBias, 1, 1));
  return validateConvParams(context, 0, true);
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
      convFloat(in.data(), context->getInputBuffer<float>(kFilter), context->getInputBuffer<float>(kBias), *g,
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
      convFloat(in.data(), filter32.data(), bias32.data(), *g, p.activation, out.data());
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

}  // namespace weft::nn::conv_2d

NN_REGISTER_OPERATION(CONV_2D, "CONV_2D", conv_2d::validate, conv_2d::prepare, conv_2d::execute,
                      .allowZeroSizedInput = true)
