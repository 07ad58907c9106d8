// SQUEEZE: removes dimensions of size 1: those listed in the optional 1-D TENSOR_INT32 input (which
// must be of size 1), or every size-1 dimension when it is omitted. Squeezing every dimension leaves
// shape [1], as NNAPI's reference does. Types: float32, float16, quant8 asymm and asymm signed
// (quantization unchanged); rank up to 4.
#include <cstring>
#include <vector>

#include "TensorOpUtils.h"

namespace weft::nn::squeeze {

constexpr uint32_t kInput = 0;
constexpr uint32_t kSqueezeDims = 1;
constexpr uint32_t kOutput = 0;

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 2, 2));
  NN_TRY(validateOutputCount(context, 1));
  NN_RET_CHECK(!context->isOmittedInput(kInput)) << "SQUEEZE: only the squeeze dims may be omitted";
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, OperandType::TENSOR_INT32}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kInput, 1, 4));
  if (!context->isOmittedInput(kSqueezeDims)) NN_TRY(validateInputRank(context, kSqueezeDims, 1, 1));
  return validateSameQuantization(context, kInput, kOutput);
}

Status prepare(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const uint32_t rank = getNumberOfDimensions(input);
  NN_RET_CHECK(rank >= 1 && rank <= 4) << "input rank " << rank;
  std::vector<bool> squeezed(rank, false);
  if (context->isOmittedInput(kSqueezeDims)) {
    for (uint32_t d = 0; d < rank; ++d) squeezed[d] = input.dimensions[d] == 1;
  } else {
    auto dims = readInt32Vector(context, kSqueezeDims, -1);
    if (!dims.ok()) return dims.error();
    for (int32_t d : *dims) {
      auto axis = resolveAxis(d, rank);
      if (!axis.ok()) return axis.error();
      NN_RET_CHECK_EQ(input.dimensions[*axis], 1u) << "cannot squeeze dimension " << *axis << " of "
                                                   << toString(input.dimensions);
      squeezed[*axis] = true;
    }
  }
  Shape output = context->getOutputShape(kOutput);
  output.dimensions.clear();
  for (uint32_t d = 0; d < rank; ++d) {
    if (!squeezed[d]) output.dimensions.push_back(input.dimensions[d]);
  }
  if (output.dimensions.empty()) output.dimensions.push_back(1);
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const size_t bytes = sizeOfData(input.type, input.dimensions);
  if (bytes > 0) std::memcpy(context->getOutputBuffer(kOutput), context->getInputBuffer(kInput), bytes);
  return {};
}

}  // namespace weft::nn::squeeze

NN_REGISTER_OPERATION(SQUEEZE, "SQUEEZE", squeeze::validate, squeeze::prepare, squeeze::execute,
                      .allowOmittedOperand = true)
