// Moving a quantized value from one (scale, zero point) to another the way NNAPI's reference does
// for the operations that pick values rather than compute them (MAXIMUM, MINIMUM, SELECT): through
// a real value, rounded to nearest with ties away from zero, saturated to the type.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "weft/nn/Types.h"

namespace weft::nn::elementwise {

template <typename T>
T requantize(T value, const Shape& from, const Shape& to) {
  // The reference multiplies in float and divides in double; keep both so that ties round alike.
  const float real = static_cast<float>(static_cast<int32_t>(value) - from.offset) * from.scale;
  const double q = static_cast<double>(real) / to.scale + to.offset;
  if (q < std::numeric_limits<T>::min()) return std::numeric_limits<T>::min();
  if (q > std::numeric_limits<T>::max()) return std::numeric_limits<T>::max();
  return static_cast<T>(std::round(q));
}

}  // namespace weft::nn::elementwise
