// CHANNEL_SHUFFLE: splits dimension `axis` (C channels) into num_groups groups and interleaves
// them: seen as [num_groups, C / num_groups] the channel index is transposed, so output channel
// j * num_groups + g reads input channel g * (C / num_groups) + j. Types: float32, float16, quant8
// asymm and asymm signed (quantization unchanged); rank up to 4.
#include "ElementCopy.h"
#include "TensorOpUtils.h"

namespace weft::nn::channel_shuffle {

constexpr uint32_t kInput = 0;
constexpr uint32_t kNumGroups = 1;
constexpr uint32_t kAxis = 2;
constexpr uint32_t kOutput = 0;

namespace {

struct Spec {
  uint32_t axis = 0;
  uint32_t groups = 1;
};

Result<Spec> readSpec(const IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const uint32_t rank = getNumberOfDimensions(input);
  NN_RET_CHECK(rank >= 1 && rank <= 4) << "input rank " << rank;
  auto axis = resolveAxis(context->getInputValue<int32_t>(kAxis), rank);
  if (!axis.ok()) return axis.error();
  const int32_t groups = context->getInputValue<int32_t>(kNumGroups);
  NN_RET_CHECK_GT(groups, 0) << "num_groups must be positive";
  NN_RET_CHECK_EQ(input.dimensions[*axis] % static_cast<uint32_t>(groups), 0u)
      << "dimension " << *axis << " of size " << input.dimensions[*axis] << " does not split into " << groups
      << " groups";
  return Spec{*axis, static_cast<uint32_t>(groups)};
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 3, 3));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, OperandType::INT32, OperandType::INT32}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kInput, 1, 4));
  int32_t groups = 0;
  if (constantInt32(context, kNumGroups, &groups)) {
    NN_RET_CHECK_GT(groups, 0) << "CHANNEL_SHUFFLE: num_groups";
  }
  NN_TRY(validateConstantAxis(context, kInput, kAxis));
  return validateSameQuantization(context, kInput, kOutput);
}

Status prepare(IOperationExecutionContext* context) {
  auto spec = readSpec(context);
  if (!spec.ok()) return spec.error();
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = context->getInputShape(kInput).dimensions;
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  auto spec = readSpec(context);
  if (!spec.ok()) return spec.error();
  const Shape input = context->getInputShape(kInput);
  const AxisSplit s = splitAtAxis(input.dimensions, spec->axis);
  const uint32_t groupSize = static_cast<uint32_t>(s.axisSize) / spec->groups;
  const int64_t inner = static_cast<int64_t>(s.inner);
  // Output index space [outer, j, g, inner] with output channel j * groups + g.
  const Dimensions dims = {static_cast<uint32_t>(s.outer), groupSize, spec->groups, static_cast<uint32_t>(s.inner)};
  const OffsetTable src = {stridedOffsets(dims[0], static_cast<int64_t>(s.axisSize) * inner),
                           stridedOffsets(groupSize, inner), stridedOffsets(spec->groups, groupSize * inner),
                           stridedOffsets(dims[3], 1)};
  gatherElements(context->getInputBuffer(kInput), src, dims, sizeOfElement(input.type),
                 context->getOutputBuffer(kOutput));
  return {};
}

}  // namespace weft::nn::channel_shuffle

NN_REGISTER_OPERATION(CHANNEL_SHUFFLE, "CHANNEL_SHUFFLE", channel_shuffle::validate, channel_shuffle::prepare,
                      channel_shuffle::execute)
