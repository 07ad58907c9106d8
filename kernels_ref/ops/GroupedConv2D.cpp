// GROUPED_CONV_2D: convolution whose input channels are split into num_groups groups, each
// convolved with its own slice of output channels:
//   input [batches, height, width, numGroups * groupDepth], filter [outDepth, fh, fw, groupDepth],
//   output channel oc (in group g = oc / (outDepth / numGroups)) sees input channels
//   [g * groupDepth, (g + 1) * groupDepth).
// Parameters as CONV_2D (explicit or implicit padding, strides, num_groups, fused activation) plus
// the mandatory NCHW layout flag; no dilation. Types: float32, float16 (computed in float32), quant8
// asymm and asymm signed with a filter of the same type or per-channel (dimension 0) and an int32
// bias.
#include <algorithm>
#include <vector>

#include "ConvOperands.h"
#include "weft/kernels/ConvParams.h"
#include "weft/kernels/Layout.h"
#include "weft/kernels/OperationUtils.h"
#include "weft/kernels/QuantUtils.h"

namespace weft::nn::grouped_conv_2d {

constexpr uint32_t kInput = 0;
constexpr uint32_t kFilter = 1;
constexpr uint32_t kBias = 2;
constexpr uint32_t kOutput = 0;
constexpr uint32_t kNumExtra = 1;  // num_groups
constexpr uint32_t kNumInputsImplicit = 9;
constexpr uint32_t kNumInputsExplicit = 12;

namespace {

struct Geometry {
  uint32_t batches, inHeight, inWidth, inDepth;
  uint32_t outHeight, outWidth, outDepth;
  uint32_t filterHeight, filterWidth, groupDepth, groups;
  Window2D window;
  uint32_t outPerGroup() const { return outDepth / groups; }
  size_t patchSize() const { return size_t{filterHeight} * filterWidth * groupDepth; }
};

Result<Geometry> readGeometry(const IOperationExecutionContext* context, ConvParams* params) {
  const bool nchw = convUsesNchw(context, kNumExtra);
  const Shape input = toNhwcShape(context->getInputShape(kInput), nchw);
  const Shape filter = context->getInputShape(kFilter);
  const Shape bias = context->getInputShape(kBias);
  NN_RET_CHECK_EQ(input.dimensions.size(), 4u) << "input must be 4-D";
  NN_RET_CHECK_EQ(filter.dimensions.size(), 4u) << "filter must be 4-D";
  auto p = readConvParams(context, kNumExtra, input.dimensions[1], input.dimensions[2], filter.dimensions[1],
                          filter.dimensions[2]);
  if (!p.ok()) return p.error();
  *params = *p;
  Geometry g{};
  g.batches = input.dimensions[0];
  g.inHeight = input.dimensions[1];
  g.inWidth = input.dimensions[2];
  g.inDepth = input.dimensions[3];
  g.outDepth = filter.dimensions[0];
  g.filterHeight = filter.dimensions[1];
  g.filterWidth = filter.dimensions[2];
  g.groupDepth = filter.dimensions[3];
  NN_RET_CHECK_GE(params->extra[0], 1) << "num_groups must be positive";
  g.groups = static_cast<uint32_t>(params->extra[0]);
  g.window = params->window;
  NN_RET_CHECK(g.outDepth > 0 && g.filterHeight > 0 && g.filterWidth > 0 && g.groupDepth > 0) << "empty filter";
  NN_RET_CHECK_EQ(g.outDepth % g.groups, 0u) << "output depth " << g.outDepth << " is not a multiple of "
                                             << g.groups << " groups";
  NN_RET_CHECK_EQ(uint64_t{g.groupDepth} * g.groups, uint64_t{g.inDepth})
      << "input depth " << g.inDepth << " must be num_groups * filter depth";
  NN_RET_CHECK(bias.dimensions.size() == 1 && bias.dimensions[0] == g.outDepth) << "bias must be [outDepth]";
  // No dilation: validateConvParams admits no dilation inputs, so the window's are 1.
  NN_TRY(computeWindowOutSize(g.window, g.inHeight, g.inWidth, g.filterHeight, g.filterWidth, &g.outHeight,
                              &g.outWidth));
  return g;
}

// Copies the receptive field of output (b, oy, ox) over the channels of group `group` into
// `patch` in filter order (ky, kx, c), converted by `convert`; `padValue` outside the input.
template <typename In, typename P, typename Convert>
void gatherGroupPatch(const In* input, const Geometry& g, uint32_t b, uint32_t oy, uint32_t ox, uint32_t group,
                      P padValue, Convert convert, P* patch) {
  const int32_t y0 = static_cast<int32_t>(oy) * g.window.strideHeight - g.window.padTop;
  const int32_t x0 = static_cast<int32_t>(ox) * g.window.strideWidth - g.window.padLeft;
  P* out = patch;
  for (uint32_t ky = 0; ky < g.filterHeight; ++ky) {
    const int32_t y = y0 + static_cast<int32_t>(ky);
    for (uint32_t kx = 0; kx < g.filterWidth; ++kx, out += g.groupDepth) {
      const int32_t x = x0 + static_cast<int32_t>(kx);
      if (y < 0 || y >= static_cast<int32_t>(g.inHeight) || x < 0 || x >= static_cast<int32_t>(g.inWidth)) {
        std::fill(out, out + g.groupDepth, padValue);
        continue;
      }
      const In* in = input + ((size_t{b} * g.inHeight + y) * g.inWidth + x) * g.inDepth + size_t{group} * g.groupDepth;
      for (uint32_t c = 0; c < g.groupDepth; ++c) out[c] = convert(in[c]);
    }
  }
}

// Runs `emit(outputIndex, outputChannel, patch)` for every output element with the patch of its
// pixel and group gathered once per (pixel, group).
template <typename In, typename P, typename Convert, typename Emit>
void forEachGroupPatch(const In* input, const Geometry& g, P padValue, Convert convert, Emit emit) {
  std::vector<P> patch(g.patchSize());
  for (uint32_t b = 0; b < g.batches; ++b)
    for (uint32_t oy = 0; oy < g.outHeight; ++oy)
      for (uint32_t ox = 0; ox < g.outWidth; ++ox) {
        const size_t pixel = ((size_t{b} * g.outHeight + oy) * g.outWidth + ox) * g.outDepth;
        for (uint32_t group = 0; group < g.groups; ++group) {
          gatherGroupPatch(input, g, b, oy, ox, group, padValue, convert, patch.data());
          for (uint32_t oc = group * g.outPerGroup(); oc < (group + 1) * g.outPerGroup(); ++oc) {
            emit(pixel + oc, oc, patch.data());
          }
        }
      }
}

void convFloat(const float* input, const float* filter, const float* bias, const Geometry& g,
               FusedActivationFunc activation, float* output) {
  const FloatRange range = floatActivationRange(activation);
  const size_t k = g.patchSize();
  forEachGroupPatch(input, g, 0.0f, [](float v) { return v; }, [&](size_t o, uint32_t oc, const float* patch) {
    const float* weights = filter + oc * k;
    float sum = 0.0f;
    for (size_t i = 0; i < k; ++i) sum += patch[i] * weights[i];
    output[o] = std::min(std::max(sum + bias[oc], range.min), range.max);
  });
}

template <typename T, typename F>
void convQuant(const T* input, const F* filter, const int32_t* bias, const Geometry& g,
               const ConvQuantization& quant, T* output) {
  const int32_t inputZeroPoint = quant.inputZeroPoint, filterZeroPoint = quant.filterZeroPoint;
  const int32_t outputZeroPoint = quant.outputZeroPoint;
  const ConvRequantization& rq = quant.requantization;
  const QuantizedRange range = quant.range;
  const size_t k = g.patchSize();
  std::vector<int16_t> weights(size_t{g.outDepth} * k);
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<int16_t>(filter[i] - filterZeroPoint);
  forEachGroupPatch(
      input, g, int16_t{0},
      [inputZeroPoint](T v) { return static_cast<int16_t>(static_cast<int32_t>(v) - inputZeroPoint); },
      [&](size_t o, uint32_t oc, const int16_t* patch) {
        const int16_t* w = weights.data() + oc * k;
        int32_t acc = bias[oc];
        for (size_t i = 0; i < k; ++i) acc += static_cast<int32_t>(patch[i]) * w[i];
        const int32_t q = multiplyByQuantizedMultiplier(acc, rq.multiplier[oc], rq.shift[oc]) + outputZeroPoint;
        output[o] = static_cast<T>(std::clamp(q, range.min, range.max));
      });
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  const uint32_t n = context->getNumInputs();
  NN_RET_CHECK(n == kNumInputsImplicit || n == kNumInputsExplicit)
      << "GROUPED_CONV_2D takes " << kNumInputsImplicit << " or " << kNumInputsExplicit << " inputs, got " << n;
  NN_TRY(validateOutputCount(context, 1));
  NN_TRY(validateConvOperands(context));
  NN_TRY(validateConvParams(context, kNumExtra, /*allowDilation=*/false));
  NN_RET_CHECK(context->getInputType(n - 1) == OperandType::BOOL) << "GROUPED_CONV_2D: the layout flag is required";
  return {};
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

}  // namespace weft::nn::grouped_conv_2d

NN_REGISTER_OPERATION(GROUPED_CONV_2D, "GROUPED_CONV_2D", grouped_conv_2d::validate, grouped_conv_2d::prepare,
                      grouped_conv_2d::execute, .allowZeroSizedInput = true)
