#include "MaximumMinimum.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "ElementwiseShapes.h"
#include "Requantize.h"
#include "weft/kernels/Broadcast.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::maximum_minimum {

namespace {

constexpr uint32_t kInput1 = 0;
constexpr uint32_t kInput2 = 1;
constexpr uint32_t kOutput = 0;

// std::max / std::min keep the first argument on ties and for NaN, as the reference does.
template <typename T>
T pick(Kind kind, T a, T b) {
  return kind == Kind::MAXIMUM ? std::max(a, b) : std::min(a, b);
}

template <typename T>
Status run(IOperationExecutionContext* context, Kind kind) {
  const Shape sa = context->getInputShape(kInput1), sb = context->getInputShape(kInput2);
  const Shape so = context->getOutputShape(kOutput);
  const T* a = context->getInputBuffer<T>(kInput1);
  const T* b = context->getInputBuffer<T>(kInput2);
  T* out = context->getOutputBuffer<T>(kOutput);
  if constexpr (std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t>) {
    forEachBroadcast(sa.dimensions, sb.dimensions, so.dimensions, [&](size_t ia, size_t ib, size_t io) {
      out[io] = pick(kind, elementwise::requantize(a[ia], sa, so), elementwise::requantize(b[ib], sb, so));
    });
  } else {
    forEachBroadcast(sa.dimensions, sb.dimensions, so.dimensions,
                     [&](size_t ia, size_t ib, size_t io) { out[io] = pick(kind, a[ia], b[ib]); });
  }
  return {};
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 2, 2));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput1);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, type}));
  NN_TRY(validateOutputTypes(context, {type}));
  return elementwise::validateBroadcastShapes(context);
}

Status prepare(IOperationExecutionContext* context) {
  return elementwise::prepareBroadcast(context, kInput1, kInput2, kOutput);
}

Status execute(IOperationExecutionContext* context, Kind kind) {
  switch (context->getInputType(kInput1)) {
    case OperandType::TENSOR_FLOAT32: return run<float>(context, kind);
    case OperandType::TENSOR_FLOAT16: return run<Float16>(context, kind);
    case OperandType::TENSOR_INT32: return run<int32_t>(context, kind);
    case OperandType::TENSOR_QUANT8_ASYMM: return run<uint8_t>(context, kind);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return run<int8_t>(context, kind);
    default: return NN_ERROR(BAD_DATA) << "unsupported input type " << toString(context->getInputType(kInput1));
  }
}

}  // namespace weft::nn::maximum_minimum
