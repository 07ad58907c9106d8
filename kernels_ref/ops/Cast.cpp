// CAST: converts each element between float32, float16, int32 and quant8 asymm (the stored values,
// not the real values: quantization parameters are ignored, as in NNAPI's reference). Conversions
// to int types truncate toward zero and saturate (quant8: to [0, 255]); NaN becomes 0. Bool8,
// quant16 (both kinds), quant8 symm and quant8 asymm signed are only cast to themselves (a copy).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ElementwiseShapes.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::cast_op {

constexpr uint32_t kInput = 0;
constexpr uint32_t kOutput = 0;

namespace {

bool isConvertible(OperandType type) {
  return type == OperandType::TENSOR_FLOAT32 || type == OperandType::TENSOR_FLOAT16 ||
         type == OperandType::TENSOR_INT32 || type == OperandType::TENSOR_QUANT8_ASYMM;
}

bool isIdentityOnly(OperandType type) {
  return type == OperandType::TENSOR_BOOL8 || type == OperandType::TENSOR_QUANT16_ASYMM ||
         type == OperandType::TENSOR_QUANT16_SYMM || type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ||
         type == OperandType::TENSOR_QUANT8_SYMM;
}

template <typename To, typename From>
To convert(From value) {
  if constexpr (std::is_integral_v<To> && !std::is_integral_v<From>) {
    const float v = static_cast<float>(value);
    if (std::isnan(v)) return 0;
    // The bounds as floats: 2^31 is exact, so >= catches every value that would overflow int32.
    if (v <= static_cast<float>(std::numeric_limits<To>::min())) return std::numeric_limits<To>::min();
    if (v >= static_cast<float>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else if constexpr (std::is_same_v<To, uint8_t> && std::is_same_v<From, int32_t>) {
    return static_cast<uint8_t>(value < 0 ? 0 : value > 255 ? 255 : value);
  } else {
    return static_cast<To>(value);
  }
}

template <typename From, typename To>
void convertAll(const From* in, To* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = convert<To>(in[i]);
}

template <typename From>
Status convertTo(const From* in, IOperationExecutionContext* context, size_t n) {
  switch (context->getOutputType(kOutput)) {
    case OperandType::TENSOR_FLOAT32: convertAll(in, context->getOutputBuffer<float>(kOutput), n); return {};
    case OperandType::TENSOR_FLOAT16: convertAll(in, context->getOutputBuffer<Float16>(kOutput), n); return {};
    case OperandType::TENSOR_INT32: convertAll(in, context->getOutputBuffer<int32_t>(kOutput), n); return {};
    case OperandType::TENSOR_QUANT8_ASYMM: convertAll(in, context->getOutputBuffer<uint8_t>(kOutput), n); return {};
    default: return NN_ERROR(BAD_DATA) << "unsupported output type " << toString(context->getOutputType(kOutput));
  }
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 1, 1));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType in = context->getInputType(kInput);
  const OperandType out = context->getOutputType(kOutput);
  if (isIdentityOnly(in)) {
    NN_RET_CHECK(out == in) << "CAST of " << toString(in) << " is only defined to the same type, not "
                            << toString(out);
  } else {
    NN_RET_CHECK(isConvertible(in)) << "CAST does not take " << toString(in);
    NN_RET_CHECK(isConvertible(out)) << "CAST of " << toString(in) << " cannot produce " << toString(out);
  }
  return elementwise::validateUnaryShapes(context);
}

Status prepare(IOperationExecutionContext* context) {
  return elementwise::prepareSameShape(context, kInput, kOutput);
}

Status execute(IOperationExecutionContext* context) {
  const Shape in = context->getInputShape(kInput);
  const size_t n = getNumberOfElements(in);
  switch (in.type) {
    case OperandType::TENSOR_FLOAT32: return convertTo(context->getInputBuffer<float>(kInput), context, n);
    case OperandType::TENSOR_FLOAT16: return convertTo(context->getInputBuffer<Float16>(kInput), context, n);
    case OperandType::TENSOR_INT32: return convertTo(context->getInputBuffer<int32_t>(kInput), context, n);
    case OperandType::TENSOR_QUANT8_ASYMM: return convertTo(context->getInputBuffer<uint8_t>(kInput), context, n);
    default: {
      NN_RET_CHECK(context->getOutputType(kOutput) == in.type) << "CAST between different types";
      const size_t bytes = sizeOfData(in.type, in.dimensions);
      if (bytes > 0) std::memcpy(context->getOutputBuffer(kOutput), context->getInputBuffer(kInput), bytes);
      return {};
    }
  }
}

}  // namespace weft::nn::cast_op

NN_REGISTER_OPERATION(CAST, "CAST", cast_op::validate, cast_op::prepare, cast_op::execute)
