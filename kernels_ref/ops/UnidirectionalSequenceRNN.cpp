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
  SequenceShape sequence;
  uint32_t inputSize, numUnits;
};

Result<Geometry> readGeometry(const IOperationExecutionContext* context) {
  const int32_t timeMajor = context->getInputValue<int32_t>(kTimeMajorParam);
  NN_RET_CHECK(timeMajor == 0 || timeMajor == 1) << "timeMajor must be 0 or 1, got " << timeMajor;
  const Shape input = context->getInputShape(kInputTensor);
  NN_RET_CHECK_EQ(getNumberOfDimensions(input), 3u) << "input must be 3-D";
  Geometry g;
  g.sequence = sequenceShape(input.dimensions, timeMajor == 1);
  g.inputSize = input.dimensions[2];
  auto units = rnn::checkLayerShapes(context->getInputShape(kWeightsTensor),
                                     context->getInputShape(kRecurrentWeightsTensor),
                                     context->getInputShape(kBiasTensor), g.inputSize);
  if (!units.ok()) return units.error();
  g.numUnits = *units;
  NN_TRY(rnn::checkHiddenState(context->getInputShape(kHiddenStateTensor), g.sequence.batchSize, g.numUnits));
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
  int32_t timeMajor = 0;
  const bool timeMajorKnown = getConstantScalar(context, kTimeMajorParam, &timeMajor);
  if (timeMajorKnown) {
    NN_RET_CHECK(timeMajor == 0 || timeMajor == 1) << "timeMajor must be 0 or 1, got " << timeMajor;
  }
  // Which of the first two dimensions is time is only known with a constant timeMajor.
  const auto [first, second] = sequenceDimNames(timeMajorKnown, timeMajor == 1);
  DimensionAgreement dims(context);
  NN_TRY(dims.input(kInputTensor, {first, second, "inputSize"}));
  NN_TRY(rnn::validateLayerShapes(dims, kWeightsTensor, "numUnits", "inputSize"));
  NN_TRY(dims.output(kOutputTensor, {first, second, "numUnits"}));
  return dims.output(kStateOutputTensor, {"batch", "numUnits"});
}

Status prepare(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  std::vector<Dimensions> dims = {g->sequence.dimensions(g->numUnits)};
  if (context->getNumOutputs() == 2) dims.push_back({g->sequence.batchSize, g->numUnits});
  return setOutputDimensions(context, dims);
}

Status execute(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  auto activation = getActivation(context, kActivationParam);
  if (!activation.ok()) return activation.error();
  const SequenceShape& seq = g->sequence;
  const std::vector<float> input = seq.readTimeMajor(context, kInputTensor);
  const rnn::LayerWeights weights(context, kWeightsTensor);
  const std::vector<float> hidden = inputAsFloat(context, kHiddenStateTensor);
  std::vector<float> output(size_t{seq.maxTime} * seq.batchSize * g->numUnits);
  std::vector<float> finalHidden(size_t{seq.batchSize} * g->numUnits);
  rnn::sequence(weights.layer(g->numUnits, g->inputSize), *activation, seq.maxTime, seq.batchSize, input.data(),
                nullptr, hidden.data(), /*forward=*/true, output.data(), g->numUnits, finalHidden.data());
  // Back to the caller's layout: output is time-major here.
  NN_TRY(seq.writeFromTimeMajor(context, kOutputTensor, output, g->numUnits));
  if (context->getNumOutputs() == 2) {
    NN_TRY(writeOutputFromFloat(context, kStateOutputTensor, finalHidden.data(), finalHidden.size()));
  }
  return {};
}

}  // namespace weft::nn::unidirectional_sequence_rnn

NN_REGISTER_OPERATION(UNIDIRECTIONAL_SEQUENCE_RNN, "UNIDIRECTIONAL_SEQUENCE_RNN",
                      unidirectional_sequence_rnn::validate, unidirectional_sequence_rnn::prepare,
                      unidirectional_sequence_rnn::execute)
