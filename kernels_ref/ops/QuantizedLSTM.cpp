// QUANTIZED_LSTM: one step of an integer LSTM (TFLite's 8x8->16 quantized LSTM, NNAPI 1.3).
//   0 input [batch, inputSize] TENSOR_QUANT8_ASYMM_SIGNED
//   1-4 input-to-{input, forget, cell, output} weights [numUnits, inputSize] TENSOR_QUANT8_SYMM
//   5-8 recurrent-to-{...} weights [numUnits, outputSize] TENSOR_QUANT8_SYMM
//   9-11 cell-to-{input, forget, output} peephole weights [numUnits] TENSOR_QUANT16_SYMM (optional)
//   12-15 {input, forget, cell, output} gate biases [numUnits] TENSOR_INT32
//   16 projection weights [outputSize, numUnits] TENSOR_QUANT8_SYMM, 17 projection bias (optional)
//   18 previous output [batch, outputSize] QUANT8_ASYMM_SIGNED, 19 previous cell state
//   [batch, numUnits] TENSOR_QUANT16_SYMM (scale a power of two <= 2^-9)
//   20-23 layer normalization weights [numUnits] TENSOR_QUANT16_SYMM (optional)
//   24 cell clip, 25 projection clip, 26-29 {input, forget, cell, output} intermediate scales
//   (scales of the gate matmul results), 30 hidden state zero point, 31 hidden state scale
//   -> output state out, cell state out, output.
// The input gate is optional (CIFG: i = 1 - f), like the peepholes, projection and layer norm.
// Gates are 16-bit: matmuls requantize to the intermediate scales, layer norm to Q3.12, sigmoid
// and tanh give Q0.15 (IntegerLstmKernels.h).
#include <algorithm>
#include <cmath>
#include <vector>

#include "DimensionAgreement.h"
#include "IntegerLstmKernels.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::quantized_lstm {

constexpr uint32_t kInputTensor = 0;
constexpr uint32_t kInputToInputWeights = 1;   // + gate
constexpr uint32_t kRecurrentToInputWeights = 5;  // + gate
constexpr uint32_t kCellToInputWeights = 9;    // input, forget, output
constexpr uint32_t kInputGateBias = 12;        // + gate
constexpr uint32_t kProjectionWeights = 16;
constexpr uint32_t kProjectionBias = 17;
constexpr uint32_t kPrevOutputTensor = 18;
constexpr uint32_t kPrevCellStateTensor = 19;
constexpr uint32_t kInputLayerNorm = 20;       // + gate
constexpr uint32_t kCellClip = 24;
constexpr uint32_t kProjectionClip = 25;
constexpr uint32_t kInputIntermediateScale = 26;  // + gate
constexpr uint32_t kHiddenStateZeroPoint = 30;
constexpr uint32_t kHiddenStateScale = 31;
constexpr uint32_t kNumInputs = 32;

constexpr uint32_t kOutputStateOutTensor = 0;
constexpr uint32_t kCellStateOutTensor = 1;
constexpr uint32_t kOutputTensor = 2;

// Gate order of the weight, bias, layer norm and intermediate scale inputs.
enum Gate : uint32_t { kInputGate = 0, kForgetGate = 1, kCellGate = 2, kOutputGate = 3 };

namespace {

using integer_lstm::Scale;

struct Geometry {
  uint32_t batchSize, inputSize, numUnits, outputSize;
  bool useCifg, usePeephole, useLayerNorm, useProjection;
  int cellShift;  // log2 of the cell state scale
};

bool present(const IOperationExecutionContext* context, uint32_t index) { return !context->isOmittedInput(index); }

// log2 of the cell state scale, which must be a power of two: the cell state feeds tanh with
// 15 + log2(scale) integer bits, which the kernels support from 0 to 6.
Result<int> cellStateShift(const Shape& cellState) {
  auto shift = integer_lstm::exactLog2(cellState.scale);
  if (!shift.ok()) return NN_ERROR(BAD_DATA) << "cell state scale: " << shift.error().message;
  NN_RET_CHECK(*shift <= -9 && *shift >= -15) << "cell state scale must be 2^k with -15 <= k <= -9, got 2^" << *shift;
  return *shift;
}

Status checkShape(const IOperationExecutionContext* context, uint32_t index, std::initializer_list<uint32_t> dims) {
  const Shape s = context->getInputShape(index);
  NN_RET_CHECK(s.dimensions == Dimensions(dims)) << "input " << index << " must be " << toString(Dimensions(dims))
                                                  << ", got " << toString(s.dimensions);
  return {};
}

Result<Geometry> readGeometry(const IOperationExecutionContext* context) {
  for (uint32_t i : {kInputTensor, kInputToInputWeights + kForgetGate, kInputToInputWeights + kCellGate,
                     kInputToInputWeights + kOutputGate, kRecurrentToInputWeights + kForgetGate,
                     kRecurrentToInputWeights + kCellGate, kRecurrentToInputWeights + kOutputGate,
                     kInputGateBias + kForgetGate, kInputGateBias + kCellGate, kInputGateBias + kOutputGate,
                     kPrevOutputTensor, kPrevCellStateTensor}) {
    NN_RET_CHECK(present(context, i)) << "required input " << i << " is omitted";
  }
  for (uint32_t i = kCellClip; i < kNumInputs; ++i) {
    NN_RET_CHECK(present(context, i)) << "required input " << i << " is omitted";
  }
  const Shape input = context->getInputShape(kInputTensor);
  const Shape recurrentToOutput = context->getInputShape(kRecurrentToInputWeights + kOutputGate);
  const Shape inputToOutput = context->getInputShape(kInputToInputWeights + kOutputGate);
  NN_RET_CHECK_EQ(getNumberOfDimensions(input), 2u) << "input must be [batch, inputSize]";
  NN_RET_CHECK(getNumberOfDimensions(inputToOutput) == 2 && getNumberOfDimensions(recurrentToOutput) == 2)
      << "gate weights must be 2-D";
  Geometry g;
  g.batchSize = input.dimensions[0];
  g.inputSize = input.dimensions[1];
  g.numUnits = inputToOutput.dimensions[0];
  g.outputSize = recurrentToOutput.dimensions[1];
  g.useCifg = !present(context, kInputToInputWeights);
  NN_RET_CHECK(g.useCifg == !present(context, kRecurrentToInputWeights))
      << "input-to-input and recurrent-to-input weights must both be present or both omitted (CIFG)";
  for (uint32_t gate = g.useCifg ? 1 : 0; gate < 4; ++gate) {
    NN_TRY(checkShape(context, kInputToInputWeights + gate, {g.numUnits, g.inputSize}));
    NN_TRY(checkShape(context, kRecurrentToInputWeights + gate, {g.numUnits, g.outputSize}));
    NN_RET_CHECK(present(context, kInputGateBias + gate)) << "gate bias " << kInputGateBias + gate << " is required";
    NN_TRY(checkShape(context, kInputGateBias + gate, {g.numUnits}));
  }
  NN_RET_CHECK(!g.useCifg || !present(context, kInputGateBias)) << "CIFG LSTM has no input gate bias";

  const bool cellToInput = present(context, kCellToInputWeights);
  const bool cellToForget = present(context, kCellToInputWeights + 1);
  const bool cellToOutput = present(context, kCellToInputWeights + 2);
  g.usePeephole = cellToOutput;
  NN_RET_CHECK((cellToForget == cellToOutput) && (cellToInput == (cellToOutput && !g.useCifg)))
      << "peephole weights must be all present (no cell-to-input with CIFG) or all omitted";
  for (uint32_t i = 0; i < 3; ++i) {
    if (present(context, kCellToInputWeights + i)) NN_TRY(checkShape(context, kCellToInputWeights + i, {g.numUnits}));
  }

  g.useLayerNorm = present(context, kInputLayerNorm + kOutputGate);
  for (uint32_t gate = 0; gate < 4; ++gate) {
    const bool expected = g.useLayerNorm && !(g.useCifg && gate == kInputGate);
    NN_RET_CHECK(present(context, kInputLayerNorm + gate) == expected)
        << "layer normalization weights must be all present (no input gate with CIFG) or all omitted";
    if (expected) NN_TRY(checkShape(context, kInputLayerNorm + gate, {g.numUnits}));
  }

  g.useProjection = present(context, kProjectionWeights);
  NN_RET_CHECK(g.useProjection || !present(context, kProjectionBias)) << "projection bias without weights";
  if (g.useProjection) {
    NN_TRY(checkShape(context, kProjectionWeights, {g.outputSize, g.numUnits}));
    if (present(context, kProjectionBias)) NN_TRY(checkShape(context, kProjectionBias, {g.outputSize}));
  } else {
    NN_RET_CHECK_EQ(g.outputSize, g.numUnits) << "without projection the output size is the number of units";
  }
  NN_TRY(checkShape(context, kPrevOutputTensor, {g.batchSize, g.outputSize}));
  NN_TRY(checkShape(context, kPrevCellStateTensor, {g.batchSize, g.numUnits}));

  auto cellShift = cellStateShift(context->getInputShape(kPrevCellStateTensor));
  if (!cellShift.ok()) return cellShift.error();
  g.cellShift = *cellShift;
  return g;
}

// The effective requantization scales of the step, computed in float as the reference does.
struct Scales {
  Scale inputToGate[4], recurrentToGate[4], cellToGate[4], layerNorm[4];
  Scale hidden, projection;
};

Result<Scales> computeScales(const IOperationExecutionContext* context, const Geometry& g) {
  Scales s;
  const float inputScale = context->getInputShape(kInputTensor).scale;
  const float prevOutputScale = context->getInputShape(kPrevOutputTensor).scale;
  const float hiddenScale = context->getInputValue<float>(kHiddenStateScale);
  for (uint32_t gate = g.useCifg ? 1 : 0; gate < 4; ++gate) {
    const float intermediate = context->getInputValue<float>(kInputIntermediateScale + gate);
    const float inputToGate = context->getInputShape(kInputToInputWeights + gate).scale * inputScale / intermediate;
    const float recurrentToGate =
        context->getInputShape(kRecurrentToInputWeights + gate).scale * prevOutputScale / intermediate;
    auto a = integer_lstm::scaleOf(inputToGate);
    auto b = integer_lstm::scaleOf(recurrentToGate);
    if (!a.ok()) return a.error();
    if (!b.ok()) return b.error();
    s.inputToGate[gate] = *a;
    s.recurrentToGate[gate] = *b;
    if (g.usePeephole && gate != kCellGate) {
      const uint32_t peephole = kCellToInputWeights + (gate == kOutputGate ? 2 : gate);
      const float cellToGate = static_cast<float>(std::pow(2.0, g.cellShift) *
                                                  context->getInputShape(peephole).scale / intermediate);
      auto c = integer_lstm::scaleOf(cellToGate);
      if (!c.ok()) return c.error();
      s.cellToGate[gate] = *c;
    }
    if (g.useLayerNorm) {
      auto ln = integer_lstm::scaleOf(context->getInputShape(kInputLayerNorm + gate).scale);
      if (!ln.ok()) return ln.error();
      s.layerNorm[gate] = *ln;
    }
  }
  auto hidden = integer_lstm::scaleOf(static_cast<float>(std::pow(2.0, -15) / hiddenScale * std::pow(2.0, -15)));
  if (!hidden.ok()) return hidden.error();
  s.hidden = *hidden;
  if (g.useProjection) {
    auto projection = integer_lstm::scaleOf(context->getInputShape(kProjectionWeights).scale * hiddenScale /
                                            prevOutputScale);
    if (!projection.ok()) return projection.error();
    s.projection = *projection;
  }
  return s;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, kNumInputs, kNumInputs));
  NN_TRY(validateOutputCount(context, 3));
  const OperandType s8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  const OperandType w8 = OperandType::TENSOR_QUANT8_SYMM;
  const OperandType s16 = OperandType::TENSOR_QUANT16_SYMM;
  const OperandType i32 = OperandType::TENSOR_INT32;
  const OperandType f32 = OperandType::FLOAT32;
  NN_TRY(validateInputTypes(context, {s8,  w8,  w8,  w8,  w8,  w8,  w8,  w8,  w8,  s16, s16,
                                      s16, i32, i32, i32, i32, w8,  i32, s8,  s16, s16, s16,
                                      s16, s16, f32, f32, f32, f32, f32, f32, OperandType::INT32, f32}));
  NN_TRY(validateOutputTypes(context, {s8, s16, s8}));
  DimensionAgreement dims(context);
  NN_TRY(dims.input(kInputTensor, {"batch", "inputSize"}));
  for (uint32_t gate = 0; gate < 4; ++gate) {
    NN_TRY(dims.input(kInputToInputWeights + gate, {"numUnits", "inputSize"}));
    NN_TRY(dims.input(kRecurrentToInputWeights + gate, {"numUnits", "outputSize"}));
    NN_TRY(dims.input(kInputGateBias + gate, {"numUnits"}));
    NN_TRY(dims.input(kInputLayerNorm + gate, {"numUnits"}));
  }
  for (uint32_t i = 0; i < 3; ++i) NN_TRY(dims.input(kCellToInputWeights + i, {"numUnits"}));
  NN_TRY(dims.input(kProjectionWeights, {"outputSize", "numUnits"}));
  NN_TRY(dims.input(kProjectionBias, {"outputSize"}));
  NN_TRY(dims.input(kPrevOutputTensor, {"batch", "outputSize"}));
  NN_TRY(dims.input(kPrevCellStateTensor, {"batch", "numUnits"}));
  NN_TRY(dims.output(kOutputStateOutTensor, {"batch", "outputSize"}));
  NN_TRY(dims.output(kCellStateOutTensor, {"batch", "numUnits"}));
  NN_TRY(dims.output(kOutputTensor, {"batch", "outputSize"}));
  for (const Shape& cellState : {context->getInputShape(kPrevCellStateTensor), context->getOutputShape(kCellStateOutTensor)}) {
    auto shift = cellStateShift(cellState);
    if (!shift.ok()) return shift.error();
  }
  for (uint32_t i : {kCellClip, kProjectionClip}) {
    float clip = 0;
    if (getConstantScalar(context, i, &clip)) {
      NN_RET_CHECK(clip >= 0) << "clipping thresholds must be >= 0";
    }
  }
  return {};
}

Status prepare(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  auto scales = computeScales(context, *g);
  if (!scales.ok()) return scales.error();
  return setOutputDimensions(
      context, {{g->batchSize, g->outputSize}, {g->batchSize, g->numUnits}, {g->batchSize, g->outputSize}});
}

Status execute(IOperationExecutionContext* context) {
  namespace k = integer_lstm;
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  auto scales = computeScales(context, *g);
  if (!scales.ok()) return scales.error();
  const Scales& s = *scales;
  const uint32_t batch = g->batchSize, units = g->numUnits;
  const size_t size = size_t{batch} * units;
  const Shape inputShape = context->getInputShape(kInputTensor);
  const Shape prevOutputShape = context->getInputShape(kPrevOutputTensor);
  const Shape cellShape = context->getInputShape(kPrevCellStateTensor);
  const int8_t* input = context->getInputBuffer<int8_t>(kInputTensor);
  const int8_t* prevOutput = context->getInputBuffer<int8_t>(kPrevOutputTensor);
  const int16_t* prevCell = context->getInputBuffer<int16_t>(kPrevCellStateTensor);
  const int32_t hiddenZeroPoint = context->getInputValue<int32_t>(kHiddenStateZeroPoint);
  const float cellClip = context->getInputValue<float>(kCellClip);
  const float projectionClip = context->getInputValue<float>(kProjectionClip);
  int16_t* cellOut = context->getOutputBuffer<int16_t>(kCellStateOutTensor);
  int8_t* output = context->getOutputBuffer<int8_t>(kOutputTensor);

  // One gate's pre-activation: both matmuls into a zeroed buffer, the peephole, then layer norm.
  // Zero points are folded into the matmul biases; without layer norm the gate bias is folded
  // there too (with layer norm it is added after normalization).
  auto gateInput = [&](uint32_t gate, const int16_t* peepholeCell, std::vector<int16_t>& out) -> Status {
    out.assign(size, 0);
    const int32_t* gateBias = context->getInputBuffer<int32_t>(kInputGateBias + gate);
    const int8_t* wx = context->getInputBuffer<int8_t>(kInputToInputWeights + gate);
    const int8_t* wh = context->getInputBuffer<int8_t>(kRecurrentToInputWeights + gate);
    const std::vector<int32_t> inputBias =
        k::effectiveBias(-inputShape.offset, wx, units, g->inputSize, g->useLayerNorm ? nullptr : gateBias);
    const std::vector<int32_t> recurrentBias = k::effectiveBias(-prevOutputShape.offset, wh, units, g->outputSize, nullptr);
    k::matrixBatchVectorMultiplyAccumulate<int16_t>(input, inputBias.data(), wx, s.inputToGate[gate], batch,
                                                    g->inputSize, units, 0, out.data());
    k::matrixBatchVectorMultiplyAccumulate<int16_t>(prevOutput, recurrentBias.data(), wh, s.recurrentToGate[gate],
                                                    batch, g->outputSize, units, 0, out.data());
    if (g->usePeephole && peepholeCell != nullptr) {
      const uint32_t peephole = kCellToInputWeights + (gate == kOutputGate ? 2 : gate);
      k::vectorBatchVectorCwiseProductAccumulate(context->getInputBuffer<int16_t>(peephole), units, peepholeCell,
                                                 batch, s.cellToGate[gate], out.data());
    }
    if (g->useLayerNorm) {
      // Guards the inverse square root of a vanishing variance, as the reference does.
      const int32_t varianceLimit =
          std::min(1, static_cast<int32_t>(10000 * context->getInputShape(kInputLayerNorm + gate).scale));
      k::layerNorm(out.data(), context->getInputBuffer<int16_t>(kInputLayerNorm + gate), gateBias,
                   s.layerNorm[gate], varianceLimit, batch, units, out.data());
    }
    return {};
  };

  std::vector<int16_t> forgetGate, cellGate, inputGate, outputGate;
  // The peepholes of the input and forget gates look at the previous cell state.
  NN_TRY(gateInput(kForgetGate, prevCell, forgetGate));
  k::sigmoid(forgetGate.data(), size, forgetGate.data());
  NN_TRY(gateInput(kCellGate, nullptr, cellGate));
  NN_TRY(k::tanh(3, cellGate.data(), size, cellGate.data()));
  if (g->useCifg) {
    inputGate.resize(size);
    for (size_t i = 0; i < size; ++i) inputGate[i] = static_cast<int16_t>(32767 - forgetGate[i]);
  } else {
    NN_TRY(gateInput(kInputGate, prevCell, inputGate));
    k::sigmoid(inputGate.data(), size, inputGate.data());
  }

  // c' = f * c (Q0.15 x cell -> cell) + i * g (Q0.15 x Q0.15 -> cell), saturated, clipped.
  std::vector<int16_t> forgetTimesCell(size), inputTimesCellGate(size);
  k::cwiseMul(forgetGate.data(), prevCell, size, 15, forgetTimesCell.data());
  k::cwiseMul(inputGate.data(), cellGate.data(), size, 30 + g->cellShift, inputTimesCellGate.data());
  k::cwiseAdd(forgetTimesCell.data(), inputTimesCellGate.data(), size, cellOut);
  if (cellClip > 0.0f) {
    const int16_t limit = static_cast<int16_t>(std::min(std::max(cellClip / cellShape.scale, -32768.0f), 32767.0f));
    if (limit > 0) k::cwiseClip(cellOut, size, limit);
  }

  NN_TRY(gateInput(kOutputGate, cellOut, outputGate));
  k::sigmoid(outputGate.data(), size, outputGate.data());

  // h = o * tanh(c'), requantized to the hidden state.
  std::vector<int16_t> cellTanh(size);
  NN_TRY(k::tanh(15 + g->cellShift, cellOut, size, cellTanh.data()));
  std::vector<int8_t> hidden(size);
  k::cwiseMul(outputGate.data(), cellTanh.data(), size, s.hidden, hiddenZeroPoint, hidden.data());

  const size_t outputCount = size_t{batch} * g->outputSize;
  if (g->useProjection) {
    const int8_t* projection = context->getInputBuffer<int8_t>(kProjectionWeights);
    const int32_t* projectionBias =
        present(context, kProjectionBias) ? context->getInputBuffer<int32_t>(kProjectionBias) : nullptr;
    // cwiseMul subtracted the hidden zero point; the projection bias adds it back.
    const std::vector<int32_t> bias = k::effectiveBias(hiddenZeroPoint, projection, g->outputSize, units, projectionBias);
    std::fill(output, output + outputCount, int8_t{0});
    k::matrixBatchVectorMultiplyAccumulate<int8_t>(hidden.data(), bias.data(), projection, s.projection, batch, units,
                                                   g->outputSize, prevOutputShape.offset, output);
    if (projectionClip > 0.0f) {
      const float weightsScale = context->getInputShape(kProjectionWeights).scale;
      const int8_t limit = static_cast<int8_t>(std::min(std::max(projectionClip / weightsScale, -128.0f), 127.0f));
      if (limit > 0) k::cwiseClip(output, outputCount, limit);
    }
  } else {
    std::copy(hidden.begin(), hidden.begin() + outputCount, output);
  }
  std::copy(output, output + outputCount, context->getOutputBuffer<int8_t>(kOutputStateOutTensor));
  return {};
}

}  // namespace weft::nn::quantized_lstm

NN_REGISTER_OPERATION(QUANTIZED_LSTM, "QUANTIZED_LSTM", quantized_lstm::validate, quantized_lstm::prepare,
                      quantized_lstm::execute, .allowOmittedOperand = true)
