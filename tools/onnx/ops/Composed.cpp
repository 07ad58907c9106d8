// Operators NNAPI has no operation for, composed exactly from the ones it has: trigonometric and
// hyperbolic functions (from SIN and EXP), the piecewise activations (ThresholdedRelu, Shrink,
// HardSigmoid, Celu, Sign), NaN and infinity tests, Trilu as a mask, TopK, CastLike and
// MeanVarianceNormalization.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "OpUtil.h"
#include "Registry.h"

namespace weft::onnx::ops {
namespace {

using Op = nn::OperationType;

// Builds a chain of operations on one float value, each a new temporary of the node's shape.
class Chain {
 public:
  Chain(const Node& node, Lowering& l) : node_(node), l_(l) {
    shape_ = shapeOf(l, node.input(0));
    type_ = l.nn().operand(l.operand(node.input(0))).type;
  }
  uint32_t temp(const std::string& what) { return l_.temporary(type_, shape_, node_.output(0) + "_" + what); }
  uint32_t constant(float v, const std::string& what) {
    return floatConstantLike(l_, node_.input(0), {v}, {1}, node_.output(0) + "_" + what);
  }
  uint32_t unary(Op op, uint32_t a, uint32_t out) {
    l_.add(op, {a}, {out});
    return out;
  }
  // ADD, SUB, MUL and DIV with the fused activation `fuse` (NNAPI's code); none by default.
  uint32_t binary(Op op, uint32_t a, uint32_t b, uint32_t out, int32_t fuse = kFuseNone) {
    const bool fused = op == Op::ADD || op == Op::SUB || op == Op::MUL || op == Op::DIV;
    if (fused) {
      l_.add(op, {a, b, l_.nn().scalarInt32(fuse)}, {out});
    } else {
      l_.add(op, {a, b}, {out});
    }
    return out;
  }
  uint32_t boolTemp(const std::string& what) {
    return l_.temporary(nn::OperandType::TENSOR_BOOL8, shape_, node_.output(0) + "_" + what);
  }

 private:
  const Node& node_;
  Lowering& l_;
  Shape shape_;
  nn::OperandType type_;
};

void convertCos(const Node& node, Lowering& l) {
  onlyAttributes(node, {});
  requireFloat(node, l, node.input(0));
  Chain c(node, l);
  const uint32_t shifted = c.binary(Op::ADD, in(node, l, 0), c.constant(static_cast<float>(M_PI / 2), "half_pi"), c.temp("shifted"));
  c.unary(Op::SIN, shifted, l.output(node, 0));
}

void convertTan(const Node& node, Lowering& l) {
  onlyAttributes(node, {});
  requireFloat(node, l, node.input(0));
  Chain c(node, l);
  const uint32_t x = in(node, l, 0);
  const uint32_t s = c.unary(Op::SIN, x, c.temp("sin"));
  const uint32_t shifted = c.binary(Op::ADD, x, c.constant(static_cast<float>(M_PI / 2), "half_pi"), c.temp("shifted"));
  const uint32_t co = c.unary(Op::SIN, shifted, c.temp("cos"));
  c.binary(Op::DIV, s, co, l.output(node, 0));
}

// sinh(x) = (e^x - e^-x) / 2, cosh(x) = (e^x + e^-x) / 2.
Converter hyperbolic(bool cosh) {
  return [cosh](const Node& node, Lowering& l) {
    onlyAttributes(node, {});
    requireFloat(node, l, node.input(0));
    Chain c(node, l);
    const uint32_t x = in(node, l, 0);
    const uint32_t ex = c.unary(Op::EXP, x, c.temp("exp"));
    const uint32_t negx = c.unary(Op::NEG, x, c.temp("neg"));
    const uint32_t enx = c.unary(Op::EXP, negx, c.temp("exp_neg"));
    const uint32_t both = c.binary(cosh ? Op::ADD : Op::SUB, ex, enx, c.temp("sum"));
    c.binary(Op::MUL, both, c.constant(0.5f, "half"), l.output(node, 0));
  };
}

void convertThresholdedRelu(const Node& node, Lowering& l) {
  onlyAttributes(node, {"alpha"});
  requireFloat(node, l, node.input(0));
  Chain c(node, l);
  const uint32_t x = in(node, l, 0);
  const uint32_t above = c.binary(Op::GREATER, x, c.constant(node.attrFloat("alpha", 1.0f), "alpha"), c.boolTemp("above"));
  const uint32_t zeros = l.constantOperand(HostTensor(typeOf(l, node.input(0)), shapeOf(l, node.input(0))),
                                           node.output(0) + "_zeros");
  l.add(Op::SELECT, {above, x, zeros}, {l.output(node, 0)});
}

// Shrink: x - bias where x > lambd, x + bias where x < -lambd, else 0.
void convertShrink(const Node& node, Lowering& l) {
  onlyAttributes(node, {"bias", "lambd"});
  requireFloat(node, l, node.input(0));
  const float bias = node.attrFloat("bias", 0.0f), lambd = node.attrFloat("lambd", 0.5f);
  Chain c(node, l);
  const uint32_t x = in(node, l, 0);
  const uint32_t zeros =
      l.constantOperand(HostTensor(typeOf(l, node.input(0)), shapeOf(l, node.input(0))), node.output(0) + "_zeros");
  const uint32_t high = c.binary(Op::GREATER, x, c.constant(lambd, "lambd"), c.boolTemp("high"));
  const uint32_t low = c.binary(Op::LESS, x, c.constant(-lambd, "neg_lambd"), c.boolTemp("low"));
  const uint32_t minus = c.binary(Op::SUB, x, c.constant(bias, "bias"), c.temp("minus"));
  const uint32_t plus = c.binary(Op::ADD, x, c.constant(bias, "bias2"), c.temp("plus"));
  const uint32_t lowPart = c.temp("low_part");
  l.add(Op::SELECT, {low, plus, zeros}, {lowPart});
  l.add(Op::SELECT, {high, minus, lowPart}, {l.output(node, 0)});
}

// HardSigmoid: max(0, min(1, alpha * x + beta)) = relu6(6 alpha x + 6 beta) / 6: the ADD's fused
// RELU6 clamps at 0 and 6, so the chain is three operations that quantize and run where ADD and
// MUL do (MobileNetV3's hard sigmoids and swishes; as MINIMUM and MAXIMUM, which NNAPI's int8
// accelerator path lacks, they stayed float on the CPU). The multiplication by 6 alpha goes when
// it is 1 (PyTorch's alpha 1/6).
void convertHardSigmoid(const Node& node, Lowering& l) {
  onlyAttributes(node, {"alpha", "beta"});
  requireFloat(node, l, node.input(0));
  Chain c(node, l);
  const float alpha = node.attrFloat("alpha", 0.2f), beta = node.attrFloat("beta", 0.5f);
  uint32_t scaled = in(node, l, 0);
  if (6.0f * alpha != 1.0f) scaled = c.binary(Op::MUL, scaled, c.constant(6.0f * alpha, "six_alpha"), c.temp("scaled"));
  const uint32_t clamped =
      c.binary(Op::ADD, scaled, c.constant(6.0f * beta, "six_beta"), c.temp("clamped"), kFuseRelu6);
  c.binary(Op::MUL, clamped, c.constant(1.0f / 6.0f, "sixth"), l.output(node, 0));
}

// Celu: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
void convertCelu(const Node& node, Lowering& l) {
  onlyAttributes(node, {"alpha"});
  requireFloat(node, l, node.input(0));
  const float alpha = node.attrFloat("alpha", 1.0f);
  Chain c(node, l);
  const uint32_t x = in(node, l, 0);
  const uint32_t pos = c.binary(Op::MAXIMUM, x, c.constant(0.0f, "zero"), c.temp("pos"));
  const uint32_t div = c.binary(Op::DIV, x, c.constant(alpha, "alpha"), c.temp("div"));
  const uint32_t e = c.unary(Op::EXP, div, c.temp("exp"));
  const uint32_t em1 = c.binary(Op::SUB, e, c.constant(1.0f, "one"), c.temp("em1"));
  const uint32_t scaled = c.binary(Op::MUL, em1, c.constant(alpha, "alpha2"), c.temp("scaled"));
  const uint32_t neg = c.binary(Op::MINIMUM, scaled, c.constant(0.0f, "zero2"), c.temp("neg"));
  c.binary(Op::ADD, pos, neg, l.output(node, 0));
}

// Sign: (x > 0) - (x < 0), selected from constants.
void convertSign(const Node& node, Lowering& l) {
  onlyAttributes(node, {});
  requireFloat(node, l, node.input(0));
  Chain c(node, l);
  const uint32_t x = in(node, l, 0);
  const Shape& shape = shapeOf(l, node.input(0));
  auto filled = [&](float v, const std::string& what) {
    HostTensor t(DType::kFloat, shape);
    for (int64_t i = 0; i < t.size(); ++i) t.setDouble(i, v);
    return l.constantOperand(typeOf(l, node.input(0)) == DType::kFloat16 ? t.castTo(DType::kFloat16) : t,
                             node.output(0) + "_" + what);
  };
  const uint32_t pos = c.binary(Op::GREATER, x, c.constant(0.0f, "zero"), c.boolTemp("pos"));
  const uint32_t neg = c.binary(Op::LESS, x, c.constant(0.0f, "zero2"), c.boolTemp("neg"));
  const uint32_t negPart = c.temp("neg_part");
  l.add(Op::SELECT, {neg, filled(-1.0f, "minus_one"), filled(0.0f, "zeros")}, {negPart});
  l.add(Op::SELECT, {pos, filled(1.0f, "ones"), negPart}, {l.output(node, 0)});
}

void convertIsNaN(const Node& node, Lowering& l) {
  onlyAttributes(node, {});
  requireFloat(node, l, node.input(0));
  const uint32_t x = in(node, l, 0);
  l.add(Op::NOT_EQUAL, {x, x}, {l.output(node, 0)});
}

void convertIsInf(const Node& node, Lowering& l) {
  onlyAttributes(node, {"detect_negative", "detect_positive"});
  requireFloat(node, l, node.input(0));
  const bool negative = node.attrInt("detect_negative", 1) != 0, positive = node.attrInt("detect_positive", 1) != 0;
  Chain c(node, l);
  const uint32_t x = in(node, l, 0), out = l.output(node, 0);
  const float inf = std::numeric_limits<float>::infinity();
  if (negative && positive) {
    const uint32_t a = c.unary(Op::ABS, x, c.temp("abs"));
    c.binary(Op::EQUAL, a, c.constant(inf, "inf"), out);
  } else if (positive) {
    c.binary(Op::EQUAL, x, c.constant(inf, "inf"), out);
  } else if (negative) {
    c.binary(Op::EQUAL, x, c.constant(-inf, "neg_inf"), out);
  } else {
    // Neither: all false (x != x is false but for NaN, which is not infinite either).
    const uint32_t nan = c.binary(Op::NOT_EQUAL, x, x, c.boolTemp("nan"));
    l.add(Op::LOGICAL_AND, {nan, l.constantOperand(HostTensor(DType::kBool, {1}), node.output(0) + "_false")}, {out});
  }
}

// Trilu: the input times a constant triangular mask (k from its optional input).
void convertTrilu(const Node& node, Lowering& l) {
  onlyAttributes(node, {"upper"});
  const Shape& shape = shapeOf(l, node.input(0));
  if (shape.size() < 2) throw ImportError(node.error("an input of rank below 2"));
  const DType t = typeOf(l, node.input(0));
  if (t != DType::kFloat && t != DType::kFloat16 && t != DType::kInt32 && t != DType::kInt64) {
    throw ImportError(node.error(fmt::format("a {} input", dtypeName(t))));
  }
  const int64_t k = node.hasInput(1) ? constantInput(node, l, 1, "k").asInt(0) : 0;
  const bool upper = node.attrInt("upper", 1) != 0;
  const int64_t rows = shape[shape.size() - 2], cols = shape[shape.size() - 1];
  HostTensor mask(t == DType::kInt64 ? DType::kInt32 : t, {rows, cols});
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) mask.setInt(i * cols + j, upper ? (j - i >= k) : (j - i <= k));
  }
  l.add(Op::MUL, {in(node, l, 0), l.constantOperand(mask, node.output(0) + "_mask"), l.nn().scalarInt32(kFuseNone)},
        {l.output(node, 0)});
}

// TopK along the last axis, largest first (NNAPI's TOPK_V2).
void convertTopK(const Node& node, Lowering& l) {
  onlyAttributes(node, {"axis", "largest", "sorted", "k"});
  requireAttr(node, "largest", 1, 1);
  requireAttr(node, "sorted", 1, 1);
  const Shape& x = shapeOf(l, node.input(0));
  if (axisIn(node, node.attrInt("axis", -1), x.size()) + 1 != static_cast<int64_t>(x.size())) {
    throw ImportError(node.error("an axis other than the last (NNAPI's TOPK_V2 takes the last)"));
  }
  const int64_t k = node.opset() < 10 ? node.attrInt("k", 0) : constantInput(node, l, 1, "K").asInt(0);
  l.add(Op::TOPK_V2, {in(node, l, 0), l.nn().scalarInt32(static_cast<int32_t>(k))},
        {l.output(node, 0), l.output(node, 1)});
}

void convertCastLike(const Node& node, Lowering& l) {
  onlyAttributes(node, {"saturate"});
  castOrCopy(l, in(node, l, 0), shapeOf(l, node.output(0)), l.output(node, 0));
}

// MeanVarianceNormalization: (x - mean) / sqrt(variance) over `axes` (default N, H, W); no
// epsilon, as ONNX's definition has none (its function adds 1e-9).
void convertMvn(const Node& node, Lowering& l) {
  onlyAttributes(node, {"axes"});
  requireFloat(node, l, node.input(0));
  const size_t rank = rankOf(l, node.input(0));
  std::vector<int32_t> axes;
  for (int64_t a : node.attrInts("axes", {0, 2, 3})) axes.push_back(static_cast<int32_t>(axisIn(node, a, rank)));
  Shape stats = shapeOf(l, node.input(0));
  for (int32_t a : axes) stats[a] = 1;
  Chain c(node, l);
  const nn::OperandType type = l.nn().operand(l.operand(node.input(0))).type;
  const uint32_t x = in(node, l, 0);
  const uint32_t mean = l.temporary(type, stats, node.output(0) + "_mean");
  l.add(Op::MEAN, {x, l.nn().int32Vector(axes), l.nn().scalarInt32(1)}, {mean});
  const uint32_t centered = c.binary(Op::SUB, x, mean, c.temp("centered"));
  const uint32_t squared = c.binary(Op::MUL, centered, centered, c.temp("squared"));
  const uint32_t variance = l.temporary(type, stats, node.output(0) + "_variance");
  l.add(Op::MEAN, {squared, l.nn().int32Vector(axes), l.nn().scalarInt32(1)}, {variance});
  const uint32_t eps = l.temporary(type, stats, node.output(0) + "_variance_eps");
  l.add(Op::ADD, {variance, c.constant(1e-9f, "eps"), l.nn().scalarInt32(kFuseNone)}, {eps});
  const uint32_t inv = l.temporary(type, stats, node.output(0) + "_inv_std");
  l.add(Op::RSQRT, {eps}, {inv});
  c.binary(Op::MUL, centered, inv, l.output(node, 0));
}

// Selu: gamma * (x > 0 ? x : alpha * (exp(x) - 1)).
void convertSelu(const Node& node, Lowering& l) {
  onlyAttributes(node, {"alpha", "gamma"});
  requireFloat(node, l, node.input(0));
  const float alpha = node.attrFloat("alpha", 1.67326319217681884765625f);
  const float gamma = node.attrFloat("gamma", 1.05070102214813232421875f);
  Chain c(node, l);
  const uint32_t x = in(node, l, 0);
  const uint32_t pos = c.binary(Op::MAXIMUM, x, c.constant(0.0f, "zero"), c.temp("pos"));
  const uint32_t neg = c.binary(Op::MINIMUM, x, c.constant(0.0f, "zero2"), c.temp("neg"));
  const uint32_t e = c.unary(Op::EXP, neg, c.temp("exp"));
  const uint32_t em1 = c.binary(Op::SUB, e, c.constant(1.0f, "one"), c.temp("em1"));
  const uint32_t scaled = c.binary(Op::MUL, em1, c.constant(alpha, "alpha"), c.temp("scaled"));
  const uint32_t sum = c.binary(Op::ADD, pos, scaled, c.temp("sum"));
  c.binary(Op::MUL, sum, c.constant(gamma, "gamma"), l.output(node, 0));
}

// Softplus: log(exp(x) + 1).
void convertSoftplus(const Node& node, Lowering& l) {
  onlyAttributes(node, {});
  requireFloat(node, l, node.input(0));
  Chain c(node, l);
  const uint32_t e = c.unary(Op::EXP, in(node, l, 0), c.temp("exp"));
  const uint32_t ep1 = c.binary(Op::ADD, e, c.constant(1.0f, "one"), c.temp("ep1"));
  c.unary(Op::LOG, ep1, l.output(node, 0));
}

// Softsign: x / (1 + |x|).
void convertSoftsign(const Node& node, Lowering& l) {
  onlyAttributes(node, {});
  requireFloat(node, l, node.input(0));
  Chain c(node, l);
  const uint32_t x = in(node, l, 0);
  const uint32_t a = c.unary(Op::ABS, x, c.temp("abs"));
  const uint32_t ap1 = c.binary(Op::ADD, a, c.constant(1.0f, "one"), c.temp("ap1"));
  c.binary(Op::DIV, x, ap1, l.output(node, 0));
}

}  // namespace

void registerComposed(Registry& r) {
  r.add("Selu", convertSelu);
  r.add("Softplus", convertSoftplus);
  r.add("Softsign", convertSoftsign);
  r.add("Cos", convertCos);
  r.add("Tan", convertTan);
  r.add("Sinh", hyperbolic(false));
  r.add("Cosh", hyperbolic(true));
  r.add("ThresholdedRelu", convertThresholdedRelu);
  r.add("Shrink", convertShrink);
  r.add("HardSigmoid", convertHardSigmoid);
  r.add("Celu", convertCelu);
  r.add("Sign", convertSign);
  r.add("IsNaN", convertIsNaN);
  r.add("IsInf", convertIsInf);
  r.add("Trilu", convertTrilu);
  r.add("TopK", convertTopK);
  r.add("CastLike", convertCastLike);
  r.add("MeanVarianceNormalization", convertMvn);
}

}  // namespace weft::onnx::ops
