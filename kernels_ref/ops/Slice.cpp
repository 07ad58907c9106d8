// SLICE: the block of the input starting at `begin` with extent `size` (both 1-D TENSOR_INT32 of
// the input's rank; size -1 takes the rest of the dimension). Types: float32, float16, int32, quant8
// asymm and asymm signed (quantization unchanged); zero-sized inputs are allowed.
#include <vector>

#include "ElementCopy.h"
#include "TensorOpUtils.h"

namespace weft::nn::slice {

constexpr uint32_t kInput = 0;
constexpr uint32_t kBegin = 1;
constexpr uint32_t kSize = 2;
constexpr uint32_t kOutput = 0;

namespace {

struct Window {
  std::vector<int32_t> begin;
  Dimensions size;
};

Result<Window> readWindow(const IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const uint32_t rank = getNumberOfDimensions(input);
  NN_RET_CHECK(rank >= 1 && rank <= 4) << "input rank " << rank;
  auto begin = readInt32Vector(context, kBegin, rank);
  if (!begin.ok()) return begin.error();
  auto size = readInt32Vector(context, kSize, rank);
  if (!size.ok()) return size.error();
  Window w{std::move(begin).value(), Dimensions(rank)};
  for (uint32_t d = 0; d < rank; ++d) {
    const int64_t dim = input.dimensions[d];
    const int64_t b = w.begin[d];
    const int64_t s = (*size)[d] == -1 ? dim - b : (*size)[d];
    NN_RET_CHECK(b >= 0 && b <= dim) << "begin " << b << " outside dimension " << d << " of size " << dim;
    NN_RET_CHECK(s >= 0 && b + s <= dim) << "size " << (*size)[d] << " from " << b << " exceeds dimension " << d
                                         << " of size " << dim;
    w.size[d] = static_cast<uint32_t>(s);
  }
  return w;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 3, 3));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, OperandType::TENSOR_INT32, OperandType::TENSOR_INT32}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kInput, 1, 4));
  NN_TRY(validateInputRank(context, kBegin, 1, 1));
  NN_TRY(validateInputRank(context, kSize, 1, 1));
  return validateSameQuantization(context, kInput, kOutput);
}

Status prepare(IOperationExecutionContext* context) {
  auto window = readWindow(context);
  if (!window.ok()) return window.error();
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = window->size;
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  auto window = readWindow(context);
  if (!window.ok()) return window.error();
  const Shape input = context->getInputShape(kInput);
  const std::vector<int64_t> strides = rowMajorStrides(input.dimensions);
  int64_t start = 0;
  for (size_t d = 0; d < strides.size(); ++d) start += window->begin[d] * strides[d];
  gatherElements(context->getInputBuffer(kInput), stridedTable(window->size, strides, start), window->size,
                 sizeOfElement(input.type), context->getOutputBuffer(kOutput));
  return {};
}

}  // namespace weft::nn::slice

NN_REGISTER_OPERATION(SLICE, "SLICE", slice::validate, slice::prepare, slice::execute, .allowZeroSizedInput = true)
