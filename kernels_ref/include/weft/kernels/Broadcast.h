// NumPy-style broadcasting for element-wise binary operations: dimensions are aligned from the
// right and a dimension of 1 stretches to the other operand's size.
#pragma once

#include <cstddef>
#include <vector>

#include "weft/nn/Result.h"
#include "weft/nn/Types.h"

namespace weft::nn {

// The broadcast shape of `a` and `b`; BAD_DATA when a pair of dimensions is neither equal nor 1.
Result<Dimensions> broadcastDimensions(const Dimensions& a, const Dimensions& b);

// Calls f(indexA, indexB, indexOut) for every element of `out` (the broadcast of a and b), with
// the flat row-major element indexes of the corresponding elements of a and b. The innermost
// dimension runs in a tight loop.
template <typename F>
void forEachBroadcast(const Dimensions& a, const Dimensions& b, const Dimensions& out, F&& f) {
  const size_t rank = out.size();
  if (rank == 0) {
    f(size_t{0}, size_t{0}, size_t{0});
    return;
  }
  // Strides of a and b over out's dimensions; 0 where an operand is broadcast.
  std::vector<size_t> strideA(rank, 0), strideB(rank, 0);
  auto fill = [&](const Dimensions& d, std::vector<size_t>& stride) {
    size_t s = 1;
    for (size_t i = 0; i < d.size(); ++i) {
      const size_t dim = d[d.size() - 1 - i];
      stride[rank - 1 - i] = dim == 1 ? 0 : s;
      s *= dim;
    }
  };
  fill(a, strideA);
  fill(b, strideB);
  const size_t total = numberOfElements(out);
  if (total == 0) return;
  std::vector<size_t> counter(rank, 0);
  size_t ia = 0, ib = 0, io = 0;
  const size_t inner = out[rank - 1];
  while (io < total) {
    for (size_t x = 0; x < inner; ++x) f(ia + x * strideA[rank - 1], ib + x * strideB[rank - 1], io + x);
    io += inner;
    // Advance the outer counters (odometer), keeping ia/ib in step.
    for (size_t d = rank - 1; d-- > 0;) {
      ++counter[d];
      ia += strideA[d];
      ib += strideB[d];
      if (counter[d] < out[d]) break;
      ia -= strideA[d] * counter[d];
      ib -= strideB[d] * counter[d];
      counter[d] = 0;
    }
  }
}

}  // namespace weft::nn
