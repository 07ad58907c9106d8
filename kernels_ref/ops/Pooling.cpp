#include "Pooling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "weft/kernels/Float16.h"
#include "weft/kernels/Layout.h"
#include "weft/kernels/OperationUtils.h"
#include "weft/kernels/QuantUtils.h"

namespace weft::nn::pooling {

namespace {

constexpr uint32_t kInput = 0;
constexpr uint32_t kOutput = 0;

// Inputs after the tensor: explicit (4 paddings, strides, filter size, activation[, layout]) or
// implicit (scheme, strides, filter size, activation[, layout]).
bool isExplicit(uint32_t numInputs) { return numInputs >= 10; }

struct Params {
  Window2D window;
  int32_t filterWidth = 1, filterHeight = 1;
  FusedActivationFunc activation = FusedActivationFunc::NONE;
  bool useNchw = false;
};

struct Geometry {
  uint32_t batches, inHeight, inWidth, depth, outHeight, outWidth;
};

Result<Params> readParams(const IOperationExecutionContext* context, uint32_t inHeight, uint32_t inWidth) {
  auto value = [&](uint32_t i) { return context->getInputValue<int32_t>(i); };
  Params p;
  uint32_t next;
  if (isExplicit(context->getNumInputs())) {
    p.window.padLeft = value(1);
    p.window.padRight = value(2);
    p.window.padTop = value(3);
    p.window.padBottom = value(4);
    p.window.strideWidth = value(5);
    p.window.strideHeight = value(6);
    p.filterWidth = value(7);
    p.filterHeight = value(8);
    next = 9;
  } else {
    const int32_t scheme = value(1);
    NN_RET_CHECK(scheme == 1 || scheme == 2) << "padding scheme " << scheme;
    p.window.strideWidth = value(2);
    p.window.strideHeight = value(3);
    p.filterWidth = value(4);
    p.filterHeight = value(5);
    NN_RET_CHECK(p.window.strideWidth > 0 && p.window.strideHeight > 0) << "strides must be positive";
    calculateExplicitPadding(static_cast<int32_t>(inWidth), p.window.strideWidth, 1, p.filterWidth,
                             static_cast<PaddingScheme>(scheme), &p.window.padLeft, &p.window.padRight);
    calculateExplicitPadding(static_cast<int32_t>(inHeight), p.window.strideHeight, 1, p.filterHeight,
                             static_cast<PaddingScheme>(scheme), &p.window.padTop, &p.window.padBottom);
    next = 6;
  }
  NN_TRY(validateWindow(p.window));
  NN_RET_CHECK(p.filterWidth > 0 && p.filterHeight > 0) << "filter size must be positive";
  auto activation = getActivation(context, next);
  if (!activation.ok()) return activation.error();
  p.activation = *activation;
  p.useNchw = getOptionalBool(context, next + 1, false);
  return p;
}

Result<Geometry> readGeometry(const IOperationExecutionContext* context, Params* params) {
  const uint32_t layoutIndex = isExplicit(context->getNumInputs()) ? 10 : 7;
  const bool nchw = getOptionalBool(context, layoutIndex, false);
  const Shape input = toNhwcShape(context->getInputShape(kInput), nchw);
  NN_RET_CHECK_EQ(input.dimensions.size(), 4u) << "input must be 4-D";
  auto p = readParams(context, input.dimensions[1], input.dimensions[2]);
  if (!p.ok()) return p.error();
  *params = *p;
  Geometry g{input.dimensions[0], input.dimensions[1], input.dimensions[2], input.dimensions[3], 0, 0};
  NN_TRY(computeWindowOutSize(p->window, g.inHeight, g.inWidth, static_cast<uint32_t>(p->filterHeight),
                              static_cast<uint32_t>(p->filterWidth), &g.outHeight, &g.outWidth));
  return g;
}

// Calls f(outIndex, channel, reduce) per output element; reduce(g) feeds g(inputIndex) for every
// input element of the clipped window, row by row, and returns how many there were.
template <typename F>
void forEachWindow(const Geometry& g, const Params& p, F&& f) {
  for (uint32_t b = 0; b < g.batches; ++b)
    for (uint32_t oy = 0; oy < g.outHeight; ++oy)
      for (uint32_t ox = 0; ox < g.outWidth; ++ox) {
        const int32_t y0 = static_cast<int32_t>(oy) * p.window.strideHeight - p.window.padTop;
        const int32_t x0 = static_cast<int32_t>(ox) * p.window.strideWidth - p.window.padLeft;
        const int32_t yBegin = std::max(y0, 0), yEnd = std::min(y0 + p.filterHeight, static_cast<int32_t>(g.inHeight));
        const int32_t xBegin = std::max(x0, 0), xEnd = std::min(x0 + p.filterWidth, static_cast<int32_t>(g.inWidth));
        const size_t outBase = ((size_t{b} * g.outHeight + oy) * g.outWidth + ox) * g.depth;
        for (uint32_t c = 0; c < g.depth; ++c) {
          auto reduce = [&](auto&& visit) {
            int32_t count = 0;
            for (int32_t y = yBegin; y < yEnd; ++y)
              for (int32_t x = xBegin; x < xEnd; ++x, ++count) {
                visit(((size_t{b} * g.inHeight + y) * g.inWidth + x) * g.depth + c);
              }
            return count;
          };
          f(outBase + c, reduce);
        }
      }
}

void poolFloat(Kind kind, const float* input, const Geometry& g, const Params& p, float* output) {
  const FloatRange range = floatActivationRange(p.activation);
  forEachWindow(g, p, [&](size_t o, auto&& reduce) {
    float v = 0.0f;
    if (kind == Kind::MAX) {
      float m = std::numeric_limits<float>::lowest();
      reduce([&](size_t i) { m = std::max(m, input[i]); });
      v = m;
    } else if (kind == Kind::AVERAGE) {
      float sum = 0.0f;
      const int32_t count = reduce([&](size_t i) { sum += input[i]; });
      v = count > 0 ? sum / static_cast<float>(count) : 0.0f;
    } else {
      float sumSquares = 0.0f;
      const int32_t count = reduce([&](size_t i) { sumSquares += input[i] * input[i]; });
      v = count > 0 ? std::sqrt(sumSquares / static_cast<float>(count)) : 0.0f;
    }
    output[o] = std::min(std::max(v, range.min), range.max);
  });
}

// Quantized pooling on the raw values (input and output share scale and zero point). Averages
// round half away from zero like TFLite's integer kernels.
template <typename T>
void poolQuant(Kind kind, const T* input, const Geometry& g, const Params& p, const Shape& output, T* out) {
  const QuantizedRange range = quantizedActivationRange<T>(p.activation, output.scale, output.offset);
  forEachWindow(g, p, [&](size_t o, auto&& reduce) {
    int32_t v = 0;
    if (kind == Kind::MAX) {
      int32_t m = std::numeric_limits<T>::min();
      reduce([&](size_t i) { m = std::max(m, static_cast<int32_t>(input[i])); });
      v = m;
    } else {
      int32_t sum = 0;
      const int32_t count = reduce([&](size_t i) { sum += input[i]; });
      if (count > 0) v = sum >= 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
    }
    out[o] = static_cast<T>(std::clamp(v, range.min, range.max));
  });
}

}  // namespace

Status validate(const IOperationValidationContext* context, Kind kind) {
  const uint32_t n = context->getNumInputs();
  NN_RET_CHECK(n == 7 || n == 8 || n == 10 || n == 11) << context->getOperationName() << ": " << n
                                                       << " inputs fit neither signature";
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  if (kind == Kind::L2) {
    NN_TRY(validateTypeIsOneOf(context, "input", type, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
  } else {
    NN_TRY(validateTypeIsOneOf(context, "input", type,
                               {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                                OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  }
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kInput, 4, 4));
  const uint32_t scalars = isExplicit(n) ? 9 : 6;  // INT32 parameters after the input
  for (uint32_t i = 1; i <= scalars; ++i) {
    NN_RET_CHECK(context->getInputType(i) == OperandType::INT32)
        << context->getOperationName() << ": input " << i << " must be INT32";
    int32_t v = 0;
    if (i < scalars && getConstantScalar(context, i, &v)) {
      const bool isPadding = isExplicit(n) && i <= 4;
      NN_RET_CHECK(isPadding ? v >= 0 : v > 0) << context->getOperationName() << ": input " << i << " = " << v;
      if (!isExplicit(n) && i == 1) {
        NN_RET_CHECK(v == 1 || v == 2) << "padding scheme " << v;
      }
    }
  }
  NN_TRY(validateActivationInput(context, scalars));
  if (n == scalars + 2) {
    NN_RET_CHECK(context->getInputType(scalars + 1) == OperandType::BOOL) << "layout must be BOOL";
  }
  if (type == OperandType::TENSOR_QUANT8_ASYMM || type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) {
    const Shape in = context->getInputShape(kInput), out = context->getOutputShape(kOutput);
    NN_RET_CHECK(in.scale == out.scale && in.offset == out.offset)
        << "quantized pooling needs the same scale and zero point in and out";
  }
  return {};
}

Status prepare(IOperationExecutionContext* context) {
  Params p;
  auto g = readGeometry(context, &p);
  if (!g.ok()) return g.error();
  return setNhwcOutputShape(context, kOutput, {g->batches, g->outHeight, g->outWidth, g->depth}, p.useNchw);
}

Status execute(IOperationExecutionContext* context, Kind kind) {
  Params p;
  auto g = readGeometry(context, &p);
  if (!g.ok()) return g.error();
  const Shape input = context->getInputShape(kInput);
  const Shape output = context->getOutputShape(kOutput);
  switch (input.type) {
    case OperandType::TENSOR_FLOAT32: {
      NhwcInput<float> in(context->getInputBuffer<float>(kInput), input, p.useNchw);
      NhwcOutput<float> out(context->getOutputBuffer<float>(kOutput), output, p.useNchw);
      poolFloat(kind, in.data(), *g, p, out.data());
      out.commit();
      return {};
    }
    case OperandType::TENSOR_FLOAT16: {
      const auto input32 = toFloat32(context->getInputBuffer<Float16>(kInput), getNumberOfElements(input));
      std::vector<float> output32(getNumberOfElements(output));
      NhwcInput<float> in(input32.data(), input, p.useNchw);
      NhwcOutput<float> out(output32.data(), output, p.useNchw);
      poolFloat(kind, in.data(), *g, p, out.data());
      out.commit();
      fromFloat32(output32.data(), output32.size(), context->getOutputBuffer<Float16>(kOutput));
      return {};
    }
    case OperandType::TENSOR_QUANT8_ASYMM: {
      NhwcInput<uint8_t> in(context->getInputBuffer<uint8_t>(kInput), input, p.useNchw);
      NhwcOutput<uint8_t> out(context->getOutputBuffer<uint8_t>(kOutput), output, p.useNchw);
      poolQuant(kind, in.data(), *g, p, output, out.data());
      out.commit();
      return {};
    }
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: {
      NhwcInput<int8_t> in(context->getInputBuffer<int8_t>(kInput), input, p.useNchw);
      NhwcOutput<int8_t> out(context->getOutputBuffer<int8_t>(kOutput), output, p.useNchw);
      poolQuant(kind, in.data(), *g, p, output, out.data());
      out.commit();
      return {};
    }
    default:
      return NN_ERROR(BAD_DATA) << "unsupported input type";
  }
}

}  // namespace weft::nn::pooling
