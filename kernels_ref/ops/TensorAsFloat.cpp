#include "TensorAsFloat.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn {

template <typename T>
T quantizeFromFloat(float x, float scale, int32_t zeroPoint) {
  const float q = std::round(x / scale + static_cast<float>(zeroPoint));
  // Clamp in float first so that out-of-range values never reach an int conversion.
  const float lo = static_cast<float>(std::numeric_limits<T>::min());
  const float hi = static_cast<float>(std::numeric_limits<T>::max());
  if (!(q >= lo)) return std::numeric_limits<T>::min();  // also NaN
  if (q > hi) return std::numeric_limits<T>::max();
  return static_cast<T>(q);
}

template uint8_t quantizeFromFloat<uint8_t>(float, float, int32_t);
template int8_t quantizeFromFloat<int8_t>(float, float, int32_t);
template uint16_t quantizeFromFloat<uint16_t>(float, float, int32_t);
template int16_t quantizeFromFloat<int16_t>(float, float, int32_t);

bool hasFloatView(OperandType type) {
  switch (type) {
    case OperandType::TENSOR_FLOAT32:
    case OperandType::TENSOR_FLOAT16:
    case OperandType::TENSOR_QUANT8_ASYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::TENSOR_QUANT16_ASYMM:
    case OperandType::TENSOR_QUANT16_SYMM:
      return true;
    default:
      return false;
  }
}

namespace {

template <typename T>
std::vector<float> dequantizeAll(const void* data, size_t count, const Shape& shape) {
  const T* q = static_cast<const T*>(data);
  std::vector<float> out(count);
  for (size_t i = 0; i < count; ++i) out[i] = dequantizeToFloat(q[i], shape.scale, shape.offset);
  return out;
}

template <typename T>
void quantizeAll(const float* values, size_t count, const Shape& shape, void* data) {
  T* q = static_cast<T*>(data);
  for (size_t i = 0; i < count; ++i) q[i] = quantizeFromFloat<T>(values[i], shape.scale, shape.offset);
}

}  // namespace

std::vector<float> inputAsFloat(const IOperationExecutionContext* context, uint32_t index) {
  const Shape shape = context->getInputShape(index);
  const size_t count = getNumberOfElements(shape);
  const void* data = context->getInputBuffer(index);
  if (count == 0 || data == nullptr) return {};
  switch (shape.type) {
    case OperandType::TENSOR_FLOAT32: {
      const float* f = static_cast<const float*>(data);
      return std::vector<float>(f, f + count);
    }
    case OperandType::TENSOR_FLOAT16:
      return toFloat32(static_cast<const Float16*>(data), count);
    case OperandType::TENSOR_QUANT8_ASYMM:
      return dequantizeAll<uint8_t>(data, count, shape);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return dequantizeAll<int8_t>(data, count, shape);
    case OperandType::TENSOR_QUANT16_ASYMM:
      return dequantizeAll<uint16_t>(data, count, shape);
    case OperandType::TENSOR_QUANT16_SYMM:
      return dequantizeAll<int16_t>(data, count, shape);
    default:
      return {};
  }
}

float scalarAsFloat(const IOperationExecutionContext* context, uint32_t index) {
  if (context->getInputType(index) == OperandType::FLOAT16) {
    return static_cast<float>(context->getInputValue<Float16>(index));
  }
  return context->getInputValue<float>(index);
}

Status writeOutputFromFloat(IOperationExecutionContext* context, uint32_t index, const float* values,
                            size_t count) {
  const Shape shape = context->getOutputShape(index);
  NN_RET_CHECK_LE(count, getNumberOfElements(shape)) << "more values than output elements";
  if (count == 0) return {};
  void* data = context->getOutputBuffer(index);
  NN_RET_CHECK(data != nullptr) << "output " << index << " has no buffer";
  switch (shape.type) {
    case OperandType::TENSOR_FLOAT32:
      std::copy(values, values + count, static_cast<float*>(data));
      return {};
    case OperandType::TENSOR_FLOAT16:
      fromFloat32(values, count, static_cast<Float16*>(data));
      return {};
    case OperandType::TENSOR_QUANT8_ASYMM:
      quantizeAll<uint8_t>(values, count, shape, data);
      return {};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      quantizeAll<int8_t>(values, count, shape, data);
      return {};
    case OperandType::TENSOR_QUANT16_ASYMM:
      quantizeAll<uint16_t>(values, count, shape, data);
      return {};
    case OperandType::TENSOR_QUANT16_SYMM:
      quantizeAll<int16_t>(values, count, shape, data);
      return {};
    default:
      return NN_ERROR(BAD_DATA) << "no float view of output type " << toString(shape.type);
  }
}

}  // namespace weft::nn
