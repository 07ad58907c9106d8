// UNIDIRECTIONAL_SEQUENCE_RNN: a basic RNN layer (see RNNCell.h) run over a whole sequence.
//   input [maxTime, batch, inputSize] (time-major) or [batch, maxTime, inputSize], weights
//   [numUnits, inputSize], recurrentWeights [numUnits, numUnits], bias [numUnits], hiddenState
//   [batch, numUnits], fused activation, timeMajor (INT32 0 or 1)
//   -> output [maxTime, batch, numUnits] (batch-major like the input), and optionally (NNAPI 1.3)
//      the final hidden state [batch, numUnits].
// Types: float32, float16 (computed in float32).
#include <vector>

#include "DimensionAgreement.h"
#include "RNNCell.h"
#include "SequenceLayout.h"
#include "TensorAsFloat.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::unidirectional_sequence_rnn {

constexpr uint32_t kInputTensor = 0;
constexpr uint32_t kWeightsTensor = 1;
constexpr uint32_t kRecurrentWeightsTensor = 2;
constexpr uint32_t kBiasTensor = 3;
constexpr uint32_t kHiddenStateTensor = 4;
constexpr uint32_t kActivationParam = 5;
constexpr uint32_t kTimeMajorParam = 6;
constexpr uint32_t kOutputTensor = 0;
constexpr uint32_t kStateOutputTensor = 1;

namespace {

struct Geometry {
  bool timeMajor;
  uint32_t maxTime, batchSize, inputSize, numUnits;
};

Result<Geometry> readGeometry(const IOperationExecutionContext* context) {
  const int32_t timeMajor = context->getInputValue<int32_t>(kTimeMajorParam);
  NN_RET_CHECK(timeMajor == 0 || timeMajor == 1) << "timeMajor must be 0 or 1, got " << timeMajor;
  const Shape input = context->getInputShape(kInputTensor);
  const Shape hidden = context->getInputShape(kHiddenStateTensor);
  NN_RET_CHECK_EQ(getNumberOfDimensions(input), 3u) << "input must be 3-D";
  NN_RET_CHECK_EQ(getNumberOfDimensions(hidden), 2u) << "hidden state must be [batch, numUnits]";
  Geometry g;
  g.timeMajor = timeMajor == 1;
  g.maxTime = input.dimensions[g.timeMajor ? 0 : 1];
  g.batchSize = input.dimensions[g.timeMajor ? 1 : 0];
  g.inputSize = input.dimensions[2];
  auto units = rnn::checkLayerShapes(context->getInputShape(kWeightsTensor),
                                     context->getInputShape(kRecurrentWeightsTensor),
                                     context->getInputShape(kBiasTensor), g.inputSize);
  if (!units.ok()) return units.error();
  g.numUnits = *units;
  NN_RET_CHECK_EQ(hidden.dimensions[0], g.batchSize) << "hidden state batch";
  NN_RET_CHECK_EQ(hidden.dimensions[1], g.numUnits) << "hidden state units";
  return g;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 7, 7));
  const uint32_t outputs = context->getNumOutputs();
  NN_RET_CHECK(outputs == 1 || outputs == 2) << "1 output, or 2 with the final state; got " << outputs;
  const OperandType type = context->getInputType(kInputTensor);
  NN_TRY(validateTypeIsOneOf(context, "input", type, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
  NN_TRY(validateInputTypes(context, {type, type, type, type, type, OperandType::INT32, OperandType::INT32}));
  if (outputs == 1) {
    NN_TRY(validateOutputTypes(context, {type}));
  } else {
    NN_TRY(validateOutputTypes(context, {type, type}));
  }
  NN_TRY(validateActivationInput(context, kActivationParam));
  int32_t timeMajor = -1;
  if (getConstantScalar(context, kTimeMajorParam, &timeMajor)) {
    NN_RET_CHECK(timeMajor == 0 || timeMajor == 1) << "timeMajor must be 0 or 1, got " << timeMajor;
  }
  // Which of the first two dimensions is time is only known with a constant timeMajor.
  const char* first = timeMajor == 1 ? "maxTime" : timeMajor == 0 ? "batch" : nullptr;
  const char* second = timeMajor == 1 ? "batch" : timeMajor == 0 ? "maxTime" : nullptr;
  DimensionAgreement dims(context);
  NN_TRY(dims.input(kInputTensor, {first, second, "inputSize"}));
  NN_TRY(dims.input(kWeightsTensor, {"numUnits", "inputSize"}));
  NN_TRY(dims.input(kRecurrentWeightsTensor, {"numUnits", "numUnits"}));
  NN_TRY(dims.input(kBiasTensor, {"numUnits"}));
  NN_TRY(dims.input(kHiddenStateTensor, {"batch", "numUnits"}));
  NN_TRY(dims.output(kOutputTensor, {first, second, "numUnits"}));
  return dims.output(kStateOutputTensor, {"batch", "numUnits"});
}

Status prepare(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  Shape output = context->getOutputShape(kOutputTensor);
  output.dimensions = g->timeMajor ? Dimensions{g->maxTime, g->batchSize, g->numUnits}
                                   : Dimensions{g->batchSize, g->maxTime, g->numUnits};
  NN_TRY(context->setOutputShape(kOutputTensor, output));
  if (context->getNumOutputs() == 2) {
    Shape state = context->getOutputShape(kStateOutputTensor);
    state.dimensions = {g->batchSize, g->numUnits};
    NN_TRY(context->setOutputShape(kStateOutputTensor, state));
  }
  return {};
}

Status execute(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  auto activation = getActivation(context, kActivationParam);
  if (!activation.ok()) return activation.error();
  const Dimensions inputDims = context->getInputShape(kInputTensor).dimensions;
  const std::vector<float> input = transposeUnlessTimeMajor(inputAsFloat(context, kInputTensor), g->timeMajor,
                                                            inputDims[0], inputDims[1], g->inputSize);
  const std::vector<float> weights = inputAsFloat(context, kWeightsTensor);
  const std::vector<float> recurrent = inputAsFloat(context, kRecurrentWeightsTensor);
  const std::vector<float> bias = inputAsFloat(context, kBiasTensor);
  const std::vector<float> hidden = inputAsFloat(context, kHiddenStateTensor);
  rnn::Layer layer;
  layer.weights = weights.data();
  layer.recurrentWeights = recurrent.data();
  layer.bias = bias.data();
  layer.numUnits = g->numUnits;
  layer.inputSize = g->inputSize;
  std::vector<float> output(size_t{g->maxTime} * g->batchSize * g->numUnits);
  std::vector<float> finalHidden(size_t{g->batchSize} * g->numUnits);
  rnn::sequence(layer, *activation, g->maxTime, g->batchSize, input.data(), nullptr, hidden.data(),
                /*forward=*/true, output.data(), g->numUnits, finalHidden.data());
  // Back to the caller's layout: output is time-major here.
  const std::vector<float> result =
      transposeUnlessTimeMajor(output, g->timeMajor, g->maxTime, g->batchSize, g->numUnits);
  NN_TRY(writeOutputFromFloat(context, kOutputTensor, result.data(), result.size()));
  if (context->getNumOutputs() == 2) {
    NN_TRY(writeOutputFromFloat(context, kStateOutputTensor, finalHidden.data(), finalHidden.size()));
  }
  return {};
}

}  // namespace weft::nn::unidirectional_sequence_rnn

NN_REGISTER_OPERATION(UNIDIRECTIONAL_SEQUENCE_RNN, "UNIDIRECTIONAL_SEQUENCE_RNN",
                      unidirectional_sequence_rnn::validate, unidirectional_sequence_rnn::prepare,
                      unidirectional_sequence_rnn::execute)
