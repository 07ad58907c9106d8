#include "LayerRules.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <random>

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
  // A dilated filter covers (f - 1) * d + 1 input pixels.
  const auto d = static_cast<uint32_t>(l.dilation);
  filterH = (filterH - 1) * d + 1;
  filterW = (filterW - 1) * d + 1;
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

// NNAPI broadcasting: trailing dimensions aligned, each pair equal or one of them 1.
void broadcastShape(Layer& l, const std::vector<LayerInput>& inputs, const std::string& where) {
  const auto& a = inputs[0].shape;
  const auto& b = inputs[1].shape;
  const size_t rank = std::max(a.size(), b.size());
  l.outputShape.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const uint32_t x = i + a.size() >= rank ? a[i + a.size() - rank] : 1;
    const uint32_t y = i + b.size() >= rank ? b[i + b.size() - rank] : 1;
    if (x != y && x != 1 && y != 1) {
      throw NetworkError(fmt::format("{}: {} inputs '{}' {} and '{}' {} do not broadcast", where, nnapiName(l.op),
                                     inputs[0].name, shapeText(a), inputs[1].name, shapeText(b)));
    }
    l.outputShape[i] = std::max(x, y);
  }
}

void padShape(Layer& l, const std::vector<uint32_t>& in, const std::string& where) {
  if (l.paddings.size() != 2 * in.size()) {
    throw NetworkError(fmt::format("{}: \"paddings\" has {} pairs for a rank-{} input", where, l.paddings.size() / 2,
                                   in.size()));
  }
  l.outputShape = in;
  for (size_t d = 0; d < in.size(); ++d) {
    l.outputShape[d] += static_cast<uint32_t>(l.paddings[2 * d] + l.paddings[2 * d + 1]);
  }
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

// BATCH_MATMUL: lhs [..., M, K] ([..., K, M] with adjX) x rhs [..., K, N] ([..., N, K] with adjY), the batch dimensions
// equal (NNAPI's rule: no broadcasting).
void batchMatmulShape(Layer& l, const std::vector<LayerInput>& inputs, const std::string& where) {
  const auto& a = inputs[0].shape;
  const auto& b = inputs[1].shape;
  const size_t rank = a.size();
  if (rank < 2 || b.size() != rank) throw NetworkError(where + ": BATCH_MATMUL inputs need one rank, 2 to 4");
  for (size_t d = 0; d + 2 < rank; ++d) {
    if (a[d] != b[d]) throw NetworkError(fmt::format("{}: batch dimension {} differs ({} vs {})", where, d, a[d], b[d]));
  }
  const uint32_t m = l.adjX ? a[rank - 1] : a[rank - 2], k = l.adjX ? a[rank - 2] : a[rank - 1];
  const uint32_t n = l.adjY ? b[rank - 2] : b[rank - 1];
  if ((l.adjY ? b[rank - 1] : b[rank - 2]) != k) {
    throw NetworkError(fmt::format("{}: inner dimensions differ: {} x {}", where, shapeText(a), shapeText(b)));
  }
  l.outputShape = a;
  l.outputShape[rank - 2] = m;
  l.outputShape[rank - 1] = n;
  l.macs = product(l.outputShape) * k;
}

// TRANSPOSE: output dimension k is input dimension perm[k]; perm names every axis once.
void transposeShape(Layer& l, const std::vector<uint32_t>& in, const std::string& where) {
  std::vector<bool> seen(in.size());
  if (l.perm.size() != in.size()) {
    throw NetworkError(fmt::format("{}: perm has {} entries for an input of rank {}", where, l.perm.size(), in.size()));
  }
  l.outputShape.clear();
  for (int32_t p : l.perm) {
    if (p < 0 || static_cast<size_t>(p) >= in.size() || seen[p]) {
      throw NetworkError(fmt::format("{}: perm [{}] is not a permutation of {} axes", where, fmt::join(l.perm, ", "),
                                     in.size()));
    }
    seen[p] = true;
    l.outputShape.push_back(in[p]);
  }
}

// SLICE: begin and size (-1: to the end) give a box inside the input on every axis.
void sliceShape(Layer& l, const std::vector<uint32_t>& in, const std::string& where) {
  if (l.begin.size() != in.size() || l.size.size() != in.size()) {
    throw NetworkError(fmt::format("{}: begin and size need {} entries each", where, in.size()));
  }
  l.outputShape.clear();
  for (size_t k = 0; k < in.size(); ++k) {
    const int64_t b = l.begin[k], n = l.size[k] == -1 ? int64_t{in[k]} - b : l.size[k];
    if (b < 0 || n <= 0 || b + n > in[k]) {
      throw NetworkError(fmt::format("{}: axis {}: begin {} size {} is not inside {}", where, k, b, l.size[k], in[k]));
    }
    l.outputShape.push_back(static_cast<uint32_t>(n));
  }
}

// LAYER_NORM's gamma and beta, one per element of a row, drawn from the layer's affineSeed (the
// generator's raw words, so every platform draws the same): gamma of either sign, 0.5 to 1.5 in
// magnitude, one in eight negative; beta in [-0.5, 0.5).
void drawLayerNormAffine(Layer& l) {
  std::mt19937 rng(l.affineSeed);
  auto unit = [&] { return static_cast<float>(rng()) / 4294967296.0f; };
  const uint32_t width = l.outputShape.empty() ? 0 : l.outputShape.back();
  l.affineGamma.resize(width);
  l.affineBeta.resize(width);
  for (uint32_t i = 0; i < width; ++i) {
    const float magnitude = 0.5f + unit();
    l.affineGamma[i] = rng() % 8 == 0 ? -magnitude : magnitude;
    l.affineBeta[i] = unit() - 0.5f;
  }
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
      // Depthwise weights are [1, h, w, channels x depth multiplier].
      if (dw ? (w[0] != 1 || w[3] % in[3] != 0) : w[3] != in[3]) {
        throw NetworkError(fmt::format("{}: weight shape does not match {} input channels", where, in[3]));
      }
      if (dw) l.depthMultiplier = static_cast<int>(w[3] / in[3]);
      if (!dw && l.dilation != 1) throw NetworkError(where + ": only DEPTHWISE_CONV_2D takes a dilation here");
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
    case LayerOp::kSub:
    case LayerOp::kMul:
      broadcastShape(l, inputs, where);
      break;
    case LayerOp::kRelu:
    case LayerOp::kRelu1:
    case LayerOp::kRelu6:
    case LayerOp::kLogistic:
    case LayerOp::kTanh:
      l.outputShape = in;
      break;
    case LayerOp::kPad:
    case LayerOp::kPadV2:
      padShape(l, in, where);
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
    case LayerOp::kBatchMatmul:
      batchMatmulShape(l, inputs, where);
      break;
    case LayerOp::kTranspose:
      transposeShape(l, in, where);
      break;
    case LayerOp::kSlice:
      sliceShape(l, in, where);
      break;
    case LayerOp::kSoftmax:
    case LayerOp::kGelu:
      l.outputShape = in;
      break;
    case LayerOp::kLayerNorm:
      l.outputShape = in;
      drawLayerNormAffine(l);
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

QuantParams fixedOutputQuant(LayerOp op, bool isSigned) {
  switch (op) {
    case LayerOp::kSoftmax:
    case LayerOp::kLogistic:
      return {1.0f / 256, isSigned ? -128 : 0};
    case LayerOp::kTanh:
      return {1.0f / 128, isSigned ? 0 : 128};
    default:
      return {};
  }
}

bool keepsInputQuant(LayerOp op) {
  switch (op) {
    case LayerOp::kAveragePool2d:
    case LayerOp::kMaxPool2d:
    case LayerOp::kMean:
    case LayerOp::kReshape:
    case LayerOp::kTranspose:
    case LayerOp::kSlice:
    case LayerOp::kRelu:
    case LayerOp::kRelu1:
    case LayerOp::kRelu6:
    case LayerOp::kPad:
    case LayerOp::kPadV2:
      return true;
    default:
      return false;
  }
}

void checkQuantization(const Layer& l, const std::vector<LayerInput>& inputs, bool isSigned, const std::string& where) {
  const int32_t lo = isSigned ? -128 : 0;
  if (l.outputQuant.zeroPoint < lo || l.outputQuant.zeroPoint > lo + 255) {
    throw NetworkError(fmt::format("{}: output zeroPoint {} is outside [{}, {}]", where, l.outputQuant.zeroPoint, lo,
                                   lo + 255));
  }
  if (l.op == LayerOp::kPadV2 && (l.padValue < lo || l.padValue > lo + 255)) {
    throw NetworkError(fmt::format("{}: PAD_V2 \"value\" {} is outside the tensor type's [{}, {}]", where, l.padValue,
                                   lo, lo + 255));
  }
  QuantParams required;
  if (keepsInputQuant(l.op)) {
    required = inputs.front().quant;
  } else if (l.op == LayerOp::kSoftmax || l.op == LayerOp::kLogistic || l.op == LayerOp::kTanh) {
    required = fixedOutputQuant(l.op, isSigned);
  } else {
    return;  // any output quantization
  }
  if (l.outputQuant.scale != required.scale || l.outputQuant.zeroPoint != required.zeroPoint) {
    throw NetworkError(fmt::format("{}: output scale {} and zeroPoint {} must be {} and {}: NNAPI's {} {}", where,
                                   l.outputQuant.scale, l.outputQuant.zeroPoint, required.scale, required.zeroPoint,
                                   nnapiName(l.op),
                                   keepsInputQuant(l.op) ? "keeps its input's quantization"
                                                         : "has a fixed output quantization"));
  }
}

}  // namespace weft::tool
