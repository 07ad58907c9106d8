// Pooling in NCHW (NNAPI's layout flag set): windows with explicit padding (ceil_mode becomes
// extra padding at the end), the global pools as reductions over the spatial axes.
#include <fmt/format.h>

#include "OpUtil.h"
#include "Registry.h"

namespace weft::onnx::ops {
namespace {

using Op = nn::OperationType;

Converter windowPool(Op op) {
  return [op](const Node& node, Lowering& l) -> void {
    onlyAttributes(node, {"auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads",
                          "storage_order", "strides"});
    requireFloatOrQuantized(node, l, node.input(0));
    if (node.hasOutput(1)) throw ImportError(node.error("the Indices output is not supported"));
    const Shape& x = shapeOf(l, node.input(0));
    if (x.size() == 3) return convertAs2d(node, l, windowPool(op));
    if (x.size() != 4) {
      throw ImportError(node.error(fmt::format("a {}-D input: only 1-D and 2-D pooling (NCHW) is supported", x.size())));
    }
    const auto kernel = node.attrInts("kernel_shape"), strides = node.attrInts("strides", {1, 1});
    const auto dilations = node.attrInts("dilations", {1, 1});
    if (kernel.size() != 2 || strides.size() != 2) throw ImportError(node.error("only 2-D windows are supported"));
    for (int64_t d : dilations) {
      if (d != 1) throw ImportError(node.error("dilated pooling (NNAPI's pools have no dilation)"));
    }
    const bool ceil = node.attrInt("ceil_mode", 0) != 0;
    const Padding2d p = windowPadding(node, x, kernel, strides, dilations, ceil ? &shapeOf(l, node.output(0)) : nullptr);
    if (op == Op::AVERAGE_POOL_2D && node.attrInt("count_include_pad", 0) != 0 &&
        (p.top || p.left || p.bottom || p.right)) {
      throw ImportError(node.error("count_include_pad=1 with padding (NNAPI averages over the input only)"));
    }
    auto scalar = [&](int64_t v) { return l.nn().scalarInt32(static_cast<int32_t>(v)); };
    l.add(op,
          {in(node, l, 0), scalar(p.left), scalar(p.right), scalar(p.top), scalar(p.bottom), scalar(strides[1]),
           scalar(strides[0]), scalar(kernel[1]), scalar(kernel[0]), scalar(kFuseNone), l.nn().scalarBool(true)},
          {l.output(node, 0)});
  };
}

Converter globalPool(Op op) {
  return [op](const Node& node, Lowering& l) {
    onlyAttributes(node, {});
    requireFloatOrQuantized(node, l, node.input(0));
    const size_t rank = rankOf(l, node.input(0));
    if (rank < 3) throw ImportError(node.error("an input without spatial axes"));
    std::vector<int32_t> axes;
    for (size_t d = 2; d < rank; ++d) axes.push_back(static_cast<int32_t>(d));
    const uint32_t keep = op == Op::MEAN ? l.nn().scalarInt32(1) : l.nn().scalarBool(true);
    l.add(op, {in(node, l, 0), l.nn().int32Vector(axes), keep}, {l.output(node, 0)});
  };
}

}  // namespace

void registerPooling(Registry& r) {
  r.add("MaxPool", windowPool(Op::MAX_POOL_2D));
  r.add("AveragePool", windowPool(Op::AVERAGE_POOL_2D));
  r.add("GlobalAveragePool", globalPool(Op::MEAN));
  r.add("GlobalMaxPool", globalPool(Op::REDUCE_MAX));
}

}  // namespace weft::onnx::ops
