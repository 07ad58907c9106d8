#include "OpUtil.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>
#include <cstring>

#include <onnx/onnx_pb.h>

#include "../Folding.h"

namespace weft::onnx::ops {

uint32_t in(const Node& node, Lowering& l, size_t i) {
  if (!node.hasInput(i)) throw ImportError(node.error(fmt::format("input {} is missing", i)));
  return l.operand(node.input(i));
}

const HostTensor& constantInput(const Node& node, Lowering& l, size_t i, const std::string& what) {
  if (!node.hasInput(i)) throw ImportError(node.error(what + " is missing"));
  if (!l.isConstant(node.input(i))) {
    throw ImportError(node.error(fmt::format("{} ('{}') is computed at run time; weft imports it only as a constant "
                                             "(NNAPI needs it when the model is compiled)",
                                             what, node.input(i))));
  }
  return l.constant(node.input(i));
}

std::vector<int64_t> constantInts(const Node& node, Lowering& l, size_t i, const std::string& what) {
  return constantInput(node, l, i, what).toInts();
}

int64_t axisIn(const Node& node, int64_t axis, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) throw ImportError(node.error(fmt::format("axis {} is outside rank {}", axis, rank)));
  return axis < 0 ? axis + r : axis;
}

void onlyAttributes(const Node& node, const std::vector<std::string>& known) {
  for (const std::string& a : node.attributeNames()) {
    if (std::find(known.begin(), known.end(), a) == known.end()) {
      throw ImportError(node.error(fmt::format("attribute '{}' is not supported", a)));
    }
  }
}

void requireAttr(const Node& node, const std::string& attribute, int64_t expected, int64_t fallback) {
  const int64_t v = node.attrInt(attribute, fallback);
  if (v != expected) {
    throw ImportError(node.error(fmt::format("{}={} is not supported (only {})", attribute, v, expected)));
  }
}

void requireFloat(const Node& node, Lowering& l, const std::string& value) {
  const DType t = typeOf(l, value);
  if (t != DType::kFloat && t != DType::kFloat16) {
    throw ImportError(node.error(fmt::format("'{}' is {}: NNAPI's {} takes float32 or float16", value, dtypeName(t),
                                             node.op())));
  }
}

void requireFloatOrQuantized(const Node& node, Lowering& l, const std::string& value) {
  if (!l.info(value).quant.quantized()) requireFloat(node, l, value);
}

uint32_t temporaryLike(Lowering& l, uint32_t like, const Shape& shape, const std::string& name) {
  const test::TestOperand& from = l.nn().operand(like);
  return l.nn().addTensor(from.type, nnDims(shape), name, from.scale, from.zeroPoint);
}

ConvGeometry convGeometry(const Node& node, const Shape& input, const Shape& weights) {
  ConvGeometry g;
  g.kernel = node.attrInts("kernel_shape", {weights[2], weights[3]});
  g.strides = node.attrInts("strides", {1, 1});
  g.dilations = node.attrInts("dilations", {1, 1});
  if (g.kernel.size() != 2 || g.strides.size() != 2 || g.dilations.size() != 2) {
    throw ImportError(node.error("only 2-D convolutions are supported"));
  }
  if (g.kernel[0] != weights[2] || g.kernel[1] != weights[3]) {
    throw ImportError(node.error("kernel_shape disagrees with the weights' shape"));
  }
  g.pad = windowPadding(node, input, g.kernel, g.strides, g.dilations);
  return g;
}

// NNAPI's operations read tensors of rank 4 at most, RESHAPE too, but a RESHAPE may write a higher
// one (an exporter's view of a window partition, [B, H/w, w, W/w, w, C]). Reshaping such a value
// again reshapes the value it was made from: the same bytes in the same order. The RESHAPE that
// made it is then read by nothing and goes (Importer's dead-operation pass).
uint32_t lowRankSource(Lowering& l, uint32_t input) {
  const auto& ops = l.nn().model().main.operations;
  while (l.nn().operand(input).dimensions.size() > 4) {
    const auto producer = std::find_if(ops.rbegin(), ops.rend(), [&](const test::TestOperation& op) {
      return std::find(op.outputs.begin(), op.outputs.end(), input) != op.outputs.end();
    });
    if (producer == ops.rend() || producer->type != nn::OperationType::RESHAPE) break;
    input = producer->inputs[0];
  }
  return input;
}

void reshapeTo(Lowering& l, uint32_t input, const Shape& shape, uint32_t output) {
  input = lowRankSource(l, input);
  std::vector<int32_t> dims(shape.begin(), shape.end());
  if (dims.empty()) dims.push_back(1);  // a scalar is held as [1] (nnDims)
  l.add(nn::OperationType::RESHAPE, {input, l.nn().int32Vector(dims)}, {output});
}

uint32_t reshaped(Lowering& l, uint32_t input, const Shape& shape, const std::string& name) {
  const uint32_t out = temporaryLike(l, input, shape, name);
  reshapeTo(l, input, shape, out);
  return out;
}

void permuteInto(Lowering& l, uint32_t input, const Shape& x, const std::vector<int64_t>& perm, const Shape& shape,
                 uint32_t out, const std::string& name) {
  const size_t rank = x.size();
  Shape permuted(rank);
  for (size_t d = 0; d < rank; ++d) permuted[d] = x[static_cast<size_t>(perm[d])];
  const std::vector<uint32_t> held = l.nn().operand(input).dimensions;
  if (rank <= 4 && shape == permuted && held == nnDims(x)) {
    std::vector<int32_t> p32(perm.begin(), perm.end());
    l.add(nn::OperationType::TRANSPOSE, {input, l.nn().int32Vector(p32)}, {out});
    return;
  }
  // NNAPI transposes up to rank 4: drop the unit dimensions and merge the runs of dimensions that
  // stay neighbours (a channel shuffle's [N, G, C/G, H, W] -> [N, C/G, G, H, W] is a rank-4
  // transpose of [N, G, C/G, H*W]), then reshape around a TRANSPOSE of that rank.
  std::vector<int64_t> kept;  // input axes that are not 1, in output order
  for (int64_t p : perm) {
    if (x[static_cast<size_t>(p)] != 1) kept.push_back(p);
  }
  std::vector<std::vector<int64_t>> runs;  // merged input axes, in output order
  for (int64_t p : kept) {
    if (!runs.empty() && runs.back().back() + 1 == p) {
      runs.back().push_back(p);
    } else {
      runs.push_back({p});
    }
  }
  if (runs.size() <= 1) {  // the order of the elements does not change
    reshapeTo(l, input, shape, out);
    return;
  }
  std::vector<size_t> order(runs.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return runs[a][0] < runs[b][0]; });
  Shape merged(runs.size());
  std::vector<int32_t> p32(runs.size());
  for (size_t k = 0; k < order.size(); ++k) {
    int64_t size = 1;
    for (int64_t a : runs[order[k]]) size *= x[static_cast<size_t>(a)];
    merged[k] = size;
  }
  for (size_t k = 0; k < runs.size(); ++k) {
    p32[k] = static_cast<int32_t>(std::find(order.begin(), order.end(), k) - order.begin());
  }
  Shape mergedOut(runs.size());
  for (size_t k = 0; k < runs.size(); ++k) mergedOut[k] = merged[static_cast<size_t>(p32[k])];
  const uint32_t flat = held == nnDims(merged) ? input : reshaped(l, input, merged, name + "_merged");
  const nn::OperandType type = l.nn().operand(out).type;
  if (runs.size() <= 4) {
    if (shape == mergedOut) {
      l.add(nn::OperationType::TRANSPOSE, {flat, l.nn().int32Vector(p32)}, {out});
      return;
    }
    const uint32_t moved = l.temporary(type, mergedOut, name + "_moved");
    l.add(nn::OperationType::TRANSPOSE, {flat, l.nn().int32Vector(p32)}, {moved});
    reshapeTo(l, moved, shape, out);
    return;
  }
  // Still more than four (Swin's and MaxViT's window partitions, attention's [B, N, 3, H, D] ->
  // [3, B, H, N, D]): the output order built one group at a time, each step a rank-4 TRANSPOSE
  // of [before, between, the group, after] that brings the next group of the output forward past
  // those between (at most groups - 1 steps, a copy each), with a RESHAPE to the step's four.
  std::vector<size_t> cur(runs.size());  // the current order of the merged groups
  std::iota(cur.begin(), cur.end(), 0);
  uint32_t value = flat;
  int step = 0;
  const auto product = [&](size_t from, size_t to) {
    int64_t n = 1;
    for (size_t i = from; i < to; ++i) n *= merged[cur[i]];
    return n;
  };
  for (size_t k = 0; k < cur.size(); ++k) {
    const size_t j = static_cast<size_t>(std::find(cur.begin(), cur.end(), static_cast<size_t>(p32[k])) - cur.begin());
    if (j == k) continue;
    const Shape four{product(0, k), product(k, j), product(j, j + 1), product(j + 1, cur.size())};
    const std::string stepName = fmt::format("{}_step{}", name, step++);
    const uint32_t grouped = reshaped(l, value, four, stepName + "_in");
    value = l.temporary(type, Shape{four[0], four[2], four[1], four[3]}, stepName);
    l.add(nn::OperationType::TRANSPOSE, {grouped, l.nn().int32Vector({0, 2, 1, 3})}, {value});
    std::rotate(cur.begin() + static_cast<std::ptrdiff_t>(k), cur.begin() + static_cast<std::ptrdiff_t>(j),
                cur.begin() + static_cast<std::ptrdiff_t>(j + 1));
  }
  reshapeTo(l, value, shape, out);
}

uint32_t broadcastTo(Lowering& l, const std::string& value, uint32_t input, const Shape& shape) {
  const ValueInfo& v = l.info(value);
  if (v.shape == shape) return input;
  const test::TestOperand& from = l.nn().operand(input);
  const uint32_t out = l.nn().addTensor(from.type, nnDims(shape), value + "_broadcast", from.scale, from.zeroPoint);
  HostTensor zeros(v.type == DType::kInt64 ? DType::kInt32 : v.type, shape);
  const uint32_t z = l.constantOperand(zeros, value + "_broadcast_zeros");
  if (v.type == DType::kBool) {
    l.add(nn::OperationType::LOGICAL_OR, {input, z}, {out});
  } else {
    l.add(nn::OperationType::ADD, {input, z, l.nn().scalarInt32(kFuseNone)}, {out});
  }
  return out;
}

Padding2d windowPadding(const Node& node, const Shape& input, const std::vector<int64_t>& kernel,
                        const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations,
                        const Shape* ceilOutput) {
  const std::string autoPad = node.attrString("auto_pad", "NOTSET");
  Padding2d p;
  const int64_t inH = input[2], inW = input[3];
  auto same = [&](int64_t in, int64_t k, int64_t s, int64_t d, bool upper, int32_t& begin, int32_t& end) {
    const int64_t out = (in + s - 1) / s;
    const int64_t total = std::max<int64_t>(0, (out - 1) * s + (k - 1) * d + 1 - in);
    begin = static_cast<int32_t>(upper ? total / 2 : total - total / 2);
    end = static_cast<int32_t>(total - begin);
  };
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    const bool upper = autoPad == "SAME_UPPER";
    same(inH, kernel[0], strides[0], dilations[0], upper, p.top, p.bottom);
    same(inW, kernel[1], strides[1], dilations[1], upper, p.left, p.right);
  } else if (autoPad == "NOTSET") {
    const auto pads = node.attrInts("pads", {0, 0, 0, 0});
    if (pads.size() != 4) throw ImportError(node.error(fmt::format("pads {} are not 2-D", fmt::join(pads, ","))));
    for (int64_t v : pads) {
      if (v < 0) throw ImportError(node.error("negative pads are not supported"));
    }
    p.top = static_cast<int32_t>(pads[0]);
    p.left = static_cast<int32_t>(pads[1]);
    p.bottom = static_cast<int32_t>(pads[2]);
    p.right = static_cast<int32_t>(pads[3]);
  } else if (autoPad != "VALID") {
    throw ImportError(node.error("auto_pad '" + autoPad + "' is not an ONNX padding"));
  }
  if (ceilOutput != nullptr) {
    // ceil_mode: the last window may start inside the input and run past its end; NNAPI rounds
    // down, so the rows and columns it misses become padding at the bottom and right, as many
    // as make NNAPI's output the size shape inference gave.
    auto extra = [&](int64_t in, int64_t k, int64_t s, int64_t d, int32_t begin, int32_t& end, int64_t out) {
      const int64_t span = in + begin + end - ((k - 1) * d + 1);
      const int64_t floorOut = span < 0 ? 0 : span / s + 1;
      if (out > floorOut) end += static_cast<int32_t>((out - floorOut) * s);
    };
    extra(inH, kernel[0], strides[0], dilations[0], p.top, p.bottom, (*ceilOutput)[2]);
    extra(inW, kernel[1], strides[1], dilations[1], p.left, p.right, (*ceilOutput)[3]);
  }
  return p;
}

void poolWholePlane(Lowering& l, nn::OperationType pool, uint32_t input, const Shape& x, uint32_t output) {
  auto scalar = [&](int64_t v) { return l.nn().scalarInt32(static_cast<int32_t>(v)); };
  l.add(pool,
        {input, scalar(0), scalar(0), scalar(0), scalar(0), scalar(1), scalar(1), scalar(x[3]), scalar(x[2]),
         scalar(kFuseNone), l.nn().scalarBool(true)},
        {output});
}

std::vector<float> toFloats(const HostTensor& t) {
  const int64_t n = t.size();
  if (t.type == DType::kFloat) {  // weights, mostly: one copy, not an element-wise conversion
    const float* data = t.data<float>();
    return std::vector<float>(data, data + n);
  }
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(t.asDouble(i));
  return v;
}

void castOrCopy(Lowering& l, uint32_t input, const Shape& shape, uint32_t output) {
  if (l.nn().operand(input).type == l.nn().operand(output).type) {
    reshapeTo(l, input, shape, output);
    return;
  }
  l.add(nn::OperationType::CAST, {input}, {output});
}

namespace {
HostTensor floatTensor(const std::vector<float>& values, const Shape& shape) {
  const auto* raw = reinterpret_cast<const uint8_t*>(values.data());
  return HostTensor(DType::kFloat, shape, std::vector<uint8_t>(raw, raw + values.size() * sizeof(float)));
}
}  // namespace

uint32_t floatConstant(Lowering& l, const std::vector<float>& values, const Shape& shape, const std::string& name) {
  return l.constantOperand(floatTensor(values, shape), name);  // moved: a temporary
}

uint32_t floatConstantLike(Lowering& l, const std::string& like, const std::vector<float>& values, const Shape& shape,
                           const std::string& name) {
  HostTensor t = floatTensor(values, shape);
  return l.constantOperand(typeOf(l, like) == DType::kFloat16 ? t.castTo(DType::kFloat16) : std::move(t), name);
}

uint32_t floatScalarLike(Lowering& l, const std::string& like, float value) {
  return typeOf(l, like) == DType::kFloat16 ? l.nn().scalarFloat16(value) : l.nn().scalarFloat32(value);
}

void convertAs2d(const Node& node, Lowering& l, const Converter& convert2d) {
  ::onnx::NodeProto proto = node.proto();
  auto unitHeight = [](Shape s) {
    s.insert(s.begin() + 2, 1);
    return s;
  };
  // The input, as [N, C, 1, W].
  const std::string x = node.input(0), x2 = x + "_as_2d";
  const ValueInfo& xi = l.info(x);
  const ValueInfo x2i{xi.type, unitHeight(xi.shape)};
  l.defineValue(x2, x2i, reshaped(l, in(node, l, 0), x2i.shape, x2));
  proto.set_input(0, x2);
  // The weights (Conv, ConvTranspose), as [M, C, 1, k].
  if (node.hasInput(1)) {
    const std::string w = node.input(1), w2 = w + "_as_2d";
    const ValueInfo& wi = l.info(w);
    if (wi.shape.size() == 3) {
      if (l.isConstant(w)) {
        HostTensor t = l.constant(w);
        t.shape = unitHeight(t.shape);
        l.defineConstant(w2, std::move(t));
      } else {
        const ValueInfo w2i{wi.type, unitHeight(wi.shape)};
        l.defineValue(w2, w2i, reshaped(l, in(node, l, 1), w2i.shape, w2));
      }
      proto.set_input(1, w2);
    }
  }
  // The window attributes with the unit height: one more leading entry, pads one at each end.
  for (auto& a : *proto.mutable_attribute()) {
    const std::string& name = a.name();
    if (name == "kernel_shape" || name == "output_shape") {
      a.mutable_ints()->Add(1);
      std::rotate(a.mutable_ints()->rbegin(), a.mutable_ints()->rbegin() + 1, a.mutable_ints()->rend());
    } else if (name == "strides" || name == "dilations") {
      a.mutable_ints()->Add(1);
      std::rotate(a.mutable_ints()->rbegin(), a.mutable_ints()->rbegin() + 1, a.mutable_ints()->rend());
    } else if (name == "output_padding") {
      a.mutable_ints()->Add(0);
      std::rotate(a.mutable_ints()->rbegin(), a.mutable_ints()->rbegin() + 1, a.mutable_ints()->rend());
    } else if (name == "pads" && a.ints_size() == 2) {
      const int64_t begin = a.ints(0), end = a.ints(1);
      a.clear_ints();
      for (int64_t v : {int64_t{0}, begin, int64_t{0}, end}) a.add_ints(v);
    }
  }
  // The output, as [N, M, 1, L], reshaped back into the node's.
  const std::string y = node.output(0), y2 = y + "_as_2d";
  const ValueInfo& yi = l.info(y);
  l.defineInfo(y2, ValueInfo{yi.type, unitHeight(yi.shape)});
  proto.set_output(0, y2);
  const Node node2d(proto, node.index(), node.opset());
  convert2d(node2d, l);
  reshapeTo(l, l.operand(y2), yi.shape, l.output(node, 0));
}

}  // namespace weft::onnx::ops
