// BIDIRECTIONAL_SEQUENCE_LSTM: two LSTM layers (see LSTMCell.h) over a sequence, one forwards and
// one backwards in time.
//   0 input [maxTime, batch, inputSize] (time-major) or [batch, maxTime, inputSize]
//   1-17 forward weights, biases and projection; 18-34 the same for the backward cell
//   35, 36 forward output / cell state; 37, 38 backward output / cell state
//   39 aux input; 40-43 forward and 44-47 backward aux-input-to-gate weights (all optional)
//   48 activation, 49 cell clip, 50 projection clip, 51 mergeOutputs, 52 timeMajor
//   53-56 forward and 57-60 backward layer normalization weights (optional)
//   -> fwOutput [.., fwOutputSize] (merged: [.., fwOutputSize + bwOutputSize]), bwOutput unless
//      merged, and optionally (NNAPI 1.3) the final fw output, fw cell, bw output and bw cell states.
// Auxiliary operands select the linking mode: none; parallel linking (aux input without aux
// weights: the backward cell reads the aux input); cross linking (aux input with aux weights:
// both cells add their aux-input terms).
// Types: float32, float16 (computed in float32).
#include <vector>

#include "LSTMCell.h"
#include "SequenceLayout.h"
#include "TensorAsFloat.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::bidirectional_sequence_lstm {

constexpr uint32_t kInputTensor = 0;
constexpr uint32_t kFwFirstWeight = 1;
constexpr uint32_t kBwFirstWeight = 18;
constexpr uint32_t kFwOutputStateInTensor = 35;
constexpr uint32_t kFwCellStateInTensor = 36;
constexpr uint32_t kBwOutputStateInTensor = 37;
constexpr uint32_t kBwCellStateInTensor = 38;
constexpr uint32_t kAuxInputTensor = 39;
constexpr uint32_t kFwFirstAuxWeight = 40;
constexpr uint32_t kBwFirstAuxWeight = 44;
constexpr uint32_t kActivationParam = 48;
constexpr uint32_t kCellClipParam = 49;
constexpr uint32_t kProjClipParam = 50;
constexpr uint32_t kMergeOutputsParam = 51;
constexpr uint32_t kTimeMajorParam = 52;
constexpr uint32_t kFwFirstLayerNorm = 53;
constexpr uint32_t kBwFirstLayerNorm = 57;
constexpr uint32_t kNumInputs = 61;
constexpr uint32_t kFinalStates = 4;  // optional outputs: fw output / cell, bw output / cell states

namespace {

const lstm::CellOperands kForward = lstm::cellOperands(kFwFirstWeight, kFwOutputStateInTensor, kFwCellStateInTensor,
                                                       kFwFirstLayerNorm, kFwFirstAuxWeight);
const lstm::CellOperands kBackward = lstm::cellOperands(kBwFirstWeight, kBwOutputStateInTensor, kBwCellStateInTensor,
                                                        kBwFirstLayerNorm, kBwFirstAuxWeight);

// In parallel linking the aux input replaces the backward cell's input and has no weights.
lstm::CellOperands withoutAuxWeights(lstm::CellOperands op) {
  op.auxInputToInput = op.auxInputToForget = op.auxInputToCell = op.auxInputToOutput = lstm::kNoOperand;
  return op;
}

enum class Linking { NONE, PARALLEL, CROSS };

struct Geometry {
  SequenceShape sequence;
  bool merge, stateOutputs;
  Linking linking;
  uint32_t inputSize, auxInputSize = 0;
  lstm::CellConfig fw, bw;
};

bool anyAuxWeights(const IOperationExecutionContext* context) {
  for (uint32_t i = kFwFirstAuxWeight; i < kBwFirstAuxWeight + 4; ++i) {
    if (!context->isOmittedInput(i)) return true;
  }
  return false;
}

Result<Geometry> readGeometry(const IOperationExecutionContext* context) {
  for (uint32_t i : {kInputTensor, kActivationParam, kCellClipParam, kProjClipParam, kMergeOutputsParam,
                     kTimeMajorParam}) {
    NN_RET_CHECK(!context->isOmittedInput(i)) << "required input " << i << " is omitted";
  }
  Geometry g;
  g.merge = context->getInputValue<uint8_t>(kMergeOutputsParam) != 0;
  const uint32_t outputs = context->getNumOutputs();
  NN_RET_CHECK(bidirectionalOutputsFit(outputs, g.merge, kFinalStates))
      << outputs << " outputs do not fit mergeOutputs = " << g.merge;
  g.stateOutputs = outputs > 2;

  const Shape input = context->getInputShape(kInputTensor);
  NN_RET_CHECK_EQ(getNumberOfDimensions(input), 3u) << "input must be 3-D";
  g.sequence = sequenceShape(input.dimensions, context->getInputValue<uint8_t>(kTimeMajorParam) != 0);
  g.inputSize = input.dimensions[2];

  const bool hasAuxInput = !context->isOmittedInput(kAuxInputTensor);
  const bool hasAuxWeights = anyAuxWeights(context);
  NN_RET_CHECK(hasAuxInput || !hasAuxWeights) << "auxiliary weights without an auxiliary input";
  g.linking = !hasAuxInput ? Linking::NONE : hasAuxWeights ? Linking::CROSS : Linking::PARALLEL;
  if (hasAuxInput) {
    const Shape aux = context->getInputShape(kAuxInputTensor);
    NN_RET_CHECK_EQ(getNumberOfDimensions(aux), 3u) << "aux input must be 3-D";
    NN_RET_CHECK(aux.dimensions[0] == input.dimensions[0] && aux.dimensions[1] == input.dimensions[1])
        << "aux input must have the input's time and batch sizes";
    g.auxInputSize = aux.dimensions[2];
  }
  const uint32_t crossAuxSize = g.linking == Linking::CROSS ? g.auxInputSize : 0;
  auto fw = lstm::checkCell(context, kForward, g.sequence.batchSize, g.inputSize, crossAuxSize);
  if (!fw.ok()) return fw.error();
  const bool parallel = g.linking == Linking::PARALLEL;
  auto bw = lstm::checkCell(context, parallel ? withoutAuxWeights(kBackward) : kBackward, g.sequence.batchSize,
                            parallel ? g.auxInputSize : g.inputSize, crossAuxSize);
  if (!bw.ok()) return bw.error();
  g.fw = *fw;
  g.bw = *bw;
  if (g.linking == Linking::CROSS) {
    NN_RET_CHECK(g.fw.useAuxWeights && g.bw.useAuxWeights) << "cross linking needs aux weights in both directions";
  }
  return g;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, kNumInputs, kNumInputs));
  const uint32_t outputs = context->getNumOutputs();
  NN_RET_CHECK(outputs == 1 || outputs == 2 || outputs == 5 || outputs == 6)
      << "1, 2, 5 or 6 outputs, got " << outputs;
  NN_TRY(lstm::validateOperandTypes(context, kActivationParam, kCellClipParam, kProjClipParam,
                                    {kMergeOutputsParam, kTimeMajorParam}));
  uint8_t merge = 0;
  const bool mergeKnown = getConstantScalar(context, kMergeOutputsParam, &merge);
  if (mergeKnown) {
    NN_RET_CHECK(bidirectionalOutputsFit(outputs, merge != 0, kFinalStates))
        << outputs << " outputs do not fit mergeOutputs = " << static_cast<int>(merge);
  }
  uint8_t timeMajor = 0;
  const bool timeMajorKnown = getConstantScalar(context, kTimeMajorParam, &timeMajor);
  const auto [first, second] = sequenceDimNames(timeMajorKnown, timeMajor != 0);
  DimensionAgreement dims(context);
  NN_TRY(dims.input(kInputTensor, {first, second, "inputSize"}));
  NN_TRY(dims.input(kAuxInputTensor, {first, second, "auxInputSize"}));
  NN_TRY(lstm::validateCellShapes(dims, kForward, "fw", "inputSize", "batch"));
  // The backward cell reads the input, or the aux input in parallel linking.
  NN_TRY(lstm::validateCellShapes(dims, kBackward, "bw", nullptr, "batch"));
  if (mergeKnown) {
    NN_TRY(dims.output(0, {first, second, merge ? nullptr : "fwoutputSize"}));
    if (!merge) NN_TRY(dims.output(1, {first, second, "bwoutputSize"}));
    const uint32_t states = merge ? 1 : 2;
    if (outputs > 2) {
      NN_TRY(dims.output(states, {"batch", "fwoutputSize"}));
      NN_TRY(dims.output(states + 1, {"batch", "fwnumCells"}));
      NN_TRY(dims.output(states + 2, {"batch", "bwoutputSize"}));
      NN_TRY(dims.output(states + 3, {"batch", "bwnumCells"}));
    }
  }
  return {};
}

Status prepare(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  auto params = lstm::readParams(context, kActivationParam, kCellClipParam, kProjClipParam);
  if (!params.ok()) return params.error();
  const SequenceShape& seq = g->sequence;
  std::vector<Dimensions> dims = {seq.dimensions(g->merge ? g->fw.outputSize + g->bw.outputSize : g->fw.outputSize)};
  if (!g->merge) dims.push_back(seq.dimensions(g->bw.outputSize));
  if (g->stateOutputs) {
    dims.push_back({seq.batchSize, g->fw.outputSize});
    dims.push_back({seq.batchSize, g->fw.numCells});
    dims.push_back({seq.batchSize, g->bw.outputSize});
    dims.push_back({seq.batchSize, g->bw.numCells});
  }
  return setOutputDimensions(context, dims);
}

Status execute(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  auto params = lstm::readParams(context, kActivationParam, kCellClipParam, kProjClipParam);
  if (!params.ok()) return params.error();
  const bool parallel = g->linking == Linking::PARALLEL;
  const lstm::CellWeights fwWeights = lstm::loadCell(context, kForward, g->fw);
  const lstm::CellWeights bwWeights =
      lstm::loadCell(context, parallel ? withoutAuxWeights(kBackward) : kBackward, g->bw);

  const SequenceShape& seq = g->sequence;
  const std::vector<float> input = seq.readTimeMajor(context, kInputTensor);
  std::vector<float> aux;
  if (g->linking != Linking::NONE) aux = seq.readTimeMajor(context, kAuxInputTensor);
  const float* bwInput = parallel ? aux.data() : input.data();
  const float* auxInput = g->linking == Linking::CROSS ? aux.data() : nullptr;

  // Time-major outputs; merged outputs put the two directions side by side in each row.
  const size_t rows = size_t{seq.maxTime} * seq.batchSize;
  const uint32_t fwWidth = g->merge ? g->fw.outputSize + g->bw.outputSize : g->fw.outputSize;
  std::vector<float> fwOut(rows * fwWidth), bwOut(g->merge ? 0 : rows * g->bw.outputSize);
  std::vector<float> fwOutputState(size_t{seq.batchSize} * g->fw.outputSize);
  std::vector<float> fwCellState(size_t{seq.batchSize} * g->fw.numCells);
  std::vector<float> bwOutputState(size_t{seq.batchSize} * g->bw.outputSize);
  std::vector<float> bwCellState(size_t{seq.batchSize} * g->bw.numCells);

  lstm::SequenceOutput fwTarget;
  fwTarget.output = fwOut.data();
  fwTarget.outputStride = fwWidth;
  fwTarget.outputState = fwOutputState.data();
  fwTarget.cellState = fwCellState.data();
  lstm::runSequence(fwWeights, *params, seq.maxTime, seq.batchSize, input.data(), auxInput,
                    inputAsFloat(context, kFwOutputStateInTensor).data(),
                    inputAsFloat(context, kFwCellStateInTensor).data(), /*forward=*/true, fwTarget);

  lstm::SequenceOutput bwTarget;
  bwTarget.output = g->merge ? fwOut.data() + g->fw.outputSize : bwOut.data();
  bwTarget.outputStride = g->merge ? fwWidth : g->bw.outputSize;
  bwTarget.outputState = bwOutputState.data();
  bwTarget.cellState = bwCellState.data();
  lstm::runSequence(bwWeights, *params, seq.maxTime, seq.batchSize, bwInput, auxInput,
                    inputAsFloat(context, kBwOutputStateInTensor).data(),
                    inputAsFloat(context, kBwCellStateInTensor).data(), /*forward=*/false, bwTarget);

  NN_TRY(seq.writeFromTimeMajor(context, 0, fwOut, fwWidth));
  uint32_t next = 1;
  if (!g->merge) NN_TRY(seq.writeFromTimeMajor(context, next++, bwOut, g->bw.outputSize));
  if (g->stateOutputs) {
    for (const std::vector<float>* state : {&fwOutputState, &fwCellState, &bwOutputState, &bwCellState}) {
      NN_TRY(writeOutputFromFloat(context, next++, state->data(), state->size()));
    }
  }
  return {};
}

}  // namespace weft::nn::bidirectional_sequence_lstm

NN_REGISTER_OPERATION(BIDIRECTIONAL_SEQUENCE_LSTM, "BIDIRECTIONAL_SEQUENCE_LSTM",
                      bidirectional_sequence_lstm::validate, bidirectional_sequence_lstm::prepare,
                      bidirectional_sequence_lstm::execute, .allowOmittedOperand = true)
