// A bundled network description (traces/networks/*.json, format in traces/README.md): a graph
// of layers listed in execution order, with its integer weights regenerated from the seeds.
#pragma once

#include <cstddef>
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
  kAdd, kConcatenation, kMean, kReshape, kSoftmax,
  kSub, kMul, kRelu, kRelu1, kRelu6, kLogistic, kTanh, kPad, kPadV2, kBatchMatmul, kTranspose, kSlice,
  kLayerNorm,  // org.weft.accel's WEFT_LAYER_NORM over the last axis
  kGelu        // org.weft.accel's WEFT_GELU
};
const char* nnapiName(LayerOp op);

// What a layer reads: an earlier layer's output (its index) or one of the network's inputs:
// kNetworkInput is the first (bundled networks have no other), networkInput(i) any of them.
constexpr int kNetworkInput = -1;
constexpr int networkInput(size_t i) { return kNetworkInput - static_cast<int>(i); }

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
  int dilation = 1;                   // DEPTHWISE_CONV_2D, both directions
  int depthMultiplier = 1;            // DEPTHWISE_CONV_2D: weight channels / input channels
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
  std::vector<int32_t> paddings;      // PAD, PAD_V2: before and after for each input dimension
  int32_t padValue = 0;               // PAD_V2, quantized (the tensor type's range)
  std::vector<int32_t> perm;          // TRANSPOSE: output axis k is input axis perm[k]
  std::vector<int32_t> begin, size;   // SLICE: the box's first index and extent (-1: to the end)
  bool adjX = false, adjY = false;    // BATCH_MATMUL: lhs given [..., K, M], rhs given [..., N, K]
  float epsilon = 1e-5f;              // LAYER_NORM
  uint32_t affineSeed = 1;            // LAYER_NORM: gamma and beta are drawn from it
  std::vector<float> affineGamma, affineBeta;  // LAYER_NORM: from affineSeed, one per element of a row
  bool geluTanh = false;              // GELU: the tanh approximation (WEFT_GELU_TANH), else the erf form
  QuantParams outputQuant;
  std::vector<uint32_t> inputShape;   // the first input's
  std::vector<uint32_t> outputShape;  // NHWC (or [N, C] after a FC)
  uint64_t macs = 0;                  // multiply-accumulates of the layer
};

// A network input after the first: a layer set's ADD or CONCATENATION reads several, a network
// description names its own in "extraInputs" (format 3: a mask, a KV cache, position embeddings).
struct ExtraInput {
  std::vector<uint32_t> shape;
  QuantParams quant;
  std::vector<uint8_t> data;
  std::string name;  // empty: "input1", "input2"... by position
};

struct Network {
  std::string name, description;
  std::vector<uint32_t> inputShape;
  QuantParams inputQuant;
  std::vector<uint8_t> input;  // the deterministic input, regenerated from its seed
  std::vector<ExtraInput> extraInputs;  // networkInput(1), networkInput(2)...: their names, else "input1"...
  // Every quant8 tensor is TENSOR_QUANT8_ASYMM_SIGNED (zero points in [-128, 127], the bytes
  // read as int8) rather than TENSOR_QUANT8_ASYMM. The bundled CNNs are unsigned, the transformers
  // signed (NNAPI's BATCH_MATMUL takes no unsigned quant8).
  bool isSigned = false;
  std::vector<Layer> layers;

  size_t inputCount() const { return 1 + extraInputs.size(); }
  // The bytes of network input i (0: `input`), and its size by its shape (a kZeroPages build
  // holds no bytes).
  const std::vector<uint8_t>& inputData(size_t i) const { return i == 0 ? input : extraInputs.at(i - 1).data; }
  uint64_t inputBytes(size_t i) const;

  // What a Layer::inputs entry names: "input" ("input1"...) or the layer's name, its shape and quantization.
  std::string sourceName(int source) const;
  const std::vector<uint32_t>& sourceShape(int source) const;
  const QuantParams& sourceQuant(int source) const;
};

// What a built layer's tensors hold. kDrawn: the deterministic data below. kZeroPages: for runs
// that never read values (the timing backend): nothing drawn, the inputs and weights hold no
// bytes (biases are zeros); the NNAPI execution is given zeroPages() of the inputs' sizes and
// the model its weights in a memory object never written (NetworkModel.cpp), so compilation and
// timing are the same while the tensors take no memory (drawing them was a sixth of a ResNet-50
// table's run; GNMT's, as zero points, 120 MB of its peak memory).
// kNone: shapes only, every data vector empty (sizing a layer before anything is allocated).
enum class TensorValues { kDrawn, kZeroPages, kNone };

// Reads and checks a description; NetworkError says what is wrong and where (the layer and
// the field). parseNetwork reads the text of one (`origin` names it in errors). `values`: the
// inputs' and weights' data (kZeroPages: `weft run` on the timing backend; the checks are the
// same, and a filled extra input is filled all the same).
Network loadNetwork(const std::string& path, TensorValues values = TensorValues::kDrawn);
Network parseNetwork(const std::string& text, const std::string& origin, TensorValues values = TensorValues::kDrawn);

// `bytes` zero bytes that take no memory: a read-only anonymous mapping never written, each page
// reading as the kernel's zero page. Shared by the process, for data nothing writes.
const uint8_t* zeroPages(uint64_t bytes);
// A tensor's bytes: `data` when it holds them, zeroPages() of its shape's size when it is empty.
const uint8_t* bytesOrZeroPages(const std::vector<uint8_t>& data, uint64_t bytes);

// The bytes a network's tensors take as NNAPI operands: its inputs, each layer's weights, bias
// (int32) and output; shapes only, so it works on a kNone build.
uint64_t tensorBytes(const Network& net);

// The deterministic data of the format (traces/README.md), also for layers that other
// descriptions define (layer sets, SCALE-Sim tables).
std::vector<uint8_t> drawInput(uint64_t seed, size_t n);
std::vector<uint8_t> drawWeights(uint64_t seed, size_t n, int32_t zeroPoint);
// The same weights for a signed tensor (zero point in [-128, 127]): drawn as unsigned ones
// around zeroPoint + 128, then shifted by -128 (the byte's top bit flipped).
std::vector<uint8_t> drawSignedWeights(uint64_t seed, size_t n, int32_t zeroPoint);
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
