// Batch-major <-> time-major conversion for the sequence operations (RNN and LSTM families):
// their kernels walk time-major data [maxTime, batch, features]; batch-major operands
// [batch, maxTime, features] are transposed in and out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "weft/kernels/OperationResolver.h"

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

// The layout, time and batch sizes an operation's sequence operands share:
// [maxTime, batch, features] when time-major, else [batch, maxTime, features].
struct SequenceShape {
  bool timeMajor = false;
  uint32_t maxTime = 0, batchSize = 0;

  // The dimensions of a sequence operand with `features` per row.
  Dimensions dimensions(uint32_t features) const;
  // Input `index`, a 3-D sequence operand of any tensor type, as float32 in time-major order.
  std::vector<float> readTimeMajor(const IOperationExecutionContext* context, uint32_t index) const;
  // Writes time-major `values` with `features` per row to output `index` in the operation's layout.
  Status writeFromTimeMajor(IOperationExecutionContext* context, uint32_t index, const std::vector<float>& values,
                            uint32_t features) const;
};

// The sequence shape of 3-D dimensions `dims` in the given layout.
SequenceShape sequenceShape(const Dimensions& dims, bool timeMajor);

// The DimensionAgreement names of a sequence operand's first two dimensions at validation:
// "maxTime" and "batch" in the order of the layout when the layout flag is a known constant, free
// (nullptr) otherwise.
struct SequenceDimNames {
  const char* first = nullptr;
  const char* second = nullptr;
};
SequenceDimNames sequenceDimNames(bool layoutKnown, bool timeMajor);

// The output count of BIDIRECTIONAL_SEQUENCE_RNN / _LSTM: the forward output (holding both
// directions when `merge`), the backward output unless `merge`, then optionally `finalStates`
// final states.
inline bool bidirectionalOutputsFit(uint32_t outputs, bool merge, uint32_t finalStates) {
  const uint32_t sequences = merge ? 1 : 2;
  return outputs == sequences || outputs == sequences + finalStates;
}

}  // namespace weft::nn
