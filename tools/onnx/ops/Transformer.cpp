// The transformer layers NNAPI has no operation for, onto org.weft.accel's (weft/WeftExtension.h)
// when the import may use them (ImportOptions::weftExtensions): LayerNormalization over the last
// axis as WEFT_LAYER_NORM, and Gelu (ONNX opset 20's operator, or the exporters' chains that
// Fusion.h puts back together) as WEFT_GELU. Without the extension, or where its operation does
// not apply (other axes, the statistics asked for as outputs), LayerNormalization is composed
// from NNAPI operations and the tanh form of GELU too; GELU's exact form cannot be.
#include <fmt/format.h>

#include <cmath>

#include "OpUtil.h"
#include "Registry.h"
#include "weft/WeftExtension.h"

namespace weft::onnx::ops {
namespace {

using Op = nn::OperationType;

// LayerNormalization over the axes from `axis` on, in NNAPI operations: mean and variance by MEAN, the
// normalization by SUB, MUL and RSQRT, then scale and bias (broadcast over the normalized axes).
// Its optional Mean and InvStdDev outputs are the statistics it computed.
void decomposeLayerNorm(const Node& node, Lowering& l) {
  const Shape& x = shapeOf(l, node.input(0));
  const size_t rank = x.size();
  const int64_t axis = axisIn(node, node.attrInt("axis", -1), rank);
  std::vector<int32_t> axes;
  for (size_t d = static_cast<size_t>(axis); d < rank; ++d) axes.push_back(static_cast<int32_t>(d));
  Shape stats = x;
  for (size_t d = static_cast<size_t>(axis); d < rank; ++d) stats[d] = 1;
  const std::string name = node.output(0);
  const nn::OperandType type = l.nn().operand(l.operand(node.input(0))).type;
  const uint32_t input = in(node, l, 0), fuse = l.nn().scalarInt32(kFuseNone);
  const uint32_t mean = node.hasOutput(1) ? l.output(node, 1) : l.temporary(type, stats, name + "_mean");
  l.add(Op::MEAN, {input, l.nn().int32Vector(axes), l.nn().scalarInt32(1)}, {mean});
  const uint32_t centered = l.temporary(type, x, name + "_centered");
  l.add(Op::SUB, {input, mean, fuse}, {centered});
  const uint32_t squared = l.temporary(type, x, name + "_squared");
  l.add(Op::MUL, {centered, centered, fuse}, {squared});
  const uint32_t variance = l.temporary(type, stats, name + "_variance");
  l.add(Op::MEAN, {squared, l.nn().int32Vector(axes), l.nn().scalarInt32(1)}, {variance});
  const uint32_t shifted = l.temporary(type, stats, name + "_variance_eps");
  l.add(Op::ADD, {variance, floatConstantLike(l, node.input(0), {node.attrFloat("epsilon", 1e-5f)}, {1}, name + "_eps"), fuse},
        {shifted});
  const uint32_t invStd = node.hasOutput(2) ? l.output(node, 2) : l.temporary(type, stats, name + "_inv_std");
  l.add(Op::RSQRT, {shifted}, {invStd});
  const uint32_t normalized = l.temporary(type, x, name + "_normalized");
  l.add(Op::MUL, {centered, invStd, fuse}, {normalized});
  const uint32_t out = l.output(node, 0);
  const uint32_t scaled = node.hasInput(2) ? l.temporary(type, x, name + "_scaled") : out;
  l.add(Op::MUL, {normalized, in(node, l, 1), fuse}, {scaled});
  if (node.hasInput(2)) l.add(Op::ADD, {scaled, in(node, l, 2), fuse}, {out});
}

// LayerNormalization (opset 17; and the chains Fusion.h fuses).
void convertLayerNorm(const Node& node, Lowering& l) {
  onlyAttributes(node, {"axis", "epsilon", "stash_type"});
  requireFloat(node, l, node.input(0));
  const Shape& x = shapeOf(l, node.input(0));
  const int64_t axis = axisIn(node, node.attrInt("axis", -1), x.size());
  const auto isChannelVector = [&](size_t i) {
    return !node.hasInput(i) || shapeOf(l, node.input(i)) == Shape{x.back()};
  };
  const bool extension = l.weftExtensions() && axis + 1 == static_cast<int64_t>(x.size()) && x.size() <= 4 &&
                         !node.hasOutput(1) && !node.hasOutput(2) && isChannelVector(1) && isChannelVector(2);
  if (!extension) return decomposeLayerNorm(node, l);
  const std::string name = node.output(0);
  const float epsilon = node.attrFloat("epsilon", 1e-5f);
  const uint32_t gamma = in(node, l, 1);
  const uint32_t beta = node.hasInput(2)
                            ? in(node, l, 2)
                            : floatConstantLike(l, node.input(0), std::vector<float>(x.back(), 0.0f), {x.back()},
                                                name + "_beta");
  l.add(l.nn().weftOperation(WEFT_LAYER_NORM), {in(node, l, 0), gamma, beta, floatScalarLike(l, node.input(0), epsilon)},
        {l.output(node, 0)});
}

// GELU, x * Phi(x): Gelu's attribute approximate "none" (erf) or "tanh".
void convertGelu(const Node& node, Lowering& l) {
  onlyAttributes(node, {"approximate"});
  requireFloat(node, l, node.input(0));
  const std::string form = node.attrString("approximate", "none");
  if (form != "none" && form != "tanh") {
    throw ImportError(node.error(fmt::format("approximate \"{}\" is neither \"none\" nor \"tanh\"", form)));
  }
  if (!l.weftExtensions()) {
    throw ImportError(node.error("GELU needs org.weft.accel's WEFT_GELU (NNAPI has no erf), which this import may not "
                                 "use"));
  }
  const int32_t code = form == "tanh" ? WEFT_GELU_TANH : WEFT_GELU_EXACT;
  l.add(l.nn().weftOperation(WEFT_GELU), {in(node, l, 0), l.nn().scalarInt32(code)}, {l.output(node, 0)});
}

}  // namespace

void registerTransformer(Registry& r) {
  r.add("LayerNormalization", convertLayerNorm);
  r.add("Gelu", convertGelu);
}

}  // namespace weft::onnx::ops
