// Half precision for TENSOR_FLOAT16 / FLOAT16 operands. GCC 12 on x86-64 supports _Float16 in C++
// (software-emulated arithmetic, IEEE binary16 storage, round-to-nearest-even conversions).
#pragma once

#include <cstddef>
#include <vector>

namespace weft::nn {

using Float16 = _Float16;
static_assert(sizeof(Float16) == 2, "TENSOR_FLOAT16 elements are 2 bytes");

// NNAPI's reference computes most float16 operations in float32 and rounds the result back to
// float16 once; these two helpers are that round trip.
inline std::vector<float> toFloat32(const Float16* data, size_t count) {
  std::vector<float> out(count);
  for (size_t i = 0; i < count; ++i) out[i] = static_cast<float>(data[i]);
  return out;
}

inline void fromFloat32(const float* data, size_t count, Float16* out) {
  for (size_t i = 0; i < count; ++i) out[i] = static_cast<Float16>(data[i]);
}

}  // namespace weft::nn
