// UNIDIRECTIONAL_SEQUENCE_LSTM: an LSTM layer (see LSTMCell.h) run over a whole sequence.
//   0 input [maxTime, batch, inputSize] (time-major) or [batch, maxTime, inputSize]
//   1-19 weights, biases, projection and states as for LSTM
//   20 activation, 21 cell clip, 22 projection clip, 23 timeMajor (BOOL)
//   24-27 layer normalization weights (optional)
//   -> output [.., .., outputSize] in the input's layout, and optionally (NNAPI 1.3) the final
//      output state [batch, outputSize] and cell state [batch, numCells].
// Types: float32, float16 (computed in float32).
#include <vector>

#include "LSTMCell.h"
#include "SequenceLayout.h"
#include "TensorAsFloat.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::unidirectional_sequence_lstm {

constexpr uint32_t kInputTensor = 0;
constexpr uint32_t kOutputStateInTensor = 18;
constexpr uint32_t kCellStateInTensor = 19;
constexpr uint32_t kActivationParam = 20;
constexpr uint32_t kCellClipParam = 21;
constexpr uint32_t kProjClipParam = 22;
constexpr uint32_t kTimeMajorParam = 23;
constexpr uint32_t kFirstLayerNormTensor = 24;
constexpr uint32_t kNumInputs = 28;

constexpr uint32_t kOutputTensor = 0;
constexpr uint32_t kOutputStateOutTensor = 1;
constexpr uint32_t kCellStateOutTensor = 2;

namespace {

lstm::CellOperands operandsOf() {
  return lstm::cellOperands(1, kOutputStateInTensor, kCellStateInTensor, kFirstLayerNormTensor);
}

struct Geometry {
  SequenceShape sequence;
  uint32_t inputSize;
  lstm::CellConfig cell;
};

Result<Geometry> readGeometry(const IOperationExecutionContext* context) {
  for (uint32_t i : {kInputTensor, kTimeMajorParam}) {
    NN_RET_CHECK(!context->isOmittedInput(i)) << "required input " << i << " is omitted";
  }
  const Shape input = context->getInputShape(kInputTensor);
  NN_RET_CHECK_EQ(getNumberOfDimensions(input), 3u) << "input must be 3-D";
  Geometry g;
  g.sequence = sequenceShape(input.dimensions, context->getInputValue<uint8_t>(kTimeMajorParam) != 0);
  g.inputSize = input.dimensions[2];
  auto cell = lstm::checkCell(context, operandsOf(), g.sequence.batchSize, g.inputSize, 0);
  if (!cell.ok()) return cell.error();
  g.cell = *cell;
  return g;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, kNumInputs, kNumInputs));
  const uint32_t outputs = context->getNumOutputs();
  NN_RET_CHECK(outputs == 1 || outputs == 3) << "1 output, or 3 with the final states; got " << outputs;
  NN_TRY(lstm::validateOperandTypes(context, kActivationParam, kCellClipParam, kProjClipParam, {kTimeMajorParam}));
  uint8_t timeMajor = 0;
  const bool timeMajorKnown = getConstantScalar(context, kTimeMajorParam, &timeMajor);
  const auto [first, second] = sequenceDimNames(timeMajorKnown, timeMajor != 0);
  DimensionAgreement dims(context);
  NN_TRY(dims.input(kInputTensor, {first, second, "inputSize"}));
  NN_TRY(lstm::validateCellShapes(dims, operandsOf(), "", "inputSize", "batch"));
  NN_TRY(dims.output(kOutputTensor, {first, second, "outputSize"}));
  NN_TRY(dims.output(kOutputStateOutTensor, {"batch", "outputSize"}));
  return dims.output(kCellStateOutTensor, {"batch", "numCells"});
}

Status prepare(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  auto params = lstm::readParams(context, kActivationParam, kCellClipParam, kProjClipParam);
  if (!params.ok()) return params.error();
  std::vector<Dimensions> dims = {g->sequence.dimensions(g->cell.outputSize)};
  if (context->getNumOutputs() == 3) {
    dims.push_back({g->sequence.batchSize, g->cell.outputSize});
    dims.push_back({g->sequence.batchSize, g->cell.numCells});
  }
  return setOutputDimensions(context, dims);
}

Status execute(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  auto params = lstm::readParams(context, kActivationParam, kCellClipParam, kProjClipParam);
  if (!params.ok()) return params.error();
  const lstm::CellWeights weights = lstm::loadCell(context, operandsOf(), g->cell);
  const SequenceShape& seq = g->sequence;
  const std::vector<float> input = seq.readTimeMajor(context, kInputTensor);
  const std::vector<float> outputStateIn = inputAsFloat(context, kOutputStateInTensor);
  const std::vector<float> cellStateIn = inputAsFloat(context, kCellStateInTensor);
  std::vector<float> output(size_t{seq.maxTime} * seq.batchSize * g->cell.outputSize);
  std::vector<float> outputState(size_t{seq.batchSize} * g->cell.outputSize);
  std::vector<float> cellState(size_t{seq.batchSize} * g->cell.numCells);
  lstm::SequenceOutput out;
  out.output = output.data();
  out.outputStride = g->cell.outputSize;
  out.outputState = outputState.data();
  out.cellState = cellState.data();
  lstm::runSequence(weights, *params, seq.maxTime, seq.batchSize, input.data(), nullptr, outputStateIn.data(),
                    cellStateIn.data(), /*forward=*/true, out);
  NN_TRY(seq.writeFromTimeMajor(context, kOutputTensor, output, g->cell.outputSize));
  if (context->getNumOutputs() == 3) {
    NN_TRY(writeOutputFromFloat(context, kOutputStateOutTensor, outputState.data(), outputState.size()));
    NN_TRY(writeOutputFromFloat(context, kCellStateOutTensor, cellState.data(), cellState.size()));
  }
  return {};
}

}  // namespace weft::nn::unidirectional_sequence_lstm

NN_REGISTER_OPERATION(UNIDIRECTIONAL_SEQUENCE_LSTM, "UNIDIRECTIONAL_SEQUENCE_LSTM",
                      unidirectional_sequence_lstm::validate, unidirectional_sequence_lstm::prepare,
                      unidirectional_sequence_lstm::execute, .allowOmittedOperand = true)
