#include "LayerRules.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace weft::tool {
namespace {

std::string shapeText(const std::vector<uint32_t>& dims) { return fmt::format("[{}]", fmt::join(dims, ", ")); }

size_t product(const std::vector<uint32_t>& dims) {
  size_t n = 1;
  for (uint32_t d : dims) n *= d;
  return n;
}

// One spatial dimension of a window op's output; `before`/`after` are the explicit padding.
uint32_t windowOutput(uint32_t in, uint32_t filter, int stride, const Padding& p, uint32_t before, uint32_t after,
                      const std::string& where) {
  const uint32_t s = static_cast<uint32_t>(stride);
  if (p.scheme == Padding::Scheme::kSame) return (in + s - 1) / s;
  const uint32_t padded = p.scheme == Padding::Scheme::kExplicit ? in + before + after : in;
  if (filter > padded) {
    throw NetworkError(fmt::format("{}: window {} larger than the (padded) input {}", where, filter, padded));
  }
  return (padded - filter) / s + 1;
}

std::vector<uint32_t> windowOutputShape(const Layer& l, const std::vector<uint32_t>& in, uint32_t filterH,
                                        uint32_t filterW, uint32_t channels, const std::string& where) {
  const Padding& p = l.padding;
  return {in[0], windowOutput(in[1], filterH, l.stride, p, p.top, p.bottom, where),
          windowOutput(in[2], filterW, l.stride, p, p.left, p.right, where), channels};
}

// NNAPI resolves a negative axis as counting from the end.
uint32_t resolveAxis(int32_t axis, size_t rank, const std::string& where) {
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) {
    throw NetworkError(fmt::format("{}: axis {} is outside a rank-{} input", where, axis, rank));
  }
  return static_cast<uint32_t>(axis < 0 ? axis + r : axis);
}

void concatenationShape(Layer& l, const std::vector<LayerInput>& inputs, const std::string& where) {
  const auto& first = inputs.front().shape;
  const uint32_t axis = resolveAxis(l.axis, first.size(), where);
  l.axis = static_cast<int32_t>(axis);
  l.outputShape = first;
  for (size_t i = 1; i < inputs.size(); ++i) {
    const auto& in = inputs[i].shape;
    bool fits = in.size() == first.size();
    for (size_t d = 0; fits && d < in.size(); ++d) fits = d == axis || in[d] == first[d];
    if (!fits) {
      throw NetworkError(fmt::format("{}: inputs '{}' {} and '{}' {} differ outside axis {}", where,
                                     inputs.front().name, shapeText(first), inputs[i].name, shapeText(in), axis));
    }
    l.outputShape[axis] += in[axis];
  }
}

void meanShape(Layer& l, const std::vector<uint32_t>& in, const std::string& where) {
  std::vector<bool> reduced(in.size(), false);
  for (int32_t a : l.axes) reduced[resolveAxis(a, in.size(), where)] = true;
  l.outputShape.clear();
  for (size_t d = 0; d < in.size(); ++d) {
    if (!reduced[d]) {
      l.outputShape.push_back(in[d]);
    } else if (l.keepDims) {
      l.outputShape.push_back(1);
    }
  }
  if (l.outputShape.empty()) l.outputShape = {1};  // NNAPI: every axis reduced without keepDims
}

void reshapeShape(Layer& l, const std::vector<uint32_t>& in, const std::string& where) {
  const auto& target = l.targetShape;
  if (target.empty() || target.size() > 4) throw NetworkError(where + ": \"shape\" must have 1 to 4 dimensions");
  const size_t elements = product(in);
  size_t known = 1;  // stays small enough not to overflow: a product past `elements` fails below anyway
  int stretch = -1;
  for (size_t i = 0; i < target.size() && known <= elements; ++i) {
    if (target[i] == -1 && stretch < 0) {
      stretch = static_cast<int>(i);
    } else if (target[i] >= 1) {
      known *= static_cast<size_t>(target[i]);
    } else {
      throw NetworkError(where + ": \"shape\" entries must be at least 1, or -1 once (inferred)");
    }
  }
  if (stretch >= 0 ? elements % known != 0 : known != elements) {
    throw NetworkError(fmt::format("{}: \"shape\" [{}] does not hold the {} elements of the input {}", where,
                                   fmt::join(target, ", "), elements, shapeText(in)));
  }
  l.outputShape.clear();
  for (int32_t d : target) l.outputShape.push_back(static_cast<uint32_t>(d == -1 ? elements / known : size_t(d)));
}

}  // namespace

void inferShapes(Layer& l, const std::vector<LayerInput>& inputs, const std::string& where) {
  const auto& in = inputs.front().shape;
  l.inputShape = in;
  auto needRank4 = [&] {
    if (in.size() != 4) throw NetworkError(fmt::format("{}: needs a 4-D NHWC input, got rank {}", where, in.size()));
  };
  switch (l.op) {
    case LayerOp::kConv2d:
    case LayerOp::kDepthwiseConv2d: {
      needRank4();
      const auto& w = l.weightShape;
      if (w.size() != 4) throw NetworkError(fmt::format("{}: weights need 4 dimensions", where));
      const bool dw = l.op == LayerOp::kDepthwiseConv2d;
      if (w[3] != in[3] || (dw && w[0] != 1)) {
        throw NetworkError(fmt::format("{}: weight shape does not match {} input channels", where, in[3]));
      }
      l.outputShape = windowOutputShape(l, in, w[1], w[2], dw ? w[3] : w[0], where);
      const auto& o = l.outputShape;
      l.macs = uint64_t{o[0]} * o[1] * o[2] * o[3] * w[1] * w[2] * (dw ? 1 : w[3]);
      break;
    }
    case LayerOp::kFullyConnected: {
      const auto& w = l.weightShape;
      if (w.size() != 2 || product(in) % w[1] != 0) {
        throw NetworkError(fmt::format("{}: weights [units, inputs] do not divide the input", where));
      }
      const uint32_t batch = static_cast<uint32_t>(product(in) / w[1]);
      l.outputShape = {batch, w[0]};
      l.macs = uint64_t{batch} * w[0] * w[1];
      break;
    }
    case LayerOp::kAveragePool2d:
    case LayerOp::kMaxPool2d:
      needRank4();
      l.outputShape = windowOutputShape(l, in, l.filterH, l.filterW, in[3], where);
      break;
    case LayerOp::kAdd:
      if (inputs[1].shape != in) {
        throw NetworkError(fmt::format("{}: ADD inputs '{}' {} and '{}' {} differ in shape", where, inputs[0].name,
                                       shapeText(in), inputs[1].name, shapeText(inputs[1].shape)));
      }
      l.outputShape = in;
      break;
    case LayerOp::kConcatenation:
      concatenationShape(l, inputs, where);
      break;
    case LayerOp::kMean:
      meanShape(l, in, where);
      break;
    case LayerOp::kReshape:
      reshapeShape(l, in, where);
      break;
    case LayerOp::kSoftmax:
      l.outputShape = in;
      break;
  }
  // Each dimension fits in 32 bits, so the product below 2^31 times one more fits in 64.
  uint64_t elements = 1;
  for (uint32_t d : l.outputShape) {
    elements *= d;
    if (elements > (uint64_t{1} << 31)) {
      throw NetworkError(fmt::format("{}: the output {} has more than 2^31 elements", where, shapeText(l.outputShape)));
    }
  }
}

void checkQuantization(const Layer& l, const std::vector<LayerInput>& inputs, const std::string& where) {
  QuantParams required;
  switch (l.op) {
    case LayerOp::kAveragePool2d:
    case LayerOp::kMaxPool2d:
    case LayerOp::kMean:
    case LayerOp::kReshape:
      required = inputs.front().quant;
      break;
    case LayerOp::kSoftmax:
      required = {1.0f / 256, 0};
      break;
    default:
      return;  // any output quantization
  }
  if (l.outputQuant.scale != required.scale || l.outputQuant.zeroPoint != required.zeroPoint) {
    throw NetworkError(fmt::format("{}: output scale {} and zeroPoint {} must be {} and {}: NNAPI's {} {}", where,
                                   l.outputQuant.scale, l.outputQuant.zeroPoint, required.scale, required.zeroPoint,
                                   nnapiName(l.op),
                                   l.op == LayerOp::kSoftmax ? "outputs probabilities in 1/256 steps"
                                                             : "keeps its input's quantization"));
  }
}

}  // namespace weft::tool
