#include "Comparisons.h"

#include <cstdint>

#include "ElementwiseShapes.h"
#include "weft/kernels/Broadcast.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::comparisons {

namespace {

constexpr uint32_t kInput1 = 0;
constexpr uint32_t kInput2 = 1;
constexpr uint32_t kOutput = 0;

template <typename T>
bool compare(Kind kind, T a, T b) {
  switch (kind) {
    case Kind::EQUAL: return a == b;
    case Kind::NOT_EQUAL: return a != b;
    case Kind::GREATER: return a > b;
    case Kind::GREATER_EQUAL: return a >= b;
    case Kind::LESS: return a < b;
    case Kind::LESS_EQUAL: return a <= b;
  }
  return false;
}

// `toValue` maps a stored element to the value compared: itself, its truth value (bool8), or its
// real value (quantized, in float as the reference dequantizes).
template <typename T, typename ToValue>
void run(IOperationExecutionContext* context, Kind kind, ToValue toValue) {
  const Shape sa = context->getInputShape(kInput1), sb = context->getInputShape(kInput2);
  const T* a = context->getInputBuffer<T>(kInput1);
  const T* b = context->getInputBuffer<T>(kInput2);
  uint8_t* out = context->getOutputBuffer<uint8_t>(kOutput);
  forEachBroadcast(sa.dimensions, sb.dimensions, context->getOutputShape(kOutput).dimensions,
                   [&](size_t ia, size_t ib, size_t io) {
                     out[io] = compare(kind, toValue(a[ia], sa), toValue(b[ib], sb)) ? 1 : 0;
                   });
}

template <typename T>
float realValue(T q, const Shape& shape) {
  return static_cast<float>(static_cast<int32_t>(q) - shape.offset) * shape.scale;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 2, 2));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput1);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_BOOL8, OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_INT32, OperandType::TENSOR_QUANT8_ASYMM,
                              OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, type}));
  NN_TRY(validateOutputTypes(context, {OperandType::TENSOR_BOOL8}));
  return elementwise::validateBroadcastShapes(context);
}

Status prepare(IOperationExecutionContext* context) {
  return elementwise::prepareBroadcast(context, kInput1, kInput2, kOutput);
}

Status execute(IOperationExecutionContext* context, Kind kind) {
  auto same = [](auto v, const Shape&) { return v; };
  switch (context->getInputType(kInput1)) {
    case OperandType::TENSOR_BOOL8:
      run<uint8_t>(context, kind, [](uint8_t v, const Shape&) { return v != 0; });
      return {};
    case OperandType::TENSOR_FLOAT32:
      run<float>(context, kind, same);
      return {};
    case OperandType::TENSOR_FLOAT16:
      run<Float16>(context, kind, same);
      return {};
    case OperandType::TENSOR_INT32:
      run<int32_t>(context, kind, same);
      return {};
    case OperandType::TENSOR_QUANT8_ASYMM:
      run<uint8_t>(context, kind, realValue<uint8_t>);
      return {};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      run<int8_t>(context, kind, realValue<int8_t>);
      return {};
    default:
      return NN_ERROR(BAD_DATA) << "unsupported input type " << toString(context->getInputType(kInput1));
  }
}

}  // namespace weft::nn::comparisons
