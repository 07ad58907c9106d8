// TOPK_V2: the k largest values along the last dimension and their indices, largest first. Ties
// go to the larger index, as NNAPI's reference orders (value, index) pairs; NaN ranks above every
// number so that the order is total. Values keep the input's type and quantization (float32,
// float16, int32, quantized 8-bit); indices are TENSOR_INT32.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "ElementwiseShapes.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::topk_v2_op {

constexpr uint32_t kInput = 0;
constexpr uint32_t kK = 1;
constexpr uint32_t kValues = 0;
constexpr uint32_t kIndices = 1;

namespace {

template <typename T>
bool isNan(T v) {
  if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Float16>) {
    return std::isnan(static_cast<float>(v));
  } else {
    return false;
  }
}

// Strict "ranks before": larger value first, then larger index.
template <typename T>
bool ranksBefore(const std::pair<T, int32_t>& a, const std::pair<T, int32_t>& b) {
  const bool nanA = isNan(a.first), nanB = isNan(b.first);
  if (nanA != nanB) return nanA;
  if (!nanA && a.first != b.first) return a.first > b.first;
  return a.second > b.second;
}

template <typename T>
void run(IOperationExecutionContext* context, uint32_t k) {
  const Shape input = context->getInputShape(kInput);
  const size_t rowSize = input.dimensions.back();
  const size_t rows = getNumberOfElements(input) / rowSize;
  const T* in = context->getInputBuffer<T>(kInput);
  T* values = context->getOutputBuffer<T>(kValues);
  int32_t* indices = context->getOutputBuffer<int32_t>(kIndices);
  std::vector<std::pair<T, int32_t>> row(rowSize);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t i = 0; i < rowSize; ++i) row[i] = {in[r * rowSize + i], static_cast<int32_t>(i)};
    std::partial_sort(row.begin(), row.begin() + k, row.end(), ranksBefore<T>);
    for (size_t i = 0; i < k; ++i) {
      values[r * k + i] = row[i].first;
      indices[r * k + i] = row[i].second;
    }
  }
}

Dimensions withLastDimension(Dimensions dims, uint32_t k) {
  dims.back() = k;
  return dims;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 2, 2));
  NN_TRY(validateOutputCount(context, 2));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, OperandType::INT32}));
  NN_TRY(validateOutputTypes(context, {type, OperandType::TENSOR_INT32}));
  NN_TRY(validateInputRank(context, kInput, 1, UINT32_MAX));
  const Shape input = context->getInputShape(kInput);
  NN_TRY(elementwise::checkSameQuantization("values output", input, context->getOutputShape(kValues)));
  int32_t k = 0;
  if (!getConstantScalar(context, kK, &k)) return {};
  NN_RET_CHECK_GT(k, 0) << "k must be positive";
  if (hasUnknownRank(input)) return {};
  const uint32_t last = input.dimensions.back();
  NN_RET_CHECK(last == 0 || static_cast<uint32_t>(k) <= last) << "k " << k << " exceeds the last dimension " << last;
  const Dimensions expected = withLastDimension(input.dimensions, static_cast<uint32_t>(k));
  NN_TRY(elementwise::checkOutputDims(context, kValues, expected));
  return elementwise::checkOutputDims(context, kIndices, expected);
}

Status prepare(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  NN_RET_CHECK_GE(getNumberOfDimensions(input), 1u) << "input must have rank >= 1";
  const int32_t k = context->getInputValue<int32_t>(kK);
  NN_RET_CHECK_GT(k, 0) << "k must be positive";
  NN_RET_CHECK_LE(static_cast<uint32_t>(k), input.dimensions.back()) << "k exceeds the last dimension";
  Shape values = context->getOutputShape(kValues);
  values.dimensions = withLastDimension(input.dimensions, static_cast<uint32_t>(k));
  Shape indices = context->getOutputShape(kIndices);
  indices.dimensions = values.dimensions;
  NN_TRY(context->setOutputShape(kValues, values));
  return context->setOutputShape(kIndices, indices);
}

Status execute(IOperationExecutionContext* context) {
  const auto k = static_cast<uint32_t>(context->getInputValue<int32_t>(kK));
  switch (context->getInputType(kInput)) {
    case OperandType::TENSOR_FLOAT32: run<float>(context, k); return {};
    case OperandType::TENSOR_FLOAT16: run<Float16>(context, k); return {};
    case OperandType::TENSOR_INT32: run<int32_t>(context, k); return {};
    case OperandType::TENSOR_QUANT8_ASYMM: run<uint8_t>(context, k); return {};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: run<int8_t>(context, k); return {};
    default: return NN_ERROR(BAD_DATA) << "unsupported input type " << toString(context->getInputType(kInput));
  }
}

}  // namespace weft::nn::topk_v2_op

NN_REGISTER_OPERATION(TOPK_V2, "TOPK_V2", topk_v2_op::validate, topk_v2_op::prepare, topk_v2_op::execute)
