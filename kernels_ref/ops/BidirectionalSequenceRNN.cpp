// BIDIRECTIONAL_SEQUENCE_RNN: two basic RNN layers (see RNNCell.h) over a sequence, one forwards
// and one backwards in time.
//   0 input [maxTime, batch, inputSize] (time-major) or [batch, maxTime, inputSize]
//   1-4 forward weights [fwUnits, inputSize], recurrent weights, bias, hidden state [batch, fwUnits]
//   5-8 backward weights, recurrent weights, bias, hidden state
//   9 auxInput, 10 fwAuxWeights, 11 bwAuxWeights (optional), 12 fused activation,
//   13 timeMajor (BOOL), 14 mergeOutputs (BOOL)
//   -> fwOutput [.., fwUnits] (merged: [.., fwUnits + bwUnits]), bwOutput unless merged, and
//      optionally (NNAPI 1.3) the final forward and backward hidden states.
// Auxiliary operands select the linking mode: none; parallel linking (aux input only: the
// backward layer reads the aux input instead of the input); cross linking (aux input and both
// aux weights: each layer adds W_aux aux_t).
// Types: float32, float16 (computed in float32).
#include <vector>

#include "DimensionAgreement.h"
#include "RNNCell.h"
#include "SequenceLayout.h"
#include "TensorAsFloat.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::bidirectional_sequence_rnn {

constexpr uint32_t kInputTensor = 0;
constexpr uint32_t kFwWeightsTensor = 1;
constexpr uint32_t kFwRecurrentWeightsTensor = 2;
constexpr uint32_t kFwBiasTensor = 3;
constexpr uint32_t kFwHiddenStateTensor = 4;
constexpr uint32_t kBwWeightsTensor = 5;
constexpr uint32_t kBwRecurrentWeightsTensor = 6;
constexpr uint32_t kBwBiasTensor = 7;
constexpr uint32_t kBwHiddenStateTensor = 8;
constexpr uint32_t kAuxInputTensor = 9;
constexpr uint32_t kFwAuxWeightsTensor = 10;
constexpr uint32_t kBwAuxWeightsTensor = 11;
constexpr uint32_t kActivationParam = 12;
constexpr uint32_t kTimeMajorParam = 13;
constexpr uint32_t kMergeOutputsParam = 14;
constexpr uint32_t kNumInputs = 15;
constexpr uint32_t kFinalStates = 2;  // optional outputs: fw and bw hidden states

constexpr uint32_t kFwOutputTensor = 0;

namespace {

enum class Linking { NONE, PARALLEL, CROSS };

Result<Linking> linkingOf(const IOperationExecutionContext* context) {
  const bool auxInput = !context->isOmittedInput(kAuxInputTensor);
  const bool fwAuxWeights = !context->isOmittedInput(kFwAuxWeightsTensor);
  const bool bwAuxWeights = !context->isOmittedInput(kBwAuxWeightsTensor);
  if (!auxInput && !fwAuxWeights && !bwAuxWeights) return Linking::NONE;
  if (auxInput && !fwAuxWeights && !bwAuxWeights) return Linking::PARALLEL;
  if (auxInput && fwAuxWeights && bwAuxWeights) return Linking::CROSS;
  return NN_ERROR(BAD_DATA) << "auxiliary weights need the auxiliary input and come in pairs";
}

struct Geometry {
  SequenceShape sequence;
  bool merge, stateOutputs;
  Linking linking;
  uint32_t inputSize, auxInputSize = 0;
  uint32_t fwUnits, bwUnits;
};

Result<Geometry> readGeometry(const IOperationExecutionContext* context) {
  const uint32_t required[] = {kInputTensor,         kFwWeightsTensor, kFwRecurrentWeightsTensor, kFwBiasTensor,
                               kFwHiddenStateTensor, kBwWeightsTensor, kBwRecurrentWeightsTensor, kBwBiasTensor,
                               kBwHiddenStateTensor, kActivationParam, kTimeMajorParam,           kMergeOutputsParam};
  for (uint32_t i : required) NN_RET_CHECK(!context->isOmittedInput(i)) << "required input " << i << " is omitted";
  Geometry g;
  g.merge = context->getInputValue<uint8_t>(kMergeOutputsParam) != 0;
  const uint32_t outputs = context->getNumOutputs();
  NN_RET_CHECK(bidirectionalOutputsFit(outputs, g.merge, kFinalStates))
      << outputs << " outputs do not fit mergeOutputs = " << g.merge;
  g.stateOutputs = outputs > 2;
  auto linking = linkingOf(context);
  if (!linking.ok()) return linking.error();
  g.linking = *linking;

  const Shape input = context->getInputShape(kInputTensor);
  NN_RET_CHECK_EQ(getNumberOfDimensions(input), 3u) << "input must be 3-D";
  g.sequence = sequenceShape(input.dimensions, context->getInputValue<uint8_t>(kTimeMajorParam) != 0);
  g.inputSize = input.dimensions[2];
  if (g.linking != Linking::NONE) {
    const Shape aux = context->getInputShape(kAuxInputTensor);
    NN_RET_CHECK_EQ(getNumberOfDimensions(aux), 3u) << "aux input must be 3-D";
    NN_RET_CHECK(aux.dimensions[0] == input.dimensions[0] && aux.dimensions[1] == input.dimensions[1])
        << "aux input must have the input's time and batch sizes";
    g.auxInputSize = aux.dimensions[2];
  }
  // In parallel linking the backward layer reads the aux input.
  const uint32_t bwInputSize = g.linking == Linking::PARALLEL ? g.auxInputSize : g.inputSize;
  auto fwUnits = rnn::checkLayerShapes(context->getInputShape(kFwWeightsTensor),
                                       context->getInputShape(kFwRecurrentWeightsTensor),
                                       context->getInputShape(kFwBiasTensor), g.inputSize);
  if (!fwUnits.ok()) return fwUnits.error();
  auto bwUnits = rnn::checkLayerShapes(context->getInputShape(kBwWeightsTensor),
                                       context->getInputShape(kBwRecurrentWeightsTensor),
                                       context->getInputShape(kBwBiasTensor), bwInputSize);
  if (!bwUnits.ok()) return bwUnits.error();
  g.fwUnits = *fwUnits;
  g.bwUnits = *bwUnits;
  NN_TRY(rnn::checkHiddenState(context->getInputShape(kFwHiddenStateTensor), g.sequence.batchSize, g.fwUnits));
  NN_TRY(rnn::checkHiddenState(context->getInputShape(kBwHiddenStateTensor), g.sequence.batchSize, g.bwUnits));
  if (g.linking == Linking::CROSS) {
    for (auto [index, units] : {std::pair{kFwAuxWeightsTensor, g.fwUnits}, std::pair{kBwAuxWeightsTensor, g.bwUnits}}) {
      const Shape w = context->getInputShape(index);
      NN_RET_CHECK_EQ(getNumberOfDimensions(w), 2u) << "aux weights must be 2-D";
      NN_RET_CHECK(w.dimensions[0] == units && w.dimensions[1] == g.auxInputSize)
          << "aux weights " << index << " must be [numUnits, auxInputSize]";
    }
  }
  return g;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, kNumInputs, kNumInputs));
  const uint32_t outputs = context->getNumOutputs();
  NN_RET_CHECK(outputs >= 1 && outputs <= 4) << "1 to 4 outputs, got " << outputs;
  const OperandType type = context->getInputType(kInputTensor);
  NN_TRY(validateTypeIsOneOf(context, "input", type, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
  NN_TRY(validateInputTypes(context, {type, type, type, type, type, type, type, type, type, type, type, type,
                                      OperandType::INT32, OperandType::BOOL, OperandType::BOOL}));
  for (uint32_t i = 0; i < outputs; ++i) {
    NN_RET_CHECK(context->getOutputType(i) == type) << "output " << i << " must have the input's type";
  }
  NN_TRY(validateActivationInput(context, kActivationParam));
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
  NN_TRY(rnn::validateLayerShapes(dims, kFwWeightsTensor, "fwUnits", "inputSize"));
  // The backward weights read the input, or the aux input in parallel linking.
  NN_TRY(rnn::validateLayerShapes(dims, kBwWeightsTensor, "bwUnits", nullptr));
  NN_TRY(dims.input(kFwAuxWeightsTensor, {"fwUnits", "auxInputSize"}));
  NN_TRY(dims.input(kBwAuxWeightsTensor, {"bwUnits", "auxInputSize"}));
  if (mergeKnown) {
    NN_TRY(dims.output(0, {first, second, merge ? nullptr : "fwUnits"}));
    const uint32_t states = merge ? 1 : 2;
    if (!merge) NN_TRY(dims.output(1, {first, second, "bwUnits"}));
    if (outputs > 2) {
      NN_TRY(dims.output(states, {"batch", "fwUnits"}));
      NN_TRY(dims.output(states + 1, {"batch", "bwUnits"}));
    }
  }
  return {};
}

Status prepare(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  std::vector<Dimensions> dims = {g->sequence.dimensions(g->merge ? g->fwUnits + g->bwUnits : g->fwUnits)};
  if (!g->merge) dims.push_back(g->sequence.dimensions(g->bwUnits));
  if (g->stateOutputs) {
    dims.push_back({g->sequence.batchSize, g->fwUnits});
    dims.push_back({g->sequence.batchSize, g->bwUnits});
  }
  return setOutputDimensions(context, dims);
}

Status execute(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  auto activation = getActivation(context, kActivationParam);
  if (!activation.ok()) return activation.error();
  const SequenceShape& seq = g->sequence;
  const std::vector<float> input = seq.readTimeMajor(context, kInputTensor);
  std::vector<float> aux;
  if (g->linking != Linking::NONE) aux = seq.readTimeMajor(context, kAuxInputTensor);
  const bool cross = g->linking == Linking::CROSS;
  const uint32_t auxSize = cross ? g->auxInputSize : 0;
  const rnn::LayerWeights fwWeights(context, kFwWeightsTensor, cross ? kFwAuxWeightsTensor : rnn::kNoAuxWeights);
  const rnn::LayerWeights bwWeights(context, kBwWeightsTensor, cross ? kBwAuxWeightsTensor : rnn::kNoAuxWeights);
  const rnn::Layer fw = fwWeights.layer(g->fwUnits, g->inputSize, auxSize);
  const rnn::Layer bw =
      bwWeights.layer(g->bwUnits, g->linking == Linking::PARALLEL ? g->auxInputSize : g->inputSize, auxSize);
  const std::vector<float> fwHidden = inputAsFloat(context, kFwHiddenStateTensor);
  const std::vector<float> bwHidden = inputAsFloat(context, kBwHiddenStateTensor);
  const float* fwInput = input.data();
  const float* bwInput = g->linking == Linking::PARALLEL ? aux.data() : input.data();
  const float* auxInput = cross ? aux.data() : nullptr;

  // Time-major outputs; merged outputs interleave the two directions' units per row.
  const size_t rows = size_t{seq.maxTime} * seq.batchSize;
  const uint32_t mergedWidth = g->fwUnits + g->bwUnits;
  const uint32_t fwWidth = g->merge ? mergedWidth : g->fwUnits;
  std::vector<float> fwOut(rows * fwWidth);
  std::vector<float> bwOut(g->merge ? 0 : rows * g->bwUnits);
  std::vector<float> fwState(size_t{seq.batchSize} * g->fwUnits), bwState(size_t{seq.batchSize} * g->bwUnits);
  rnn::sequence(fw, *activation, seq.maxTime, seq.batchSize, fwInput, auxInput, fwHidden.data(), /*forward=*/true,
                fwOut.data(), fwWidth, fwState.data());
  rnn::sequence(bw, *activation, seq.maxTime, seq.batchSize, bwInput, auxInput, bwHidden.data(), /*forward=*/false,
                g->merge ? fwOut.data() + g->fwUnits : bwOut.data(), g->merge ? mergedWidth : g->bwUnits,
                bwState.data());

  NN_TRY(seq.writeFromTimeMajor(context, kFwOutputTensor, fwOut, fwWidth));
  uint32_t next = 1;
  if (!g->merge) NN_TRY(seq.writeFromTimeMajor(context, next++, bwOut, g->bwUnits));
  if (g->stateOutputs) {
    NN_TRY(writeOutputFromFloat(context, next, fwState.data(), fwState.size()));
    NN_TRY(writeOutputFromFloat(context, next + 1, bwState.data(), bwState.size()));
  }
  return {};
}

}  // namespace weft::nn::bidirectional_sequence_rnn

NN_REGISTER_OPERATION(BIDIRECTIONAL_SEQUENCE_RNN, "BIDIRECTIONAL_SEQUENCE_RNN", bidirectional_sequence_rnn::validate,
                      bidirectional_sequence_rnn::prepare, bidirectional_sequence_rnn::execute,
                      .allowOmittedOperand = true)
