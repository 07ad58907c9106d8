#include "LayerSpec.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "JsonFields.h"
#include "LayerFields.h"
#include "LayerRules.h"
#include "SingleLayer.h"

namespace weft::tool {
namespace {

using namespace json_fields;
using namespace layer_data;

bool readsSeveral(LayerOp op) { return inputCount(op).max > 1; }

// The fields an entry of `op` may have besides the common ones.
std::vector<std::string> opFields(LayerOp op) {
  switch (op) {
    case LayerOp::kDepthwiseConv2d:
      return {"kernel", "depthMultiplier", "stride", "dilation", "padding", "activation", "weightZeroPoint"};
    case LayerOp::kAveragePool2d:
    case LayerOp::kMaxPool2d:
      return {"window", "stride", "padding", "activation"};
    case LayerOp::kAdd:
    case LayerOp::kSub:
    case LayerOp::kMul:
      return {"activation"};
    case LayerOp::kSoftmax:
      return {"beta"};
    case LayerOp::kMean:
      return {"axes", "keepDims"};
    case LayerOp::kPad:
      return {"paddings"};
    case LayerOp::kPadV2:
      return {"paddings", "value"};
    case LayerOp::kConcatenation:
      return {"axis"};
    case LayerOp::kReshape:
      return {"shape"};
    case LayerOp::kBatchMatmul:
      return {"adjX", "adjY"};
    case LayerOp::kTranspose:
      return {"perm"};
    case LayerOp::kSlice:
      return {"begin", "size"};
    case LayerOp::kLayerNorm:
      return {"epsilon", "affineSeed"};
    case LayerOp::kGelu:
      return {"approximate"};
    default:
      return {};
  }
}

// A tensor's quantization from `scaleKey` and `zeroPointKey`, each optional: scale 1/128, the
// zero point mid-range (128 unsigned, 0 signed).
QuantParams readQuant(const json& j, const char* scaleKey, const char* zeroPointKey, bool isSigned,
                      const std::string& where) {
  QuantParams q{kInputScale, isSigned ? 0 : 128};
  if (j.contains(scaleKey)) {
    q.scale = get<float>(j, scaleKey, where);
    if (!(q.scale > 0) || !std::isfinite(q.scale)) {
      throw NetworkError(fmt::format("{}: \"{}\" must be a positive number", where, scaleKey));
    }
  }
  const int32_t lo = isSigned ? -128 : 0;
  if (j.contains(zeroPointKey)) q.zeroPoint = static_cast<int32_t>(integerIn(j, zeroPointKey, lo, lo + 255, where));
  return q;
}

std::vector<uint32_t> readShape(const json& j, const char* key, const std::string& where) {
  auto dims = dimensions(j, key, where);
  if (dims.empty() || dims.size() > 4) {
    throw NetworkError(fmt::format("{}: \"{}\" must have 1 to 4 dimensions (NNAPI's ranks)", where, key));
  }
  return dims;
}

// "input" (+ "inputScale", "inputZeroPoint") for ops that read one tensor, "inputs" (a list of
// {"shape", "scale", "zeroPoint"}) for those that read several.
std::vector<LayerInput> readInputs(const json& j, LayerOp op, bool isSigned, const std::string& where) {
  std::vector<LayerInput> inputs;
  if (!readsSeveral(op)) {
    if (j.contains("inputs")) {
      throw NetworkError(fmt::format("{}: {} reads one tensor: give \"input\", not \"inputs\"", where, nnapiName(op)));
    }
    inputs.push_back({"input", readShape(j, "input", where), readQuant(j, "inputScale", "inputZeroPoint", isSigned, where)});
    return inputs;
  }
  if (j.contains("input")) {
    throw NetworkError(fmt::format("{}: {} reads several tensors: give \"inputs\": [{{\"shape\", \"scale\", "
                                   "\"zeroPoint\"}}, ...], not \"input\"",
                                   where, nnapiName(op)));
  }
  const json& list = field(j, "inputs", where);
  const InputCount count = inputCount(op);
  if (!list.is_array() || list.size() < count.min || list.size() > count.max || list.size() > 64) {
    const std::string wanted = count.min == count.max ? std::to_string(count.min) : fmt::format("{} to 64", count.min);
    throw NetworkError(fmt::format("{}: \"inputs\" must list {} tensors for {}", where, wanted, nnapiName(op)));
  }
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = fmt::format("{} inputs[{}]", where, i);
    if (!list[i].is_object()) throw NetworkError(at + ": must be {\"shape\", \"scale\", \"zeroPoint\"}");
    rejectUnknownFields(list[i], {"shape", "scale", "zeroPoint"}, at);
    inputs.push_back({i == 0 ? "input" : fmt::format("input{}", i), readShape(list[i], "shape", at),
                      readQuant(list[i], "scale", "zeroPoint", isSigned, at)});
  }
  return inputs;
}

int intOr(const json& j, const char* key, int fallback, int64_t lo, int64_t hi, const std::string& where) {
  return j.contains(key) ? static_cast<int>(integerIn(j, key, lo, hi, where)) : fallback;
}

std::vector<uint32_t> pair(const json& j, const char* key, const std::string& where) {
  const auto dims = dimensions(j, key, where);
  if (dims.size() != 2 || dims[0] > kMaxWindowField || dims[1] > kMaxWindowField) {
    throw NetworkError(fmt::format("{}: \"{}\" must be [height, width], each in [1, {}]", where, key, kMaxWindowField));
  }
  return dims;
}

// The op's own fields into `l`.
void readOpFields(const json& j, Layer& l, const std::vector<LayerInput>& inputs, bool isSigned,
                  const std::string& where) {
  auto activation = [&] {
    l.activation = activationCode(j.contains("activation") ? get<std::string>(j, "activation", where) : "NONE", where);
  };
  auto window = [&] {
    l.stride = intOr(j, "stride", 1, 1, kMaxWindowField, where);
    l.padding = j.contains("padding") ? parsePadding(j["padding"], where) : Padding{Padding::Scheme::kValid};
    activation();
  };
  switch (l.op) {
    case LayerOp::kDepthwiseConv2d: {
      window();
      const auto kernel = pair(j, "kernel", where);
      const int multiplier = intOr(j, "depthMultiplier", 1, 1, 1024, where);
      l.dilation = intOr(j, "dilation", 1, 1, kMaxWindowField, where);
      const auto& in = inputs.front().shape;
      if (in.size() != 4) throw NetworkError(where + ": a DEPTHWISE_CONV_2D input is [batch, height, width, channels]");
      l.weightShape = {1, kernel[0], kernel[1], in[3] * static_cast<uint32_t>(multiplier)};
      const int32_t lo = isSigned ? -128 : 0;
      l.weightQuant = {kWeightScale, intOr(j, "weightZeroPoint", lo + 128, lo, lo + 255, where)};
      break;
    }
    case LayerOp::kAveragePool2d:
    case LayerOp::kMaxPool2d: {
      window();
      const auto w = pair(j, "window", where);
      l.filterH = w[0];
      l.filterW = w[1];
      break;
    }
    case LayerOp::kAdd:
    case LayerOp::kSub:
    case LayerOp::kMul:
      activation();
      break;
    case LayerOp::kSoftmax:
      l.beta = j.contains("beta") ? get<float>(j, "beta", where) : 1.0f;
      if (!(l.beta > 0) || !std::isfinite(l.beta)) throw NetworkError(where + ": \"beta\" must be a positive number");
      break;
    case LayerOp::kMean:
      l.axes = get<std::vector<int32_t>>(j, "axes", where);
      if (l.axes.empty()) throw NetworkError(where + ": \"axes\" must name at least one axis");
      l.keepDims = j.contains("keepDims") ? get<bool>(j, "keepDims", where) : false;
      break;
    case LayerOp::kPad:
      l.paddings = parsePaddings(j, where);
      break;
    case LayerOp::kPadV2:
      l.paddings = parsePaddings(j, where);
      l.padValue = static_cast<int32_t>(integerIn(j, "value", isSigned ? -128 : 0, isSigned ? 127 : 255, where));
      break;
    case LayerOp::kConcatenation:
      l.axis = static_cast<int32_t>(integerIn(j, "axis", -4, 3, where));
      break;
    default:
      parseDataMovementFields(j, l, where);
      break;
  }
}

// An output quantization that spreads the outputs over the quant8 range without saturating
// much, as SingleLayer.cpp chooses one for convolutions; ops whose output quantization NNAPI
// fixes get that one.
QuantParams defaultOutputQuant(const Layer& l, const std::vector<LayerInput>& inputs, bool isSigned) {
  const int32_t mid = isSigned ? 0 : 128;
  if (keepsInputQuant(l.op)) return inputs.front().quant;
  switch (l.op) {
    case LayerOp::kSoftmax:
    case LayerOp::kLogistic:
    case LayerOp::kTanh:
      return fixedOutputQuant(l.op, isSigned);
    case LayerOp::kDepthwiseConv2d: {
      const double spread = kOperandSpread * kOperandSpread * std::sqrt(double(l.weightShape[1]) * l.weightShape[2]);
      return {static_cast<float>(spread * inputs[0].quant.scale * l.weightQuant.scale / kOutputSpread), mid};
    }
    case LayerOp::kAdd:
    case LayerOp::kSub: {
      const double a = inputs[0].quant.scale, b = inputs[1].quant.scale;
      return {static_cast<float>(kOperandSpread * std::sqrt(a * a + b * b) / kOutputSpread), mid};
    }
    case LayerOp::kMul:
      return {static_cast<float>(kOperandSpread * kOperandSpread * inputs[0].quant.scale * inputs[1].quant.scale /
                                 kOutputSpread),
              mid};
    case LayerOp::kBatchMatmul: {  // a sum of K products, as a convolution's
      const double k = l.adjX ? inputs[0].shape.end()[-2] : inputs[0].shape.back();
      return {static_cast<float>(kOperandSpread * kOperandSpread * std::sqrt(k) * inputs[0].quant.scale *
                                 inputs[1].quant.scale / kOutputSpread),
              mid};
    }
    case LayerOp::kLayerNorm:  // unit variance times gamma (|gamma| <= 1.5) plus beta: about +-4
      return {1.0f / 32, mid};
    default:  // CONCATENATION: the first input's
      return inputs.front().quant;
  }
}

size_t elements(const std::vector<uint32_t>& dims) {
  size_t n = 1;
  for (uint32_t d : dims) n *= d;
  return n;
}

}  // namespace

LayerSpec parseLayerSpec(const json& j, size_t index) {
  if (!j.is_object()) throw NetworkError(fmt::format("layer set entry {}: must be an object", index));
  Layer l;
  l.name = get<std::string>(j, "name", fmt::format("layer set entry {}", index));
  const std::string where = fmt::format("layer set entry {} ({})", index, l.name);
  l.op = parseOp(get<std::string>(j, "op", where), where);
  if (l.op == LayerOp::kConv2d || l.op == LayerOp::kFullyConnected) {
    throw NetworkError(where + ": CONV_2D and FULLY_CONNECTED entries are read as layer shapes");
  }
  std::set<std::string> known = {"name", "op", "type", "output", "seed"};
  for (const char* k : readsSeveral(l.op) ? std::vector<const char*>{"inputs"}
                                           : std::vector<const char*>{"input", "inputScale", "inputZeroPoint"}) {
    known.insert(k);
  }
  for (const auto& k : opFields(l.op)) known.insert(k);
  rejectUnknownFields(j, known, where);

  const bool isSigned = signedType(j, where);
  const std::vector<LayerInput> inputs = readInputs(j, l.op, isSigned, where);
  readOpFields(j, l, inputs, isSigned, where);
  l.inputs.clear();
  for (size_t i = 0; i < inputs.size(); ++i) l.inputs.push_back(networkInput(i));
  inferShapes(l, inputs, where);
  if (j.contains("output")) {
    const json& o = j["output"];
    const std::string at = where + " output";
    if (!o.is_object()) throw NetworkError(at + ": must be {\"scale\", \"zeroPoint\"}");
    rejectUnknownFields(o, {"scale", "zeroPoint"}, at);
    l.outputQuant = {get<float>(o, "scale", at), get<int32_t>(o, "zeroPoint", at)};
    if (!(l.outputQuant.scale > 0) || !std::isfinite(l.outputQuant.scale)) {
      throw NetworkError(at + ": \"scale\" must be a positive number");
    }
  } else {
    l.outputQuant = defaultOutputQuant(l, inputs, isSigned);
  }
  checkQuantization(l, inputs, isSigned, where);

  LayerSpec spec;
  spec.seed = j.contains("seed") ? get<uint64_t>(j, "seed", where) : uint64_t{1000} + 16 * index;
  Network& net = spec.network;
  net.name = l.name;
  net.isSigned = isSigned;
  net.inputShape = inputs[0].shape;
  net.inputQuant = inputs[0].quant;
  for (size_t i = 1; i < inputs.size(); ++i) net.extraInputs.push_back({inputs[i].shape, inputs[i].quant, {}, {}});
  net.layers.push_back(std::move(l));
  return spec;
}

Network buildLayer(const LayerSpec& spec, TensorValues values) {
  Network net = spec.network;
  Layer& l = net.layers.front();
  if (values == TensorValues::kNone) return net;
  if (values == TensorValues::kZeroPages) {
    if (!l.weightShape.empty()) l.bias.assign(l.weightShape[3], 0);
    return net;
  }
  uint64_t seed = spec.seed;
  net.input = drawInput(seed++, elements(net.inputShape));
  for (ExtraInput& in : net.extraInputs) in.data = drawInput(seed++, elements(in.shape));
  if (!l.weightShape.empty()) {  // DEPTHWISE_CONV_2D
    const size_t count = elements(l.weightShape);
    l.weights = net.isSigned ? drawSignedWeights(seed, count, l.weightQuant.zeroPoint)
                             : drawWeights(seed, count, l.weightQuant.zeroPoint);
    const double spread = kOperandSpread * kOperandSpread * std::sqrt(double(l.weightShape[1]) * l.weightShape[2]);
    l.bias = drawBias(seed + 1, l.weightShape[3], std::max<int64_t>(1, std::llround(spread)));
  }
  return net;
}

}  // namespace weft::tool
