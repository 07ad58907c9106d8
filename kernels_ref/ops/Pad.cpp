// PAD: surrounds the input with paddings[d] = {before, after} elements per dimension, of value 0
// (the zero point for quantized tensors). Types: float32, float16, quant8 asymm and asymm signed.
#include <cstdint>

#include "PaddingUtils.h"
#include "TensorOpUtils.h"

namespace weft::nn::pad {

constexpr uint32_t kInput = 0;
constexpr uint32_t kPaddings = 1;
constexpr uint32_t kOutput = 0;

Status validate(const IOperationValidationContext* context) {
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, OperandType::TENSOR_INT32}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kInput, 1, 4));
  NN_TRY(validateInputRank(context, kPaddings, 2, 2));
  return validateSameQuantization(context, kInput, kOutput);
}

Status prepare(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const uint32_t rank = getNumberOfDimensions(input);
  NN_RET_CHECK(rank >= 1 && rank <= 4) << "input rank " << rank;
  auto paddings = readPaddings(context, kPaddings, rank);
  if (!paddings.ok()) return paddings.error();
  auto dims = paddedDimensions(input.dimensions, *paddings);
  if (!dims.ok()) return dims.error();
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = std::move(dims).value();
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  auto paddings = readPaddings(context, kPaddings, getNumberOfDimensions(input));
  if (!paddings.ok()) return paddings.error();
  // 0 bits are +0.0 for the float types; quantized tensors pad with the zero point.
  const Shape output = context->getOutputShape(kOutput);
  const uint8_t padValue[4] = {static_cast<uint8_t>(isQuantized(input.type) ? output.offset : 0), 0, 0, 0};
  padElements(context->getInputBuffer(kInput), input.dimensions, *paddings, padValue, sizeOfElement(input.type),
              context->getOutputBuffer(kOutput));
  return {};
}

}  // namespace weft::nn::pad

NN_REGISTER_OPERATION(PAD, "PAD", pad::validate, pad::prepare, pad::execute, .allowZeroSizedInput = true)
