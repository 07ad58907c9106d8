// Element-wise operators: arithmetic, comparisons and logic (NNAPI broadcasts as numpy does),
// unary math, activations, Clip, Where, Cast, Identity and Dropout at inference.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "../Folding.h"
#include "OpUtil.h"
#include "Registry.h"

namespace weft::onnx::ops {
namespace {

using Op = nn::OperationType;

// The NNAPI types an element-wise operation takes, besides float32 and float16.
bool takesInt32(Op op) {
  switch (op) {
    case Op::ADD:
    case Op::SUB:
    case Op::MUL:
    case Op::DIV:
    case Op::MAXIMUM:
    case Op::MINIMUM:
    case Op::EQUAL:
    case Op::NOT_EQUAL:
    case Op::GREATER:
    case Op::GREATER_EQUAL:
    case Op::LESS:
    case Op::LESS_EQUAL:
    case Op::NEG:
    case Op::ABS: return true;
    default: return false;
  }
}

void requireTypeFor(const Node& node, Lowering& l, const std::string& value, Op op) {
  const DType t = typeOf(l, value);
  if (t == DType::kFloat || t == DType::kFloat16) return;
  if ((t == DType::kInt32 || t == DType::kInt64) && takesInt32(op)) return;
  if (t == DType::kBool && (op == Op::EQUAL || op == Op::NOT_EQUAL)) return;
  throw ImportError(node.error(fmt::format("'{}' is {}, which NNAPI's {} does not take", value, dtypeName(t),
                                           nn::toString(op))));
}

// `op` (with a fuse code) of two values whose broadcast has rank above 4, which NNAPI's operations
// do not read: neighbouring axes that broadcast alike (full in both, or 1 in the same operand)
// merge, both operands are reshaped to at most four such axes, and the result reshaped back.
// Swin's shifted-window attention adds its [1, nW, 1, N, N] mask to [B, nW, heads, N, N] so
// ([B, nW, heads, N*N]). Refused by name when more than four groups are left.
void mergedBroadcast(const Node& node, Lowering& l, Op op) {
  const Shape out = shapeOf(l, node.output(0));
  const auto padded = [&](const Shape& s) {
    Shape p(out.size() - s.size(), 1);
    p.insert(p.end(), s.begin(), s.end());
    return p;
  };
  const Shape a = padded(shapeOf(l, node.input(0))), b = padded(shapeOf(l, node.input(1)));
  Shape ma, mb;
  int last = -1;  // the pattern of the group being merged: 0 both full, 1 a broadcast, 2 b broadcast, 3 both 1
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == 1) continue;  // a unit axis goes with any group
    const int pattern = (a[d] == 1 ? 1 : 0) | (b[d] == 1 ? 2 : 0);
    if (pattern == last) {
      ma.back() *= a[d];
      mb.back() *= b[d];
    } else {
      ma.push_back(a[d]);
      mb.push_back(b[d]);
      last = pattern;
    }
  }
  if (ma.size() > 4) {
    throw ImportError(node.error(fmt::format("a broadcast of {} and {} that no rank-4 one expresses",
                                             shapeString(shapeOf(l, node.input(0))),
                                             shapeString(shapeOf(l, node.input(1))))));
  }
  if (ma.empty()) ma = mb = {1};
  Shape mo(ma.size());
  for (size_t d = 0; d < ma.size(); ++d) mo[d] = std::max(ma[d], mb[d]);
  // A constant (the mask) is laid out at its merged shape directly: NNAPI reshapes nothing of rank 5.
  const auto mergedInput = [&](size_t i, const Shape& shape, const char* suffix) {
    const std::string name = node.output(0) + suffix;
    if (!l.isConstant(node.input(i))) return reshaped(l, in(node, l, i), shape, name);
    const HostTensor& c = l.constant(node.input(i));
    return l.constantOperand(HostTensor(c.type, shape, c.bytes), name);
  };
  const uint32_t x = mergedInput(0, ma, "_a_merged");
  const uint32_t y = mergedInput(1, mb, "_b_merged");
  const uint32_t result = l.output(node, 0);
  const uint32_t merged = l.temporary(l.nn().operand(result).type, mo, node.output(0) + "_merged");
  l.add(op, {x, y, l.nn().scalarInt32(kFuseNone)}, {merged});
  reshapeTo(l, merged, out, result);
}

// Two-input arithmetic with a fuse code (ADD, SUB, MUL, DIV).
Converter arithmetic(Op op) {
  return [op](const Node& node, Lowering& l) {
    // No `broadcast` or `axis`: a model of opset 6 or older reaches here converted to opset 7
    // (Importer::alignLegacyBroadcasts, then ONNX's version converter).
    onlyAttributes(node, {});
    requireTypeFor(node, l, node.input(0), op);
    if (op == Op::DIV && typeOf(l, node.input(0)) != DType::kFloat && typeOf(l, node.input(0)) != DType::kFloat16) {
      // NNAPI's integer DIV rounds toward negative infinity, ONNX's toward zero: equal only for
      // operands of one sign, which an import cannot know.
      throw ImportError(node.error("integer Div (NNAPI rounds toward negative infinity, ONNX toward zero)"));
    }
    if (rankOf(l, node.output(0)) > 4) return mergedBroadcast(node, l, op);
    l.add(op, {in(node, l, 0), in(node, l, 1), l.nn().scalarInt32(kFuseNone)}, {l.output(node, 0)});
  };
}

// Two inputs, no parameters (POW, MAXIMUM, comparisons, logic).
Converter binary(Op op) {
  return [op](const Node& node, Lowering& l) {
    onlyAttributes(node, {});
    if (op != Op::LOGICAL_AND && op != Op::LOGICAL_OR) requireTypeFor(node, l, node.input(0), op);
    l.add(op, {in(node, l, 0), in(node, l, 1)}, {l.output(node, 0)});
  };
}

// Pow by a constant 2 is MUL(x, x): the same value (both round the exact square once), and a
// multiplication runs where a power does not (the accelerator's vector unit in 8-bit and binary16;
// RMSNorm's x.pow(2)). Other exponents are POW.
void convertPow(const Node& node, Lowering& l) {
  onlyAttributes(node, {});
  requireTypeFor(node, l, node.input(0), Op::POW);
  if (typeOf(l, node.input(1)) != typeOf(l, node.input(0))) {
    throw ImportError(node.error("a Pow whose exponent's type differs from its base's"));
  }
  bool square = isFloat(typeOf(l, node.input(0))) && l.isConstant(node.input(1)) &&
                shapeOf(l, node.output(0)) == shapeOf(l, node.input(0));
  if (square) {
    const HostTensor& e = l.constant(node.input(1));
    for (int64_t i = 0; i < e.size() && square; ++i) square = e.asDouble(i) == 2.0;
    square = square && e.size() > 0;
  }
  if (square) {
    const uint32_t x = in(node, l, 0);
    l.add(Op::MUL, {x, x, l.nn().scalarInt32(kFuseNone)}, {l.output(node, 0)});
    return;
  }
  l.add(Op::POW, {in(node, l, 0), in(node, l, 1)}, {l.output(node, 0)});
}

// Neg of a float value is MUL by -1 (exact), which runs where NEG does not (the accelerator's
// vector unit; a rotary embedding's rotate_half); of an int32 value NEG (its wrap at INT32_MIN).
void convertNeg(const Node& node, Lowering& l) {
  onlyAttributes(node, {});
  requireTypeFor(node, l, node.input(0), Op::NEG);
  if (!isFloat(typeOf(l, node.input(0)))) {
    l.add(Op::NEG, {in(node, l, 0)}, {l.output(node, 0)});
    return;
  }
  l.add(Op::MUL, {in(node, l, 0), floatConstantLike(l, node.input(0), {-1.0f}, {1}, node.output(0) + "_minus_one"),
                  l.nn().scalarInt32(kFuseNone)},
        {l.output(node, 0)});
}

Converter unary(Op op) {
  return [op](const Node& node, Lowering& l) {
    onlyAttributes(node, {});
    requireTypeFor(node, l, node.input(0), op);
    l.add(op, {in(node, l, 0)}, {l.output(node, 0)});
  };
}

// Max, Min, Sum and Mean of any number of inputs: a chain of the binary operation.
Converter variadic(Op op, bool mean) {
  return [op, mean](const Node& node, Lowering& l) {
    onlyAttributes(node, {});
    std::vector<std::string> inputs;
    for (size_t i = 0; i < node.inputCount(); ++i) {
      if (node.hasInput(i)) inputs.push_back(node.input(i));
    }
    if (inputs.empty()) throw ImportError(node.error("no inputs"));
    requireTypeFor(node, l, inputs[0], op);
    const bool fused = op == Op::ADD;
    auto apply = [&](uint32_t a, uint32_t b, uint32_t out) {
      if (fused) l.add(op, {a, b, l.nn().scalarInt32(kFuseNone)}, {out});
      else l.add(op, {a, b}, {out});
    };
    const uint32_t output = l.output(node, 0);
    const ValueInfo& outInfo = l.info(node.output(0));
    const nn::OperandType type = l.nn().operand(output).type;
    if (inputs.size() == 1 && !mean) {
      reshapeTo(l, l.operand(inputs[0]), outInfo.shape, output);
      return;
    }
    uint32_t acc = l.operand(inputs[0]);
    Shape accShape = l.info(inputs[0]).shape;
    for (size_t i = 1; i < inputs.size(); ++i) {
      accShape = broadcastShapes(accShape, l.info(inputs[i]).shape, node);
      const bool last = i + 1 == inputs.size() && !mean;
      const uint32_t next = last ? output : l.temporary(type, accShape, fmt::format("{}_partial{}", node.output(0), i));
      apply(acc, l.operand(inputs[i]), next);
      acc = next;
    }
    if (mean) {
      const uint32_t scale = floatConstantLike(l, inputs[0], {1.0f / static_cast<float>(inputs.size())}, {1},
                                               node.output(0) + "_mean_scale");
      l.add(Op::MUL, {acc, scale, l.nn().scalarInt32(kFuseNone)}, {output});
    }
  };
}

void convertNot(const Node& node, Lowering& l) {
  onlyAttributes(node, {});
  l.add(Op::LOGICAL_NOT, {in(node, l, 0)}, {l.output(node, 0)});
}

void convertXor(const Node& node, Lowering& l) {
  onlyAttributes(node, {});
  l.add(Op::NOT_EQUAL, {in(node, l, 0), in(node, l, 1)}, {l.output(node, 0)});
}

// ceil(x) = -floor(-x), exactly.
void convertCeil(const Node& node, Lowering& l) {
  onlyAttributes(node, {});
  requireFloat(node, l, node.input(0));
  const Shape& shape = shapeOf(l, node.input(0));
  const uint32_t out = l.output(node, 0);
  const nn::OperandType type = l.nn().operand(out).type;
  const uint32_t negated = l.temporary(type, shape, node.output(0) + "_neg");
  l.add(Op::NEG, {in(node, l, 0)}, {negated});
  const uint32_t floored = l.temporary(type, shape, node.output(0) + "_floor");
  l.add(Op::FLOOR, {negated}, {floored});
  l.add(Op::NEG, {floored}, {out});
}

void convertReciprocal(const Node& node, Lowering& l) {
  onlyAttributes(node, {});
  requireFloat(node, l, node.input(0));
  const uint32_t one = floatConstantLike(l, node.input(0), {1.0f}, {1}, node.output(0) + "_one");
  l.add(Op::DIV, {one, in(node, l, 0), l.nn().scalarInt32(kFuseNone)}, {l.output(node, 0)});
}

// Relu, Sigmoid, Tanh, HardSwish: one input, float.
Converter activation(Op op) {
  return [op](const Node& node, Lowering& l) {
    onlyAttributes(node, {});
    requireFloatOrQuantized(node, l, node.input(0));
    l.add(op, {in(node, l, 0)}, {l.output(node, 0)});
  };
}

void convertElu(const Node& node, Lowering& l) {
  onlyAttributes(node, {"alpha"});
  requireFloat(node, l, node.input(0));
  l.add(Op::ELU, {in(node, l, 0), floatScalarLike(l, node.input(0), node.attrFloat("alpha", 1.0f))},
        {l.output(node, 0)});
}

void convertLeakyRelu(const Node& node, Lowering& l) {
  onlyAttributes(node, {"alpha"});
  requireFloat(node, l, node.input(0));
  const uint32_t alpha =
      floatConstantLike(l, node.input(0), {node.attrFloat("alpha", 0.01f)}, {1}, node.output(0) + "_alpha");
  l.add(Op::PRELU, {in(node, l, 0), alpha}, {l.output(node, 0)});
}

void convertPRelu(const Node& node, Lowering& l) {
  onlyAttributes(node, {});
  requireFloat(node, l, node.input(0));
  // NNAPI broadcasts alpha to the input (numpy rules), as ONNX's unidirectional broadcast does.
  const Shape& x = shapeOf(l, node.input(0));
  broadcastShapes(x, shapeOf(l, node.input(1)), node);
  if (!l.isConstant(node.input(1)) || l.constant(node.input(1)).size() <= 1) {
    // One slope: an 8-bit PRELU is a function of the input byte, which the accelerator looks up.
    l.add(Op::PRELU, {in(node, l, 0), in(node, l, 1)}, {l.output(node, 0)});
    return;
  }
  // A slope by channel (nn.PReLU(C)) is relu(x) + alpha * (x - relu(x)), exactly PRELU's value in
  // float (x - relu(x) is x or 0), and operations int8 keeps on the accelerator, where PRELU of
  // many slopes is no one table.
  const std::string name = node.output(0);
  const nn::OperandType type = l.nn().operand(l.operand(node.input(0))).type;
  const uint32_t input = in(node, l, 0), fuse = l.nn().scalarInt32(kFuseNone);
  const uint32_t positive = l.temporary(type, x, name + "_positive");
  l.add(Op::RELU, {input}, {positive});
  const uint32_t negative = l.temporary(type, x, name + "_negative");
  l.add(Op::SUB, {input, positive, fuse}, {negative});
  const uint32_t sloped = l.temporary(type, x, name + "_sloped");
  l.add(Op::MUL, {negative, in(node, l, 1), fuse}, {sloped});
  l.add(Op::ADD, {positive, sloped, fuse}, {l.output(node, 0)});
}

void convertClip(const Node& node, Lowering& l) {
  onlyAttributes(node, {"min", "max"});
  requireFloat(node, l, node.input(0));
  float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
  const uint32_t x = in(node, l, 0), out = l.output(node, 0);
  if (node.opset() < 11) {
    lo = node.attrFloat("min", lo);
    hi = node.attrFloat("max", hi);
  } else if ((node.hasInput(1) && !l.isConstant(node.input(1))) || (node.hasInput(2) && !l.isConstant(node.input(2)))) {
    // Bounds computed at run time: MAXIMUM and MINIMUM with them.
    const nn::OperandType type = l.nn().operand(out).type;
    uint32_t current = x;
    if (node.hasInput(1)) {
      const uint32_t next = node.hasInput(2) ? l.temporary(type, shapeOf(l, node.output(0)), node.output(0) + "_lo") : out;
      l.add(Op::MAXIMUM, {current, in(node, l, 1)}, {next});
      current = next;
    }
    if (node.hasInput(2)) l.add(Op::MINIMUM, {current, in(node, l, 2)}, {out});
    return;
  } else {
    if (node.hasInput(1)) lo = static_cast<float>(constantInput(node, l, 1, "min").asDouble(0));
    if (node.hasInput(2)) hi = static_cast<float>(constantInput(node, l, 2, "max").asDouble(0));
  }
  if (lo == 0.0f && std::isinf(hi) && hi > 0) return l.add(Op::RELU, {x}, {out});
  if (lo == 0.0f && hi == 6.0f) return l.add(Op::RELU6, {x}, {out});
  if (lo == -1.0f && hi == 1.0f) return l.add(Op::RELU1, {x}, {out});
  const nn::OperandType type = l.nn().operand(out).type;
  uint32_t current = x;
  if (!std::isinf(lo)) {
    const uint32_t bound = floatConstantLike(l, node.input(0), {lo}, {1}, node.output(0) + "_min");
    const uint32_t next = std::isinf(hi) ? out : l.temporary(type, shapeOf(l, node.output(0)), node.output(0) + "_lo");
    l.add(Op::MAXIMUM, {current, bound}, {next});
    current = next;
  }
  if (!std::isinf(hi)) {
    const uint32_t bound = floatConstantLike(l, node.input(0), {hi}, {1}, node.output(0) + "_max");
    l.add(Op::MINIMUM, {current, bound}, {out});
    current = out;
  }
  if (current != out) reshapeTo(l, current, shapeOf(l, node.output(0)), out);
}

// The entry of `t` (of a shape that broadcasts to `shape`) that output index `flat` reads.
int64_t broadcastIndex(const Shape& t, const Shape& shape, int64_t flat) {
  int64_t index = 0, stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    const int64_t coordinate = flat % shape[d];
    flat /= shape[d];
    const size_t k = d + t.size();
    if (k < shape.size()) continue;  // t has fewer dimensions: this one broadcasts
    const int64_t size = t[k - shape.size()];
    if (size != 1) index += coordinate * stride;
    stride *= size;
  }
  return index;
}

// Where of a constant condition between a computed value and a constant mask (every entry one
// value of magnitude 1e30 or more, or infinite: GPT-2's torch.where(causal, w, finfo.min)) is an
// ADD of a constant holding 0 where the value is kept and the mask's value elsewhere: x + v is v
// exactly (|x| far below half of v's ulp), and int8 quantizes an ADD of a mask as attention's
// (PostTraining.h) where SELECT stays float on the CPU. False for any other Where.
bool whereAsMaskAdd(const Node& node, Lowering& l) {
  if (!l.isConstant(node.input(0)) || l.isConstant(node.input(1)) == l.isConstant(node.input(2))) return false;
  const DType type = typeOf(l, node.output(0));
  if (type != DType::kFloat && type != DType::kFloat16) return false;
  const bool maskWhenTrue = l.isConstant(node.input(1));  // where(c, mask, x)
  const HostTensor& mask = l.constant(node.input(maskWhenTrue ? 1 : 2));
  if (mask.size() == 0) return false;
  const double v = mask.asDouble(0);
  if (!(std::isinf(v) || std::fabs(v) >= 1e30)) return false;
  for (int64_t i = 1; i < mask.size(); ++i) {
    if (mask.asDouble(i) != v) return false;
  }
  const HostTensor& c = l.constant(node.input(0));
  const Shape& shape = shapeOf(l, node.output(0));
  HostTensor add(type, shape);
  for (int64_t i = 0; i < add.size(); ++i) {
    const bool condition = c.asDouble(broadcastIndex(c.shape, shape, i)) != 0;
    add.setDouble(i, condition == maskWhenTrue ? v : 0.0);
  }
  l.add(Op::ADD, {in(node, l, maskWhenTrue ? 2 : 1), l.constantOperand(std::move(add), node.output(0) + "_mask"),
                  l.nn().scalarInt32(kFuseNone)},
        {l.output(node, 0)});
  return true;
}

void convertWhere(const Node& node, Lowering& l) {
  onlyAttributes(node, {});
  if (whereAsMaskAdd(node, l)) return;
  // NNAPI's SELECT takes three tensors of one shape: the inputs are broadcast first.
  const Shape& shape = shapeOf(l, node.output(0));
  const uint32_t c = broadcastTo(l, node.input(0), in(node, l, 0), shape);
  const uint32_t x = broadcastTo(l, node.input(1), in(node, l, 1), shape);
  const uint32_t y = broadcastTo(l, node.input(2), in(node, l, 2), shape);
  l.add(Op::SELECT, {c, x, y}, {l.output(node, 0)});
}

void convertCast(const Node& node, Lowering& l) {
  onlyAttributes(node, {"to", "saturate"});
  const DType from = typeOf(l, node.input(0)), to = typeOf(l, node.output(0));
  auto castable = [](DType t) {
    return t == DType::kFloat || t == DType::kFloat16 || t == DType::kInt32 || t == DType::kInt64;
  };
  if (!castable(from) || !castable(to)) {
    throw ImportError(node.error(fmt::format("a cast from {} to {} (NNAPI's CAST converts float32, float16 and "
                                             "int32)",
                                             dtypeName(from), dtypeName(to))));
  }
  castOrCopy(l, in(node, l, 0), shapeOf(l, node.output(0)), l.output(node, 0));
}

// Identity, and Dropout at inference (its mask output is refused).
void convertIdentity(const Node& node, Lowering& l) {
  onlyAttributes(node, {"ratio", "seed", "is_test"});
  // Dropout at inference passes its input and keeps every element: the mask is all true.
  if (node.op() == "Dropout" && node.opset() >= 12 && node.hasInput(2)) {
    // In training mode a ratio of 0 still drops nothing (torchvision's Swin exports its attention
    // dropout so, with training_mode set and p = 0); any other ratio would draw random masks.
    const bool dropsNothing = node.hasInput(1) && l.isConstant(node.input(1)) &&
                              l.constant(node.input(1)).size() > 0 && l.constant(node.input(1)).asDouble(0) == 0.0;
    if (!dropsNothing && constantInput(node, l, 2, "training_mode").asInt(0) != 0) {
      throw ImportError(node.error("training_mode=1 with a ratio above 0 (inference only)"));
    }
  }
  l.alias(node.output(0), in(node, l, 0));
  if (node.op() == "Dropout" && node.hasOutput(1)) {
    HostTensor mask(DType::kBool, shapeOf(l, node.input(0)));
    for (int64_t i = 0; i < mask.size(); ++i) mask.setInt(i, 1);
    l.alias(node.output(1), l.constantOperand(mask, node.output(1)));
  }
}

// Softmax and LogSoftmax. Before opset 13 they normalize over every dimension from `axis` on
// (the input seen as 2-D); NNAPI normalizes along one axis, so the input is reshaped to 2-D and
// back unless the trailing dimensions are one. NNAPI's tensors have rank 4 at most: a rank-5
// input is seen as [before the axis, the axis, after it].
Converter softmax(Op op) {
  return [op](const Node& node, Lowering& l) {
    onlyAttributes(node, {"axis"});
    requireFloatOrQuantized(node, l, node.input(0));
    const Shape& shape = shapeOf(l, node.input(0));
    const size_t rank = shape.size();
    const int64_t axis = axisIn(node, node.attrInt("axis", node.opset() >= 13 ? -1 : 1), rank);
    const uint32_t x = in(node, l, 0), out = l.output(node, 0);
    const uint32_t beta = floatScalarLike(l, node.input(0), 1.0f);
    const bool oneAxis = node.opset() >= 13 || axis + 1 == static_cast<int64_t>(rank);
    if (oneAxis && rank <= 4) {
      l.add(op, {x, beta, l.nn().scalarInt32(static_cast<int32_t>(axis))}, {out});
      return;
    }
    const int64_t outer = elementCount(Shape(shape.begin(), shape.begin() + axis));
    Shape flat{outer, elementCount(shape) / std::max<int64_t>(outer, 1)};
    if (oneAxis && axis + 1 < static_cast<int64_t>(rank)) {  // rank 5 and more: [outer, axis, inner]
      flat = {outer, shape[static_cast<size_t>(axis)], flat[1] / std::max<int64_t>(shape[static_cast<size_t>(axis)], 1)};
    }
    const uint32_t x2 = reshaped(l, x, flat, node.output(0) + "_2d");
    const uint32_t y2 = temporaryLike(l, out, flat, node.output(0) + "_2d_out");
    l.add(op, {x2, beta, l.nn().scalarInt32(1)}, {y2});
    reshapeTo(l, y2, shape, out);
  };
}

}  // namespace

void registerElementwise(Registry& r) {
  r.add("Add", arithmetic(Op::ADD));
  r.add("Sub", arithmetic(Op::SUB));
  r.add("Mul", arithmetic(Op::MUL));
  r.add("Div", arithmetic(Op::DIV));
  r.add("Pow", convertPow);
  r.add("Equal", binary(Op::EQUAL));
  r.add("Greater", binary(Op::GREATER));
  r.add("GreaterOrEqual", binary(Op::GREATER_EQUAL));
  r.add("Less", binary(Op::LESS));
  r.add("LessOrEqual", binary(Op::LESS_EQUAL));
  r.add("And", binary(Op::LOGICAL_AND));
  r.add("Or", binary(Op::LOGICAL_OR));
  r.add("Xor", convertXor);
  r.add("Not", convertNot);
  r.add("Max", variadic(Op::MAXIMUM, false));
  r.add("Min", variadic(Op::MINIMUM, false));
  r.add("Sum", variadic(Op::ADD, false));
  r.add("Mean", variadic(Op::ADD, true));
  r.add("Abs", unary(Op::ABS));
  r.add("Neg", convertNeg);
  r.add("Exp", unary(Op::EXP));
  r.add("Log", unary(Op::LOG));
  r.add("Sqrt", unary(Op::SQRT));
  r.add("Sin", unary(Op::SIN));
  r.add("Floor", unary(Op::FLOOR));
  r.add("Reciprocal", convertReciprocal);
  r.add("Ceil", convertCeil);
  r.add("Relu", activation(Op::RELU));
  r.add("Sigmoid", activation(Op::LOGISTIC));
  r.add("Tanh", activation(Op::TANH));
  r.add("HardSwish", activation(Op::HARD_SWISH));
  r.add("Elu", convertElu);
  r.add("LeakyRelu", convertLeakyRelu);
  r.add("PRelu", convertPRelu);
  r.add("Clip", convertClip);
  r.add("Where", convertWhere);
  r.add("Cast", convertCast);
  r.add("Identity", convertIdentity);
  r.add("Dropout", convertIdentity);
  r.add("Softmax", softmax(Op::SOFTMAX));
  r.add("LogSoftmax", softmax(Op::LOG_SOFTMAX));
}

}  // namespace weft::onnx::ops
