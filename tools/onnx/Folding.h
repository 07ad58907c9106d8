// Constant folding, as a simplifier (onnx-simplifier, ONNX Runtime's graph optimizer) does: a
// node whose inputs are all known values is evaluated at import, so the shape arithmetic of an
// exporter (Shape, Gather, Slice, Concat, Unsqueeze, ConstantOfShape, Range, Expand, Where, Cast
// and the arithmetic between them) never reaches NNAPI, and a Reshape's target shape is a
// constant. Shape and Size fold from the static shapes inference found.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "HostTensor.h"
#include "Node.h"

namespace weft::onnx {

// What folding knows of an input: its value when constant, else only its type and static shape
// (enough for Shape and Size).
struct FoldInput {
  const HostTensor* value = nullptr;  // null: computed at run time
  DType type = DType::kUndefined;
  std::optional<Shape> shape;         // the static shape, when known
};

// The node's outputs, or nullopt when it cannot be folded (an input is not constant, the operator
// is not one folding evaluates, or the result would be larger than `maxElements`). Throws
// ImportError for inputs that contradict the operator (a bad axis, mismatched shapes).
std::optional<std::vector<HostTensor>> foldNode(const Node& node, const std::vector<FoldInput>& inputs,
                                                int64_t maxElements = int64_t{1} << 24);

// numpy broadcasting of two shapes; ImportError (naming `node`) when they do not broadcast.
Shape broadcastShapes(const Shape& a, const Shape& b, const Node& node);

}  // namespace weft::onnx
