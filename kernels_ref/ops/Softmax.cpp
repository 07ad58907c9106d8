// SOFTMAX along `axis` (default the last): out = exp((x - max) * beta) / sum(exp((x - max) * beta)).
// Types: float32, float16 (computed in float32), quant8 asymm (output scale 1/256, zero point 0)
// and asymm signed (1/256, -128), the quantized forms with TFLite's fixed-point exp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "TensorOpUtils.h"
#include "weft/kernels/FixedPoint.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"
#include "weft/kernels/QuantUtils.h"

namespace weft::nn::softmax {

constexpr uint32_t kInput = 0;
constexpr uint32_t kBeta = 1;
constexpr uint32_t kAxis = 2;
constexpr uint32_t kOutput = 0;

namespace {

// The tensor seen as [outer, axisSize, inner] around the softmax axis.
Result<AxisSplit> axisView(const IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const uint32_t rank = getNumberOfDimensions(input);
  NN_RET_CHECK(rank >= 1 && rank <= 4) << "input rank " << rank << " not in 1..4";
  int32_t axis = -1;
  if (context->getNumInputs() > kAxis) axis = context->getInputValue<int32_t>(kAxis);
  auto a = resolveAxis(axis, rank);
  if (!a.ok()) return a.error();
  return splitAtAxis(input.dimensions, *a);
}

void softmaxFloat(const float* input, float beta, const AxisSplit& v, float* output) {
  for (size_t o = 0; o < v.outer; ++o)
    for (size_t i = 0; i < v.inner; ++i) {
      const float* in = input + o * v.axisSize * v.inner + i;
      float* out = output + o * v.axisSize * v.inner + i;
      float maxValue = in[0];
      for (size_t k = 1; k < v.axisSize; ++k) maxValue = std::max(maxValue, in[k * v.inner]);
      float sum = 0.0f;
      for (size_t k = 0; k < v.axisSize; ++k) sum += std::exp((in[k * v.inner] - maxValue) * beta);
      for (size_t k = 0; k < v.axisSize; ++k) out[k * v.inner] = std::exp((in[k * v.inner] - maxValue) * beta) / sum;
    }
}

// TFLite's quantized softmax: input differences to the row maximum are rescaled to Q5.26, exp'd in
// fixed point, summed in Q12.19, and divided through a fixed-point reciprocal.
template <typename T>
Status softmaxQuant(const T* input, const Shape& inputShape, float beta, const AxisSplit& v, T* output) {
  constexpr int kScaledDiffIntegerBits = 5;
  constexpr int kAccumulationIntegerBits = 12;
  using FixedPointScaledDiff = fixed::FixedPoint<kScaledDiffIntegerBits>;
  using FixedPointAccum = fixed::FixedPoint<kAccumulationIntegerBits>;
  using FixedPoint0 = fixed::FixedPoint<0>;

  const double inputBetaRealMultiplier =
      std::min(1.0 * beta * inputShape.scale * (1 << (31 - kScaledDiffIntegerBits)), (int64_t{1} << 31) - 1.0);
  int32_t inputMultiplier;
  int inputLeftShift;
  NN_TRY(quantizeMultiplierGreaterThanOne(inputBetaRealMultiplier, &inputMultiplier, &inputLeftShift));
  const int32_t diffMin = -calculateInputRadius(kScaledDiffIntegerBits, inputLeftShift);

  for (size_t o = 0; o < v.outer; ++o)
    for (size_t i = 0; i < v.inner; ++i) {
      const T* in = input + o * v.axisSize * v.inner + i;
      T* out = output + o * v.axisSize * v.inner + i;
      int32_t maxValue = std::numeric_limits<T>::min();
      for (size_t k = 0; k < v.axisSize; ++k) maxValue = std::max(maxValue, static_cast<int32_t>(in[k * v.inner]));
      auto expOfDiff = [&](int32_t diff) {
        const int32_t rescaled = multiplyByQuantizedMultiplierGreaterThanOne(diff, inputMultiplier, inputLeftShift);
        return fixed::expOnNegativeValues(FixedPointScaledDiff::fromRaw(rescaled));
      };
      FixedPointAccum sumOfExps = FixedPointAccum::zero();
      for (size_t k = 0; k < v.axisSize; ++k) {
        const int32_t diff = static_cast<int32_t>(in[k * v.inner]) - maxValue;
        if (diff >= diffMin) sumOfExps = sumOfExps + fixed::rescale<kAccumulationIntegerBits>(expOfDiff(diff));
      }
      const auto fixedSum = static_cast<uint32_t>(sumOfExps.raw);
      const int headroomPlusOne = fixedSum == 0 ? 32 : __builtin_clz(fixedSum);
      const int numBitsOverUnit = kAccumulationIntegerBits - headroomPlusOne;
      const auto shiftedSumMinusOne =
          static_cast<int32_t>((fixedSum << (headroomPlusOne & 31)) - (static_cast<uint32_t>(1) << 31));
      const FixedPoint0 shiftedScale = fixed::oneOverOnePlusXForXIn01(FixedPoint0::fromRaw(shiftedSumMinusOne));
      for (size_t k = 0; k < v.axisSize; ++k) {
        const int32_t diff = static_cast<int32_t>(in[k * v.inner]) - maxValue;
        if (diff < diffMin) {
          out[k * v.inner] = std::numeric_limits<T>::min();
          continue;
        }
        int32_t unsat = fixed::roundingDivideByPOT((shiftedScale * expOfDiff(diff)).raw, numBitsOverUnit + 31 - 8);
        if (std::is_same_v<T, int8_t>) unsat -= 128;
        out[k * v.inner] = saturateCast<T>(unsat);
      }
    }
  return {};
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 2, 3));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  const OperandType betaType = type == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
  if (context->getNumInputs() == 3) {
    NN_TRY(validateInputTypes(context, {type, betaType, OperandType::INT32}));
  } else {
    NN_TRY(validateInputTypes(context, {type, betaType}));
  }
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kInput, 1, 4));
  NN_TRY(validateConstantAxis(context, kInput, kAxis));
  float beta = 0.0f;
  if (betaType == OperandType::FLOAT32 && getConstantScalar(context, kBeta, &beta)) {
    NN_RET_CHECK(beta > 0.0f) << "beta must be positive";
  }
  if (type == OperandType::TENSOR_QUANT8_ASYMM || type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) {
    const Shape output = context->getOutputShape(kOutput);
    const int32_t zeroPoint = type == OperandType::TENSOR_QUANT8_ASYMM ? 0 : -128;
    NN_RET_CHECK(output.scale == 1.0f / 256 && output.offset == zeroPoint)
        << "quantized softmax output must have scale 1/256 and zero point " << zeroPoint;
  }
  return {};
}

Status prepare(IOperationExecutionContext* context) {
  auto v = axisView(context);
  if (!v.ok()) return v.error();
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = context->getInputShape(kInput).dimensions;
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  auto v = axisView(context);
  if (!v.ok()) return v.error();
  const Shape input = context->getInputShape(kInput);
  const Shape output = context->getOutputShape(kOutput);
  switch (input.type) {
    case OperandType::TENSOR_FLOAT32:
      softmaxFloat(context->getInputBuffer<float>(kInput), context->getInputValue<float>(kBeta), *v,
                   context->getOutputBuffer<float>(kOutput));
      return {};
    case OperandType::TENSOR_FLOAT16: {
      const auto in = toFloat32(context->getInputBuffer<Float16>(kInput), getNumberOfElements(input));
      std::vector<float> out(in.size());
      softmaxFloat(in.data(), static_cast<float>(context->getInputValue<Float16>(kBeta)), *v, out.data());
      fromFloat32(out.data(), out.size(), context->getOutputBuffer<Float16>(kOutput));
      return {};
    }
    case OperandType::TENSOR_QUANT8_ASYMM:
      NN_RET_CHECK(output.scale == 1.0f / 256 && output.offset == 0) << "output must be scale 1/256, zero point 0";
      return softmaxQuant(context->getInputBuffer<uint8_t>(kInput), input, context->getInputValue<float>(kBeta), *v,
                          context->getOutputBuffer<uint8_t>(kOutput));
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      NN_RET_CHECK(output.scale == 1.0f / 256 && output.offset == -128) << "output must be scale 1/256, zero point -128";
      return softmaxQuant(context->getInputBuffer<int8_t>(kInput), input, context->getInputValue<float>(kBeta), *v,
                          context->getOutputBuffer<int8_t>(kOutput));
    default:
      return NN_ERROR(BAD_DATA) << "unsupported input type";
  }
}

}  // namespace weft::nn::softmax

NN_REGISTER_OPERATION(SOFTMAX, "SOFTMAX", softmax::validate, softmax::prepare, softmax::execute,
                      .allowZeroSizedInput = true)
