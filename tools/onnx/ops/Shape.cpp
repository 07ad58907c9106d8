// Operators that move data without arithmetic: reshapes (Reshape, Flatten, Squeeze, Unsqueeze
// all become RESHAPE to the static shape inference found), Transpose, Concat, Split, Slice,
// Gather, Pad, Tile, Expand, DepthToSpace and SpaceToDepth.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

#include "OpUtil.h"
#include "Registry.h"

namespace weft::onnx::ops {
namespace {

using Op = nn::OperationType;

void requireNonEmpty(const Node& node, Lowering& l) {
  for (size_t i = 0; i < node.outputCount(); ++i) {
    if (node.hasOutput(i) && elementCount(shapeOf(l, node.output(i))) == 0) {
      throw ImportError(node.error("an empty output (NNAPI tensors have no zero-sized dimension)"));
    }
  }
}

void convertReshape(const Node& node, Lowering& l) {
  requireNonEmpty(node, l);
  reshapeTo(l, in(node, l, 0), shapeOf(l, node.output(0)), l.output(node, 0));
}

void convertTranspose(const Node& node, Lowering& l) {
  onlyAttributes(node, {"perm"});
  const Shape& x = shapeOf(l, node.input(0));
  const size_t rank = x.size();
  std::vector<int64_t> perm = node.attrInts("perm");
  if (perm.empty()) {
    for (size_t d = 0; d < rank; ++d) perm.push_back(static_cast<int64_t>(rank - 1 - d));
  }
  if (perm.size() != rank) throw ImportError(node.error("perm does not match the input's rank"));
  for (auto& p : perm) p = axisIn(node, p, rank);
  permuteInto(l, in(node, l, 0), x, perm, shapeOf(l, node.output(0)), l.output(node, 0), node.output(0));
}

void convertConcat(const Node& node, Lowering& l) {
  onlyAttributes(node, {"axis"});
  requireNonEmpty(node, l);
  const size_t rank = rankOf(l, node.output(0));
  const int64_t axis = axisIn(node, node.attrInt("axis", 0), rank);
  std::vector<uint32_t> inputs;
  for (size_t i = 0; i < node.inputCount(); ++i) {
    if (!node.hasInput(i) || elementCount(shapeOf(l, node.input(i))) == 0) continue;  // empty pieces add nothing
    inputs.push_back(l.operand(node.input(i)));
  }
  if (inputs.empty()) throw ImportError(node.error("no non-empty inputs"));
  inputs.push_back(l.nn().scalarInt32(static_cast<int32_t>(axis)));
  l.add(Op::CONCATENATION, inputs, {l.output(node, 0)});
}

void convertSplit(const Node& node, Lowering& l) {
  onlyAttributes(node, {"axis", "split", "num_outputs"});
  requireNonEmpty(node, l);
  const Shape& x = shapeOf(l, node.input(0));
  const int64_t axis = axisIn(node, node.attrInt("axis", 0), x.size());
  std::vector<int64_t> sizes;
  for (size_t i = 0; i < node.outputCount(); ++i) {
    if (shapeOf(l, node.output(i)).size() != x.size()) throw ImportError(node.error("outputs of another rank than the input"));
    sizes.push_back(shapeOf(l, node.output(i))[axis]);
  }
  uint32_t input = in(node, l, 0);
  // NNAPI's SPLIT and SLICE take rank 4 at most: a rank-5 input (attention's q, k, v unbound from
  // [3, B, H, T, D]) is split as [before the axis, the axis, after it], each part reshaped back.
  Shape seen = x;
  int64_t at = axis;
  std::vector<uint32_t> outs;
  if (x.size() > 4) {
    const int64_t before = elementCount(Shape(x.begin(), x.begin() + axis));
    const int64_t after = elementCount(Shape(x.begin() + axis + 1, x.end()));
    seen = {before, x[static_cast<size_t>(axis)], after};
    at = 1;
    input = reshaped(l, input, seen, node.output(0) + "_split_view");
    for (size_t i = 0; i < node.outputCount(); ++i) {
      outs.push_back(temporaryLike(l, input, {before, sizes[i], after}, node.output(i) + "_split_part"));
    }
  } else {
    for (size_t i = 0; i < node.outputCount(); ++i) outs.push_back(l.output(node, i));
  }
  // A SLICE a part (not NNAPI's SPLIT): the accelerator copies slices, and int8 quantizes them.
  int64_t offset = 0;
  for (size_t i = 0; i < node.outputCount(); ++i) {
    std::vector<int32_t> begin(seen.size(), 0), size(seen.begin(), seen.end());
    begin[static_cast<size_t>(at)] = static_cast<int32_t>(offset);
    size[static_cast<size_t>(at)] = static_cast<int32_t>(sizes[i]);
    offset += sizes[i];
    l.add(Op::SLICE, {input, l.nn().int32Vector(begin), l.nn().int32Vector(size)}, {outs[i]});
  }
  if (x.size() > 4) {
    for (size_t i = 0; i < node.outputCount(); ++i) reshapeTo(l, outs[i], shapeOf(l, node.output(i)), l.output(node, i));
  }
}

void convertSlice(const Node& node, Lowering& l) {
  requireNonEmpty(node, l);
  const Shape& x = shapeOf(l, node.input(0));
  const size_t rank = x.size();
  std::vector<int64_t> starts, ends, axes, steps;
  if (node.opset() < 10) {
    onlyAttributes(node, {"starts", "ends", "axes"});
    starts = node.attrInts("starts");
    ends = node.attrInts("ends");
    axes = node.attrInts("axes");
  } else {
    starts = constantInts(node, l, 1, "starts");
    ends = constantInts(node, l, 2, "ends");
    if (node.hasInput(3)) axes = constantInts(node, l, 3, "axes");
    if (node.hasInput(4)) steps = constantInts(node, l, 4, "steps");
  }
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
    throw ImportError(node.error("starts, ends, axes and steps differ in length"));
  }
  std::vector<int32_t> begin(rank, 0), end(x.begin(), x.end()), stride(rank, 1);
  int32_t endMask = 0;
  bool unitSteps = true;
  for (size_t k = 0; k < starts.size(); ++k) {
    const int64_t a = axisIn(node, axes[k], rank), dim = x[a], s = steps[k];
    if (s == 0) throw ImportError(node.error("a step of 0"));
    int64_t b = starts[k] < 0 ? starts[k] + dim : starts[k], e = ends[k] < 0 ? ends[k] + dim : ends[k];
    if (s > 0) {
      b = std::clamp<int64_t>(b, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
    } else {
      b = std::clamp<int64_t>(b, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      if (e < 0) endMask |= 1 << a;  // through index 0: NNAPI's end -1 would mean the last element
    }
    begin[a] = static_cast<int32_t>(b);
    end[a] = static_cast<int32_t>(e);
    stride[a] = static_cast<int32_t>(s);
    unitSteps &= s == 1;
  }
  const uint32_t input = in(node, l, 0), out = l.output(node, 0);
  if (unitSteps) {
    std::vector<int32_t> size(rank);
    for (size_t d = 0; d < rank; ++d) size[d] = end[d] - begin[d];
    l.add(Op::SLICE, {input, l.nn().int32Vector(begin), l.nn().int32Vector(size)}, {out});
    return;
  }
  l.add(Op::STRIDED_SLICE,
        {input, l.nn().int32Vector(begin), l.nn().int32Vector(end), l.nn().int32Vector(stride), l.nn().scalarInt32(0),
         l.nn().scalarInt32(endMask), l.nn().scalarInt32(0)},
        {out});
}

void convertGather(const Node& node, Lowering& l) {
  onlyAttributes(node, {"axis"});
  requireNonEmpty(node, l);
  const Shape& x = shapeOf(l, node.input(0));
  const int64_t axis = axisIn(node, node.attrInt("axis", 0), x.size());
  uint32_t indices;
  Shape indexShape = shapeOf(l, node.input(1));
  if (l.isConstant(node.input(1))) {
    // Negative indices count from the end in ONNX; NNAPI's GATHER takes them in [0, n).
    std::vector<int64_t> values = l.constant(node.input(1)).toInts();
    for (auto& v : values) {
      if (v < -x[axis] || v >= x[axis]) throw ImportError(node.error(fmt::format("index {} is outside {}", v, x[axis])));
      if (v < 0) v += x[axis];
    }
    if (indexShape.empty()) indexShape = {1};
    indices = l.constantOperand(HostTensor::fromInts(values, indexShape, DType::kInt32), node.output(0) + "_indices");
  } else {
    // Negative indices count from the end: index + n where index < 0, as NNAPI's GATHER takes
    // indices in [0, n) only.
    const uint32_t raw = in(node, l, 1);
    if (indexShape.empty()) indexShape = {1};
    const std::string name = node.output(0);
    const uint32_t negative = l.temporary(nn::OperandType::TENSOR_BOOL8, indexShape, name + "_negative");
    const uint32_t zero = l.constantOperand(HostTensor::fromInts({0}, {1}, DType::kInt32), name + "_zero");
    l.add(Op::LESS, {raw, zero}, {negative});
    const uint32_t wrapped = l.temporary(nn::OperandType::TENSOR_INT32, indexShape, name + "_wrapped");
    const uint32_t n = l.constantOperand(HostTensor::fromInts({x[axis]}, {1}, DType::kInt32), name + "_n");
    l.add(Op::ADD, {raw, n, l.nn().scalarInt32(kFuseNone)}, {wrapped});
    indices = l.temporary(nn::OperandType::TENSOR_INT32, indexShape, name + "_indices");
    l.add(Op::SELECT, {negative, wrapped, raw}, {indices});
  }
  // A result of rank 5 or 6 (nn.Unfold gathers a window's rows, then its columns, by indices of
  // rank 2) has no NNAPI operand: the value is held by one of rank 4 or less with its elements in
  // order, which its readers take as it (Reshape, Transpose, and Gather again, below).
  const Shape& y = shapeOf(l, node.output(0));
  const auto finish = [&](uint32_t gathered) {
    if (y.size() > 4) {
      l.defineValue(node.output(0), l.info(node.output(0)), gathered);
    } else {
      reshapeTo(l, gathered, y, l.output(node, 0));
    }
  };
  if (x.size() <= 4 && y.size() > 4) {
    Shape flat = x;
    flat[static_cast<size_t>(axis)] = elementCount(indexShape);
    const uint32_t flatIndices = reshaped(l, indices, {elementCount(indexShape)}, node.output(0) + "_flat_indices");
    const uint32_t g = temporaryLike(l, in(node, l, 0), flat, node.output(0) + "_gathered");
    l.add(Op::GATHER, {in(node, l, 0), l.nn().scalarInt32(static_cast<int32_t>(axis)), flatIndices}, {g});
    finish(g);
    return;
  }
  if (x.size() > 4) {
    // NNAPI's GATHER reads rank 4 at most: the axes before and after `axis` merged, [before, n,
    // after] (Swin's q, k, v taken from its rank-5 [3, B, heads, N, d]), then reshaped back.
    int64_t before = 1, after = 1;
    for (size_t d = 0; d < x.size(); ++d) {
      if (static_cast<int64_t>(d) < axis) before *= x[d];
      if (static_cast<int64_t>(d) > axis) after *= x[d];
    }
    const uint32_t merged = reshaped(l, in(node, l, 0), Shape{before, x[axis], after}, node.output(0) + "_merged");
    Shape gathered{before};
    gathered.insert(gathered.end(), indexShape.begin(), indexShape.end());
    gathered.push_back(after);
    if (gathered.size() > 4) {
      throw ImportError(node.error(fmt::format("a Gather of a rank-{} value by indices of rank {}", x.size(),
                                               indexShape.size())));
    }
    const uint32_t g = temporaryLike(l, merged, gathered, node.output(0) + "_gathered");
    l.add(Op::GATHER, {merged, l.nn().scalarInt32(1), indices}, {g});
    finish(g);
    return;
  }
  const uint32_t out = l.output(node, 0);
  if (shapeOf(l, node.input(1)).empty()) {
    // A scalar index drops the axis: gather with a one-element index, then reshape.
    Shape gathered = x;
    gathered[axis] = 1;
    const uint32_t g = l.temporary(l.nn().operand(out).type, gathered, node.output(0) + "_gathered");
    l.add(Op::GATHER, {in(node, l, 0), l.nn().scalarInt32(static_cast<int32_t>(axis)), indices}, {g});
    reshapeTo(l, g, shapeOf(l, node.output(0)), out);
    return;
  }
  l.add(Op::GATHER, {in(node, l, 0), l.nn().scalarInt32(static_cast<int32_t>(axis)), indices}, {out});
}

void convertPad(const Node& node, Lowering& l) {
  onlyAttributes(node, {"mode", "pads", "value", "paddings"});
  requireNonEmpty(node, l);
  const size_t rank = rankOf(l, node.input(0));
  const std::vector<int64_t> pads = node.opset() < 11 ? node.attrInts(node.has("pads") ? "pads" : "paddings")
                                                      : constantInts(node, l, 1, "pads");
  if (pads.size() != 2 * rank) throw ImportError(node.error("pads are not two per dimension"));
  std::vector<int32_t> pairs(2 * rank);
  for (size_t d = 0; d < rank; ++d) {
    if (pads[d] < 0 || pads[d + rank] < 0) throw ImportError(node.error("negative pads (cropping) are not supported"));
    pairs[2 * d] = static_cast<int32_t>(pads[d]);
    pairs[2 * d + 1] = static_cast<int32_t>(pads[d + rank]);
  }
  const std::string mode = node.attrString("mode", "constant");
  const uint32_t input = in(node, l, 0), out = l.output(node, 0);
  const uint32_t paddings = l.constantOperand(
      HostTensor::fromInts(std::vector<int64_t>(pairs.begin(), pairs.end()), {static_cast<int64_t>(rank), 2},
                           DType::kInt32),
      node.output(0) + "_paddings");
  if (mode == "reflect") {
    l.add(Op::MIRROR_PAD, {input, paddings, l.nn().scalarInt32(0)}, {out});
    return;
  }
  if (mode == "edge") {
    // NNAPI has no edge padding: along each padded axis in turn, the first and last slices
    // concatenated before and after the value as many times as the axis is padded (SLICE and
    // CONCATENATION, which the accelerator copies; ReplicationPad2d).
    if (rank > 4) throw ImportError(node.error("edge padding of a rank-" + std::to_string(rank) + " value"));
    Shape shape = shapeOf(l, node.input(0));
    uint32_t current = input;
    size_t last = rank;
    for (size_t d = 0; d < rank; ++d) {
      if (pairs[2 * d] + pairs[2 * d + 1] > 0) last = d;
    }
    if (last == rank) {  // nothing padded
      reshapeTo(l, input, shapeOf(l, node.output(0)), out);
      return;
    }
    for (size_t d = 0; d <= last; ++d) {
      const int32_t before = pairs[2 * d], after = pairs[2 * d + 1];
      if (before + after == 0) continue;
      const std::string name = fmt::format("{}_edge{}", node.output(0), d);
      const auto edge = [&](int64_t at, const std::string& what) {
        std::vector<int32_t> begin(rank, 0), size(shape.begin(), shape.end());
        begin[d] = static_cast<int32_t>(at);
        size[d] = 1;
        Shape sliced = shape;
        sliced[d] = 1;
        const uint32_t e = temporaryLike(l, current, sliced, name + what);
        l.add(Op::SLICE, {current, l.nn().int32Vector(begin), l.nn().int32Vector(size)}, {e});
        return e;
      };
      std::vector<uint32_t> parts;
      if (before > 0) parts.insert(parts.end(), static_cast<size_t>(before), edge(0, "_first"));
      parts.push_back(current);
      if (after > 0) parts.insert(parts.end(), static_cast<size_t>(after), edge(shape[d] - 1, "_last"));
      shape[d] += before + after;
      const uint32_t next = d == last ? out : temporaryLike(l, current, shape, name);
      parts.push_back(l.nn().scalarInt32(static_cast<int32_t>(d)));
      l.add(Op::CONCATENATION, parts, {next});
      current = next;
    }
    return;
  }
  if (mode != "constant") {
    throw ImportError(node.error("mode '" + mode + "' (NNAPI pads with a constant, reflects, or, here, repeats the edge)"));
  }
  float value = node.opset() < 11 ? node.attrFloat("value", 0.0f) : 0.0f;
  if (node.opset() >= 11 && node.hasInput(2)) value = static_cast<float>(constantInput(node, l, 2, "constant_value").asDouble(0));
  requireFloat(node, l, node.input(0));
  if (value == 0.0f) {
    l.add(Op::PAD, {input, paddings}, {out});
  } else {
    l.add(Op::PAD_V2, {input, paddings, floatScalarLike(l, node.input(0), value)}, {out});
  }
}

void convertTile(const Node& node, Lowering& l) {
  requireNonEmpty(node, l);
  std::vector<int64_t> repeats = node.opset() < 6 ? std::vector<int64_t>{} : constantInts(node, l, 1, "repeats");
  std::vector<int32_t> r32(repeats.begin(), repeats.end());
  l.add(Op::TILE, {in(node, l, 0), l.nn().int32Vector(r32)}, {l.output(node, 0)});
}

void convertExpand(const Node& node, Lowering& l) {
  requireNonEmpty(node, l);
  const uint32_t b = broadcastTo(l, node.input(0), in(node, l, 0), shapeOf(l, node.output(0)));
  reshapeTo(l, b, shapeOf(l, node.output(0)), l.output(node, 0));
}

// DepthToSpace and SpaceToDepth of NCHW images. NNAPI moves blocks in DCR order (channel (i * b
// + j) * C + c goes to block position (i, j) of channel c). DepthToSpace's CRD mode, which
// PyTorch's PixelShuffle exports (channel c * b * b + i * b + j), is CHANNEL_SHUFFLE in C groups
// first, which brings channel c * b * b + k to k * C + c, then the DCR move.
Converter blockMove(Op op) {
  return [op](const Node& node, Lowering& l) {
    onlyAttributes(node, {"blocksize", "mode"});
    const std::string mode = node.attrString("mode", "DCR");
    if (mode != "DCR" && !(mode == "CRD" && op == Op::DEPTH_TO_SPACE)) {
      throw ImportError(node.error("mode " + mode + " (NNAPI moves blocks in DCR order)"));
    }
    if (rankOf(l, node.input(0)) != 4) throw ImportError(node.error("only 4-D (NCHW) inputs"));
    const int64_t block = node.attrInt("blocksize", 0);
    if (block < 1 || block > 65535) throw ImportError(node.error("blocksize " + std::to_string(block)));
    uint32_t x = in(node, l, 0);
    if (mode == "CRD") {
      const Shape& shape = shapeOf(l, node.input(0));
      if (shape[1] % (block * block) != 0) {
        throw ImportError(node.error(std::to_string(shape[1]) + " channels are not a multiple of blocksize^2"));
      }
      const uint32_t dcr = l.temporary(l.nn().operand(x).type, shape, node.output(0) + "_dcr");
      l.add(Op::CHANNEL_SHUFFLE,
            {x, l.nn().scalarInt32(static_cast<int32_t>(shape[1] / (block * block))), l.nn().scalarInt32(1)}, {dcr});
      x = dcr;
    }
    l.add(op, {x, l.nn().scalarInt32(static_cast<int32_t>(block)), l.nn().scalarBool(true)}, {l.output(node, 0)});
  };
}

}  // namespace

void registerShape(Registry& r) {
  r.add("Reshape", convertReshape);
  r.add("Flatten", convertReshape);
  r.add("Squeeze", convertReshape);
  r.add("Unsqueeze", convertReshape);
  r.add("Transpose", convertTranspose);
  r.add("Concat", convertConcat);
  r.add("Split", convertSplit);
  r.add("Slice", convertSlice);
  r.add("Gather", convertGather);
  r.add("Pad", convertPad);
  r.add("Tile", convertTile);
  r.add("Expand", convertExpand);
  r.add("DepthToSpace", blockMove(Op::DEPTH_TO_SPACE));
  r.add("SpaceToDepth", blockMove(Op::SPACE_TO_DEPTH));
}

}  // namespace weft::onnx::ops
