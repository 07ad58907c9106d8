// FULLY_CONNECTED: output[b, u] = activation(sum_i input[b, i] * weights[u, i] + bias[u]).
// The input (rank >= 2) is read as [numElements / inputSize, inputSize] with inputSize =
// weights.dimensions[1]. Types: float32, float16 (computed in float32), quant8 asymm and asymm
// signed with an int32 bias (TFLite requantization).
#include <algorithm>
#include <vector>

#include "DotProduct.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"
#include "weft/kernels/QuantUtils.h"

namespace weft::nn::fully_connected {

constexpr uint32_t kInput = 0;
constexpr uint32_t kWeights = 1;
constexpr uint32_t kBias = 2;
constexpr uint32_t kActivation = 3;
constexpr uint32_t kOutput = 0;

namespace {

struct Geometry {
  uint32_t batches = 0, inputSize = 0, units = 0;
};

Result<Geometry> readGeometry(const IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const Shape weights = context->getInputShape(kWeights);
  const Shape bias = context->getInputShape(kBias);
  NN_RET_CHECK_GE(input.dimensions.size(), 2u) << "input must have rank >= 2";
  NN_RET_CHECK_EQ(weights.dimensions.size(), 2u) << "weights must be 2-D";
  NN_RET_CHECK_EQ(bias.dimensions.size(), 1u) << "bias must be 1-D";
  Geometry g;
  g.units = weights.dimensions[0];
  g.inputSize = weights.dimensions[1];
  NN_RET_CHECK_EQ(bias.dimensions[0], g.units) << "bias length must equal the number of units";
  const size_t elements = getNumberOfElements(input);
  NN_RET_CHECK(g.inputSize > 0 || elements == 0) << "weights have no input columns";
  if (g.inputSize > 0) {
    NN_RET_CHECK_EQ(elements % g.inputSize, 0u) << "input size " << elements << " is not a multiple of "
                                                << g.inputSize;
    g.batches = static_cast<uint32_t>(elements / g.inputSize);
  }
  return g;
}

void fullyConnectedFloat(const float* input, const float* weights, const float* bias, const Geometry& g,
                         FusedActivationFunc activation, float* output) {
  const FloatRange range = floatActivationRange(activation);
  for (uint32_t b = 0; b < g.batches; ++b) {
    const float* in = input + size_t{b} * g.inputSize;
    for (uint32_t u = 0; u < g.units; ++u) {
      const float* w = weights + size_t{u} * g.inputSize;
      float total = 0.0f;
      for (uint32_t i = 0; i < g.inputSize; ++i) total += in[i] * w[i];
      output[size_t{b} * g.units + u] = std::min(std::max(total + bias[u], range.min), range.max);
    }
  }
}

template <typename T>
Status fullyConnectedQuant(IOperationExecutionContext* context, const Geometry& g, FusedActivationFunc activation) {
  const Shape input = context->getInputShape(kInput);
  const Shape weights = context->getInputShape(kWeights);
  const Shape bias = context->getInputShape(kBias);
  const Shape output = context->getOutputShape(kOutput);
  double real = 0.0;
  NN_TRY(getQuantizedConvolutionMultiplier(input.scale, weights.scale, bias.scale, output.scale, &real));
  int32_t multiplier;
  int shift;
  NN_TRY(quantizeMultiplier(real, &multiplier, &shift));
  const QuantizedRange range = quantizedActivationRange<T>(activation, output.scale, output.offset);
  // Zero-point-adjusted int16 copies let the inner loop be a plain widening dot product.
  const T* inData = context->getInputBuffer<T>(kInput);
  const T* wData = context->getInputBuffer<T>(kWeights);
  std::vector<int16_t> w(size_t{g.units} * g.inputSize);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int16_t>(static_cast<int32_t>(wData[i]) - weights.offset);
  const int32_t* biasData = context->getInputBuffer<int32_t>(kBias);
  T* out = context->getOutputBuffer<T>(kOutput);
  // Four input rows share each pass over the weights: a transformer's weights (MBs) are then read
  // from memory once per four tokens instead of once per token. Missing rows of the last block
  // are zeros whose results are not written.
  constexpr uint32_t kRows = 4;
  std::vector<int16_t> in(size_t{kRows} * g.inputSize);
  for (uint32_t b0 = 0; b0 < g.batches; b0 += kRows) {
    const uint32_t rows = std::min(kRows, g.batches - b0);
    for (uint32_t r = 0; r < kRows; ++r) {
      for (uint32_t i = 0; i < g.inputSize; ++i) {
        in[size_t{r} * g.inputSize + i] =
            r < rows ? static_cast<int16_t>(static_cast<int32_t>(inData[size_t{b0 + r} * g.inputSize + i]) - input.offset)
                     : int16_t{0};
      }
    }
    for (uint32_t u = 0; u < g.units; ++u) {
      int32_t acc[kRows];
      dotProducts4(in.data(), w.data() + size_t{u} * g.inputSize, g.inputSize, acc);
      for (uint32_t r = 0; r < rows; ++r) {
        const auto biased = static_cast<int32_t>(static_cast<uint32_t>(acc[r]) + static_cast<uint32_t>(biasData[u]));
        const int32_t q = multiplyByQuantizedMultiplier(biased, multiplier, shift) + output.offset;
        out[size_t{b0 + r} * g.units + u] = static_cast<T>(std::clamp(q, range.min, range.max));
      }
    }
  }
  return {};
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  const bool isFloat = type == OperandType::TENSOR_FLOAT32 || type == OperandType::TENSOR_FLOAT16;
  NN_TRY(validateInputTypes(context, {type, type, isFloat ? type : OperandType::TENSOR_INT32, OperandType::INT32}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateActivationInput(context, kActivation));
  NN_TRY(validateInputRank(context, kInput, 2, 4));
  NN_TRY(validateInputRank(context, kWeights, 2, 2));
  NN_TRY(validateInputRank(context, kBias, 1, 1));
  if (!isFloat) {
    const Shape in = context->getInputShape(kInput), w = context->getInputShape(kWeights),
                b = context->getInputShape(kBias);
    const double product = static_cast<double>(in.scale) * w.scale;
    NN_RET_CHECK(std::abs(product - b.scale) <= 1e-6 * std::min(product, static_cast<double>(b.scale)))
        << "bias scale must be input scale * weights scale";
  }
  return {};
}

Status prepare(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = {g->batches, g->units};
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  auto activation = getActivation(context, kActivation);
  if (!activation.ok()) return activation.error();
  switch (context->getInputType(kInput)) {
    case OperandType::TENSOR_FLOAT32:
      fullyConnectedFloat(context->getInputBuffer<float>(kInput), context->getInputBuffer<float>(kWeights),
                          context->getInputBuffer<float>(kBias), *g, *activation,
                          context->getOutputBuffer<float>(kOutput));
      return {};
    case OperandType::TENSOR_FLOAT16: {
      const auto input = toFloat32(context->getInputBuffer<Float16>(kInput), size_t{g->batches} * g->inputSize);
      const auto weights = toFloat32(context->getInputBuffer<Float16>(kWeights), size_t{g->units} * g->inputSize);
      const auto bias = toFloat32(context->getInputBuffer<Float16>(kBias), g->units);
      std::vector<float> output(size_t{g->batches} * g->units);
      fullyConnectedFloat(input.data(), weights.data(), bias.data(), *g, *activation, output.data());
      fromFloat32(output.data(), output.size(), context->getOutputBuffer<Float16>(kOutput));
      return {};
    }
    case OperandType::TENSOR_QUANT8_ASYMM:
      return fullyConnectedQuant<uint8_t>(context, *g, *activation);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return fullyConnectedQuant<int8_t>(context, *g, *activation);
    default:
      return NN_ERROR(BAD_DATA) << "unsupported input type";
  }
}

}  // namespace weft::nn::fully_connected

NN_REGISTER_OPERATION(FULLY_CONNECTED, "FULLY_CONNECTED", fully_connected::validate, fully_connected::prepare,
                      fully_connected::execute, .allowZeroSizedInput = true)
