#include "ElementCopy.h"

#include <cstring>

namespace weft::nn {

void copySpaceBlocks(const void* src, void* dst, const ImageGeometry& fine, const ImageGeometry& coarse, uint32_t bh,
                     uint32_t bw, int64_t blockStride, bool toFine, size_t elementSize) {
  // Index space [b, y, dy, x, dx, c] over the coarse grid and the block.
  const Dimensions dims = {fine.batches, coarse.height, bh, coarse.width, bw, fine.channels};
  const OffsetTable fineOffsets = {stridedOffsets(fine.batches, fine.batchStride),
                                   stridedOffsets(coarse.height, int64_t{bh} * fine.heightStride),
                                   stridedOffsets(bh, fine.heightStride),
                                   stridedOffsets(coarse.width, int64_t{bw} * fine.widthStride),
                                   stridedOffsets(bw, fine.widthStride),
                                   stridedOffsets(fine.channels, fine.channelStride)};
  const OffsetTable coarseOffsets = {stridedOffsets(fine.batches, coarse.batchStride),
                                     stridedOffsets(coarse.height, coarse.heightStride),
                                     stridedOffsets(bh, int64_t{bw} * blockStride),
                                     stridedOffsets(coarse.width, coarse.widthStride),
                                     stridedOffsets(bw, blockStride),
                                     stridedOffsets(fine.channels, coarse.channelStride)};
  if (toFine) {
    copyElements(src, coarseOffsets, dst, fineOffsets, dims, elementSize);
  } else {
    copyElements(src, fineOffsets, dst, coarseOffsets, dims, elementSize);
  }
}

std::vector<int64_t> rowMajorStrides(const Dimensions& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) strides[d - 1] = strides[d] * static_cast<int64_t>(dims[d]);
  return strides;
}

std::vector<int64_t> stridedOffsets(uint32_t count, int64_t stride, int64_t start) {
  std::vector<int64_t> offsets(count);
  for (uint32_t i = 0; i < count; ++i) offsets[i] = start + static_cast<int64_t>(i) * stride;
  return offsets;
}

OffsetTable stridedTable(const Dimensions& indexDims, const std::vector<int64_t>& strides, int64_t start) {
  OffsetTable table(indexDims.size());
  for (size_t d = 0; d < indexDims.size(); ++d) table[d] = stridedOffsets(indexDims[d], strides[d], d == 0 ? start : 0);
  return table;
}

OffsetTable contiguousOffsets(const Dimensions& dims) { return stridedTable(dims, rowMajorStrides(dims)); }

namespace {

template <typename E>
void copyTyped(const E* src, const OffsetTable& srcOffsets, E* dst, const OffsetTable& dstOffsets,
               const Dimensions& dims) {
  const size_t rank = dims.size();
  if (rank == 0) {
    dst[0] = src[0];
    return;
  }
  if (numberOfElements(dims) == 0) return;
  // Odometer over the outer dimensions keeping the running source / destination bases; the
  // innermost dimension is the tight loop.
  std::vector<uint32_t> index(rank, 0);
  int64_t s = 0, t = 0;
  for (size_t d = 0; d + 1 < rank; ++d) {
    s += srcOffsets[d][0];
    t += dstOffsets[d][0];
  }
  const std::vector<int64_t>& srcInner = srcOffsets[rank - 1];
  const std::vector<int64_t>& dstInner = dstOffsets[rank - 1];
  const uint32_t inner = dims[rank - 1];
  while (true) {
    for (uint32_t i = 0; i < inner; ++i) dst[t + dstInner[i]] = src[s + srcInner[i]];
    size_t d = rank - 1;
    while (d-- > 0) {
      s -= srcOffsets[d][index[d]];
      t -= dstOffsets[d][index[d]];
      if (++index[d] == dims[d]) index[d] = 0;
      s += srcOffsets[d][index[d]];
      t += dstOffsets[d][index[d]];
      if (index[d] != 0) break;
    }
    if (d == static_cast<size_t>(-1)) return;  // every outer counter wrapped around
  }
}

}  // namespace

void copyElements(const void* src, const OffsetTable& srcOffsets, void* dst, const OffsetTable& dstOffsets,
                  const Dimensions& dims, size_t elementSize) {
  switch (elementSize) {
    case 1:
      copyTyped(static_cast<const uint8_t*>(src), srcOffsets, static_cast<uint8_t*>(dst), dstOffsets, dims);
      break;
    case 2:
      copyTyped(static_cast<const uint16_t*>(src), srcOffsets, static_cast<uint16_t*>(dst), dstOffsets, dims);
      break;
    case 4:
      copyTyped(static_cast<const uint32_t*>(src), srcOffsets, static_cast<uint32_t*>(dst), dstOffsets, dims);
      break;
    case 8:
      copyTyped(static_cast<const uint64_t*>(src), srcOffsets, static_cast<uint64_t*>(dst), dstOffsets, dims);
      break;
    default:
      break;  // no NNAPI tensor type has another element size
  }
}

void gatherElements(const void* src, const OffsetTable& srcOffsets, const Dimensions& dims, size_t elementSize,
                    void* dst) {
  copyElements(src, srcOffsets, dst, contiguousOffsets(dims), dims, elementSize);
}

void fillElements(void* dst, size_t count, const void* value, size_t elementSize) {
  auto* out = static_cast<uint8_t*>(dst);
  for (size_t i = 0; i < count; ++i) std::memcpy(out + i * elementSize, value, elementSize);
}

}  // namespace weft::nn
