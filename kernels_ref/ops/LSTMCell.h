// The float LSTM cell shared by LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM and BIDIRECTIONAL_SEQUENCE_LSTM,
// with every optional part NNAPI defines:
//   CIFG (no input gate: i = 1 - f), peepholes (cell-to-gate weights), layer normalization of the
//   gate pre-activations, projection (with optional bias and clipping), cell clipping, and an
//   auxiliary input with its own weights (bidirectional cross linking).
// One step, per batch row:
//   i = sigmoid(W_i x + W_ai aux + R_i h + p_i . c + b_i)      (layer norm: LN(...) * w_i + b_i)
//   f = sigmoid(W_f x + W_af aux + R_f h + p_f . c + b_f)
//   g = act(W_c x + W_ac aux + R_c h + b_c)
//   c' = clip(f . c + i . g)
//   o = sigmoid(W_o x + W_ao aux + R_o h + p_o . c' + b_o)
//   h' = clip(P (o . act(c')) + b_p)   or o . act(c') without projection
// Everything is computed in float32 (float16 operands are widened once for the whole sequence),
// with TFLite's accumulation order: each matrix-vector product is summed on its own and then added.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "DimensionAgreement.h"
#include "weft/kernels/OperationResolver.h"

namespace weft::nn::lstm {

// An input the operation's version does not have.
constexpr uint32_t kNoOperand = std::numeric_limits<uint32_t>::max();

// Where one cell's tensors are among an operation's inputs.
struct CellOperands {
  uint32_t inputToInput, inputToForget, inputToCell, inputToOutput;
  uint32_t recurrentToInput, recurrentToForget, recurrentToCell, recurrentToOutput;
  uint32_t cellToInput, cellToForget, cellToOutput;
  uint32_t inputGateBias, forgetGateBias, cellGateBias, outputGateBias;
  uint32_t projectionWeights, projectionBias;
  uint32_t outputStateIn = kNoOperand, cellStateIn = kNoOperand;
  uint32_t inputLayerNorm = kNoOperand, forgetLayerNorm = kNoOperand, cellLayerNorm = kNoOperand,
           outputLayerNorm = kNoOperand;
  uint32_t auxInputToInput = kNoOperand, auxInputToForget = kNoOperand, auxInputToCell = kNoOperand,
           auxInputToOutput = kNoOperand;
};

// A cell whose 17 weight and bias tensors, in NNAPI's order (input-to-gate, recurrent-to-gate,
// peepholes, biases, projection), start at input `firstWeight`, whose output and cell states are
// inputs `outputState` and `cellState`, and whose four layer normalization and four aux-input
// weights (input, forget, cell, output gates) start at `firstLayerNorm` and `firstAuxWeight`
// (kNoOperand: the operation has none).
CellOperands cellOperands(uint32_t firstWeight, uint32_t outputState, uint32_t cellState,
                          uint32_t firstLayerNorm = kNoOperand, uint32_t firstAuxWeight = kNoOperand);

// The sizes and the optional parts one cell uses, as its operands say.
struct CellConfig {
  uint32_t inputSize = 0, auxInputSize = 0, numCells = 0, outputSize = 0;
  bool useCifg = false, usePeephole = false, useLayerNorm = false, useProjection = false, useProjectionBias = false,
       useAuxWeights = false;
};

// Checks presence and shapes of one cell's operands the way NNAPI's reference does: required
// tensors present, CIFG / peephole / layer-norm / projection tensors all-or-none (CIFG drops the
// input gate's weights, bias, peephole and layer norm), every shape consistent, the states
// [batch, outputSize] and [batch, numCells]. `auxInputSize` is the auxiliary input's size, 0 when
// the operation has none.
Result<CellConfig> checkCell(const IOperationExecutionContext* context, const CellOperands& operands,
                             uint32_t batchSize, uint32_t inputSize, uint32_t auxInputSize);

// Validation-time agreement of one cell's declared shapes (presence of optional operands is only
// known at execution): dimension names are prefixed with `prefix` ("fw", "bw" or ""), the input
// weights' columns are `inputSize`, the states' rows `batch`.
Status validateCellShapes(DimensionAgreement& dims, const CellOperands& operands, const std::string& prefix,
                          const char* inputSize, const char* batch);

// Activation, clipping (0: none).
struct Params {
  int32_t activation = 0;  // 0 none, 1 relu, 3 relu6, 4 tanh, 6 sigmoid
  float cellClip = 0, projClip = 0;
};
// Reads the INT32 activation and the FLOAT32 / FLOAT16 clips; BAD_DATA for an unknown activation
// or a negative clip.
Result<Params> readParams(const IOperationExecutionContext* context, uint32_t activationIndex,
                          uint32_t cellClipIndex, uint32_t projClipIndex);
bool isValidActivation(int32_t activation);

// The operand types of the LSTM operations (omitted inputs pass): a float32 or float16 input 0
// whose type every other tensor input and every output has, the INT32 activation at `activation`
// (a supported code when constant), FLOAT32 clips at `cellClip` and `projClip` (FLOAT16 with
// float16 tensors), and BOOL `flags`.
Status validateOperandTypes(const IOperationValidationContext* context, uint32_t activation, uint32_t cellClip,
                            uint32_t projClip, std::initializer_list<uint32_t> flags);

// One cell's weights as float32, absent tensors empty.
struct CellWeights {
  CellConfig config;
  std::vector<float> inputToInput, inputToForget, inputToCell, inputToOutput;
  std::vector<float> recurrentToInput, recurrentToForget, recurrentToCell, recurrentToOutput;
  std::vector<float> cellToInput, cellToForget, cellToOutput;
  std::vector<float> inputGateBias, forgetGateBias, cellGateBias, outputGateBias;
  std::vector<float> projectionWeights, projectionBias;
  std::vector<float> inputLayerNorm, forgetLayerNorm, cellLayerNorm, outputLayerNorm;
  std::vector<float> auxInputToInput, auxInputToForget, auxInputToCell, auxInputToOutput;
};
CellWeights loadCell(const IOperationExecutionContext* context, const CellOperands& operands,
                     const CellConfig& config);

// Where a sequence run writes.
struct SequenceOutput {
  float* output = nullptr;    // row (t, b) at output + (t * batch + b) * outputStride
  size_t outputStride = 0;
  float* outputState = nullptr;  // final [batch, outputSize], may be null
  float* cellState = nullptr;    // final [batch, numCells], may be null
  std::vector<float>* scratch = nullptr;  // the last step's gate buffers, may be null
};

// Runs time-major input [maxTime, batch, inputSize] (and aux input [maxTime, batch, auxInputSize]
// when the cell has aux weights) from the given states, forwards or backwards in time.
void runSequence(const CellWeights& weights, const Params& params, uint32_t maxTime, uint32_t batchSize,
                 const float* input, const float* auxInput, const float* outputStateIn, const float* cellStateIn,
                 bool forward, const SequenceOutput& out);

}  // namespace weft::nn::lstm
