// MEAN over the axes listed in a 1-D TENSOR_INT32 (negative = from the end, repeats allowed), keeping
// reduced dimensions as 1 when keep_dims > 0. Reducing every dimension without keep_dims gives [1].
// Types: float32, float16 (computed in float32), quant8 asymm and asymm signed: as TFLite's
// reference Mean, quantized values are summed raw in int32 and divided with truncation.
#include <vector>

#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::mean {

constexpr uint32_t kInput = 0;
constexpr uint32_t kAxes = 1;
constexpr uint32_t kKeepDims = 2;
constexpr uint32_t kOutput = 0;

namespace {

// Which dimensions are reduced.
Result<std::vector<bool>> reducedAxes(const IOperationExecutionContext* context, uint32_t rank) {
  const Shape axes = context->getInputShape(kAxes);
  NN_RET_CHECK_EQ(axes.dimensions.size(), 1u) << "axes must be 1-D";
  const int32_t* a = context->getInputBuffer<int32_t>(kAxes);
  std::vector<bool> reduced(rank, false);
  for (uint32_t i = 0; i < axes.dimensions[0]; ++i) {
    auto axis = resolveAxis(a[i], rank);
    if (!axis.ok()) return axis.error();
    reduced[*axis] = true;
  }
  return reduced;
}

// Sums each input element into its output element (input order, as TFLite), then divides.
template <typename T, typename Acc>
void meanKernel(const T* input, const Dimensions& dims, const std::vector<bool>& reduced, T* output,
                size_t outputCount) {
  std::vector<Acc> sums(outputCount, Acc{0});
  const size_t rank = dims.size();
  std::vector<uint32_t> index(rank, 0);
  const size_t total = numberOfElements(dims);
  size_t reducedCount = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (reduced[d]) reducedCount *= dims[d];
  }
  for (size_t i = 0; i < total; ++i) {
    size_t o = 0;
    for (size_t d = 0; d < rank; ++d) {
      if (!reduced[d]) o = o * dims[d] + index[d];
    }
    sums[o] += static_cast<Acc>(input[i]);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
  if (reducedCount == 0) return;
  for (size_t o = 0; o < outputCount; ++o) output[o] = static_cast<T>(sums[o] / static_cast<Acc>(reducedCount));
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, OperandType::TENSOR_INT32, OperandType::INT32}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kInput, 1, 4));
  NN_TRY(validateInputRank(context, kAxes, 1, 1));
  if (isQuantized(type)) {
    const Shape in = context->getInputShape(kInput), out = context->getOutputShape(kOutput);
    NN_RET_CHECK(in.scale == out.scale && in.offset == out.offset) << "quantized MEAN keeps the quantization";
  }
  return {};
}

Status prepare(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const uint32_t rank = getNumberOfDimensions(input);
  NN_RET_CHECK(rank >= 1 && rank <= 4) << "input rank " << rank;
  auto reduced = reducedAxes(context, rank);
  if (!reduced.ok()) return reduced.error();
  const bool keepDims = context->getInputValue<int32_t>(kKeepDims) > 0;
  Dimensions dims;
  for (uint32_t d = 0; d < rank; ++d) {
    if (!(*reduced)[d]) {
      dims.push_back(input.dimensions[d]);
    } else if (keepDims) {
      dims.push_back(1);
    }
  }
  if (dims.empty()) dims = {1};
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = dims;
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  auto reduced = reducedAxes(context, getNumberOfDimensions(input));
  if (!reduced.ok()) return reduced.error();
  const size_t outputCount = getNumberOfElements(context->getOutputShape(kOutput));
  switch (input.type) {
    case OperandType::TENSOR_FLOAT32:
      meanKernel<float, float>(context->getInputBuffer<float>(kInput), input.dimensions, *reduced,
                               context->getOutputBuffer<float>(kOutput), outputCount);
      return {};
    case OperandType::TENSOR_FLOAT16: {
      const auto in = toFloat32(context->getInputBuffer<Float16>(kInput), getNumberOfElements(input));
      std::vector<float> out(outputCount);
      meanKernel<float, float>(in.data(), input.dimensions, *reduced, out.data(), outputCount);
      fromFloat32(out.data(), out.size(), context->getOutputBuffer<Float16>(kOutput));
      return {};
    }
    case OperandType::TENSOR_QUANT8_ASYMM:
      meanKernel<uint8_t, int32_t>(context->getInputBuffer<uint8_t>(kInput), input.dimensions, *reduced,
                                   context->getOutputBuffer<uint8_t>(kOutput), outputCount);
      return {};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      meanKernel<int8_t, int32_t>(context->getInputBuffer<int8_t>(kInput), input.dimensions, *reduced,
                                  context->getOutputBuffer<int8_t>(kOutput), outputCount);
      return {};
    default:
      return NN_ERROR(BAD_DATA) << "unsupported type";
  }
}

}  // namespace weft::nn::mean

NN_REGISTER_OPERATION(MEAN, "MEAN", mean::validate, mean::prepare, mean::execute)
