// TRANSPOSE: output dimension i is input dimension perm[i]. perm (1-D TENSOR_INT32) may be omitted,
// meaning the reversed order. Types: float32, float16, quant8 asymm and asymm signed (quantization
// unchanged); rank up to 4; zero-sized inputs pass through.
#include <vector>

#include "ElementCopy.h"
#include "TensorOpUtils.h"

namespace weft::nn::transpose {

constexpr uint32_t kInput = 0;
constexpr uint32_t kPerm = 1;
constexpr uint32_t kOutput = 0;

namespace {

// perm, checked to be a permutation of 0..rank-1 (the reversal when omitted).
Result<std::vector<int32_t>> permutation(const IOperationExecutionContext* context, uint32_t rank) {
  std::vector<int32_t> perm(rank);
  if (context->isOmittedInput(kPerm)) {
    for (uint32_t i = 0; i < rank; ++i) perm[i] = static_cast<int32_t>(rank - 1 - i);
    return perm;
  }
  auto values = readInt32Vector(context, kPerm, rank);
  if (!values.ok()) return values.error();
  std::vector<bool> seen(rank, false);
  for (int32_t p : *values) {
    NN_RET_CHECK(p >= 0 && static_cast<uint32_t>(p) < rank && !seen[p]) << "perm is not a permutation of 0.." << rank - 1;
    seen[p] = true;
  }
  return std::move(values).value();
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 2, 2));
  NN_TRY(validateOutputCount(context, 1));
  NN_RET_CHECK(!context->isOmittedInput(kInput)) << "TRANSPOSE: only perm may be omitted";
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, OperandType::TENSOR_INT32}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kInput, 1, 4));
  if (!context->isOmittedInput(kPerm)) NN_TRY(validateInputRank(context, kPerm, 1, 1));
  return validateSameQuantization(context, kInput, kOutput);
}

Status prepare(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const uint32_t rank = getNumberOfDimensions(input);
  NN_RET_CHECK(rank >= 1 && rank <= 4) << "input rank " << rank;
  auto perm = permutation(context, rank);
  if (!perm.ok()) return perm.error();
  Shape output = context->getOutputShape(kOutput);
  output.dimensions.assign(rank, 0);
  for (uint32_t i = 0; i < rank; ++i) output.dimensions[i] = input.dimensions[(*perm)[i]];
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const Shape output = context->getOutputShape(kOutput);
  const uint32_t rank = getNumberOfDimensions(input);
  auto perm = permutation(context, rank);
  if (!perm.ok()) return perm.error();
  // Walking the output in order, output dimension i advances input dimension perm[i].
  const std::vector<int64_t> inputStrides = rowMajorStrides(input.dimensions);
  std::vector<int64_t> strides(rank);
  for (uint32_t i = 0; i < rank; ++i) strides[i] = inputStrides[(*perm)[i]];
  gatherElements(context->getInputBuffer(kInput), stridedTable(output.dimensions, strides), output.dimensions,
                 sizeOfElement(input.type), context->getOutputBuffer(kOutput));
  return {};
}

}  // namespace weft::nn::transpose

NN_REGISTER_OPERATION(TRANSPOSE, "TRANSPOSE", transpose::validate, transpose::prepare, transpose::execute,
                      .allowOmittedOperand = true, .allowZeroSizedInput = true)
