// A bundled network description (traces/networks/*.json, format in traces/README.md), with
// its integer weights regenerated from the seeds.
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

enum class LayerOp { kConv2d, kDepthwiseConv2d, kFullyConnected, kAveragePool2d, kSoftmax };
const char* nnapiName(LayerOp op);

struct Layer {
  std::string name;
  LayerOp op = LayerOp::kConv2d;
  int stride = 1;
  bool samePadding = true;
  int activation = 0;                 // ANEURALNETWORKS_FUSED_*
  std::vector<uint32_t> weightShape;  // OHWI (conv), 1HWC (depthwise), [units, inputs] (FC)
  QuantParams weightQuant;
  std::vector<uint8_t> weights;       // regenerated from the seed
  std::vector<int32_t> bias;          // regenerated from the seed
  uint32_t filterH = 0, filterW = 0;  // pooling window
  float beta = 1.0f;                  // softmax
  QuantParams outputQuant;
  std::vector<uint32_t> inputShape, outputShape;  // NHWC (or [N, C] after a FC)
  uint64_t macs = 0;                  // multiply-accumulates of the layer
};

struct Network {
  std::string name, description;
  std::vector<uint32_t> inputShape;
  QuantParams inputQuant;
  std::vector<uint8_t> input;  // the deterministic input, regenerated from its seed
  std::vector<Layer> layers;
};

// Reads and checks a description; NetworkError says what is wrong and where.
Network loadNetwork(const std::string& path);

// The deterministic data of the format (traces/README.md), also for layers that other
// descriptions define (layer sets, SCALE-Sim tables).
std::vector<uint8_t> drawInput(uint64_t seed, size_t n);
std::vector<uint8_t> drawWeights(uint64_t seed, size_t n, int32_t zeroPoint);
std::vector<int32_t> drawBias(uint64_t seed, size_t n, int64_t bound);
// Fills l.inputShape, l.outputShape and l.macs from the op's fields and the input shape;
// NetworkError (prefixed with `where`) when they do not fit together.
void inferShapes(Layer& l, const std::vector<uint32_t>& input, const std::string& where);

}  // namespace weft::tool
