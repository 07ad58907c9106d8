// WEFT_MATMUL_INT32 of the org.weft.accel extension (weft/WeftExtension.h): lhs [M, K] times rhs
// [N, K] transposed, 8-bit quantized inputs (asymmetric, unsigned or signed, each with its zero
// point), int32 accumulators out with no requantization.
#include <cmath>
#include <cstring>

#include "weft/kernels/Extensions.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::weft_matmul_int32 {

constexpr uint32_t kLhs = 0;
constexpr uint32_t kRhs = 1;
constexpr uint32_t kOutput = 0;
// |(x - zp) * (w - zp)| <= 255 * 255, so K of these sum within int32 up to this depth.
constexpr uint32_t kMaxDepth = 33025;

bool isQuant8(OperandType type) {
  return type == OperandType::TENSOR_QUANT8_ASYMM || type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
}

// The real scale an output accumulator has, lhs.scale * rhs.scale; an output scale given by the
// client must be this one (up to float rounding of the product).
Status checkAccumulatorScale(float given, float expected) {
  NN_RET_CHECK(std::isfinite(given) && given > 0.0f) << "accumulator scale " << given << " must be finite and > 0";
  NN_RET_CHECK(std::fabs(given - expected) <= 1e-6f * expected)
      << "accumulator scale " << given << " is not lhs.scale * rhs.scale = " << expected;
  return {};
}

Status validateOutput(const Shape& output, bool isAccumulator, float expectedScale) {
  NN_RET_CHECK(output.scale == 0.0f || !isAccumulator) << "an accumulator operand carries its scale in "
                                                       << "WeftAccumulatorParams, not in the operand type";
  NN_RET_CHECK_EQ(output.offset, 0) << "accumulators have no zero point";
  if (isAccumulator) {
    if (const auto* data = std::get_if<std::vector<uint8_t>>(&output.extraParams)) {
      NN_RET_CHECK_EQ(data->size(), sizeof(weft_extension::AccumulatorParams))
          << "WeftAccumulatorParams is " << sizeof(weft_extension::AccumulatorParams) << " bytes";
      weft_extension::AccumulatorParams params{};
      std::memcpy(&params, data->data(), sizeof(params));
      NN_TRY(checkAccumulatorScale(params.scale, expectedScale));
    }
    return {};
  }
  if (output.scale != 0.0f) NN_TRY(checkAccumulatorScale(output.scale, expectedScale));
  return {};
}

// Rank 2 where known, and the depths K of the two inputs agree where both are known.
Status validateShapes(const Shape& lhs, const Shape& rhs, const Shape& output) {
  for (const Shape* shape : {&lhs, &rhs, &output}) {
    NN_RET_CHECK(shape->dimensions.empty() || shape->dimensions.size() == 2)
        << "operands are matrices, got rank " << shape->dimensions.size();
  }
  const uint32_t lhsDepth = getSizeOfDimension(lhs, 1);
  const uint32_t rhsDepth = getSizeOfDimension(rhs, 1);
  NN_RET_CHECK(lhsDepth == 0 || rhsDepth == 0 || lhsDepth == rhsDepth)
      << "lhs has K = " << lhsDepth << " but rhs K = " << rhsDepth;
  NN_RET_CHECK_LE(std::max(lhsDepth, rhsDepth), kMaxDepth) << "K beyond " << kMaxDepth << " could overflow int32";
  return {};
}

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 2, 2));
  NN_TRY(validateOutputCount(context, 1));
  for (uint32_t input : {kLhs, kRhs}) {
    NN_RET_CHECK(isQuant8(context->getInputType(input)))
        << "input " << input << " is " << toString(context->getInputType(input))
        << "; TENSOR_QUANT8_ASYMM or TENSOR_QUANT8_ASYMM_SIGNED expected";
  }
  const OperandType outputType = context->getOutputType(kOutput);
  const bool isAccumulator =
      outputType == context->extensionOperandType(weft_extension::kName, weft_extension::kTensorInt32Accumulator);
  NN_RET_CHECK(outputType == OperandType::TENSOR_INT32 || isAccumulator)
      << "the output is TENSOR_INT32 or WEFT_TENSOR_INT32_ACCUMULATOR";
  const Shape lhs = context->getInputShape(kLhs);
  const Shape rhs = context->getInputShape(kRhs);
  NN_TRY(validateOutput(context->getOutputShape(kOutput), isAccumulator, lhs.scale * rhs.scale));
  return validateShapes(lhs, rhs, context->getOutputShape(kOutput));
}

Status prepare(IOperationExecutionContext* context) {
  const Shape lhs = context->getInputShape(kLhs);
  const Shape rhs = context->getInputShape(kRhs);
  NN_RET_CHECK_EQ(getNumberOfDimensions(lhs), 2u) << "lhs must be [M, K]";
  NN_RET_CHECK_EQ(getNumberOfDimensions(rhs), 2u) << "rhs must be [N, K]";
  NN_TRY(validateShapes(lhs, rhs, context->getOutputShape(kOutput)));
  return setOutputDimensions(context, {{lhs.dimensions[0], rhs.dimensions[0]}});
}

// One element of an 8-bit input, zero point subtracted.
int32_t centered(const Shape& shape, const void* data, size_t index) {
  const int32_t raw = shape.type == OperandType::TENSOR_QUANT8_ASYMM ? static_cast<const uint8_t*>(data)[index]
                                                                     : static_cast<const int8_t*>(data)[index];
  return raw - shape.offset;
}

Status execute(IOperationExecutionContext* context) {
  const Shape lhs = context->getInputShape(kLhs);
  const Shape rhs = context->getInputShape(kRhs);
  const uint32_t rows = lhs.dimensions[0];
  const uint32_t depth = lhs.dimensions[1];
  const uint32_t columns = rhs.dimensions[0];
  const void* a = context->getInputBuffer(kLhs);
  const void* b = context->getInputBuffer(kRhs);
  auto* out = context->getOutputBuffer<int32_t>(kOutput);
  for (uint32_t m = 0; m < rows; ++m) {
    for (uint32_t n = 0; n < columns; ++n) {
      int32_t sum = 0;  // cannot overflow: depth <= kMaxDepth
      for (uint32_t k = 0; k < depth; ++k) {
        sum += centered(lhs, a, size_t{m} * depth + k) * centered(rhs, b, size_t{n} * depth + k);
      }
      out[size_t{m} * columns + n] = sum;
    }
  }
  return {};
}

}  // namespace weft::nn::weft_matmul_int32

NN_REGISTER_EXTENSION_OPERATION(WEFT_MATMUL_INT32, weft::nn::weft_extension::kName,
                                weft::nn::weft_extension::kMatmulInt32, "WEFT_MATMUL_INT32",
                                weft_matmul_int32::validate, weft_matmul_int32::prepare, weft_matmul_int32::execute,
                                .allowZeroSizedInput = true)
