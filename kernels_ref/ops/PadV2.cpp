// PAD_V2: PAD with an explicit pad value: FLOAT32 for float32 tensors, FLOAT16 for float16, and for
// quant8 asymm / asymm signed an INT32 holding the quantized value (within the type's range).
// paddings: [rank, 2] TENSOR_INT32 of non-negative (before, after) counts. Rank up to 4;
// quantization unchanged.
#include <cstdint>
#include <limits>

#include "PaddingUtils.h"
#include "TensorOpUtils.h"
#include "weft/kernels/Float16.h"

namespace weft::nn::pad_v2 {

constexpr uint32_t kInput = 0;
constexpr uint32_t kPaddings = 1;
constexpr uint32_t kPadValue = 2;
constexpr uint32_t kOutput = 0;

namespace {

OperandType padValueType(OperandType tensorType) {
  switch (tensorType) {
    case OperandType::TENSOR_FLOAT32: return OperandType::FLOAT32;
    case OperandType::TENSOR_FLOAT16: return OperandType::FLOAT16;
    default: return OperandType::INT32;
  }
}

template <typename T>
Status checkQuantizedPadValue(int32_t value) {
  NN_RET_CHECK(value >= std::numeric_limits<T>::min() && value <= std::numeric_limits<T>::max())
      << "pad value " << value << " outside the range of the tensor type";
  return {};
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 3, 3));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, OperandType::TENSOR_INT32, padValueType(type)}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kInput, 1, 4));
  NN_TRY(validateInputRank(context, kPaddings, 2, 2));
  int32_t value = 0;
  if (type == OperandType::TENSOR_QUANT8_ASYMM && constantInt32(context, kPadValue, &value)) {
    NN_TRY(checkQuantizedPadValue<uint8_t>(value));
  } else if (type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED && constantInt32(context, kPadValue, &value)) {
    NN_TRY(checkQuantizedPadValue<int8_t>(value));
  }
  return validateSameQuantization(context, kInput, kOutput);
}

Status prepare(IOperationExecutionContext* context) { return preparePad(context); }

Status execute(IOperationExecutionContext* context) {
  const OperandType type = context->getInputType(kInput);
  // The pad value as one element of the tensor's type.
  union {
    float f32;
    Float16 f16;
    uint8_t u8;
    int8_t i8;
  } value{};
  switch (type) {
    case OperandType::TENSOR_FLOAT32:
      value.f32 = context->getInputValue<float>(kPadValue);
      break;
    case OperandType::TENSOR_FLOAT16:
      value.f16 = context->getInputValue<Float16>(kPadValue);
      break;
    case OperandType::TENSOR_QUANT8_ASYMM: {
      const int32_t v = context->getInputValue<int32_t>(kPadValue);
      NN_TRY(checkQuantizedPadValue<uint8_t>(v));
      value.u8 = static_cast<uint8_t>(v);
      break;
    }
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: {
      const int32_t v = context->getInputValue<int32_t>(kPadValue);
      NN_TRY(checkQuantizedPadValue<int8_t>(v));
      value.i8 = static_cast<int8_t>(v);
      break;
    }
    default:
      return NN_ERROR(BAD_DATA) << "unsupported type " << toString(type);
  }
  return executePad(context, &value);
}

}  // namespace weft::nn::pad_v2

NN_REGISTER_OPERATION(PAD_V2, "PAD_V2", pad_v2::validate, pad_v2::prepare, pad_v2::execute)
