// Quantized operators: the nodes QuantizedGraph.h marks read quantized values and write one,
// and become NNAPI's quantized operations (TENSOR_QUANT8_ASYMM / _ASYMM_SIGNED activations,
// per-tensor or TENSOR_QUANT8_SYMM_PER_CHANNEL weights, int32 biases of scale
// input_scale * weight_scale). QuantizeLinear and DequantizeLinear nodes left between a float
// and a quantized part become QUANTIZE and DEQUANTIZE. The operators that only move or select
// values (pools, reshapes, transposes, concatenation, Relu, Sigmoid, Softmax) share the float
// converters, whose operands take their quantization from the values' infos.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "OpUtil.h"
#include "Registry.h"

namespace weft::onnx::ops {
namespace {

using Op = nn::OperationType;

const Quantization& quantOf(Lowering& l, const std::string& value, const Node& node) {
  const Quantization& q = l.info(value).quant;
  if (!q.quantized()) throw ImportError(node.error(fmt::format("'{}' is not quantized", value)));
  return q;
}

// Weights as NNAPI takes them beside an input of type `input`: per channel (int8, zero point 0),
// or per tensor of the input's type (uint8 and int8 values moved by 128 when the types differ,
// an int8 tensor of zero point 0 stated per channel instead, which NNAPI takes with either type).
struct Filter {
  HostTensor values;
  Quantization quant;
};

Filter nnapiFilter(const HostTensor& w, const Quantization& q, DType input, int64_t outAxis) {
  Filter f{w, q};
  if (q.perChannel() || w.type == input) return f;
  if (w.type == DType::kInt8 && q.zeroPoints.front() == 0) {
    const int64_t n = w.shape[static_cast<size_t>(outAxis)];
    f.quant.scales.assign(static_cast<size_t>(n), q.scales.front());
    f.quant.zeroPoints.assign(static_cast<size_t>(n), 0);
    f.quant.axis = outAxis;
    return f;
  }
  const int32_t shift = input == DType::kUint8 ? 128 : -128;
  f.values = HostTensor(input, w.shape);
  for (int64_t i = 0; i < w.size(); ++i) f.values.setInt(i, w.asInt(i) + shift);
  f.quant.zeroPoints = {q.zeroPoints.front() + shift};
  return f;
}

// `t` (one byte an element) with its axes permuted: result axis k is source axis perm[k].
HostTensor permuted(const HostTensor& t, const std::vector<size_t>& perm) {
  Shape shape;
  for (size_t p : perm) shape.push_back(t.shape[p]);
  HostTensor out(t.type, shape);
  const size_t rank = shape.size();
  std::vector<int64_t> srcStride(rank, 1);
  for (size_t d = rank - 1; d > 0; --d) srcStride[d - 1] = srcStride[d] * t.shape[d];
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < out.size(); ++i) {
    int64_t src = 0;
    for (size_t k = 0; k < rank; ++k) src += index[k] * srcStride[perm[k]];
    out.bytes[static_cast<size_t>(i)] = t.bytes[static_cast<size_t>(src)];
    for (size_t k = rank; k-- > 0;) {
      if (++index[k] < shape[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

// The int32 bias NNAPI wants: scale input_scale * weight_scale (per channel: scale 0, each
// channel's implied). An int32 bias of another scale is rescaled; a float bias is quantized.
uint32_t nnapiBias(const Node& node, Lowering& l, int biasInput, int64_t outC, float inputScale, const Filter& f) {
  HostTensor bias(DType::kInt32, {outC});
  auto target = [&](int64_t c) { return inputScale * f.quant.scales[f.quant.perChannel() ? static_cast<size_t>(c) : 0]; };
  if (biasInput >= 0 && node.hasInput(static_cast<size_t>(biasInput))) {
    const std::string& name = node.input(static_cast<size_t>(biasInput));
    const HostTensor& b = constantInput(node, l, static_cast<size_t>(biasInput), "the bias");
    const Quantization& bq = l.info(name).quant;
    for (int64_t c = 0; c < outC; ++c) {
      const int64_t k = b.size() == 1 ? 0 : c;
      double real = b.asDouble(k);
      if (bq.quantized()) {
        const size_t channel = bq.perChannel() ? static_cast<size_t>(k) : 0;
        const float scale = bq.scales[channel];
        if (std::abs(scale - target(c)) <= 1e-6f * target(c) && bq.zeroPoints[channel] == 0) {
          bias.setInt(c, b.asInt(k));
          continue;
        }
        real = static_cast<double>(b.asInt(k) - bq.zeroPoints[channel]) * scale;
      }
      const double q = std::nearbyint(real / target(c));
      bias.setInt(c, static_cast<int64_t>(std::clamp<double>(q, std::numeric_limits<int32_t>::min(),
                                                             std::numeric_limits<int32_t>::max())));
    }
  }
  Quantization q{{f.quant.perChannel() ? 0.0f : target(0)}, {0}, -1};
  return l.nn().addQuantized(bias, q, node.output(0) + "_bias");
}

uint32_t filterOperand(Lowering& l, Filter f, const std::vector<size_t>& perm, int64_t channelAxis,
                       const std::string& name) {
  f.values = permuted(f.values, perm);
  if (f.quant.perChannel()) f.quant.axis = channelAxis;
  return l.nn().addQuantized(f.values, f.quant, name);
}

void quantizedConv(const Node& node, Lowering& l) {
  onlyAttributes(node, {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  const Shape& x = shapeOf(l, node.input(0));
  const HostTensor& w = constantInput(node, l, 1, "the weights");
  if (x.size() != 4 || w.shape.size() != 4) throw ImportError(node.error("a quantized convolution that is not 2-D"));
  const int64_t outC = w.shape[0], inPerGroup = w.shape[1], group = node.attrInt("group", 1), inC = x[1];
  if (group <= 0 || inC != inPerGroup * group || outC % group != 0) {
    throw ImportError(node.error(fmt::format("group {} does not divide {} input and {} output channels", group, inC, outC)));
  }
  const ConvGeometry g = convGeometry(node, x, w.shape);
  const ValueInfo& input = l.info(node.input(0));
  const Filter f = nnapiFilter(w, quantOf(l, node.input(1), node), input.type, 0);
  const uint32_t bias = nnapiBias(node, l, 2, outC, input.quant.scales.front(), f);
  auto scalar = [&](int64_t v) { return l.nn().scalarInt32(static_cast<int32_t>(v)); };
  std::vector<uint32_t> args = {in(node, l, 0), 0, bias, scalar(g.pad.left), scalar(g.pad.right), scalar(g.pad.top),
                                scalar(g.pad.bottom), scalar(g.strides[1]), scalar(g.strides[0])};
  const int32_t fuse = l.fusedActivation(node);
  const std::string name = node.output(0) + "_filter";
  Op op = Op::CONV_2D;
  if (group == 1) {
    args[1] = filterOperand(l, f, {0, 2, 3, 1}, 0, name);  // [out, h, w, in]
    args.insert(args.end(), {scalar(fuse), l.nn().scalarBool(true), scalar(g.dilations[1]), scalar(g.dilations[0])});
  } else if (group == inC && inPerGroup == 1) {
    op = Op::DEPTHWISE_CONV_2D;
    args[1] = filterOperand(l, f, {1, 2, 3, 0}, 3, name);  // [1, h, w, out]
    args.insert(args.end(), {scalar(outC / inC), scalar(fuse), l.nn().scalarBool(true), scalar(g.dilations[1]),
                             scalar(g.dilations[0])});
  } else {
    if (g.dilations[0] != 1 || g.dilations[1] != 1) {
      throw ImportError(node.error("a dilated grouped convolution (NNAPI's GROUPED_CONV_2D has no dilation)"));
    }
    op = Op::GROUPED_CONV_2D;
    args[1] = filterOperand(l, f, {0, 2, 3, 1}, 0, name);
    args.insert(args.end(), {scalar(group), scalar(fuse), l.nn().scalarBool(true)});
  }
  l.add(op, args, {l.output(node, 0)});
}

// Gemm (transA 0, alpha and beta 1) and MatMul by a constant matrix: FULLY_CONNECTED with
// per-tensor weights; per-channel weights, which FULLY_CONNECTED does not take, as a 1x1
// CONV_2D over the rows ([rows, 1, 1, K], NHWC).
void quantizedMatMul(const Node& node, Lowering& l) {
  onlyAttributes(node, {"alpha", "beta", "transA", "transB"});
  const bool gemm = node.op() == "Gemm", transB = gemm && node.attrInt("transB", 0) != 0;
  const Shape& a = shapeOf(l, node.input(0));
  const HostTensor& w = constantInput(node, l, 1, "the weights");
  if (a.size() < 2 || w.shape.size() != 2) throw ImportError(node.error("a quantized product that is not by a matrix"));
  const int64_t k = a.back(), n = transB ? w.shape[0] : w.shape[1];
  if (k <= 0 || n <= 0) throw ImportError(node.error("an empty quantized product"));
  const int64_t rows = elementCount(a) / k;
  const ValueInfo& input = l.info(node.input(0));
  const Filter f = nnapiFilter(w, quantOf(l, node.input(1), node), input.type, transB ? 0 : 1);
  const uint32_t bias = nnapiBias(node, l, gemm ? 2 : -1, n, input.quant.scales.front(), f);
  const std::vector<size_t> toNK = transB ? std::vector<size_t>{0, 1} : std::vector<size_t>{1, 0};
  const uint32_t out = l.output(node, 0);
  const Shape& y = shapeOf(l, node.output(0));
  const int32_t fuse = l.fusedActivation(node);
  const std::string name = node.output(0);
  if (!f.quant.perChannel()) {
    const uint32_t weights = filterOperand(l, f, toNK, 0, name + "_weights");
    const bool direct = y.size() == 2;
    const uint32_t result = direct ? out : temporaryLike(l, out, {rows, n}, name + "_2d");
    l.add(Op::FULLY_CONNECTED, {in(node, l, 0), weights, bias, l.nn().scalarInt32(fuse)}, {result});
    if (!direct) reshapeTo(l, result, y, out);
    return;
  }
  Filter f4 = f;
  f4.values = permuted(f.values, toNK);
  f4.values.shape = {n, 1, 1, k};
  f4.quant.axis = 0;
  const uint32_t filter = l.nn().addQuantized(f4.values, f4.quant, name + "_filter");
  const uint32_t rows4 = reshaped(l, in(node, l, 0), {rows, 1, 1, k}, name + "_rows");
  const uint32_t result = temporaryLike(l, out, {rows, 1, 1, n}, name + "_conv");
  auto scalar = [&](int64_t v) { return l.nn().scalarInt32(static_cast<int32_t>(v)); };
  l.add(Op::CONV_2D,
        {rows4, filter, bias, scalar(0), scalar(0), scalar(0), scalar(0), scalar(1), scalar(1), scalar(fuse),
         l.nn().scalarBool(false)},
        {result});
  reshapeTo(l, result, y, out);
}

Converter quantizedArithmetic(Op op) {
  return [op](const Node& node, Lowering& l) {
    onlyAttributes(node, {});
    l.add(op, {in(node, l, 0), in(node, l, 1), l.nn().scalarInt32(l.fusedActivation(node))}, {l.output(node, 0)});
  };
}

// Clip over the ranges NNAPI's RELU, RELU1 and RELU6 clamp to (QuantizedGraph.cpp admits no other).
void quantizedClip(const Node& node, Lowering& l) {
  onlyAttributes(node, {"min", "max"});
  double lo = -INFINITY, hi = INFINITY;
  if (node.opset() < 11) {
    lo = node.attrFloat("min", -INFINITY);
    hi = node.attrFloat("max", INFINITY);
  } else {
    if (node.hasInput(1)) lo = constantInput(node, l, 1, "min").asDouble(0);
    if (node.hasInput(2)) hi = constantInput(node, l, 2, "max").asDouble(0);
  }
  Op op = Op::RELU;
  if (lo == 0.0 && hi == 6.0) {
    op = Op::RELU6;
  } else if (lo == -1.0 && hi == 1.0) {
    op = Op::RELU1;
  } else if (!(lo == 0.0 && std::isinf(hi))) {
    throw ImportError(node.error(fmt::format("a quantized Clip to [{}, {}]", lo, hi)));
  }
  l.add(op, {in(node, l, 0)}, {l.output(node, 0)});
}

void convertQuantize(const Node& node, Lowering& l) {
  onlyAttributes(node, {"axis", "saturate"});
  requireFloat(node, l, node.input(0));
  if (l.info(node.output(0)).quant.perChannel()) {
    throw ImportError(node.error("per-channel quantization of a value computed at run time"));
  }
  l.add(Op::QUANTIZE, {in(node, l, 0)}, {l.output(node, 0)});
}

void convertDequantize(const Node& node, Lowering& l) {
  onlyAttributes(node, {"axis"});
  const Quantization& q = quantOf(l, node.input(0), node);
  if (q.perChannel()) throw ImportError(node.error("per-channel dequantization of a value computed at run time"));
  const DType t = typeOf(l, node.input(0));
  if (t != DType::kUint8 && t != DType::kInt8) {
    throw ImportError(node.error(fmt::format("dequantization of {} computed at run time", dtypeName(t))));
  }
  l.add(Op::DEQUANTIZE, {in(node, l, 0)}, {l.output(node, 0)});
}

}  // namespace

void registerQuantizeNodes(Registry& r) {
  r.add("QuantizeLinear", convertQuantize);
  r.add("DequantizeLinear", convertDequantize);
}

void registerQuantized(Registry& quantized, const Registry& floats) {
  quantized.add("Conv", quantizedConv);
  quantized.add("Gemm", quantizedMatMul);
  quantized.add("MatMul", quantizedMatMul);
  quantized.add("Add", quantizedArithmetic(Op::ADD));
  quantized.add("Mul", quantizedArithmetic(Op::MUL));
  quantized.add("Clip", quantizedClip);
  for (const char* op : {"MaxPool", "AveragePool", "GlobalAveragePool", "Relu", "Sigmoid", "Softmax", "Reshape",
                         "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Concat"}) {
    quantized.add(op, *floats.find(op));
  }
}

}  // namespace weft::onnx::ops
