#include "BinaryArithmetic.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "weft/kernels/Broadcast.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"
#include "weft/kernels/QuantUtils.h"
#include "weft/kernels/TypeDispatch.h"

namespace weft::nn::binary {

namespace {

constexpr uint32_t kInput1 = 0;
constexpr uint32_t kInput2 = 1;
constexpr uint32_t kActivation = 2;
constexpr uint32_t kOutput = 0;

float applyFloat(Kind kind, float a, float b) {
  switch (kind) {
    case Kind::ADD: return a + b;
    case Kind::SUB: return a - b;
    case Kind::MUL: return a * b;
    case Kind::DIV: return a / b;
  }
  return 0.0f;
}

// int32 arithmetic wraps like the hardware; DIV floors and gives 0 for a zero divisor (NNAPI).
int32_t applyInt32(Kind kind, int32_t a, int32_t b) {
  const auto ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
  switch (kind) {
    case Kind::ADD: return static_cast<int32_t>(ua + ub);
    case Kind::SUB: return static_cast<int32_t>(ua - ub);
    case Kind::MUL: return static_cast<int32_t>(static_cast<uint32_t>(static_cast<int64_t>(a) * b));
    case Kind::DIV: {
      if (b == 0) return 0;
      if (a == INT32_MIN && b == -1) return INT32_MIN;
      const int32_t q = a / b;
      return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
    }
  }
  return 0;
}

void floatKernel(Kind kind, const float* a, const Shape& sa, const float* b, const Shape& sb, float* out,
                 const Shape& so, FusedActivationFunc activation) {
  const FloatRange range = floatActivationRange(activation);
  forEachBroadcast(sa.dimensions, sb.dimensions, so.dimensions, [&](size_t ia, size_t ib, size_t io) {
    out[io] = std::min(std::max(applyFloat(kind, a[ia], b[ib]), range.min), range.max);
  });
}

// TFLite's quantized ADD/SUB: both inputs rescaled to a common scale with 20 bits of headroom,
// summed, then rescaled to the output. SUB negates the second input's multiplier.
template <typename T>
Status addSubQuant8(Kind kind, const T* a, const Shape& sa, const T* b, const Shape& sb, T* out, const Shape& so,
                    FusedActivationFunc activation) {
  constexpr int kLeftShift = 20;
  const double twiceMaxInputScale = 2.0 * std::max(sa.scale, sb.scale);
  const double realInput1Multiplier = sa.scale / twiceMaxInputScale;
  const double realInput2Multiplier = sb.scale / twiceMaxInputScale;
  const double realOutputMultiplier = twiceMaxInputScale / ((1 << kLeftShift) * static_cast<double>(so.scale));
  int32_t input1Multiplier, input2Multiplier, outputMultiplier;
  int input1Shift, input2Shift, outputShift;
  NN_TRY(quantizeMultiplierSmallerThanOneExp(realInput1Multiplier, &input1Multiplier, &input1Shift));
  NN_TRY(quantizeMultiplierSmallerThanOneExp(realInput2Multiplier, &input2Multiplier, &input2Shift));
  NN_TRY(quantizeMultiplierSmallerThanOneExp(realOutputMultiplier, &outputMultiplier, &outputShift));
  if (kind == Kind::SUB) input2Multiplier = -input2Multiplier;
  const QuantizedRange range = quantizedActivationRange<T>(activation, so.scale, so.offset);
  forEachBroadcast(sa.dimensions, sb.dimensions, so.dimensions, [&](size_t ia, size_t ib, size_t io) {
    const int32_t in1 = (static_cast<int32_t>(a[ia]) - sa.offset) * (1 << kLeftShift);
    const int32_t in2 = (static_cast<int32_t>(b[ib]) - sb.offset) * (1 << kLeftShift);
    const int32_t scaled1 = multiplyByQuantizedMultiplierSmallerThanOneExp(in1, input1Multiplier, input1Shift);
    const int32_t scaled2 = multiplyByQuantizedMultiplierSmallerThanOneExp(in2, input2Multiplier, input2Shift);
    const int32_t raw =
        multiplyByQuantizedMultiplierSmallerThanOneExp(scaled1 + scaled2, outputMultiplier, outputShift) + so.offset;
    out[io] = static_cast<T>(std::clamp(raw, range.min, range.max));
  });
  return {};
}

// TFLite's quantized MUL: product of the zero-point-adjusted inputs rescaled to the output.
template <typename T>
Status mulQuant8(const T* a, const Shape& sa, const T* b, const Shape& sb, T* out, const Shape& so,
                 FusedActivationFunc activation) {
  const double realMultiplier = static_cast<double>(sa.scale) * sb.scale / so.scale;
  int32_t multiplier;
  int shift;
  NN_TRY(quantizeMultiplier(realMultiplier, &multiplier, &shift));
  const QuantizedRange range = quantizedActivationRange<T>(activation, so.scale, so.offset);
  forEachBroadcast(sa.dimensions, sb.dimensions, so.dimensions, [&](size_t ia, size_t ib, size_t io) {
    const int32_t product = (static_cast<int32_t>(a[ia]) - sa.offset) * (static_cast<int32_t>(b[ib]) - sb.offset);
    const int32_t raw = multiplyByQuantizedMultiplier(product, multiplier, shift) + so.offset;
    out[io] = static_cast<T>(std::clamp(raw, range.min, range.max));
  });
  return {};
}

}  // namespace

Status validate(const IOperationValidationContext* context, Kind kind) {
  NN_TRY(validateInputCount(context, 3, 3));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput1);
  if (kind == Kind::DIV) {
    NN_TRY(validateTypeIsOneOf(context, "input", type,
                               {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32}));
  } else {
    NN_TRY(validateTypeIsOneOf(context, "input", type,
                               {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32,
                                OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  }
  NN_TRY(validateInputTypes(context, {type, type, OperandType::INT32}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateActivationInput(context, kActivation));
  NN_TRY(validateInputRank(context, kInput1, 0, 4));
  NN_TRY(validateInputRank(context, kInput2, 0, 4));
  int32_t activation = 0;
  if (type == OperandType::TENSOR_INT32 && getConstantScalar(context, kActivation, &activation)) {
    NN_RET_CHECK_EQ(activation, 0) << "int32 arithmetic takes no fused activation";
  }
  const Shape a = context->getInputShape(kInput1), b = context->getInputShape(kInput2);
  if (!hasUnknownRank(a) && !hasUnknownRank(b) && isFullySpecified(a.type, a.dimensions) &&
      isFullySpecified(b.type, b.dimensions)) {
    auto dims = broadcastDimensions(a.dimensions, b.dimensions);
    if (!dims.ok()) return dims.error();
  }
  return {};
}

Status prepare(IOperationExecutionContext* context) {
  const Shape a = context->getInputShape(kInput1), b = context->getInputShape(kInput2);
  NN_RET_CHECK_LE(a.dimensions.size(), 4u);
  NN_RET_CHECK_LE(b.dimensions.size(), 4u);
  auto dims = broadcastDimensions(a.dimensions, b.dimensions);
  if (!dims.ok()) return dims.error();
  Shape out = context->getOutputShape(kOutput);
  out.dimensions = std::move(dims).value();
  return context->setOutputShape(kOutput, out);
}

Status execute(IOperationExecutionContext* context, Kind kind) {
  auto activation = getActivation(context, kActivation);
  if (!activation.ok()) return activation.error();
  const Shape sa = context->getInputShape(kInput1), sb = context->getInputShape(kInput2);
  const Shape so = context->getOutputShape(kOutput);
  switch (sa.type) {
    case OperandType::TENSOR_FLOAT32:
      floatKernel(kind, context->getInputBuffer<float>(kInput1), sa, context->getInputBuffer<float>(kInput2), sb,
                  context->getOutputBuffer<float>(kOutput), so, *activation);
      return {};
    case OperandType::TENSOR_FLOAT16: {
      const auto a = toFloat32(context->getInputBuffer<Float16>(kInput1), getNumberOfElements(sa));
      const auto b = toFloat32(context->getInputBuffer<Float16>(kInput2), getNumberOfElements(sb));
      std::vector<float> out(getNumberOfElements(so));
      floatKernel(kind, a.data(), sa, b.data(), sb, out.data(), so, *activation);
      fromFloat32(out.data(), out.size(), context->getOutputBuffer<Float16>(kOutput));
      return {};
    }
    case OperandType::TENSOR_INT32: {
      NN_RET_CHECK(*activation == FusedActivationFunc::NONE) << "int32 arithmetic takes no fused activation";
      const int32_t* a = context->getInputBuffer<int32_t>(kInput1);
      const int32_t* b = context->getInputBuffer<int32_t>(kInput2);
      int32_t* out = context->getOutputBuffer<int32_t>(kOutput);
      forEachBroadcast(sa.dimensions, sb.dimensions, so.dimensions,
                       [&](size_t ia, size_t ib, size_t io) { out[io] = applyInt32(kind, a[ia], b[ib]); });
      return {};
    }
    case OperandType::TENSOR_QUANT8_ASYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: {
      auto run = [&](auto tag) -> Status {
        using T = typename decltype(tag)::type;
        const T* a = context->getInputBuffer<T>(kInput1);
        const T* b = context->getInputBuffer<T>(kInput2);
        T* out = context->getOutputBuffer<T>(kOutput);
        if (kind == Kind::MUL) return mulQuant8(a, sa, b, sb, out, so, *activation);
        NN_RET_CHECK(kind != Kind::DIV) << "DIV has no quantized form";
        return addSubQuant8(kind, a, sa, b, sb, out, so, *activation);
      };
      return sa.type == OperandType::TENSOR_QUANT8_ASYMM ? run(TypeTag<uint8_t>{}) : run(TypeTag<int8_t>{});
    }
    default:
      return NN_ERROR(BAD_DATA) << "unsupported input type " << toString(sa.type);
  }
}

}  // namespace weft::nn::binary
