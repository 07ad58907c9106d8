#include "Network.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "Splitmix.h"

namespace weft::tool {
namespace {

using nlohmann::json;

const json& field(const json& obj, const char* key, const std::string& where) {
  if (!obj.is_object() || !obj.contains(key)) {
    throw NetworkError(fmt::format("{}: missing \"{}\"", where, key));
  }
  return obj.at(key);
}

template <typename T>
T get(const json& obj, const char* key, const std::string& where) {
  try {
    return field(obj, key, where).get<T>();
  } catch (const json::exception& e) {
    throw NetworkError(fmt::format("{}: \"{}\" has the wrong type ({})", where, key, e.what()));
  }
}

QuantParams quant(const json& obj, const std::string& where) {
  QuantParams q{get<float>(obj, "scale", where), get<int32_t>(obj, "zeroPoint", where)};
  if (!(q.scale > 0) || q.zeroPoint < 0 || q.zeroPoint > 255) {
    throw NetworkError(fmt::format("{}: scale must be > 0 and zeroPoint in [0, 255]", where));
  }
  return q;
}

int activationCode(const std::string& name, const std::string& where) {
  if (name == "NONE") return 0;
  if (name == "RELU") return 1;
  if (name == "RELU1") return 2;
  if (name == "RELU6") return 3;
  throw NetworkError(fmt::format("{}: activation \"{}\" is not NONE, RELU, RELU1 or RELU6", where, name));
}

LayerOp parseOp(const std::string& op, const std::string& where) {
  if (op == "CONV_2D") return LayerOp::kConv2d;
  if (op == "DEPTHWISE_CONV_2D") return LayerOp::kDepthwiseConv2d;
  if (op == "FULLY_CONNECTED") return LayerOp::kFullyConnected;
  if (op == "AVERAGE_POOL_2D") return LayerOp::kAveragePool2d;
  if (op == "SOFTMAX") return LayerOp::kSoftmax;
  throw NetworkError(fmt::format(
      "{}: op \"{}\" is not one of CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, AVERAGE_POOL_2D, SOFTMAX",
      where, op));
}

}  // namespace

std::vector<uint8_t> drawWeights(uint64_t seed, size_t n, int32_t zeroPoint) {
  Splitmix64 rng(seed);
  std::vector<uint8_t> w(n);
  for (auto& v : w) {
    const uint64_t r = rng.next();
    const int64_t sum = static_cast<int64_t>(r & 0xFF) + ((r >> 8) & 0xFF) + ((r >> 16) & 0xFF) + ((r >> 24) & 0xFF);
    v = static_cast<uint8_t>(std::clamp<int64_t>(zeroPoint + ((sum - 510) >> 1), 0, 255));
  }
  return w;
}

std::vector<int32_t> drawBias(uint64_t seed, size_t n, int64_t bound) {
  Splitmix64 rng(seed);
  std::vector<int32_t> b(n);
  for (auto& v : b) v = static_cast<int32_t>(static_cast<int64_t>((rng.next() >> 16) % (2 * bound + 1)) - bound);
  return b;
}

std::vector<uint8_t> drawInput(uint64_t seed, size_t n) {
  Splitmix64 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = static_cast<uint8_t>(rng.next() & 0xFF);
  return v;
}

namespace {

uint32_t outSize(uint32_t in, uint32_t filter, uint32_t stride, bool same) {
  return same ? (in + stride - 1) / stride : (in - filter) / stride + 1;
}

size_t product(const std::vector<uint32_t>& dims) {
  size_t n = 1;
  for (uint32_t d : dims) n *= d;
  return n;
}

}  // namespace

void inferShapes(Layer& l, const std::vector<uint32_t>& in, const std::string& where) {
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
      if ((dw ? w[3] : w[3]) != in[3] || (dw && w[0] != 1)) {
        throw NetworkError(fmt::format("{}: weight shape does not match {} input channels", where, in[3]));
      }
      if (!l.samePadding && (w[1] > in[1] || w[2] > in[2])) {
        throw NetworkError(fmt::format("{}: VALID window larger than the input", where));
      }
      const uint32_t oh = outSize(in[1], w[1], l.stride, l.samePadding);
      const uint32_t ow = outSize(in[2], w[2], l.stride, l.samePadding);
      const uint32_t oc = dw ? w[3] : w[0];
      l.outputShape = {in[0], oh, ow, oc};
      l.macs = uint64_t{in[0]} * oh * ow * oc * w[1] * w[2] * (dw ? 1 : w[3]);
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
      needRank4();
      if (!l.samePadding && (l.filterH > in[1] || l.filterW > in[2])) {
        throw NetworkError(fmt::format("{}: pooling window larger than the input", where));
      }
      l.outputShape = {in[0], outSize(in[1], l.filterH, l.stride, l.samePadding),
                       outSize(in[2], l.filterW, l.stride, l.samePadding), in[3]};
      break;
    case LayerOp::kSoftmax:
      l.outputShape = in;
      break;
  }
}

namespace {

Layer parseLayer(const json& j, size_t index, const std::vector<uint32_t>& in) {
  Layer l;
  l.name = j.is_object() && j.contains("name") ? j["name"].get<std::string>() : fmt::format("layer {}", index);
  const std::string where = fmt::format("layer {} ({})", index, l.name);
  l.op = parseOp(get<std::string>(j, "op", where), where);
  l.outputQuant = quant(field(j, "output", where), where + " output");
  if (l.op != LayerOp::kSoftmax) l.activation = activationCode(get<std::string>(j, "activation", where), where);
  if (l.op == LayerOp::kConv2d || l.op == LayerOp::kDepthwiseConv2d || l.op == LayerOp::kAveragePool2d) {
    l.stride = get<int>(j, "stride", where);
    const auto padding = get<std::string>(j, "padding", where);
    if (padding != "SAME" && padding != "VALID") throw NetworkError(where + ": padding must be SAME or VALID");
    if (l.stride < 1) throw NetworkError(where + ": stride must be at least 1");
    l.samePadding = padding == "SAME";
  }
  if (l.op == LayerOp::kAveragePool2d) {
    const auto f = get<std::vector<uint32_t>>(j, "filter", where);
    if (f.size() != 2 || f[0] == 0 || f[1] == 0) throw NetworkError(where + ": filter must be [h, w]");
    l.filterH = f[0];
    l.filterW = f[1];
  }
  if (l.op == LayerOp::kSoftmax) l.beta = get<float>(j, "beta", where);
  const bool hasWeights = l.op == LayerOp::kConv2d || l.op == LayerOp::kDepthwiseConv2d ||
                          l.op == LayerOp::kFullyConnected;
  if (hasWeights) {
    const json& w = field(j, "weights", where);
    l.weightShape = get<std::vector<uint32_t>>(w, "shape", where + " weights");
    if (std::find(l.weightShape.begin(), l.weightShape.end(), 0u) != l.weightShape.end()) {
      throw NetworkError(where + ": a weight dimension is 0");
    }
    l.weightQuant = quant(w, where + " weights");
  }
  inferShapes(l, in, where);
  if (hasWeights) {
    const json& w = field(j, "weights", where);
    const json& b = field(j, "bias", where);
    const auto bound = get<int64_t>(b, "bound", where + " bias");
    if (bound < 1 || bound > (int64_t{1} << 30)) throw NetworkError(where + ": bias bound out of range");
    l.weights = drawWeights(get<uint64_t>(w, "seed", where), product(l.weightShape), l.weightQuant.zeroPoint);
    l.bias = drawBias(get<uint64_t>(b, "seed", where), l.outputShape.back(), bound);
  }
  return l;
}

}  // namespace

const char* nnapiName(LayerOp op) {
  switch (op) {
    case LayerOp::kConv2d: return "CONV_2D";
    case LayerOp::kDepthwiseConv2d: return "DEPTHWISE_CONV_2D";
    case LayerOp::kFullyConnected: return "FULLY_CONNECTED";
    case LayerOp::kAveragePool2d: return "AVERAGE_POOL_2D";
    case LayerOp::kSoftmax: return "SOFTMAX";
  }
  return "?";
}

Network loadNetwork(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw NetworkError(fmt::format("cannot read network description '{}'", path));
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::exception& e) {
    throw NetworkError(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
  if (get<int>(doc, "format", path) != 1) throw NetworkError(path + ": only format 1 is known");
  Network net;
  net.name = get<std::string>(doc, "name", path);
  net.description = doc.value("description", "");
  const json& input = field(doc, "input", path);
  net.inputShape = get<std::vector<uint32_t>>(input, "shape", path + " input");
  if (get<std::string>(input, "type", path + " input") != "TENSOR_QUANT8_ASYMM") {
    throw NetworkError(path + ": the input must be TENSOR_QUANT8_ASYMM");
  }
  if (net.inputShape.empty() || product(net.inputShape) == 0) throw NetworkError(path + ": empty input shape");
  net.inputQuant = quant(input, path + " input");
  net.input = drawInput(get<uint64_t>(input, "seed", path + " input"), product(net.inputShape));
  const json& layers = field(doc, "layers", path);
  if (!layers.is_array() || layers.empty()) throw NetworkError(path + ": \"layers\" must be a non-empty array");
  std::vector<uint32_t> shape = net.inputShape;
  for (size_t i = 0; i < layers.size(); ++i) {
    net.layers.push_back(parseLayer(layers[i], i, shape));
    shape = net.layers.back().outputShape;
  }
  return net;
}

}  // namespace weft::tool
