// One convolution or fully-connected layer as a network of its own, with deterministic data:
// the unit that layer sets (`weft validate`) and SCALE-Sim tables (`weft layers`) run.
#pragma once

#include <cstdint>
#include <string>

#include "Network.h"

namespace weft::tool {

// A layer given by its shapes, as SCALE-Sim tables and layer sets describe layers.
struct LayerShape {
  std::string name;
  LayerOp op = LayerOp::kConv2d;  // kConv2d or kFullyConnected
  // CONV_2D: input [batch, height, width, channels], filters [filters, filterH, filterW, channels].
  // FULLY_CONNECTED: input [batch, channels], weights [filters, channels].
  uint32_t batch = 1, height = 1, width = 1, channels = 1;
  uint32_t filters = 1, filterH = 1, filterW = 1;
  int stride = 1;
  bool samePadding = false;  // SCALE-Sim assumes VALID
  int activation = 0;        // ANEURALNETWORKS_FUSED_*
  int32_t inputZeroPoint = 128, weightZeroPoint = 128;
  uint64_t seed = 1;         // of the input, weights and bias (three consecutive seeds)
};

// The layer with weights, bias and input drawn from the seeds (traces/README.md's generators)
// and quantization chosen so that outputs spread over the quant8 range rather than saturate.
// NetworkError when the shapes do not make a layer.
Network singleLayerNetwork(const LayerShape& shape);
// The same checks without drawing any data (a table is checked whole before it runs).
void checkLayerShape(const LayerShape& shape);

// Layer `index` of a bundled network alone: its weights, bias and quantization, its input shape
// and input quantization (those of the tensor it reads), with an input drawn from `inputSeed`.
// Only a layer with one input runs alone: checkRunsAlone throws NetworkError for the others.
Network singleLayerNetwork(const Network& network, size_t index, uint64_t inputSeed);
void checkRunsAlone(const Network& network, size_t index);

// "56x56x64 3x3/1 -> 64" (convolution; "/1v" VALID, "/1p" explicit padding) or "4x1024 -> 1000"
// (fully connected).
std::string describeShape(const Layer& layer);

}  // namespace weft::tool
