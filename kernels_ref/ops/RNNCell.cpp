#include "RNNCell.h"

#include <algorithm>
#include <vector>

#include "TensorAsFloat.h"
#include "weft/kernels/OperationUtils.h"
#include "weft/kernels/QuantUtils.h"

namespace weft::nn::rnn {

Result<uint32_t> checkLayerShapes(const Shape& weights, const Shape& recurrentWeights, const Shape& bias,
                                  uint32_t inputSize) {
  NN_RET_CHECK_EQ(getNumberOfDimensions(weights), 2u) << "weights must be 2-D";
  NN_RET_CHECK_EQ(getNumberOfDimensions(recurrentWeights), 2u) << "recurrent weights must be 2-D";
  NN_RET_CHECK_EQ(getNumberOfDimensions(bias), 1u) << "bias must be 1-D";
  const uint32_t numUnits = weights.dimensions[0];
  NN_RET_CHECK_EQ(weights.dimensions[1], inputSize) << "weights columns must match the input size";
  NN_RET_CHECK_EQ(bias.dimensions[0], numUnits) << "one bias per unit";
  NN_RET_CHECK_EQ(recurrentWeights.dimensions[0], numUnits) << "recurrent weights must be [numUnits, numUnits]";
  NN_RET_CHECK_EQ(recurrentWeights.dimensions[1], numUnits) << "recurrent weights must be [numUnits, numUnits]";
  return numUnits;
}

Status checkHiddenState(const Shape& hidden, uint32_t batchSize, uint32_t numUnits) {
  NN_RET_CHECK_EQ(getNumberOfDimensions(hidden), 2u) << "hidden state must be [batch, numUnits]";
  NN_RET_CHECK_EQ(hidden.dimensions[0], batchSize) << "hidden state batch";
  NN_RET_CHECK_EQ(hidden.dimensions[1], numUnits) << "hidden state units";
  return {};
}

Status validateLayerShapes(DimensionAgreement& dims, uint32_t first, const char* units, const char* inputSize) {
  NN_TRY(dims.input(first, {units, inputSize}));
  NN_TRY(dims.input(first + 1, {units, units}));
  NN_TRY(dims.input(first + 2, {units}));
  return dims.input(first + 3, {"batch", units});
}

LayerWeights::LayerWeights(const IOperationExecutionContext* context, uint32_t first, uint32_t auxWeights)
    : weights_(inputAsFloat(context, first)),
      recurrentWeights_(inputAsFloat(context, first + 1)),
      bias_(inputAsFloat(context, first + 2)) {
  if (auxWeights != kNoAuxWeights) auxWeights_ = inputAsFloat(context, auxWeights);
}

Layer LayerWeights::layer(uint32_t numUnits, uint32_t inputSize, uint32_t auxInputSize) const {
  Layer l;
  l.weights = weights_.data();
  l.recurrentWeights = recurrentWeights_.data();
  l.bias = bias_.data();
  l.auxWeights = auxInputSize > 0 ? auxWeights_.data() : nullptr;
  l.numUnits = numUnits;
  l.inputSize = inputSize;
  l.auxInputSize = auxInputSize;
  return l;
}

namespace {

// out[o] += sum_i m[o][i] * v[i], accumulated term by term into out[o].
void accumulateMatrixVector(const float* m, uint32_t rows, uint32_t cols, const float* v, float* out) {
  for (uint32_t o = 0; o < rows; ++o) {
    const float* row = m + size_t{o} * cols;
    for (uint32_t i = 0; i < cols; ++i) out[o] += v[i] * row[i];
  }
}

}  // namespace

void step(const Layer& layer, FusedActivationFunc activation, uint32_t batchSize, const float* input,
          const float* auxInput, const float* hiddenIn, float* output, size_t outputStride, float* hiddenOut) {
  const FloatRange range = floatActivationRange(activation);
  const uint32_t units = layer.numUnits;
  std::vector<float> h(units);
  for (uint32_t b = 0; b < batchSize; ++b) {
    std::copy(layer.bias, layer.bias + units, h.begin());
    accumulateMatrixVector(layer.weights, units, layer.inputSize, input + size_t{b} * layer.inputSize, h.data());
    if (auxInput != nullptr && layer.auxWeights != nullptr) {
      accumulateMatrixVector(layer.auxWeights, units, layer.auxInputSize, auxInput + size_t{b} * layer.auxInputSize,
                             h.data());
    }
    accumulateMatrixVector(layer.recurrentWeights, units, units, hiddenIn + size_t{b} * units, h.data());
    float* out = output + b * outputStride;
    for (uint32_t o = 0; o < units; ++o) {
      out[o] = std::min(std::max(h[o], range.min), range.max);
      if (hiddenOut != nullptr) hiddenOut[size_t{b} * units + o] = out[o];
    }
  }
}

void sequence(const Layer& layer, FusedActivationFunc activation, uint32_t maxTime, uint32_t batchSize,
              const float* input, const float* auxInput, const float* hiddenIn, bool forward, float* output,
              size_t outputStride, float* finalHidden) {
  std::vector<float> hidden(hiddenIn, hiddenIn + size_t{batchSize} * layer.numUnits);
  for (uint32_t i = 0; i < maxTime; ++i) {
    const uint32_t t = forward ? i : maxTime - 1 - i;
    const float* x = input + size_t{t} * batchSize * layer.inputSize;
    const float* aux = auxInput != nullptr ? auxInput + size_t{t} * batchSize * layer.auxInputSize : nullptr;
    step(layer, activation, batchSize, x, aux, hidden.data(), output + size_t{t} * batchSize * outputStride,
         outputStride, hidden.data());
  }
  if (finalHidden != nullptr) std::copy(hidden.begin(), hidden.end(), finalHidden);
}

}  // namespace weft::nn::rnn
