#include "Reduction.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "ElementwiseShapes.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::reduction {

namespace {

constexpr uint32_t kInput = 0;
constexpr uint32_t kAxes = 1;
constexpr uint32_t kKeepDims = 2;
constexpr uint32_t kOutput = 0;
constexpr uint32_t kMaxRank = 4;

// Which dimensions of a rank-`rank` tensor the axes reduce; BAD_DATA for an axis out of range.
Result<std::vector<bool>> reducedAxes(const int32_t* axes, size_t count, uint32_t rank) {
  std::vector<bool> reduced(rank, false);
  for (size_t i = 0; i < count; ++i) {
    auto axis = resolveAxis(axes[i], rank);
    if (!axis.ok()) return axis.error();
    reduced[*axis] = true;
  }
  return reduced;
}

Dimensions outputDimensions(const Dimensions& input, const std::vector<bool>& reduced, bool keepDims) {
  Dimensions out;
  for (size_t d = 0; d < input.size(); ++d) {
    if (!reduced[d]) {
      out.push_back(input[d]);
    } else if (keepDims) {
      out.push_back(1);
    }
  }
  if (out.empty()) out.push_back(1);
  return out;
}

Status validateType(const IOperationValidationContext* context, Kind kind, OperandType type) {
  switch (kind) {
    case Kind::ALL:
    case Kind::ANY:
      return validateTypeIsOneOf(context, "input", type, {OperandType::TENSOR_BOOL8});
    case Kind::MAX:
    case Kind::MIN:
      return validateTypeIsOneOf(context, "input", type,
                                 {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                                  OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED});
    case Kind::PROD:
    case Kind::SUM:
      return validateTypeIsOneOf(context, "input", type, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16});
  }
  return NN_ERROR(BAD_DATA) << "unknown reduction";
}

template <typename T>
struct Reducer {
  T init;
  T (*combine)(T accumulated, T value);
};

template <typename T>
Reducer<T> reducerFor(Kind kind) {
  // Float16's numeric_limits may be missing; its finite range is +-65504.
  constexpr bool isHalf = std::is_same_v<T, Float16>;
  const T lowest = isHalf ? static_cast<T>(-65504.0f) : std::numeric_limits<T>::lowest();
  const T highest = isHalf ? static_cast<T>(65504.0f) : std::numeric_limits<T>::max();
  switch (kind) {
    case Kind::ALL: return {T(1), [](T a, T b) { return static_cast<T>(a != 0 && b != 0); }};
    case Kind::ANY: return {T(0), [](T a, T b) { return static_cast<T>(a != 0 || b != 0); }};
    case Kind::MAX: return {lowest, [](T a, T b) { return std::max(a, b); }};
    case Kind::MIN: return {highest, [](T a, T b) { return std::min(a, b); }};
    // A zero factor wins even against infinity (0 * inf would be NaN), as in the reference.
    case Kind::PROD:
      return {T(1), [](T a, T b) { return (a == T(0) || b == T(0)) ? T(0) : static_cast<T>(a * b); }};
    case Kind::SUM: return {T(0), [](T a, T b) { return static_cast<T>(a + b); }};
  }
  return {T(0), [](T a, T) { return a; }};
}

template <typename T>
void reduce(const T* in, const Dimensions& dims, const std::vector<bool>& reduced, T* out, size_t outCount,
            const Reducer<T>& reducer) {
  std::fill(out, out + outCount, reducer.init);
  const size_t total = numberOfElements(dims);
  if (total == 0) return;
  const size_t rank = dims.size();
  // Output stride of each input dimension (0 where reduced): walking the input in row-major order
  // keeps the output index in step.
  std::vector<size_t> outStride(rank, 0);
  size_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    if (!reduced[d]) {
      outStride[d] = stride;
      stride *= dims[d];
    }
  }
  std::vector<uint32_t> index(rank, 0);
  size_t o = 0;
  for (size_t i = 0; i < total; ++i) {
    out[o] = reducer.combine(out[o], in[i]);
    for (size_t d = rank; d-- > 0;) {
      o += outStride[d];
      if (++index[d] < dims[d]) break;
      o -= outStride[d] * dims[d];
      index[d] = 0;
    }
  }
}

template <typename T>
Status run(IOperationExecutionContext* context, Kind kind) {
  const Shape input = context->getInputShape(kInput);
  const Shape axes = context->getInputShape(kAxes);
  auto reduced = reducedAxes(context->getInputBuffer<int32_t>(kAxes), getNumberOfElements(axes),
                             getNumberOfDimensions(input));
  if (!reduced.ok()) return reduced.error();
  reduce(context->getInputBuffer<T>(kInput), input.dimensions, *reduced, context->getOutputBuffer<T>(kOutput),
         getNumberOfElements(context->getOutputShape(kOutput)), reducerFor<T>(kind));
  return {};
}

}  // namespace

Status validate(const IOperationValidationContext* context, Kind kind) {
  NN_TRY(validateInputCount(context, 3, 3));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateType(context, kind, type));
  NN_TRY(validateInputTypes(context, {type, OperandType::TENSOR_INT32, OperandType::BOOL}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kInput, 1, kMaxRank));
  NN_TRY(validateInputRank(context, kAxes, 1, 1));
  const Shape input = context->getInputShape(kInput);
  NN_TRY(elementwise::checkSameQuantization("output", input, context->getOutputShape(kOutput)));
  // With constant axes and a known input rank, bad axes and the output shape are checked now.
  const auto* axes = static_cast<const int32_t*>(context->getConstantInputBuffer(kAxes));
  const Shape axesShape = context->getInputShape(kAxes);
  if (axes == nullptr || hasUnknownRank(input) || !isFullySpecified(axesShape.type, axesShape.dimensions)) return {};
  auto reduced = reducedAxes(axes, getNumberOfElements(axesShape), getNumberOfDimensions(input));
  if (!reduced.ok()) return reduced.error();
  uint8_t keepDims = 0;
  if (!getConstantScalar(context, kKeepDims, &keepDims)) return {};
  return elementwise::checkOutputDims(context, kOutput, outputDimensions(input.dimensions, *reduced, keepDims != 0));
}

Status prepare(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const Shape axes = context->getInputShape(kAxes);
  NN_RET_CHECK(getNumberOfDimensions(input) >= 1 && getNumberOfDimensions(input) <= kMaxRank)
      << "input rank " << getNumberOfDimensions(input) << " outside [1, " << kMaxRank << "]";
  NN_RET_CHECK_EQ(getNumberOfDimensions(axes), 1u) << "axes must be 1-D";
  const size_t count = getNumberOfElements(axes);
  NN_RET_CHECK(count == 0 || context->getInputBuffer(kAxes) != nullptr) << "axes have no value";
  auto reduced = reducedAxes(context->getInputBuffer<int32_t>(kAxes), count, getNumberOfDimensions(input));
  if (!reduced.ok()) return reduced.error();
  Shape out = context->getOutputShape(kOutput);
  out.dimensions = outputDimensions(input.dimensions, *reduced, getOptionalBool(context, kKeepDims, false));
  return context->setOutputShape(kOutput, out);
}

Status execute(IOperationExecutionContext* context, Kind kind) {
  switch (context->getInputType(kInput)) {
    case OperandType::TENSOR_BOOL8: return run<uint8_t>(context, kind);
    case OperandType::TENSOR_FLOAT32: return run<float>(context, kind);
    case OperandType::TENSOR_FLOAT16: return run<Float16>(context, kind);
    case OperandType::TENSOR_QUANT8_ASYMM: return run<uint8_t>(context, kind);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return run<int8_t>(context, kind);
    default: return NN_ERROR(BAD_DATA) << "unsupported input type " << toString(context->getInputType(kInput));
  }
}

}  // namespace weft::nn::reduction
