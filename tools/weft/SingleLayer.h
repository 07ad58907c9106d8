// One convolution or fully-connected layer as a network of its own, with deterministic data:
// the unit that layer sets (`weft validate`) and SCALE-Sim tables (`weft layers`) run.
#pragma once

#include <cstdint>
#include <string>

#include "Network.h"

namespace weft::tool {

// The quantization of layers built from shapes. With inputs and weights drawn as
// traces/README.md draws them, (x - zp) and (w - zp) have a standard deviation of about 74, so an
// accumulator of K products has one of about 74 * 74 * sqrt(K). Scaling that to ~40 output
// steps keeps most outputs off the clamp.
namespace layer_data {
constexpr double kOperandSpread = 74.0;
constexpr double kOutputSpread = 40.0;
constexpr float kInputScale = 1.0f / 128;
constexpr float kWeightScale = 1.0f / 256;
}  // namespace layer_data

// A layer given by its shapes, as SCALE-Sim tables and layer sets describe layers.
struct LayerShape {
  std::string name;
  LayerOp op = LayerOp::kConv2d;  // kConv2d or kFullyConnected
  // CONV_2D: input [batch, height, width, channels], filters [filters, filterH, filterW, channels].
  // FULLY_CONNECTED: input [batch, channels], weights [filters, channels].
  uint32_t batch = 1, height = 1, width = 1, channels = 1;
  uint32_t filters = 1, filterH = 1, filterW = 1;
  int stride = 1;
  Padding padding{Padding::Scheme::kValid};  // VALID unless given (SCALE-Sim assumes VALID)
  int activation = 0;        // ANEURALNETWORKS_FUSED_*
  bool isSigned = false;     // TENSOR_QUANT8_ASYMM_SIGNED tensors (zero points in [-128, 127])
  int32_t inputZeroPoint = 128, weightZeroPoint = 128;
  uint64_t seed = 1;         // of the input, weights and bias (three consecutive seeds)
};

// The layer with weights, bias and input drawn from the seeds (traces/README.md's generators)
// and quantization chosen so that outputs spread over the quant8 range rather than saturate.
// NetworkError when the shapes do not make a layer.
Network singleLayerNetwork(const LayerShape& shape, TensorValues values = TensorValues::kDrawn);
// The same checks without drawing any data (a table is checked whole before it runs).
void checkLayerShape(const LayerShape& shape);

// Layer `index` of a bundled network alone: its weights, bias and quantization; each tensor it
// reads becomes a network input with that tensor's shape and quantization, drawn from
// `inputSeed`, `inputSeed + 1`... (an ADD or a CONCATENATION runs alone on inputs of its own).
Network singleLayerNetwork(const Network& network, size_t index, uint64_t inputSeed,
                           TensorValues values = TensorValues::kDrawn);

// "56x56x64 3x3/1 -> 64" (convolution; "/1v" VALID, "/1p" explicit padding, " d2" dilation),
// "4x1024 -> 1000" (fully connected), "112x112x64 3x3/2" (pool) or the tensors of any other
// layer of `net`: "1x8x8x3 + 3 -> 1x8x8x3".
std::string describeShape(const Network& net, const Layer& layer);

}  // namespace weft::tool
