// TRANSPOSE and CHANNEL_SHUFFLE on the vector unit (StridedCopy.h): quant8 asymmetric or signed,
// and with the fp16 datapath TENSOR_FLOAT16 (and relaxed TENSOR_FLOAT32, binary16 on the device),
// rank up to 4. TRANSPOSE: a constant permutation (omitted: the axes reversed, as NNAPI says).
// CHANNEL_SHUFFLE: constant groups and axis; the axis seen as [groups, C / groups] is transposed
// (ShuffleNet's channel shuffle). DEPTH_TO_SPACE and SPACE_TO_DEPTH: a constant block size, NHWC
// or NCHW; the channels seen as [block, block, C] (NNAPI's DCR order) and moved beside the rows
// and columns they come from or go to (super-resolution's pixel shuffle). MIRROR_PAD: the
// reflection padding of style transfer and CycleGAN generators, a box per mirrored row, column or
// plane. The output keeps the input's quantization (NNAPI requires it), so the copy moves bytes
// unchanged.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "../ModelAccess.h"
#include "Families.h"
#include "StridedCopy.h"

namespace weft::accel {

nn::Result<LoweredOperation> lowerTranspose(const OperationReader& r, uint32_t index, bool /*withValues*/) {
  NN_TRY(checkCopiedOperands(r));
  const nn::Dimensions& dims = r.input(0).dimensions;
  const size_t rank = dims.size();
  std::vector<uint32_t> perm(rank);
  if (isOmitted(r.input(1))) {
    for (size_t k = 0; k < rank; ++k) perm[k] = static_cast<uint32_t>(rank - 1 - k);
  } else {
    auto values = r.int32Tensor(1, "the permutation");
    if (!values.ok()) return values.error();
    if (values->size() != rank) return r.fail("the permutation has {} values for rank {}", values->size(), rank);
    std::vector<bool> seen(rank);
    for (size_t k = 0; k < rank; ++k) {
      const int32_t p = (*values)[k];
      if (p < 0 || static_cast<size_t>(p) >= rank || seen[p]) return r.fail("the permutation is not one of {} axes", rank);
      seen[p] = true;
      perm[k] = static_cast<uint32_t>(p);
    }
  }
  nn::Dimensions outDims(rank);
  for (size_t k = 0; k < rank; ++k) outDims[k] = dims[perm[k]];
  const uint32_t valueBytes = bytesPerElement(r.valueType(r.input(0)));
  return lowerToCopies(r, index, {permutedBox(dims, perm, valueBytes)}, std::move(outDims),
                       fmt::format("transpose {} perm ({})", fmt::join(dims, "x"), fmt::join(perm, ",")));
}

nn::Result<LoweredOperation> lowerChannelShuffle(const OperationReader& r, uint32_t index, bool /*withValues*/) {
  NN_TRY(checkCopiedOperands(r));
  const nn::Dimensions& dims = r.input(0).dimensions;
  const auto rank = static_cast<int32_t>(dims.size());
  auto groups = r.int32Param(1, "num_groups");
  if (!groups.ok()) return groups.error();
  auto axisValue = r.int32Param(2, "axis");
  if (!axisValue.ok()) return axisValue.error();
  int32_t axis = *axisValue;
  if (axis < -rank || axis >= rank) return r.fail("axis {} is out of range for rank {}", axis, rank);
  if (axis < 0) axis += rank;
  const uint32_t channels = dims[static_cast<size_t>(axis)];
  if (*groups <= 0 || channels % static_cast<uint32_t>(*groups) != 0) {
    return r.fail("{} channels do not split into {} groups", channels, *groups);
  }
  // The axis as [groups, C / groups], those two axes swapped: output channel j * groups + g is
  // input channel g * (C / groups) + j.
  std::vector<uint32_t> view, perm;
  for (int32_t k = 0; k < rank; ++k) {
    if (k == axis) {
      view.push_back(static_cast<uint32_t>(*groups));
      view.push_back(channels / static_cast<uint32_t>(*groups));
    } else {
      view.push_back(dims[static_cast<size_t>(k)]);
    }
  }
  for (uint32_t k = 0; k < view.size(); ++k) perm.push_back(k);
  std::swap(perm[static_cast<size_t>(axis)], perm[static_cast<size_t>(axis) + 1]);
  const uint32_t valueBytes = bytesPerElement(r.valueType(r.input(0)));
  return lowerToCopies(r, index, {permutedBox(view, perm, valueBytes)}, dims,
                       fmt::format("channel shuffle {} in {} groups along axis {}", fmt::join(dims, "x"), *groups, axis));
}

namespace {

// DEPTH_TO_SPACE (toSpace) and SPACE_TO_DEPTH: a 4-D image whose channel c of block position
// (i, j) is channel (i * block + j) * C + c on the depth side, pixel (y * block + i, x * block + j)
// on the space side. Both are a permutation of the depth side's axes [.., block, block, C, ..]
// against the space side's [.., H, block, W, block, ..].
nn::Result<LoweredOperation> lowerBlockMove(const OperationReader& r, uint32_t index, bool toSpace) {
  NN_TRY(checkCopiedOperands(r));
  const nn::Dimensions& dims = r.input(0).dimensions;
  if (dims.size() != 4) return r.fail("a {}-D input (an image is 4-D)", dims.size());
  auto block = r.int32Param(1, "block size");
  if (!block.ok()) return block.error();
  bool nchw = false;
  if (r.op().inputs.size() > 2) {
    auto layout = r.boolParam(2, "layout");
    if (!layout.ok()) return layout.error();
    nchw = *layout;
  }
  if (*block < 1) return r.fail("block size {}", *block);
  const auto b = static_cast<uint32_t>(*block);
  const uint32_t n = dims[0], c = dims[nchw ? 1 : 3], h = dims[nchw ? 2 : 1], w = dims[nchw ? 3 : 2];
  // The space side's image [n, hs, ws, cs] and the depth side's [n, hs / b, ws / b, cs * b * b].
  uint32_t hs = h, ws = w, cs = c;
  if (toSpace) {
    if (c % (b * b) != 0) return r.fail("{} channels are not a multiple of {} x {}", c, b, b);
    hs = h * b, ws = w * b, cs = c / (b * b);
  } else if (h % b != 0 || w % b != 0) {
    return r.fail("{}x{} is not a multiple of the block {}", w, h, b);
  }
  const uint32_t hd = hs / b, wd = ws / b;
  // The depth side's view (its channels as [b, b, cs]) and the space side's (rows as [hd, b],
  // columns as [wd, b]), and where each space axis is on the depth side.
  const std::vector<uint32_t> depthView = nchw ? std::vector<uint32_t>{n, b, b, cs, hd, wd}
                                               : std::vector<uint32_t>{n, hd, wd, b, b, cs};
  const std::vector<uint32_t> spaceView = nchw ? std::vector<uint32_t>{n, cs, hd, b, wd, b}
                                               : std::vector<uint32_t>{n, hd, b, wd, b, cs};
  // Space axes (n, cs, hd, i, wd, j) or (n, hd, i, wd, j, cs) on the depth view.
  const std::vector<uint32_t> spaceFromDepth = nchw ? std::vector<uint32_t>{0, 3, 4, 1, 5, 2}
                                                    : std::vector<uint32_t>{0, 1, 3, 2, 4, 5};
  std::vector<uint32_t> perm(6);
  if (toSpace) {
    perm = spaceFromDepth;
  } else {
    for (uint32_t k = 0; k < 6; ++k) perm[spaceFromDepth[k]] = k;  // its inverse
  }
  const std::vector<uint32_t>& view = toSpace ? depthView : spaceView;
  const nn::Dimensions outDims = toSpace ? (nchw ? nn::Dimensions{n, cs, hs, ws} : nn::Dimensions{n, hs, ws, cs})
                                         : (nchw ? nn::Dimensions{n, cs * b * b, hd, wd} : nn::Dimensions{n, hd, wd, cs * b * b});
  const uint32_t valueBytes = bytesPerElement(r.valueType(r.input(0)));
  return lowerToCopies(r, index, {permutedBox(view, perm, valueBytes)}, outDims,
                       fmt::format("{} {} by {}", toSpace ? "depth to space" : "space to depth", fmt::join(dims, "x"), b));
}

}  // namespace

// A box is the product of one segment of each axis: the output's middle (the input's run, in
// order) or one padded index (the single input index it mirrors). More than this many boxes (pads
// of more than three on two axes) would be slower than the CPU's copy.
constexpr size_t kMaxMirrorBoxes = 64;

nn::Result<LoweredOperation> lowerMirrorPad(const OperationReader& r, uint32_t index, bool /*withValues*/) {
  NN_TRY(checkCopiedOperands(r));
  const nn::Dimensions& dims = r.input(0).dimensions;
  const size_t rank = dims.size();
  auto pads = r.int32Tensor(1, "the paddings");
  if (!pads.ok()) return pads.error();
  if (pads->size() != 2 * rank) return r.fail("{} paddings for rank {}", pads->size(), rank);
  auto mode = r.int32Param(2, "mode");
  if (!mode.ok()) return mode.error();
  if (*mode != 0 && *mode != 1) return r.fail("mode {} is neither REFLECT (0) nor SYMMETRIC (1)", *mode);
  const bool symmetric = *mode == 1;
  struct Segment {
    uint32_t out, in, size;  // output start, input start, length
  };
  std::vector<std::vector<Segment>> segments(rank);
  nn::Dimensions outDims(rank);
  size_t boxes = 1;
  for (size_t a = 0; a < rank; ++a) {
    const int32_t before = (*pads)[2 * a], after = (*pads)[2 * a + 1];
    const auto n = static_cast<int32_t>(dims[a]);
    const int32_t most = symmetric ? n : n - 1;
    if (before < 0 || after < 0 || before > most || after > most) {
      return r.fail("paddings {} and {} of an axis of {} ({} at most in {} mode)", before, after, n, most,
                    symmetric ? "SYMMETRIC" : "REFLECT");
    }
    auto& s = segments[a];
    for (int32_t j = 0; j < before; ++j) {  // output j mirrors input (before - j), or (before - 1 - j)
      s.push_back({static_cast<uint32_t>(j), static_cast<uint32_t>(symmetric ? before - 1 - j : before - j), 1});
    }
    s.push_back({static_cast<uint32_t>(before), 0, static_cast<uint32_t>(n)});
    for (int32_t k = 0; k < after; ++k) {  // output before + n + k mirrors input n - 2 - k, or n - 1 - k
      s.push_back({static_cast<uint32_t>(before + n + k), static_cast<uint32_t>(symmetric ? n - 1 - k : n - 2 - k), 1});
    }
    outDims[a] = static_cast<uint32_t>(before + n + after);
    boxes *= s.size();
  }
  if (boxes > kMaxMirrorBoxes) return r.fail("{} copies (pads of this size on several axes; at most {})", boxes, kMaxMirrorBoxes);
  const uint32_t valueBytes = bytesPerElement(r.valueType(r.input(0)));
  const std::vector<uint64_t> inStrides = denseStrides(dims, valueBytes), outStrides = denseStrides(outDims, valueBytes);
  std::vector<CopyBox> copies;
  std::vector<size_t> at(rank, 0);  // the segment of each axis, an odometer
  for (size_t b = 0; b < boxes; ++b) {
    CopyBox box;
    for (size_t a = 0; a < rank; ++a) {
      const Segment& g = segments[a][at[a]];
      box.inputOffset += g.in * inStrides[a];
      box.outputOffset += g.out * outStrides[a];
      box.axes.push_back({g.size, inStrides[a], outStrides[a]});
    }
    copies.push_back(std::move(box));
    for (size_t a = rank; a-- > 0;) {
      if (++at[a] < segments[a].size()) break;
      at[a] = 0;
    }
  }
  return lowerToCopies(r, index, std::move(copies), std::move(outDims),
                       fmt::format("{} pad {} ({})", symmetric ? "symmetric" : "reflect", fmt::join(dims, "x"),
                                   fmt::join(*pads, ",")));
}

nn::Result<LoweredOperation> lowerDepthToSpace(const OperationReader& r, uint32_t index, bool /*withValues*/) {
  return lowerBlockMove(r, index, true);
}

nn::Result<LoweredOperation> lowerSpaceToDepth(const OperationReader& r, uint32_t index, bool /*withValues*/) {
  return lowerBlockMove(r, index, false);
}

}  // namespace weft::accel
