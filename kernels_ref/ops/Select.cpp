// SELECT: condition ? input1 : input2 element-wise; the TENSOR_BOOL8 condition and both inputs
// have the same shape (no broadcasting). Types float32, float16, int32 and quantized 8-bit; for
// quantized types both inputs are requantized to the output's parameters.
#include <cstdint>
#include <type_traits>

#include "ElementwiseShapes.h"
#include "Requantize.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::select_op {

constexpr uint32_t kCondition = 0;
constexpr uint32_t kInput1 = 1;
constexpr uint32_t kInput2 = 2;
constexpr uint32_t kOutput = 0;

namespace {

template <typename T>
void run(IOperationExecutionContext* context) {
  const Shape s1 = context->getInputShape(kInput1), s2 = context->getInputShape(kInput2);
  const Shape so = context->getOutputShape(kOutput);
  const uint8_t* condition = context->getInputBuffer<uint8_t>(kCondition);
  const T* a = context->getInputBuffer<T>(kInput1);
  const T* b = context->getInputBuffer<T>(kInput2);
  T* out = context->getOutputBuffer<T>(kOutput);
  const size_t n = getNumberOfElements(s1);
  for (size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t>) {
      out[i] = condition[i] ? elementwise::requantize(a[i], s1, so) : elementwise::requantize(b[i], s2, so);
    } else {
      out[i] = condition[i] ? a[i] : b[i];
    }
  }
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 3, 3));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput1);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {OperandType::TENSOR_BOOL8, type, type}));
  NN_TRY(validateOutputTypes(context, {type}));
  using elementwise::declaredDims;
  const auto condition = declaredDims(context->getInputShape(kCondition));
  const auto input1 = declaredDims(context->getInputShape(kInput1));
  NN_TRY(elementwise::checkSameDims("condition and input1", condition, input1));
  NN_TRY(elementwise::checkSameDims("input1 and input2", input1, declaredDims(context->getInputShape(kInput2))));
  return elementwise::checkOutputDims(context, kOutput, input1);
}

Status prepare(IOperationExecutionContext* context) {
  const Dimensions& input1 = context->getInputShape(kInput1).dimensions;
  NN_RET_CHECK(context->getInputShape(kCondition).dimensions == input1)
      << "condition shape differs from input1's " << toString(input1);
  NN_RET_CHECK(context->getInputShape(kInput2).dimensions == input1)
      << "input2 shape differs from input1's " << toString(input1);
  return elementwise::prepareSameShape(context, kInput1, kOutput);
}

Status execute(IOperationExecutionContext* context) {
  switch (context->getInputType(kInput1)) {
    case OperandType::TENSOR_FLOAT32: run<float>(context); return {};
    case OperandType::TENSOR_FLOAT16: run<Float16>(context); return {};
    case OperandType::TENSOR_INT32: run<int32_t>(context); return {};
    case OperandType::TENSOR_QUANT8_ASYMM: run<uint8_t>(context); return {};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: run<int8_t>(context); return {};
    default: return NN_ERROR(BAD_DATA) << "unsupported input type " << toString(context->getInputType(kInput1));
  }
}

}  // namespace weft::nn::select_op

NN_REGISTER_OPERATION(SELECT, "SELECT", select_op::validate, select_op::prepare, select_op::execute)
