// A bundled network description (traces/networks/*.json, format in traces/README.md): a graph
// of layers listed in execution order, with its integer weights regenerated from the seeds.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace weft::tool {

class NetworkError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct QuantParams {
  float scale = 0;
  int32_t zeroPoint = 0;
};

enum class LayerOp {
  kConv2d, kDepthwiseConv2d, kFullyConnected, kAveragePool2d, kMaxPool2d,
  kAdd, kConcatenation, kMean, kReshape, kSoftmax
};
const char* nnapiName(LayerOp op);

// What a layer reads: an earlier layer's output (its index) or the network's input.
constexpr int kNetworkInput = -1;

// NNAPI's implicit padding schemes, or explicit sizes (its explicit-padding signatures).
struct Padding {
  enum class Scheme { kSame, kValid, kExplicit };
  Scheme scheme = Scheme::kSame;
  uint32_t top = 0, bottom = 0, left = 0, right = 0;  // kExplicit only
};

struct Layer {
  std::string name;
  LayerOp op = LayerOp::kConv2d;
  std::vector<int> inputs = {kNetworkInput};  // in operand order: layer indices or kNetworkInput
  int stride = 1;
  Padding padding;
  int activation = 0;                 // ANEURALNETWORKS_FUSED_*
  std::vector<uint32_t> weightShape;  // OHWI (conv), 1HWC (depthwise), [units, inputs] (FC)
  QuantParams weightQuant;
  std::vector<uint8_t> weights;       // regenerated from the seed
  std::vector<int32_t> bias;          // regenerated from the seed
  uint32_t filterH = 0, filterW = 0;  // pooling window
  float beta = 1.0f;                  // SOFTMAX
  int32_t axis = 0;                   // CONCATENATION, in [0, rank)
  std::vector<int32_t> axes;          // MEAN, as written (negative counts from the end)
  bool keepDims = false;              // MEAN
  std::vector<int32_t> targetShape;   // RESHAPE, as written (one entry may be -1)
  QuantParams outputQuant;
  std::vector<uint32_t> inputShape;   // the first input's
  std::vector<uint32_t> outputShape;  // NHWC (or [N, C] after a FC)
  uint64_t macs = 0;                  // multiply-accumulates of the layer
};

struct Network {
  std::string name, description;
  std::vector<uint32_t> inputShape;
  QuantParams inputQuant;
  std::vector<uint8_t> input;  // the deterministic input, regenerated from its seed
  std::vector<Layer> layers;

  // What a Layer::inputs entry names: "input" or the layer's name, its shape and quantization.
  const std::string& sourceName(int source) const;
  const std::vector<uint32_t>& sourceShape(int source) const;
  const QuantParams& sourceQuant(int source) const;
};

// Reads and checks a description; NetworkError says what is wrong and where (the layer and
// the field). parseNetwork reads the text of one (`origin` names it in errors).
Network loadNetwork(const std::string& path);
Network parseNetwork(const std::string& text, const std::string& origin);

// The deterministic data of the format (traces/README.md), also for layers that other
// descriptions define (layer sets, SCALE-Sim tables).
std::vector<uint8_t> drawInput(uint64_t seed, size_t n);
std::vector<uint8_t> drawWeights(uint64_t seed, size_t n, int32_t zeroPoint);
std::vector<int32_t> drawBias(uint64_t seed, size_t n, int64_t bound);

// A tensor a layer reads, as shape inference and the quantization rules see it.
struct LayerInput {
  std::string name;  // "input" or the layer that writes it
  std::vector<uint32_t> shape;
  QuantParams quant;
};

// Fills l.inputShape, l.outputShape and l.macs from the op's fields and its inputs' shapes;
// NetworkError (prefixed with `where`) when they do not fit together.
void inferShapes(Layer& l, const std::vector<LayerInput>& inputs, const std::string& where);

}  // namespace weft::tool
