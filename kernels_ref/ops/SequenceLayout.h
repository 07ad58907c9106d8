// Batch-major <-> time-major conversion for the sequence operations (RNN and LSTM families):
// their kernels walk time-major data [maxTime, batch, features]; batch-major operands
// [batch, maxTime, features] are transposed in and out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace weft::nn {

// out[j][i][:] = in[i][j][:] for an [d0, d1, inner] tensor.
template <typename T>
void transposeFirstTwoDims(const T* in, uint32_t d0, uint32_t d1, uint32_t inner, T* out) {
  for (uint32_t i = 0; i < d0; ++i) {
    for (uint32_t j = 0; j < d1; ++j) {
      const T* src = in + (size_t{i} * d1 + j) * inner;
      T* dst = out + (size_t{j} * d0 + i) * inner;
      for (uint32_t k = 0; k < inner; ++k) dst[k] = src[k];
    }
  }
}

// Converts between batch-major and time-major order (the same swap both ways): `values` of an
// [d0, d1, inner] tensor are returned unchanged when the operation's data is time-major.
inline std::vector<float> transposeUnlessTimeMajor(std::vector<float> values, bool timeMajor, uint32_t d0, uint32_t d1,
                                      uint32_t inner) {
  if (timeMajor || values.empty()) return values;
  std::vector<float> out(values.size());
  transposeFirstTwoDims(values.data(), d0, d1, inner, out.data());
  return out;
}

}  // namespace weft::nn
