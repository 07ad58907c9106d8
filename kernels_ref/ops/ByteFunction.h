// What the element-wise extension operations of one value (WEFT_GELU, WEFT_UNARY) share: on 8-bit
// tensors the input byte dequantized exactly, the function taken in double and requantized to the
// output's scale and zero point, rounding half away from zero and saturating (an infinity
// saturates, a NaN is the zero point: the real value 0), as a table of the 256 bytes looked up
// per element, which is what the accelerator's vector unit does with the same table; float32 and
// float16 (widened, rounded back once) by their own float function.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::byte_function {

template <typename T, typename F>
void executeQuantized(IOperationExecutionContext* context, uint32_t input, uint32_t output, const F& f) {
  const Shape in = context->getInputShape(input), out = context->getOutputShape(output);
  T table[256];
  for (int b = 0; b < 256; ++b) {
    const double x = (static_cast<double>(std::numeric_limits<T>::min() + b) - in.offset) * static_cast<double>(in.scale);
    const double y = f(x);
    const double r = std::isnan(y) ? out.offset : std::round(y / static_cast<double>(out.scale)) + out.offset;
    table[b] = static_cast<T>(std::clamp<double>(r, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
  }
  const T* x = context->getInputBuffer<T>(input);
  T* y = context->getOutputBuffer<T>(output);
  const size_t n = getNumberOfElements(in);
  for (size_t i = 0; i < n; ++i) y[i] = table[static_cast<int>(x[i]) - std::numeric_limits<T>::min()];
}

// `exact` (double -> double) for 8-bit tensors, `inFloat` (float -> float) for the float types.
template <typename Exact, typename InFloat>
Status execute(IOperationExecutionContext* context, uint32_t input, uint32_t output, const Exact& exact,
               const InFloat& inFloat) {
  const Shape in = context->getInputShape(input);
  const size_t n = getNumberOfElements(in);
  switch (in.type) {
    case OperandType::TENSOR_FLOAT32: {
      const float* x = context->getInputBuffer<float>(input);
      float* y = context->getOutputBuffer<float>(output);
      for (size_t i = 0; i < n; ++i) y[i] = inFloat(x[i]);
      return {};
    }
    case OperandType::TENSOR_FLOAT16: {
      const Float16* x = context->getInputBuffer<Float16>(input);
      Float16* y = context->getOutputBuffer<Float16>(output);
      for (size_t i = 0; i < n; ++i) y[i] = static_cast<Float16>(inFloat(static_cast<float>(x[i])));
      return {};
    }
    case OperandType::TENSOR_QUANT8_ASYMM:
      executeQuantized<uint8_t>(context, input, output, exact);
      return {};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      executeQuantized<int8_t>(context, input, output, exact);
      return {};
    default:
      return NN_ERROR(BAD_DATA) << "unsupported input type " << toString(in.type);
  }
}

}  // namespace weft::nn::byte_function
