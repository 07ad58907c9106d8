// Element movement for the shape and data-movement operations (TRANSPOSE, SLICE, STRIDED_SLICE,
// SPLIT, TILE, REVERSE, MIRROR_PAD, DEPTH_TO_SPACE, BATCH_TO_SPACE_ND, CHANNEL_SHUFFLE, ...).
//
// These operations never look at values, so they move raw elements of 1, 2 or 4 bytes. Each one
// is described as an iteration over an index space `dims` plus, per dimension d, a table of the
// element offset that index i along d contributes on the source (and destination) side:
//
//   element(i_0, ..., i_{n-1}):  dst[sum_d dstOffsets[d][i_d]] = src[sum_d srcOffsets[d][i_d]]
//
// A transpose permutes strides, a slice adds a start, a reverse negates a stride, a tile repeats
// indexes modulo the input size and a mirror pad reflects them; all are the one loop below.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "TensorOpUtils.h"
#include "weft/nn/Types.h"

namespace weft::nn {

// offsets[d][i]: element offset contributed by index i along dimension d.
using OffsetTable = std::vector<std::vector<int64_t>>;

// Row-major element strides of a tensor with `dims`.
std::vector<int64_t> rowMajorStrides(const Dimensions& dims);

// {start, start + stride, ..., start + (count - 1) * stride}.
std::vector<int64_t> stridedOffsets(uint32_t count, int64_t stride, int64_t start = 0);

// The table of a contiguous row-major tensor with `dims` (the identity layout).
OffsetTable contiguousOffsets(const Dimensions& dims);

// The table of the row-major tensor `dims` walked in the order `strides` (one entry per dimension
// of the index space, which may differ in rank from `dims`).
OffsetTable stridedTable(const Dimensions& indexDims, const std::vector<int64_t>& strides, int64_t start = 0);

// For every index of `dims`: dst[sum dstOffsets] = src[sum srcOffsets]. Element sizes 1, 2, 4 and
// 8 bytes. The caller guarantees every computed offset lies inside its buffer.
void copyElements(const void* src, const OffsetTable& srcOffsets, void* dst, const OffsetTable& dstOffsets,
                  const Dimensions& dims, size_t elementSize);

// copyElements into a contiguous row-major destination over `dims`.
void gatherElements(const void* src, const OffsetTable& srcOffsets, const Dimensions& dims, size_t elementSize,
                    void* dst);

// Moves bh x bw spatial blocks between two images (either layout): `fine`, and `coarse`, whose
// grid is bh and bw times smaller and which holds block (dy, dx) in its depth or batch dimension,
// at an offset of (dy * bw + dx) * blockStride elements:
//   fine[b, y * bh + dy, x * bw + dx, c]  <->  coarse[b, y, x, c] + (dy * bw + dx) * blockStride
// for b and c over the fine image's batches and channels. Copies coarse -> fine when `toFine`
// (DEPTH_TO_SPACE, BATCH_TO_SPACE_ND), fine -> coarse otherwise (SPACE_TO_DEPTH, SPACE_TO_BATCH_ND).
void copySpaceBlocks(const void* src, void* dst, const ImageGeometry& fine, const ImageGeometry& coarse, uint32_t bh,
                     uint32_t bw, int64_t blockStride, bool toFine, size_t elementSize);

// Fills `count` elements of `elementSize` bytes at `dst` with the element at `value`.
void fillElements(void* dst, size_t count, const void* value, size_t elementSize);

}  // namespace weft::nn
