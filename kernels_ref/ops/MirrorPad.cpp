// MIRROR_PAD: pads each dimension with a mirror image of the input next to the border. mode
// REFLECT (0) mirrors around the border element (pads of at most size - 1), SYMMETRIC (1) repeats it
// (pads of at most size):
//   input [1 2 3], paddings (2, 2):  REFLECT 3 2 | 1 2 3 | 2 1   SYMMETRIC 2 1 | 1 2 3 | 3 2
// Types: float32, float16, int32, quant8 asymm and asymm signed (quantization unchanged).
#include <vector>

#include "ElementCopy.h"
#include "PaddingUtils.h"
#include "TensorOpUtils.h"

namespace weft::nn::mirror_pad {

constexpr uint32_t kInput = 0;
constexpr uint32_t kPaddings = 1;
constexpr uint32_t kMode = 2;
constexpr uint32_t kOutput = 0;

enum class Mode : int32_t { REFLECT = 0, SYMMETRIC = 1 };

namespace {

struct Spec {
  std::vector<DimPadding> paddings;
  Mode mode;
};

Result<Spec> readSpec(const IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const uint32_t rank = getNumberOfDimensions(input);
  NN_RET_CHECK_GE(rank, 1u) << "input must have rank 1 or more";
  const int32_t mode = context->getInputValue<int32_t>(kMode);
  NN_RET_CHECK(mode == 0 || mode == 1) << "mode " << mode << " is neither REFLECT (0) nor SYMMETRIC (1)";
  auto paddings = readPaddings(context, kPaddings, rank);
  if (!paddings.ok()) return paddings.error();
  // REFLECT skips the border element, so it has one element less to mirror.
  const uint32_t reuse = mode == 0 ? 1 : 0;
  for (uint32_t d = 0; d < rank; ++d) {
    const uint32_t limit = input.dimensions[d] >= reuse ? input.dimensions[d] - reuse : 0;
    NN_RET_CHECK((*paddings)[d].before <= limit && (*paddings)[d].after <= limit)
        << "paddings of dimension " << d << " exceed " << limit << " for mode " << mode;
  }
  return Spec{std::move(paddings).value(), static_cast<Mode>(mode)};
}

// Input index read by output index o along a dimension of `size` padded by `p`.
int64_t mirroredIndex(int64_t o, int64_t size, const DimPadding& p, Mode mode) {
  const int64_t i = o - p.before;
  const int64_t shift = mode == Mode::REFLECT ? 0 : 1;
  if (i < 0) return -i - shift;
  if (i >= size) return 2 * size - 2 + shift - i;
  return i;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 3, 3));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, OperandType::TENSOR_INT32, OperandType::INT32}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kPaddings, 2, 2));
  int32_t mode = 0;
  if (constantInt32(context, kMode, &mode)) {
    NN_RET_CHECK(mode == 0 || mode == 1) << "MIRROR_PAD: mode " << mode << " is neither REFLECT nor SYMMETRIC";
  }
  return validateSameQuantization(context, kInput, kOutput);
}

Status prepare(IOperationExecutionContext* context) {
  auto spec = readSpec(context);
  if (!spec.ok()) return spec.error();
  auto dims = paddedDimensions(context->getInputShape(kInput).dimensions, spec->paddings);
  if (!dims.ok()) return dims.error();
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = std::move(dims).value();
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  auto spec = readSpec(context);
  if (!spec.ok()) return spec.error();
  const Shape input = context->getInputShape(kInput);
  const Shape output = context->getOutputShape(kOutput);
  const std::vector<int64_t> strides = rowMajorStrides(input.dimensions);
  OffsetTable table(input.dimensions.size());
  for (size_t d = 0; d < table.size(); ++d) {
    for (uint32_t o = 0; o < output.dimensions[d]; ++o) {
      table[d].push_back(mirroredIndex(o, input.dimensions[d], spec->paddings[d], spec->mode) * strides[d]);
    }
  }
  gatherElements(context->getInputBuffer(kInput), table, output.dimensions, sizeOfElement(input.type),
                 context->getOutputBuffer(kOutput));
  return {};
}

}  // namespace weft::nn::mirror_pad

NN_REGISTER_OPERATION(MIRROR_PAD, "MIRROR_PAD", mirror_pad::validate, mirror_pad::prepare, mirror_pad::execute)
