// TRANSPOSE_CONV_2D: the gradient of CONV_2D with respect to its input ("deconvolution"): each
// input pixel scatters input[b, y, x, :] . filter[oc, ky, kx, :] to output pixel
// (y * strideH + ky - padTop, x * strideW + kx - padLeft), then bias and the fused activation apply.
//   filter [outDepth, fh, fw, inDepth], bias [outDepth],
//   output size = in * stride + filter - stride - padHead - padTail.
// Inputs, explicit: input, filter, bias, pad left/right/top/bottom, stride w/h, activation, layout.
// Implicit: input, filter, bias, output shape (1-D TENSOR_INT32 of 4), padding scheme, stride w/h,
// activation, layout; SAME pads so that the output has exactly the requested size, which may make
// the right / bottom padding negative. Types: float32, float16 (computed in float32), quant8 asymm
// and asymm signed with a filter of the same type or per-channel (dimension 0) and an int32 bias.
// Zero batches are allowed.
#include <algorithm>
#include <vector>

#include "ConvOperands.h"
#include "TensorOpUtils.h"
#include "weft/kernels/Layout.h"
#include "weft/kernels/OperationUtils.h"
#include "weft/kernels/QuantUtils.h"

namespace weft::nn::transpose_conv_2d {

constexpr uint32_t kInput = 0;
constexpr uint32_t kFilter = 1;
constexpr uint32_t kBias = 2;
constexpr uint32_t kOutputShape = 3;  // implicit padding only
constexpr uint32_t kOutput = 0;
constexpr uint32_t kNumInputsImplicit = 9;
constexpr uint32_t kNumInputsExplicit = 11;

namespace {

struct Params {
  int32_t padLeft = 0, padRight = 0, padTop = 0, padBottom = 0;
  int32_t strideWidth = 1, strideHeight = 1;
  FusedActivationFunc activation = FusedActivationFunc::NONE;
  bool useNchw = false;
};

struct Geometry {
  uint32_t batches, inHeight, inWidth, inDepth;
  uint32_t outHeight, outWidth, outDepth;
  uint32_t filterHeight, filterWidth;
};

// NNAPI's SAME padding for a transpose convolution producing `outSize`: the head as for a
// convolution over the output, the tail whatever makes the last stride end exactly at the output's
// end (possibly negative).
void implicitPadding(int32_t outSize, int32_t stride, int32_t filterSize, PaddingScheme scheme, int32_t* head,
                     int32_t* tail) {
  *head = 0;
  *tail = 0;
  if (scheme != PaddingScheme::SAME) return;
  const int32_t windows = (outSize + stride - 1) / stride;
  const int32_t needed = (windows - 1) * stride + filterSize - outSize;
  if (needed > 0) *head = needed / 2;
  *tail = needed - *head;
}

Result<Params> readParams(const IOperationExecutionContext* context) {
  auto value = [&](uint32_t i) { return context->getInputValue<int32_t>(i); };
  Params p;
  uint32_t activationIndex = 0;
  if (context->getNumInputs() == kNumInputsExplicit) {
    p.padLeft = value(3);
    p.padRight = value(4);
    p.padTop = value(5);
    p.padBottom = value(6);
    p.strideWidth = value(7);
    p.strideHeight = value(8);
    activationIndex = 9;
  } else {
    NN_RET_CHECK_EQ(context->getNumInputs(), kNumInputsImplicit);
    const int32_t scheme = value(4);
    NN_RET_CHECK(scheme == 1 || scheme == 2) << "padding scheme " << scheme;
    p.strideWidth = value(5);
    p.strideHeight = value(6);
    activationIndex = 7;
  }
  NN_RET_CHECK(p.strideWidth > 0 && p.strideHeight > 0) << "strides must be positive";
  auto activation = getActivation(context, activationIndex);
  if (!activation.ok()) return activation.error();
  p.activation = *activation;
  p.useNchw = getOptionalBool(context, activationIndex + 1, false);
  if (context->getNumInputs() == kNumInputsImplicit) {
    auto outputShape = readInt32Vector(context, kOutputShape, 4);
    if (!outputShape.ok()) return outputShape.error();
    const Shape filter = context->getInputShape(kFilter);
    NN_RET_CHECK_EQ(filter.dimensions.size(), 4u) << "filter must be 4-D";
    const int32_t outHeight = (*outputShape)[p.useNchw ? 2 : 1];
    const int32_t outWidth = (*outputShape)[p.useNchw ? 3 : 2];
    NN_RET_CHECK(outHeight > 0 && outWidth > 0) << "output shape must have a positive height and width";
    const auto scheme = static_cast<PaddingScheme>(value(4));
    implicitPadding(outWidth, p.strideWidth, static_cast<int32_t>(filter.dimensions[2]), scheme, &p.padLeft,
                    &p.padRight);
    implicitPadding(outHeight, p.strideHeight, static_cast<int32_t>(filter.dimensions[1]), scheme, &p.padTop,
                    &p.padBottom);
  }
  // Only the tail paddings may be negative (they trim the output, see implicitPadding).
  NN_RET_CHECK(p.padLeft >= 0 && p.padTop >= 0) << "left and top paddings must be non-negative";
  return p;
}

Result<Geometry> readGeometry(const IOperationExecutionContext* context, const Params& p) {
  const Shape input = toNhwcShape(context->getInputShape(kInput), p.useNchw);
  const Shape filter = context->getInputShape(kFilter);
  const Shape bias = context->getInputShape(kBias);
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
  NN_RET_CHECK(bias.dimensions.size() == 1 && bias.dimensions[0] == g.outDepth) << "bias must be [outDepth]";
  // Only the batch dimension may be empty.
  NN_RET_CHECK(g.inHeight > 0 && g.inWidth > 0 && g.inDepth > 0) << "empty input image";
  NN_RET_CHECK(g.outDepth > 0 && g.filterHeight > 0 && g.filterWidth > 0) << "empty filter";
  auto outSize = [](uint32_t in, uint32_t filterSize, int32_t stride, int32_t head, int32_t tail) {
    return int64_t{in} * stride + filterSize - stride - head - tail;
  };
  const int64_t h = outSize(g.inHeight, g.filterHeight, p.strideHeight, p.padTop, p.padBottom);
  const int64_t w = outSize(g.inWidth, g.filterWidth, p.strideWidth, p.padLeft, p.padRight);
  NN_RET_CHECK(h > 0 && w > 0 && h <= UINT32_MAX && w <= UINT32_MAX) << "output size " << w << "x" << h;
  g.outHeight = static_cast<uint32_t>(h);
  g.outWidth = static_cast<uint32_t>(w);
  return g;
}

// Scatters every input pixel through the filter into `acc` (NHWC, pre-zeroed), in NNAPI's
// reference order so float sums round the same way: input pixel, output channel, ky, kx, then the
// dot product over input channels.
template <typename In, typename F, typename Acc, typename Product>
void scatter(const In* input, const F* filter, const Geometry& g, const Params& p, Product product, Acc* acc) {
  for (uint32_t b = 0; b < g.batches; ++b) {
    Acc* outBatch = acc + size_t{b} * g.outHeight * g.outWidth * g.outDepth;
    for (uint32_t y = 0; y < g.inHeight; ++y) {
      for (uint32_t x = 0; x < g.inWidth; ++x) {
        const In* in = input + ((size_t{b} * g.inHeight + y) * g.inWidth + x) * g.inDepth;
        const int32_t oy0 = static_cast<int32_t>(y) * p.strideHeight - p.padTop;
        const int32_t ox0 = static_cast<int32_t>(x) * p.strideWidth - p.padLeft;
        const F* w = filter;
        for (uint32_t oc = 0; oc < g.outDepth; ++oc) {
          for (uint32_t ky = 0; ky < g.filterHeight; ++ky) {
            for (uint32_t kx = 0; kx < g.filterWidth; ++kx, w += g.inDepth) {
              const int32_t oy = oy0 + static_cast<int32_t>(ky), ox = ox0 + static_cast<int32_t>(kx);
              if (oy < 0 || oy >= static_cast<int32_t>(g.outHeight) || ox < 0 ||
                  ox >= static_cast<int32_t>(g.outWidth)) {
                continue;
              }
              Acc& out = outBatch[(static_cast<size_t>(oy) * g.outWidth + static_cast<size_t>(ox)) * g.outDepth + oc];
              for (uint32_t c = 0; c < g.inDepth; ++c) out += product(in[c], w[c]);
            }
          }
        }
      }
    }
  }
}

void transposeConvFloat(const float* input, const float* filter, const float* bias, const Geometry& g,
                        const Params& p, float* output) {
  const size_t pixels = size_t{g.batches} * g.outHeight * g.outWidth;
  std::fill(output, output + pixels * g.outDepth, 0.0f);
  scatter(input, filter, g, p, [](float a, float b) { return a * b; }, output);
  const FloatRange range = floatActivationRange(p.activation);
  for (size_t i = 0; i < pixels; ++i) {
    for (uint32_t oc = 0; oc < g.outDepth; ++oc) {
      float& v = output[i * g.outDepth + oc];
      v = std::min(std::max(v + bias[oc], range.min), range.max);
    }
  }
}

template <typename T, typename F>
void transposeConvQuant(const T* input, const F* filter, const int32_t* bias, const Geometry& g, const Params& p,
                        const ConvQuantization& quant, T* output) {
  const int32_t inputZeroPoint = quant.inputZeroPoint, filterZeroPoint = quant.filterZeroPoint;
  const int32_t outputZeroPoint = quant.outputZeroPoint;
  const ConvRequantization& rq = quant.requantization;
  const QuantizedRange range = quant.range;
  const size_t pixels = size_t{g.batches} * g.outHeight * g.outWidth;
  std::vector<int32_t> acc(pixels * g.outDepth, 0);
  scatter(input, filter, g, p,
          [=](T a, F b) { return (int32_t{a} - inputZeroPoint) * (int32_t{b} - filterZeroPoint); }, acc.data());
  for (size_t i = 0; i < pixels; ++i) {
    for (uint32_t oc = 0; oc < g.outDepth; ++oc) {
      const int32_t sum = acc[i * g.outDepth + oc] + bias[oc];
      const int32_t q = multiplyByQuantizedMultiplier(sum, rq.multiplier[oc], rq.shift[oc]) + outputZeroPoint;
      output[i * g.outDepth + oc] = static_cast<T>(std::clamp(q, range.min, range.max));
    }
  }
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  const uint32_t n = context->getNumInputs();
  NN_RET_CHECK(n == kNumInputsImplicit || n == kNumInputsExplicit)
      << "TRANSPOSE_CONV_2D takes " << kNumInputsImplicit << " or " << kNumInputsExplicit << " inputs, got " << n;
  NN_TRY(validateOutputCount(context, 1));
  NN_TRY(validateConvOperands(context));
  const OperandType input = context->getInputType(kInput), filter = context->getInputType(kFilter),
                    bias = context->getInputType(kBias);
  constexpr OperandType I = OperandType::INT32, B = OperandType::BOOL;
  if (n == kNumInputsExplicit) {
    NN_TRY(validateInputTypes(context, {input, filter, bias, I, I, I, I, I, I, I, B}));
    for (uint32_t i : {3u, 5u}) {
      int32_t pad = 0;
      if (constantInt32(context, i, &pad)) {
        NN_RET_CHECK_GE(pad, 0) << "TRANSPOSE_CONV_2D: left / top padding";
      }
    }
  } else {
    NN_TRY(validateInputTypes(context, {input, filter, bias, OperandType::TENSOR_INT32, I, I, I, I, B}));
    NN_TRY(validateInputRank(context, kOutputShape, 1, 1));
    int32_t scheme = 0;
    if (constantInt32(context, 4, &scheme)) {
      NN_RET_CHECK(scheme == 1 || scheme == 2) << "TRANSPOSE_CONV_2D: padding scheme " << scheme;
    }
  }
  const uint32_t strides = n == kNumInputsExplicit ? 7 : 5;
  for (uint32_t i : {strides, strides + 1}) {
    int32_t stride = 0;
    if (constantInt32(context, i, &stride)) {
      NN_RET_CHECK_GT(stride, 0) << "TRANSPOSE_CONV_2D: stride";
    }
  }
  return validateActivationInput(context, n - 2);
}

Status prepare(IOperationExecutionContext* context) {
  auto p = readParams(context);
  if (!p.ok()) return p.error();
  auto g = readGeometry(context, *p);
  if (!g.ok()) return g.error();
  return setNhwcOutputShape(context, kOutput, {g->batches, g->outHeight, g->outWidth, g->outDepth}, p->useNchw);
}

Status execute(IOperationExecutionContext* context) {
  auto p = readParams(context);
  if (!p.ok()) return p.error();
  auto g = readGeometry(context, *p);
  if (!g.ok()) return g.error();
  return executeConvolution(
      context, p->useNchw, g->outDepth, p->activation, /*perChannelDim=*/0,
      [&](const float* input, const float* filter, const float* bias, float* output) {
        transposeConvFloat(input, filter, bias, *g, *p, output);
      },
      [&](const auto* input, const auto* filter, const int32_t* bias, const ConvQuantization& quant, auto* output) {
        transposeConvQuant(input, filter, bias, *g, *p, quant, output);
      });
}

}  // namespace weft::nn::transpose_conv_2d

NN_REGISTER_OPERATION(TRANSPOSE_CONV_2D, "TRANSPOSE_CONV_2D", transpose_conv_2d::validate, transpose_conv_2d::prepare,
                      transpose_conv_2d::execute, .allowZeroSizedInput = true)
