#include "SingleLayer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace weft::tool {
namespace {

using namespace layer_data;

double accumulatorSpread(const LayerShape& s) {
  const double k = s.op == LayerOp::kConv2d ? double(s.filterH) * s.filterW * s.channels : double(s.channels);
  return kOperandSpread * kOperandSpread * std::sqrt(k);
}

// Everything but the data: the network's input, the layer's shapes and quantization.
Network shapedNetwork(const LayerShape& s) {
  const std::string where = fmt::format("layer {}", s.name);
  if (s.op != LayerOp::kConv2d && s.op != LayerOp::kFullyConnected) {
    throw NetworkError(where + ": only CONV_2D and FULLY_CONNECTED layers can be built from shapes");
  }
  if (s.batch == 0 || s.height == 0 || s.width == 0 || s.channels == 0 || s.filters == 0 || s.filterH == 0 ||
      s.filterW == 0 || s.stride < 1) {
    throw NetworkError(where + ": every dimension and the stride must be at least 1");
  }
  const int32_t lo = s.isSigned ? -128 : 0;
  for (int32_t zp : {s.inputZeroPoint, s.weightZeroPoint}) {
    if (zp < lo || zp > lo + 255) throw NetworkError(fmt::format("{}: zero points must be in [{}, {}]", where, lo, lo + 255));
  }
  Network net;
  net.name = s.name;
  net.isSigned = s.isSigned;
  const bool conv = s.op == LayerOp::kConv2d;
  net.inputShape = conv ? std::vector<uint32_t>{s.batch, s.height, s.width, s.channels}
                        : std::vector<uint32_t>{s.batch, s.channels};
  net.inputQuant = {kInputScale, s.inputZeroPoint};

  Layer l;
  l.name = s.name;
  l.op = s.op;
  l.stride = s.stride;
  l.padding = s.padding;
  l.activation = s.activation;
  l.weightShape = conv ? std::vector<uint32_t>{s.filters, s.filterH, s.filterW, s.channels}
                       : std::vector<uint32_t>{s.filters, s.channels};
  l.weightQuant = {kWeightScale, s.weightZeroPoint};
  inferShapes(l, {{"input", net.inputShape, net.inputQuant}}, where);
  l.outputQuant = {static_cast<float>(accumulatorSpread(s) * kInputScale * kWeightScale / kOutputSpread), lo + 128};
  net.layers.push_back(std::move(l));
  return net;
}

size_t elements(const std::vector<uint32_t>& dims) {
  size_t n = 1;
  for (uint32_t d : dims) n *= d;
  return n;
}

}  // namespace

void checkLayerShape(const LayerShape& shape) { shapedNetwork(shape); }

Network singleLayerNetwork(const LayerShape& s, TensorValues values) {
  Network net = shapedNetwork(s);
  Layer& l = net.layers.front();
  if (values == TensorValues::kNone) return net;
  if (values == TensorValues::kZeroPages) {
    l.bias.assign(s.filters, 0);
    return net;
  }
  l.weights = s.isSigned ? drawSignedWeights(s.seed + 1, elements(l.weightShape), s.weightZeroPoint)
                         : drawWeights(s.seed + 1, elements(l.weightShape), s.weightZeroPoint);
  l.bias = drawBias(s.seed + 2, s.filters, std::clamp<int64_t>(std::llround(accumulatorSpread(s)), 1, int64_t{1} << 30));
  net.input = drawInput(s.seed, elements(net.inputShape));
  return net;
}

Network singleLayerNetwork(const Network& network, size_t index, uint64_t inputSeed, TensorValues values) {
  const Layer& layer = network.layers.at(index);
  Network net;
  net.name = layer.name;
  net.description = fmt::format("layer {} of {}", layer.name, network.name);
  net.isSigned = network.isSigned;
  net.layers.push_back(layer);
  Layer& alone = net.layers.back();
  // Each tensor the layer reads becomes an input of its own (an ADD of two layers, a
  // CONCATENATION of several), with that tensor's shape and quantization and its own data.
  alone.inputs.clear();
  for (size_t k = 0; k < layer.inputs.size(); ++k) {
    const int source = layer.inputs[k];
    const auto& shape = network.sourceShape(source);
    auto data = values == TensorValues::kDrawn ? drawInput(inputSeed + k, elements(shape)) : std::vector<uint8_t>{};
    if (k == 0) {
      net.inputShape = shape;
      net.inputQuant = network.sourceQuant(source);
      net.input = std::move(data);
    } else {
      net.extraInputs.push_back({shape, network.sourceQuant(source), std::move(data), {}});
    }
    alone.inputs.push_back(networkInput(k));
  }
  return net;
}

namespace {

std::string dimsText(const std::vector<uint32_t>& dims) { return fmt::format("{}", fmt::join(dims, "x")); }

const char* paddingText(const Padding& p) {
  return p.scheme == Padding::Scheme::kValid ? "v" : p.scheme == Padding::Scheme::kExplicit ? "p" : "";
}

}  // namespace

std::string describeShape(const Network& net, const Layer& l) {
  const auto& in = l.inputShape;
  const auto& w = l.weightShape;
  if ((l.op == LayerOp::kConv2d || l.op == LayerOp::kDepthwiseConv2d) && in.size() == 4 && w.size() == 4) {
    const std::string batch = in[0] > 1 ? fmt::format("{}x", in[0]) : "";
    const std::string dilation = l.dilation > 1 ? fmt::format(" d{}", l.dilation) : "";
    return fmt::format("{}{}x{}x{} {}x{}/{}{}{} -> {}", batch, in[1], in[2], in[3], w[1], w[2], l.stride,
                       paddingText(l.padding), dilation, l.outputShape.back());
  }
  if (l.op == LayerOp::kFullyConnected && w.size() == 2) {
    return fmt::format("{}x{} -> {}", l.outputShape.front(), w[1], w[0]);
  }
  if ((l.op == LayerOp::kAveragePool2d || l.op == LayerOp::kMaxPool2d) && in.size() == 4) {
    const std::string batch = in[0] > 1 ? fmt::format("{}x", in[0]) : "";
    return fmt::format("{}{}x{}x{} {}x{}/{}{}", batch, in[1], in[2], in[3], l.filterH, l.filterW, l.stride,
                       paddingText(l.padding));
  }
  // Everything else by its tensors: "1x8x8x3 + 3 -> 1x8x8x3".
  std::string text;
  for (int source : l.inputs) text += (text.empty() ? "" : " + ") + dimsText(net.sourceShape(source));
  return fmt::format("{} -> {}", text, dimsText(l.outputShape));
}

}  // namespace weft::tool
