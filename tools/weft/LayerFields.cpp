#include "LayerFields.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "JsonFields.h"

namespace weft::tool {
namespace {

using namespace json_fields;

constexpr size_t kAny = std::numeric_limits<size_t>::max();

struct OpInfo {
  LayerOp op;
  const char* name;
  InputCount inputs;
};

constexpr OpInfo kOps[] = {
    {LayerOp::kConv2d, "CONV_2D", {1, 1}},
    {LayerOp::kDepthwiseConv2d, "DEPTHWISE_CONV_2D", {1, 1}},
    {LayerOp::kFullyConnected, "FULLY_CONNECTED", {1, 1}},
    {LayerOp::kAveragePool2d, "AVERAGE_POOL_2D", {1, 1}},
    {LayerOp::kMaxPool2d, "MAX_POOL_2D", {1, 1}},
    {LayerOp::kAdd, "ADD", {2, 2}},
    {LayerOp::kConcatenation, "CONCATENATION", {2, kAny}},
    {LayerOp::kMean, "MEAN", {1, 1}},
    {LayerOp::kReshape, "RESHAPE", {1, 1}},
    {LayerOp::kSoftmax, "SOFTMAX", {1, 1}},
    {LayerOp::kSub, "SUB", {2, 2}},
    {LayerOp::kMul, "MUL", {2, 2}},
    {LayerOp::kRelu, "RELU", {1, 1}},
    {LayerOp::kRelu1, "RELU1", {1, 1}},
    {LayerOp::kRelu6, "RELU6", {1, 1}},
    {LayerOp::kLogistic, "LOGISTIC", {1, 1}},
    {LayerOp::kTanh, "TANH", {1, 1}},
    {LayerOp::kPad, "PAD", {1, 1}},
    {LayerOp::kPadV2, "PAD_V2", {1, 1}},
    {LayerOp::kBatchMatmul, "BATCH_MATMUL", {2, 2}},
    {LayerOp::kTranspose, "TRANSPOSE", {1, 1}},
    {LayerOp::kSlice, "SLICE", {1, 1}},
    {LayerOp::kLayerNorm, "LAYER_NORM", {1, 1}},
    {LayerOp::kGelu, "GELU", {1, 1}},
};

const OpInfo& info(LayerOp op) {
  return *std::find_if(std::begin(kOps), std::end(kOps), [op](const OpInfo& i) { return i.op == op; });
}

}  // namespace

LayerOp parseOp(const std::string& name, const std::string& where) {
  for (const OpInfo& i : kOps) {
    if (name == i.name) return i.op;
  }
  std::string known;
  for (const OpInfo& i : kOps) known += fmt::format("{}{}", known.empty() ? "" : ", ", i.name);
  throw NetworkError(fmt::format("{}: op \"{}\" is not one of {}", where, name, known));
}

Padding parsePadding(const json& p, const std::string& where) {
  Padding padding;
  if (p == "SAME" || p == "VALID") {
    padding.scheme = p == "SAME" ? Padding::Scheme::kSame : Padding::Scheme::kValid;
    return padding;
  }
  if (!p.is_object()) {
    throw NetworkError(where + ": padding must be SAME, VALID or {\"top\", \"bottom\", \"left\", \"right\"}");
  }
  const std::string sides = where + " padding";
  padding.scheme = Padding::Scheme::kExplicit;
  padding.top = static_cast<uint32_t>(integerIn(p, "top", 0, kMaxWindowField, sides));
  padding.bottom = static_cast<uint32_t>(integerIn(p, "bottom", 0, kMaxWindowField, sides));
  padding.left = static_cast<uint32_t>(integerIn(p, "left", 0, kMaxWindowField, sides));
  padding.right = static_cast<uint32_t>(integerIn(p, "right", 0, kMaxWindowField, sides));
  return padding;
}

std::vector<int32_t> parsePaddings(const json& j, const std::string& where) {
  const json& p = field(j, "paddings", where);
  std::vector<int32_t> out;
  if (p.is_array()) {
    for (const json& d : p) {
      if (!d.is_array() || d.size() != 2) break;
      for (const json& v : d) {
        if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > kMaxWindowField) {
          throw NetworkError(fmt::format("{}: \"paddings\" entries must be integers in [0, {}]", where, kMaxWindowField));
        }
        out.push_back(v.get<int32_t>());
      }
    }
    if (out.size() == 2 * p.size() && !p.empty()) return out;
  }
  throw NetworkError(where + ": \"paddings\" must be [[before, after], ...], one pair per input dimension");
}

namespace {

// stride and padding: convolutions and pools.
void parseWindow(const json& j, Layer& l, const std::string& where) {
  l.stride = static_cast<int>(integerIn(j, "stride", 1, kMaxWindowField, where));
  l.padding = parsePadding(field(j, "padding", where), where);
}

void parseWeightShape(const json& j, Layer& l, bool isSigned, const std::string& where) {
  const json& w = field(j, "weights", where);
  l.weightShape = dimensions(w, "shape", where + " weights");
  l.weightQuant = quantParams(w, where + " weights", isSigned);
}

}  // namespace

const char* nnapiName(LayerOp op) { return info(op).name; }

InputCount inputCount(LayerOp op) { return info(op).inputs; }

bool parseDataMovementFields(const json& j, Layer& l, const std::string& where) {
  switch (l.op) {
    case LayerOp::kReshape:
      l.targetShape = get<std::vector<int32_t>>(j, "shape", where);
      return true;
    case LayerOp::kBatchMatmul:
      l.adjX = j.contains("adjX") && get<bool>(j, "adjX", where);
      l.adjY = j.contains("adjY") && get<bool>(j, "adjY", where);
      return true;
    case LayerOp::kTranspose:
      l.perm = get<std::vector<int32_t>>(j, "perm", where);
      return true;
    case LayerOp::kSlice:
      l.begin = get<std::vector<int32_t>>(j, "begin", where);
      l.size = get<std::vector<int32_t>>(j, "size", where);
      return true;
    case LayerOp::kLayerNorm:
      l.epsilon = j.contains("epsilon") ? get<float>(j, "epsilon", where) : 1e-5f;
      if (!(l.epsilon >= 0) || !std::isfinite(l.epsilon)) {
        throw NetworkError(where + ": \"epsilon\" must be a finite number >= 0");
      }
      l.affineSeed = j.contains("affineSeed") ? static_cast<uint32_t>(integerIn(j, "affineSeed", 0, UINT32_MAX, where)) : 1;
      return true;
    case LayerOp::kGelu: {  // ONNX's Gelu attribute: "none" (the erf form) or "tanh"
      const std::string form = j.contains("approximate") ? get<std::string>(j, "approximate", where) : "none";
      if (form != "none" && form != "tanh") throw NetworkError(where + ": \"approximate\" must be \"none\" or \"tanh\"");
      l.geluTanh = form == "tanh";
      return true;
    }
    default:
      return false;
  }
}

Layer parseLayerFields(const json& j, bool isSigned, const std::string& where) {
  Layer l;
  l.op = parseOp(get<std::string>(j, "op", where), where);
  l.outputQuant = quantParams(field(j, "output", where), where + " output", isSigned);
  auto activation = [&] { l.activation = activationCode(get<std::string>(j, "activation", where), where); };
  switch (l.op) {
    case LayerOp::kConv2d:
    case LayerOp::kDepthwiseConv2d:
      parseWindow(j, l, where);
      activation();
      parseWeightShape(j, l, isSigned, where);
      if (l.op == LayerOp::kDepthwiseConv2d && j.contains("dilation")) {
        l.dilation = static_cast<int>(integerIn(j, "dilation", 1, kMaxWindowField, where));
      }
      break;
    case LayerOp::kFullyConnected:
      activation();
      parseWeightShape(j, l, isSigned, where);
      break;
    case LayerOp::kAveragePool2d:
    case LayerOp::kMaxPool2d: {
      parseWindow(j, l, where);
      activation();
      const auto f = get<std::vector<int64_t>>(j, "filter", where);
      if (f.size() != 2 || f[0] < 1 || f[1] < 1 || f[0] > kMaxWindowField || f[1] > kMaxWindowField) {
        throw NetworkError(where + ": filter must be [h, w], each at least 1");
      }
      l.filterH = static_cast<uint32_t>(f[0]);
      l.filterW = static_cast<uint32_t>(f[1]);
      break;
    }
    case LayerOp::kAdd:
    case LayerOp::kSub:
    case LayerOp::kMul:
      activation();
      break;
    case LayerOp::kRelu:
    case LayerOp::kRelu1:
    case LayerOp::kRelu6:
    case LayerOp::kLogistic:
    case LayerOp::kTanh:
      break;
    case LayerOp::kPad:
      l.paddings = parsePaddings(j, where);
      break;
    case LayerOp::kPadV2:
      l.paddings = parsePaddings(j, where);
      // In the tensor type's range; inferShapes' caller checks it against the type.
      l.padValue = static_cast<int32_t>(integerIn(j, "value", -128, 255, where));
      break;
    case LayerOp::kConcatenation:
      // Resolved against the inputs' rank by inferShapes.
      l.axis = static_cast<int32_t>(integerIn(j, "axis", -4, 3, where));
      break;
    case LayerOp::kMean:
      l.axes = get<std::vector<int32_t>>(j, "axes", where);
      if (l.axes.empty()) throw NetworkError(where + ": \"axes\" must name at least one axis");
      l.keepDims = get<bool>(j, "keepDims", where);
      break;
    case LayerOp::kReshape:
    case LayerOp::kBatchMatmul:
    case LayerOp::kTranspose:
    case LayerOp::kSlice:
    case LayerOp::kLayerNorm:
    case LayerOp::kGelu:
      parseDataMovementFields(j, l, where);
      break;
    case LayerOp::kSoftmax:
      l.beta = get<float>(j, "beta", where);
      if (!(l.beta > 0)) throw NetworkError(where + ": beta must be > 0");
      break;
  }
  return l;
}

void drawLayerData(Layer& l, const json& j, bool isSigned, const std::string& where, TensorValues values) {
  if (l.weightShape.empty()) return;
  const json& w = field(j, "weights", where);
  const json& b = field(j, "bias", where);
  const int64_t bound = integerIn(b, "bound", 1, int64_t{1} << 30, where + " bias");
  size_t count = 1;
  for (uint32_t d : l.weightShape) count *= d;
  const uint64_t seed = get<uint64_t>(w, "seed", where + " weights");
  const uint64_t biasSeed = get<uint64_t>(b, "seed", where + " bias");
  if (values != TensorValues::kDrawn) {  // no weights (the model is given zero pages), zero biases
    l.bias.assign(l.outputShape.back(), 0);
    return;
  }
  l.weights = isSigned ? drawSignedWeights(seed, count, l.weightQuant.zeroPoint)
                       : drawWeights(seed, count, l.weightQuant.zeroPoint);
  l.bias = drawBias(biasSeed, l.outputShape.back(), bound);
}

}  // namespace weft::tool
