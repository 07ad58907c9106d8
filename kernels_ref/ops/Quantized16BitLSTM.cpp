// QUANTIZED_16BIT_LSTM: one step of a quantized LSTM cell (TFLite's 8-bit / 16-bit LSTM).
//   0 input [batch, inputSize] TENSOR_QUANT8_ASYMM (scale 1/128, zero point 128)
//   1-4 input-to-{input, forget, cell, output} weights [outputSize, inputSize] QUANT8_ASYMM
//   5-8 recurrent-to-{...} weights [outputSize, outputSize] QUANT8_ASYMM (same quantization)
//   9-12 {input, forget, cell, output} gate biases [outputSize] TENSOR_INT32 (scale weights/128)
//   13 previous cell state [batch, outputSize] TENSOR_QUANT16_SYMM (scale 2^-11)
//   14 previous output [batch, outputSize] QUANT8_ASYMM (scale 1/128, zero point 128)
//   -> cell state out (QUANT16_SYMM), output (QUANT8_ASYMM), same shapes as the previous ones.
// Gate pre-activations are int32 dot products (over the reference's concatenated layout, see
// execute()) requantized to Q3.12; the gates, the cell update and
// the output are 16-bit fixed point with gemmlowp's rounding (FixedPointInt16.h); the cell state is
// Q4.11.
#include <algorithm>
#include <cmath>
#include <vector>

#include "DimensionAgreement.h"
#include "FixedPointInt16.h"
#include "weft/kernels/OperationUtils.h"
#include "weft/kernels/QuantUtils.h"

namespace weft::nn::quantized_16bit_lstm {

constexpr uint32_t kInputTensor = 0;
constexpr uint32_t kInputToInputWeightsTensor = 1;
constexpr uint32_t kRecurrentToInputWeightsTensor = 5;
constexpr uint32_t kInputGateBiasTensor = 9;
constexpr uint32_t kPrevCellStateTensor = 13;
constexpr uint32_t kPrevOutputTensor = 14;
constexpr uint32_t kNumInputs = 15;

constexpr uint32_t kCellStateOutTensor = 0;
constexpr uint32_t kOutputTensor = 1;

// Gate order of the weights and biases: input, forget, cell, output.
constexpr uint32_t kNumGates = 4;
enum Gate { kInputGate = 0, kForgetGate = 1, kCellGate = 2, kOutputGate = 3 };

namespace {

// The activations' fixed quantization: [-1, 127/128] in 8 bits.
constexpr float kActivationScale = 1.0f / 128.0f;
constexpr int32_t kActivationZeroPoint = 128;

struct Geometry {
  uint32_t batchSize, inputSize, outputSize;
};

Status checkActivationQuantization(const Shape& shape, const char* what) {
  NN_RET_CHECK(shape.scale == kActivationScale && shape.offset == kActivationZeroPoint)
      << what << " must have scale 1/128 and zero point 128";
  return {};
}

// The cell state is Q4.11: scale 2^-11, zero point 0.
Status checkCellStateQuantization(const Shape& shape) {
  NN_RET_CHECK(shape.offset == 0) << "cell state zero point must be 0";
  const float log2Scale = std::log2(shape.scale);
  NN_RET_CHECK(std::abs(log2Scale - std::round(log2Scale)) < 1e-3f && std::round(log2Scale) == -11.0f)
      << "cell state scale must be 2^-11 (4 integer bits), got " << shape.scale;
  return {};
}

Result<Geometry> readGeometry(const IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInputTensor);
  const Shape prevOutput = context->getInputShape(kPrevOutputTensor);
  const Shape prevCell = context->getInputShape(kPrevCellStateTensor);
  NN_RET_CHECK_EQ(getNumberOfDimensions(input), 2u) << "input must be [batch, inputSize]";
  NN_RET_CHECK_EQ(getNumberOfDimensions(prevOutput), 2u) << "previous output must be [batch, outputSize]";
  NN_TRY(checkActivationQuantization(input, "input"));
  NN_TRY(checkActivationQuantization(prevOutput, "previous output"));
  Geometry g{input.dimensions[0], input.dimensions[1], prevOutput.dimensions[1]};
  NN_RET_CHECK_EQ(prevOutput.dimensions[0], g.batchSize) << "previous output batch";

  const Shape reference = context->getInputShape(kInputToInputWeightsTensor);
  for (uint32_t gate = 0; gate < kNumGates; ++gate) {
    for (uint32_t first : {kInputToInputWeightsTensor, kRecurrentToInputWeightsTensor}) {
      const Shape w = context->getInputShape(first + gate);
      const uint32_t columns = first == kInputToInputWeightsTensor ? g.inputSize : g.outputSize;
      NN_RET_CHECK(getNumberOfDimensions(w) == 2 && w.dimensions[0] == g.outputSize && w.dimensions[1] == columns)
          << "weights " << first + gate << " must be [" << g.outputSize << ", " << columns << "]";
      NN_RET_CHECK(w.scale == reference.scale && w.offset == reference.offset)
          << "all weights must share one scale and zero point";
    }
    const Shape bias = context->getInputShape(kInputGateBiasTensor + gate);
    NN_RET_CHECK(getNumberOfDimensions(bias) == 1 && bias.dimensions[0] == g.outputSize)
        << "bias " << kInputGateBiasTensor + gate << " must be [" << g.outputSize << "]";
    NN_RET_CHECK(bias.scale == reference.scale / 128.0f && bias.offset == 0)
        << "bias scale must be weights scale / 128 with zero point 0";
  }
  NN_RET_CHECK(getNumberOfDimensions(prevCell) == 2 && prevCell.dimensions[0] == g.batchSize &&
               prevCell.dimensions[1] == g.outputSize)
      << "previous cell state must be [batch, outputSize]";
  NN_TRY(checkCellStateQuantization(prevCell));
  return g;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, kNumInputs, kNumInputs));
  NN_TRY(validateOutputCount(context, 2));
  const OperandType q8 = OperandType::TENSOR_QUANT8_ASYMM;
  const OperandType i32 = OperandType::TENSOR_INT32;
  NN_TRY(validateInputTypes(context, {q8, q8, q8, q8, q8, q8, q8, q8, q8, i32, i32, i32, i32,
                                      OperandType::TENSOR_QUANT16_SYMM, q8}));
  NN_TRY(validateOutputTypes(context, {OperandType::TENSOR_QUANT16_SYMM, q8}));
  NN_TRY(checkActivationQuantization(context->getInputShape(kInputTensor), "input"));
  NN_TRY(checkActivationQuantization(context->getInputShape(kPrevOutputTensor), "previous output"));
  NN_TRY(checkActivationQuantization(context->getOutputShape(kOutputTensor), "output"));
  NN_TRY(checkCellStateQuantization(context->getInputShape(kPrevCellStateTensor)));
  NN_TRY(checkCellStateQuantization(context->getOutputShape(kCellStateOutTensor)));
  DimensionAgreement dims(context);
  NN_TRY(dims.input(kInputTensor, {"batch", "inputSize"}));
  for (uint32_t gate = 0; gate < kNumGates; ++gate) {
    NN_TRY(dims.input(kInputToInputWeightsTensor + gate, {"outputSize", "inputSize"}));
    NN_TRY(dims.input(kRecurrentToInputWeightsTensor + gate, {"outputSize", "outputSize"}));
    NN_TRY(dims.input(kInputGateBiasTensor + gate, {"outputSize"}));
  }
  NN_TRY(dims.input(kPrevCellStateTensor, {"batch", "outputSize"}));
  NN_TRY(dims.input(kPrevOutputTensor, {"batch", "outputSize"}));
  NN_TRY(dims.output(kCellStateOutTensor, {"batch", "outputSize"}));
  return dims.output(kOutputTensor, {"batch", "outputSize"});
}

Status prepare(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  // Outputs kCellStateOutTensor (0) and kOutputTensor (1).
  return setOutputDimensions(context, {{g->batchSize, g->outputSize}, {g->batchSize, g->outputSize}});
}

Status execute(IOperationExecutionContext* context) {
  using fixed16::Fixed16;
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  // Accumulators have scale input * weights = bias scale; gates are Q3.12 (scale 2^-12).
  int32_t multiplier = 0;
  int shift = 0;
  NN_TRY(quantizeMultiplier(4096.0 * context->getInputShape(kInputGateBiasTensor).scale, &multiplier, &shift));
  const int32_t weightsZeroPoint = context->getInputShape(kInputToInputWeightsTensor).offset;

  const uint8_t* input = context->getInputBuffer<uint8_t>(kInputTensor);
  const uint8_t* prevOutput = context->getInputBuffer<uint8_t>(kPrevOutputTensor);
  const int16_t* prevCell = context->getInputBuffer<int16_t>(kPrevCellStateTensor);
  int16_t* cellOut = context->getOutputBuffer<int16_t>(kCellStateOutTensor);
  uint8_t* output = context->getOutputBuffer<uint8_t>(kOutputTensor);

  // NNAPI's reference multiplies the concatenation [input, previous output] by weight rows laid
  // out [recurrent-to-gate row, input-to-gate row]; the two halves only line up with their own
  // data when the sizes and roles happen to agree, but the expected results of the conformance
  // corpus follow this layout, so the kernel reproduces it exactly.
  const uint32_t depth = g->inputSize + g->outputSize;
  std::vector<int16_t> concatenated(depth);
  std::vector<int16_t> weightRows(size_t{kNumGates} * g->outputSize * depth);
  for (uint32_t gate = 0; gate < kNumGates; ++gate) {
    const uint8_t* wx = context->getInputBuffer<uint8_t>(kInputToInputWeightsTensor + gate);
    const uint8_t* wh = context->getInputBuffer<uint8_t>(kRecurrentToInputWeightsTensor + gate);
    for (uint32_t u = 0; u < g->outputSize; ++u) {
      int16_t* row = weightRows.data() + (size_t{gate} * g->outputSize + u) * depth;
      for (uint32_t j = 0; j < g->outputSize; ++j) row[j] = wh[size_t{u} * g->outputSize + j] - weightsZeroPoint;
      for (uint32_t i = 0; i < g->inputSize; ++i) {
        row[g->outputSize + i] = wx[size_t{u} * g->inputSize + i] - weightsZeroPoint;
      }
    }
  }
  std::vector<int16_t> gates(kNumGates * g->outputSize);
  for (uint32_t b = 0; b < g->batchSize; ++b) {
    for (uint32_t i = 0; i < g->inputSize; ++i) {
      concatenated[i] = input[size_t{b} * g->inputSize + i] - kActivationZeroPoint;
    }
    for (uint32_t j = 0; j < g->outputSize; ++j) {
      concatenated[g->inputSize + j] = prevOutput[size_t{b} * g->outputSize + j] - kActivationZeroPoint;
    }
    for (uint32_t gate = 0; gate < kNumGates; ++gate) {
      const int32_t* bias = context->getInputBuffer<int32_t>(kInputGateBiasTensor + gate);
      for (uint32_t u = 0; u < g->outputSize; ++u) {
        const int16_t* row = weightRows.data() + (size_t{gate} * g->outputSize + u) * depth;
        int32_t acc = bias[u];
        for (uint32_t d = 0; d < depth; ++d) acc += int32_t{concatenated[d]} * row[d];
        gates[gate * g->outputSize + u] =
            saturateCast<int16_t>(multiplyByQuantizedMultiplier(acc, multiplier, shift));
      }
    }
    for (uint32_t u = 0; u < g->outputSize; ++u) {
      using F0 = Fixed16<0>;
      using F3 = Fixed16<3>;
      using FS = Fixed16<4>;  // the cell state
      const F0 inputGate = fixed16::logistic(F3::fromRaw(gates[kInputGate * g->outputSize + u]));
      const F0 cellGate = fixed16::tanh(F3::fromRaw(gates[kCellGate * g->outputSize + u]));
      const F0 forgetGate = fixed16::logistic(F3::fromRaw(gates[kForgetGate * g->outputSize + u]));
      const F0 outputGate = fixed16::logistic(F3::fromRaw(gates[kOutputGate * g->outputSize + u]));
      const size_t index = size_t{b} * g->outputSize + u;
      const FS cell = fixed16::saturatingAdd(fixed16::rescale<4>(inputGate * cellGate),
                                             forgetGate * FS::fromRaw(prevCell[index]));
      // tanh of the cell state clamped to [-8, 8) (Q3.12), as the reference does.
      const F0 activation = outputGate * fixed16::tanh(fixed16::rescale<3>(cell));
      cellOut[index] = cell.raw;
      const int16_t scaled = fixed16::roundingDivideByPOT(activation.raw, 8);
      output[index] = static_cast<uint8_t>(kActivationZeroPoint + std::clamp<int16_t>(scaled, -128, 127));
    }
  }
  return {};
}

}  // namespace weft::nn::quantized_16bit_lstm

NN_REGISTER_OPERATION(QUANTIZED_16BIT_LSTM, "QUANTIZED_16BIT_LSTM", quantized_16bit_lstm::validate,
                      quantized_16bit_lstm::prepare, quantized_16bit_lstm::execute)
