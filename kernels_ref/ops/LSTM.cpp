// LSTM: one step of a long short-term memory layer (see LSTMCell.h for the cell and its options).
//   0 input [batch, inputSize]
//   1-4 input-to-{input, forget, cell, output} weights [numCells, inputSize] (input: optional, CIFG)
//   5-8 recurrent-to-{...} weights [numCells, outputSize] (input: optional)
//   9-11 cell-to-{input, forget, output} peephole weights [numCells] (optional)
//   12-15 {input, forget, cell, output} gate biases [numCells] (input: optional)
//   16 projection weights [outputSize, numCells], 17 projection bias [outputSize] (optional)
//   18 output state in [batch, outputSize], 19 cell state in [batch, numCells]
//   20 activation, 21 cell clip, 22 projection clip (FLOAT32, or FLOAT16 for float16 tensors)
//   23-26 {input, forget, cell, output} layer normalization weights [numCells] (NNAPI 1.2, optional)
//   -> scratch buffer [batch, numCells * (CIFG ? 3 : 4)], output state out, cell state out, output.
// Types: float32, float16 (computed in float32).
#include <vector>

#include "LSTMCell.h"
#include "TensorAsFloat.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::lstm_op {

constexpr uint32_t kInputTensor = 0;
constexpr uint32_t kOutputStateInTensor = 18;
constexpr uint32_t kCellStateInTensor = 19;
constexpr uint32_t kActivationParam = 20;
constexpr uint32_t kCellClipParam = 21;
constexpr uint32_t kProjClipParam = 22;
constexpr uint32_t kFirstLayerNormTensor = 23;

constexpr uint32_t kScratchBufferTensor = 0;
constexpr uint32_t kOutputStateOutTensor = 1;
constexpr uint32_t kCellStateOutTensor = 2;
constexpr uint32_t kOutputTensor = 3;

namespace {

lstm::CellOperands operandsOf(uint32_t numInputs) {
  // Layer normalization arrived with the 27-input version (NNAPI 1.2).
  return lstm::cellOperands(1, kOutputStateInTensor, kCellStateInTensor,
                            numInputs == 27 ? kFirstLayerNormTensor : lstm::kNoOperand);
}

struct Geometry {
  uint32_t batchSize;
  lstm::CellConfig cell;
};

Result<Geometry> readGeometry(const IOperationExecutionContext* context) {
  NN_RET_CHECK(!context->isOmittedInput(kInputTensor)) << "the input is required";
  const Shape input = context->getInputShape(kInputTensor);
  NN_RET_CHECK_EQ(getNumberOfDimensions(input), 2u) << "input must be [batch, inputSize]";
  Geometry g;
  g.batchSize = input.dimensions[0];
  auto cell = lstm::checkCell(context, operandsOf(context->getNumInputs()), g.batchSize, input.dimensions[1], 0);
  if (!cell.ok()) return cell.error();
  g.cell = *cell;
  return g;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  const uint32_t inputs = context->getNumInputs();
  NN_RET_CHECK(inputs == 23 || inputs == 27) << "LSTM takes 23 or 27 inputs, got " << inputs;
  NN_TRY(validateOutputCount(context, 4));
  NN_TRY(lstm::validateOperandTypes(context, kActivationParam, kCellClipParam, kProjClipParam, {}));
  DimensionAgreement dims(context);
  NN_TRY(dims.input(kInputTensor, {"batch", "inputSize"}));
  NN_TRY(lstm::validateCellShapes(dims, operandsOf(inputs), "", "inputSize", "batch"));
  NN_TRY(dims.output(kScratchBufferTensor, {"batch", nullptr}));
  NN_TRY(dims.output(kOutputStateOutTensor, {"batch", "outputSize"}));
  NN_TRY(dims.output(kCellStateOutTensor, {"batch", "numCells"}));
  return dims.output(kOutputTensor, {"batch", "outputSize"});
}

Status prepare(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  auto params = lstm::readParams(context, kActivationParam, kCellClipParam, kProjClipParam);
  if (!params.ok()) return params.error();
  const uint32_t gates = g->cell.useCifg ? 3 : 4;
  return setOutputDimensions(context, {{g->batchSize, g->cell.numCells * gates},
                                       {g->batchSize, g->cell.outputSize},
                                       {g->batchSize, g->cell.numCells},
                                       {g->batchSize, g->cell.outputSize}});
}

Status execute(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  auto params = lstm::readParams(context, kActivationParam, kCellClipParam, kProjClipParam);
  if (!params.ok()) return params.error();
  const lstm::CellWeights weights = lstm::loadCell(context, operandsOf(context->getNumInputs()), g->cell);
  const std::vector<float> input = inputAsFloat(context, kInputTensor);
  const std::vector<float> outputStateIn = inputAsFloat(context, kOutputStateInTensor);
  const std::vector<float> cellStateIn = inputAsFloat(context, kCellStateInTensor);
  std::vector<float> output(size_t{g->batchSize} * g->cell.outputSize);
  std::vector<float> outputState(output.size()), cellState(size_t{g->batchSize} * g->cell.numCells), scratch;
  lstm::SequenceOutput out;
  out.output = output.data();
  out.outputStride = g->cell.outputSize;
  out.outputState = outputState.data();
  out.cellState = cellState.data();
  out.scratch = &scratch;
  lstm::runSequence(weights, *params, /*maxTime=*/1, g->batchSize, input.data(), nullptr, outputStateIn.data(),
                    cellStateIn.data(), /*forward=*/true, out);
  NN_TRY(writeOutputFromFloat(context, kScratchBufferTensor, scratch.data(), scratch.size()));
  NN_TRY(writeOutputFromFloat(context, kOutputStateOutTensor, outputState.data(), outputState.size()));
  NN_TRY(writeOutputFromFloat(context, kCellStateOutTensor, cellState.data(), cellState.size()));
  return writeOutputFromFloat(context, kOutputTensor, output.data(), output.size());
}

}  // namespace weft::nn::lstm_op

NN_REGISTER_OPERATION(LSTM, "LSTM", lstm_op::validate, lstm_op::prepare, lstm_op::execute,
                      .allowOmittedOperand = true)
