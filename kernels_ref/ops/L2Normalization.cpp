// L2_NORMALIZATION: divides each vector along `axis` (optional INT32, default -1) by its L2 norm.
// float32 / float16 (computed in float32) use norm max(sqrt(sum x^2), 1e-6). Quantized inputs use
// TFLite's integer path: the inverse square root of sum (q - zeroPoint)^2 as a fixed-point
// multiplier (Newton-Raphson), and outputs with scale 1/128 and zero point 128 (quant8 asymm) or 0
// (asymm signed), as NNAPI requires. Rank 1 to 4.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "TensorOpUtils.h"
#include "weft/kernels/FixedPoint.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/QuantUtils.h"

namespace weft::nn::l2_normalization {

constexpr uint32_t kInput = 0;
constexpr uint32_t kAxis = 1;
constexpr uint32_t kOutput = 0;

namespace {

constexpr float kOutputScale = 1.0f / 128.0f;

// The output zero point NNAPI prescribes for a quantized output type.
int32_t requiredZeroPoint(OperandType type) { return type == OperandType::TENSOR_QUANT8_ASYMM ? 128 : 0; }

Result<uint32_t> readAxis(const IOperationExecutionContext* context) {
  const uint32_t rank = getNumberOfDimensions(context->getInputShape(kInput));
  NN_RET_CHECK(rank >= 1 && rank <= 4) << "input rank " << rank;
  const int32_t axis = context->getNumInputs() > kAxis ? context->getInputValue<int32_t>(kAxis) : -1;
  return resolveAxis(axis, rank);
}

void l2NormalizeFloat(const float* in, const AxisSplit& s, float* out) {
  constexpr float kEpsilon = 1e-6f;
  for (size_t o = 0; o < s.outer; ++o) {
    for (size_t i = 0; i < s.inner; ++i) {
      const size_t base = o * s.axisSize * s.inner + i;
      float sum = 0.0f;
      for (size_t a = 0; a < s.axisSize; ++a) sum += in[base + a * s.inner] * in[base + a * s.inner];
      const float norm = std::max(std::sqrt(sum), kEpsilon);
      for (size_t a = 0; a < s.axisSize; ++a) out[base + a * s.inner] = in[base + a * s.inner] / norm;
    }
  }
}

// TFLite GetInvSqrtQuantizedMultiplierExp with reverse shift -1: 1 / sqrt(input) as a Q0.31
// multiplier and a (right-shift-negative) exponent, by Newton-Raphson in 3-integer-bit fixed point.
void inverseSqrtMultiplier(int32_t input, int32_t* multiplier, int* shift) {
  if (input <= 1) {  // 0 is treated like 1 (no norm to divide by), as TFLite does
    *multiplier = std::numeric_limits<int32_t>::max();
    *shift = 0;
    return;
  }
  int exponent = 11;
  while (input >= (1 << 29)) {
    input /= 4;
    ++exponent;
  }
  const int maxLeftShiftBitPairs = (__builtin_clz(static_cast<uint32_t>(input)) - 1) / 2;
  const int leftShiftBitPairs = maxLeftShiftBitPairs - 1;
  exponent -= leftShiftBitPairs;
  input <<= 2 * leftShiftBitPairs;  // now in [2^27, 2^29)
  using F3 = fixed::FixedPoint<3>;
  const F3 x0 = F3::fromRaw(input >> 1);
  const F3 halfInput = F3::fromRaw(fixed::saturatingRoundingMultiplyByPOT<-1>(x0.raw));
  const F3 halfThree = F3::fromRaw((1 << 28) + (1 << 27));  // 1.5
  F3 x = F3::one();
  for (int i = 0; i < 5; ++i) {
    const F3 x3 = fixed::rescale<3>(x * x * x);
    x = fixed::rescale<3>(halfThree * x - halfInput * x3);
  }
  const fixed::FixedPoint<0> halfSqrt2 = fixed::FixedPoint<0>::fromRaw(1518500250);  // sqrt(2) / 2
  x = x * halfSqrt2;
  *multiplier = x.raw;
  if (exponent < 0) {
    *multiplier = static_cast<int32_t>(static_cast<uint32_t>(*multiplier) << -exponent);
    exponent = 0;
  }
  *shift = -exponent;
}

template <typename T>
void l2NormalizeQuant(const T* in, int32_t zeroPoint, const AxisSplit& s, int32_t outputZeroPoint, T* out) {
  for (size_t o = 0; o < s.outer; ++o) {
    for (size_t i = 0; i < s.inner; ++i) {
      const size_t base = o * s.axisSize * s.inner + i;
      int64_t sum = 0;  // TFLite sums in int32; saturating instead keeps huge vectors defined
      for (size_t a = 0; a < s.axisSize; ++a) {
        const int32_t v = static_cast<int32_t>(in[base + a * s.inner]) - zeroPoint;
        sum += v * v;
      }
      int32_t multiplier = 0;
      int shift = 0;
      inverseSqrtMultiplier(static_cast<int32_t>(std::min<int64_t>(sum, std::numeric_limits<int32_t>::max())),
                            &multiplier, &shift);
      for (size_t a = 0; a < s.axisSize; ++a) {
        const int32_t v = static_cast<int32_t>(in[base + a * s.inner]) - zeroPoint;
        const int32_t scaled = multiplyByQuantizedMultiplierSmallerThanOneExp(v * 128, multiplier, shift);
        out[base + a * s.inner] = saturateCast<T>(scaled + outputZeroPoint);
      }
    }
  }
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 1, 2));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  if (context->getNumInputs() == 2) {
    NN_TRY(validateInputTypes(context, {type, OperandType::INT32}));
  } else {
    NN_TRY(validateInputTypes(context, {type}));
  }
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kInput, 1, 4));
  if (isQuantized(type)) {
    const Shape output = context->getOutputShape(kOutput);
    NN_RET_CHECK(output.scale == kOutputScale && output.offset == requiredZeroPoint(type))
        << "L2_NORMALIZATION: a quantized output needs scale 1/128 and zero point " << requiredZeroPoint(type)
        << ", got " << output.scale << " and " << output.offset;
  }
  return validateConstantAxis(context, kInput, kAxis);
}

Status prepare(IOperationExecutionContext* context) {
  auto axis = readAxis(context);
  if (!axis.ok()) return axis.error();
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = context->getInputShape(kInput).dimensions;
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  auto axis = readAxis(context);
  if (!axis.ok()) return axis.error();
  const Shape input = context->getInputShape(kInput);
  const AxisSplit split = splitAtAxis(input.dimensions, *axis);
  switch (input.type) {
    case OperandType::TENSOR_FLOAT32:
      l2NormalizeFloat(context->getInputBuffer<float>(kInput), split, context->getOutputBuffer<float>(kOutput));
      return {};
    case OperandType::TENSOR_FLOAT16: {
      const size_t n = getNumberOfElements(input);
      const std::vector<float> in = toFloat32(context->getInputBuffer<Float16>(kInput), n);
      std::vector<float> out(n);
      l2NormalizeFloat(in.data(), split, out.data());
      fromFloat32(out.data(), n, context->getOutputBuffer<Float16>(kOutput));
      return {};
    }
    case OperandType::TENSOR_QUANT8_ASYMM:
      l2NormalizeQuant(context->getInputBuffer<uint8_t>(kInput), input.offset, split, 128,
                       context->getOutputBuffer<uint8_t>(kOutput));
      return {};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      l2NormalizeQuant(context->getInputBuffer<int8_t>(kInput), input.offset, split, 0,
                       context->getOutputBuffer<int8_t>(kOutput));
      return {};
    default:
      return NN_ERROR(BAD_DATA) << "unsupported type " << toString(input.type);
  }
}

}  // namespace weft::nn::l2_normalization

NN_REGISTER_OPERATION(L2_NORMALIZATION, "L2_NORMALIZATION", l2_normalization::validate, l2_normalization::prepare,
                      l2_normalization::execute)
