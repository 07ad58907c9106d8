// Reductions over axes (ReduceMean/Max/Min/Sum/Prod, and the L1, L2, log-sum, log-sum-exp and
// sum-of-squares forms composed from NNAPI's element-wise operations and REDUCE_SUM), ArgMax
// and ArgMin.
#include <fmt/format.h>

#include <algorithm>

#include "OpUtil.h"
#include "Registry.h"

namespace weft::onnx::ops {
namespace {

using Op = nn::OperationType;

// The axes a Reduce* node reduces, normalized; empty with noop_with_empty_axes means none.
std::vector<int32_t> reducedAxes(const Node& node, Lowering& l, bool& identity) {
  const size_t rank = rankOf(l, node.input(0));
  std::vector<int64_t> axes;
  const bool axesInput = node.op() == "ReduceSum" ? node.opset() >= 13 : node.opset() >= 18;
  if (axesInput) {
    if (node.hasInput(1)) axes = constantInts(node, l, 1, "axes");
  } else {
    axes = node.attrInts("axes");
  }
  identity = axes.empty() && node.attrInt("noop_with_empty_axes", 0) != 0;
  std::vector<int32_t> out;
  if (axes.empty()) {
    for (size_t d = 0; d < rank; ++d) out.push_back(static_cast<int32_t>(d));
  }
  for (int64_t a : axes) out.push_back(static_cast<int32_t>(axisIn(node, a, rank)));
  return out;
}

// A mean or maximum over an NCHW image's plane (PyTorch's x.mean([2, 3])): one pooling window
// over the plane (poolWholePlane), then the reshape that drops the kept dimensions.
void spatialPool(Lowering& l, Op pool, uint32_t input, const Shape& x, bool keep, const std::string& name,
                 uint32_t out) {
  const nn::OperandType type = l.nn().operand(out).type;
  const uint32_t pooled = keep ? out : l.temporary(type, {x[0], x[1], 1, 1}, name + "_pooled");
  poolWholePlane(l, pool, input, x, pooled);
  if (!keep) reshapeTo(l, pooled, {x[0], x[1]}, out);
}

enum class Pre { kNone, kAbs, kSquare, kExp };
enum class Post { kNone, kSqrt, kLog };

Converter reduce(Op op, Pre pre = Pre::kNone, Post post = Post::kNone) {
  return [op, pre, post](const Node& node, Lowering& l) {
    onlyAttributes(node, {"axes", "keepdims", "noop_with_empty_axes"});
    requireFloat(node, l, node.input(0));
    bool identity = false;
    const std::vector<int32_t> axes = reducedAxes(node, l, identity);
    const uint32_t out = l.output(node, 0);
    const nn::OperandType type = l.nn().operand(out).type;
    const Shape& x = shapeOf(l, node.input(0));
    uint32_t input = in(node, l, 0);
    if (identity) {
      reshapeTo(l, input, shapeOf(l, node.output(0)), out);
      return;
    }
    const std::string name = node.output(0);
    if (pre != Pre::kNone) {
      const uint32_t t = l.temporary(type, x, name + "_pre");
      if (pre == Pre::kAbs) l.add(Op::ABS, {input}, {t});
      if (pre == Pre::kExp) l.add(Op::EXP, {input}, {t});
      if (pre == Pre::kSquare) l.add(Op::MUL, {input, input, l.nn().scalarInt32(kFuseNone)}, {t});
      input = t;
    }
    const bool keep = node.attrInt("keepdims", 1) != 0;
    if ((op == Op::MEAN || op == Op::REDUCE_MAX) && pre == Pre::kNone && post == Post::kNone && x.size() == 4 &&
        axes.size() == 2 && std::min(axes[0], axes[1]) == 2 && std::max(axes[0], axes[1]) == 3) {
      spatialPool(l, op == Op::MEAN ? Op::AVERAGE_POOL_2D : Op::MAX_POOL_2D, input, x, keep, name, out);
      return;
    }
    const uint32_t reduced = post == Post::kNone ? out : l.temporary(type, shapeOf(l, node.output(0)), name + "_sum");
    const uint32_t keepOperand = op == Op::MEAN ? l.nn().scalarInt32(keep ? 1 : 0) : l.nn().scalarBool(keep);
    l.add(op, {input, l.nn().int32Vector(axes), keepOperand}, {reduced});
    if (post == Post::kSqrt) l.add(Op::SQRT, {reduced}, {out});
    if (post == Post::kLog) l.add(Op::LOG, {reduced}, {out});
  };
}

Converter argMinMax(Op op) {
  return [op](const Node& node, Lowering& l) {
    onlyAttributes(node, {"axis", "keepdims", "select_last_index"});
    requireAttr(node, "select_last_index", 0, 0);
    const DType t = typeOf(l, node.input(0));
    if (t != DType::kFloat && t != DType::kFloat16 && t != DType::kInt32) {
      throw ImportError(node.error(fmt::format("a {} input", dtypeName(t))));
    }
    const Shape& x = shapeOf(l, node.input(0));
    const int64_t axis = axisIn(node, node.attrInt("axis", 0), x.size());
    const uint32_t out = l.output(node, 0);
    const uint32_t args[] = {in(node, l, 0), l.nn().scalarInt32(static_cast<int32_t>(axis))};
    if (node.attrInt("keepdims", 1) == 0) {
      l.add(op, {args[0], args[1]}, {out});
      return;
    }
    Shape dropped = x;
    dropped.erase(dropped.begin() + axis);
    if (dropped.empty()) throw ImportError(node.error("a 1-D input reduced to a scalar"));
    const uint32_t index = l.temporary(nn::OperandType::TENSOR_INT32, dropped, node.output(0) + "_index");
    l.add(op, {args[0], args[1]}, {index});
    reshapeTo(l, index, shapeOf(l, node.output(0)), out);
  };
}

}  // namespace

void registerReduction(Registry& r) {
  r.add("ReduceMean", reduce(Op::MEAN));
  r.add("ReduceMax", reduce(Op::REDUCE_MAX));
  r.add("ReduceMin", reduce(Op::REDUCE_MIN));
  r.add("ReduceSum", reduce(Op::REDUCE_SUM));
  r.add("ReduceProd", reduce(Op::REDUCE_PROD));
  r.add("ReduceL1", reduce(Op::REDUCE_SUM, Pre::kAbs));
  r.add("ReduceL2", reduce(Op::REDUCE_SUM, Pre::kSquare, Post::kSqrt));
  r.add("ReduceSumSquare", reduce(Op::REDUCE_SUM, Pre::kSquare));
  r.add("ReduceLogSum", reduce(Op::REDUCE_SUM, Pre::kNone, Post::kLog));
  r.add("ReduceLogSumExp", reduce(Op::REDUCE_SUM, Pre::kExp, Post::kLog));
  r.add("ArgMax", argMinMax(Op::ARGMAX));
  r.add("ArgMin", argMinMax(Op::ARGMIN));
}

}  // namespace weft::onnx::ops
