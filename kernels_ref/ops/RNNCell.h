// The basic RNN cell shared by RNN, UNIDIRECTIONAL_SEQUENCE_RNN and BIDIRECTIONAL_SEQUENCE_RNN:
//   h_t = activation(W x_t + W_aux aux_t + R h_{t-1} + b)
// computed in float32 (float16 operands are widened once and narrowed at the end). The sums are
// accumulated in the reference's order: bias, then input, auxiliary input and recurrent terms.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "DimensionAgreement.h"
#include "weft/kernels/OperationResolver.h"

namespace weft::nn::rnn {

// The weights of one RNN layer (one direction).
struct Layer {
  const float* weights = nullptr;           // [numUnits, inputSize]
  const float* recurrentWeights = nullptr;  // [numUnits, numUnits]
  const float* bias = nullptr;              // [numUnits]
  const float* auxWeights = nullptr;        // [numUnits, auxInputSize], or none
  uint32_t numUnits = 0, inputSize = 0, auxInputSize = 0;
};

// Checks weights [numUnits, inputSize], recurrent weights [numUnits, numUnits] and bias
// [numUnits] against each other; returns numUnits.
Result<uint32_t> checkLayerShapes(const Shape& weights, const Shape& recurrentWeights, const Shape& bias,
                                  uint32_t inputSize);
// Checks a hidden state: [batchSize, numUnits].
Status checkHiddenState(const Shape& hidden, uint32_t batchSize, uint32_t numUnits);

// Validation-time agreement of one layer's declared shapes, its operands being inputs `first`
// (weights), first + 1 (recurrent weights), first + 2 (bias) and first + 3 (hidden state): `units`
// names its number of units, `inputSize` the weights' columns (nullptr: free), "batch" the states'
// rows.
Status validateLayerShapes(DimensionAgreement& dims, uint32_t first, const char* units, const char* inputSize);

constexpr uint32_t kNoAuxWeights = std::numeric_limits<uint32_t>::max();

// One layer's weights read as float32 from inputs `first` (weights), first + 1 (recurrent
// weights), first + 2 (bias), and `auxWeights` unless kNoAuxWeights.
class LayerWeights {
 public:
  LayerWeights(const IOperationExecutionContext* context, uint32_t first, uint32_t auxWeights = kNoAuxWeights);
  // The layer over these weights; auxInputSize 0 when it has no aux weights.
  Layer layer(uint32_t numUnits, uint32_t inputSize, uint32_t auxInputSize = 0) const;

 private:
  std::vector<float> weights_, recurrentWeights_, bias_, auxWeights_;
};

// One step for `batchSize` rows: output row b (at output + b * outputStride) and, when given,
// hiddenOut row b (dense) receive h for input row b and previous state hiddenIn row b.
// hiddenOut may alias hiddenIn.
void step(const Layer& layer, FusedActivationFunc activation, uint32_t batchSize, const float* input,
          const float* auxInput, const float* hiddenIn, float* output, size_t outputStride, float* hiddenOut);

// Runs a time-major sequence input [maxTime, batchSize, inputSize] (and aux input of the same
// time and batch sizes) from state hiddenIn, forwards or backwards in time. Step t writes
// output + (t * batchSize + b) * outputStride for row b. finalHidden receives the last state.
void sequence(const Layer& layer, FusedActivationFunc activation, uint32_t maxTime, uint32_t batchSize,
              const float* input, const float* auxInput, const float* hiddenIn, bool forward, float* output,
              size_t outputStride, float* finalHidden);

}  // namespace weft::nn::rnn
