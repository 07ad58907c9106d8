// SPLIT: cuts the input along `axis` into `num_splits` equal parts, one output each. Types:
// float32, float16, int32, quant8 asymm and asymm signed (every output keeps the quantization).
#include <cstring>

#include "TensorOpUtils.h"

namespace weft::nn::split {

constexpr uint32_t kInput = 0;
constexpr uint32_t kAxis = 1;
constexpr uint32_t kNumSplits = 2;

namespace {

struct SplitSpec {
  uint32_t axis = 0;
  uint32_t numSplits = 0;
};

Result<SplitSpec> readSpec(const IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const uint32_t rank = getNumberOfDimensions(input);
  NN_RET_CHECK(rank >= 1 && rank <= 4) << "input rank " << rank;
  auto axis = resolveAxis(context->getInputValue<int32_t>(kAxis), rank);
  if (!axis.ok()) return axis.error();
  const int32_t numSplits = context->getInputValue<int32_t>(kNumSplits);
  NN_RET_CHECK(numSplits > 0 && static_cast<uint32_t>(numSplits) == context->getNumOutputs())
      << "num_splits " << numSplits << " must equal the number of outputs " << context->getNumOutputs();
  NN_RET_CHECK_EQ(input.dimensions[*axis] % static_cast<uint32_t>(numSplits), 0u)
      << "dimension " << *axis << " of " << toString(input.dimensions) << " does not split into " << numSplits;
  return SplitSpec{*axis, static_cast<uint32_t>(numSplits)};
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 3, 3));
  NN_RET_CHECK_GE(context->getNumOutputs(), 1u) << "SPLIT needs at least one output";
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, OperandType::INT32, OperandType::INT32}));
  NN_TRY(validateInputRank(context, kInput, 1, 4));
  for (uint32_t i = 0; i < context->getNumOutputs(); ++i) {
    NN_RET_CHECK(context->getOutputType(i) == type) << "SPLIT: output " << i << " must have the input's type";
    NN_TRY(validateSameQuantization(context, kInput, i));
  }
  int32_t numSplits = 0;
  if (constantInt32(context, kNumSplits, &numSplits)) {
    NN_RET_CHECK(numSplits > 0 && static_cast<uint32_t>(numSplits) == context->getNumOutputs())
        << "SPLIT: num_splits " << numSplits << " must equal the number of outputs";
  }
  return validateConstantAxis(context, kInput, kAxis);
}

Status prepare(IOperationExecutionContext* context) {
  auto spec = readSpec(context);
  if (!spec.ok()) return spec.error();
  const Shape input = context->getInputShape(kInput);
  for (uint32_t i = 0; i < spec->numSplits; ++i) {
    Shape output = context->getOutputShape(i);
    output.dimensions = input.dimensions;
    output.dimensions[spec->axis] /= spec->numSplits;
    NN_TRY(context->setOutputShape(i, output));
  }
  return {};
}

Status execute(IOperationExecutionContext* context) {
  auto spec = readSpec(context);
  if (!spec.ok()) return spec.error();
  const Shape input = context->getInputShape(kInput);
  const AxisSplit split = splitAtAxis(input.dimensions, spec->axis);
  // Each outer index holds one contiguous block per output.
  const size_t blockBytes = split.axisSize / spec->numSplits * split.inner * sizeOfElement(input.type);
  if (blockBytes == 0) return {};
  const auto* in = static_cast<const uint8_t*>(context->getInputBuffer(kInput));
  for (size_t o = 0; o < split.outer; ++o) {
    for (uint32_t i = 0; i < spec->numSplits; ++i, in += blockBytes) {
      std::memcpy(context->getOutputBuffer<uint8_t>(i) + o * blockBytes, in, blockBytes);
    }
  }
  return {};
}

}  // namespace weft::nn::split

NN_REGISTER_OPERATION(SPLIT, "SPLIT", split::validate, split::prepare, split::execute)
