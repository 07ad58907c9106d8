// RNN: one step of a basic recurrent layer (see RNNCell.h).
//   input [batch, inputSize], weights [numUnits, inputSize], recurrentWeights [numUnits, numUnits],
//   bias [numUnits], hiddenStateIn [batch, numUnits], fused activation
//   -> hiddenStateOut [batch, numUnits], output [batch, numUnits] (both the new state).
// Types: float32, float16 (computed in float32).
#include <vector>

#include "DimensionAgreement.h"
#include "RNNCell.h"
#include "TensorAsFloat.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::rnn_op {

constexpr uint32_t kInputTensor = 0;
constexpr uint32_t kWeightsTensor = 1;
constexpr uint32_t kRecurrentWeightsTensor = 2;
constexpr uint32_t kBiasTensor = 3;
constexpr uint32_t kHiddenStateInTensor = 4;
constexpr uint32_t kActivationParam = 5;
constexpr uint32_t kHiddenStateOutTensor = 0;
constexpr uint32_t kOutputTensor = 1;

namespace {

struct Geometry {
  uint32_t batchSize, inputSize, numUnits;
};

Result<Geometry> readGeometry(const IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInputTensor);
  NN_RET_CHECK_EQ(getNumberOfDimensions(input), 2u) << "input must be [batch, inputSize]";
  Geometry g;
  g.batchSize = input.dimensions[0];
  g.inputSize = input.dimensions[1];
  auto units = rnn::checkLayerShapes(context->getInputShape(kWeightsTensor),
                                     context->getInputShape(kRecurrentWeightsTensor),
                                     context->getInputShape(kBiasTensor), g.inputSize);
  if (!units.ok()) return units.error();
  g.numUnits = *units;
  NN_TRY(rnn::checkHiddenState(context->getInputShape(kHiddenStateInTensor), g.batchSize, g.numUnits));
  return g;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 6, 6));
  NN_TRY(validateOutputCount(context, 2));
  const OperandType type = context->getInputType(kInputTensor);
  NN_TRY(validateTypeIsOneOf(context, "input", type, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
  NN_TRY(validateInputTypes(context, {type, type, type, type, type, OperandType::INT32}));
  NN_TRY(validateOutputTypes(context, {type, type}));
  NN_TRY(validateActivationInput(context, kActivationParam));
  DimensionAgreement dims(context);
  NN_TRY(dims.input(kInputTensor, {"batch", "inputSize"}));
  NN_TRY(rnn::validateLayerShapes(dims, kWeightsTensor, "numUnits", "inputSize"));
  NN_TRY(dims.output(kHiddenStateOutTensor, {"batch", "numUnits"}));
  return dims.output(kOutputTensor, {"batch", "numUnits"});
}

Status prepare(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  // Both outputs are the new state.
  return setOutputDimensions(context, {{g->batchSize, g->numUnits}, {g->batchSize, g->numUnits}});
}

Status execute(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  auto activation = getActivation(context, kActivationParam);
  if (!activation.ok()) return activation.error();
  const std::vector<float> input = inputAsFloat(context, kInputTensor);
  const rnn::LayerWeights weights(context, kWeightsTensor);
  const std::vector<float> hidden = inputAsFloat(context, kHiddenStateInTensor);
  const rnn::Layer layer = weights.layer(g->numUnits, g->inputSize);
  std::vector<float> output(size_t{g->batchSize} * g->numUnits);
  rnn::step(layer, *activation, g->batchSize, input.data(), nullptr, hidden.data(), output.data(), g->numUnits,
            nullptr);
  NN_TRY(writeOutputFromFloat(context, kHiddenStateOutTensor, output.data(), output.size()));
  return writeOutputFromFloat(context, kOutputTensor, output.data(), output.size());
}

}  // namespace weft::nn::rnn_op

NN_REGISTER_OPERATION(RNN, "RNN", rnn_op::validate, rnn_op::prepare, rnn_op::execute)
