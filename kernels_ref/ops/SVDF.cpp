// SVDF: singular value decomposition filter, a rank-decomposed time-convolution layer.
//   input [batch, inputSize], weightsFeature [numFilters, inputSize], weightsTime
//   [numFilters, memorySize], bias [numUnits] (optional), stateIn [batch, memorySize * numFilters],
//   rank, fused activation -> stateOut [batch, memorySize * numFilters], output [batch, numUnits],
//   with numFilters = numUnits * rank.
// Each filter keeps the last memorySize feature activations: the newest (weightsFeature . input)
// enters at the end of its memory, the memory is filtered by weightsTime, each unit sums its
// `rank` filters plus bias, and the memory then shifts one step towards the start.
// Types: float32, float16 (computed in float32).
#include <algorithm>
#include <vector>

#include "DimensionAgreement.h"
#include "TensorAsFloat.h"
#include "weft/kernels/OperationUtils.h"
#include "weft/kernels/QuantUtils.h"

namespace weft::nn::svdf {

constexpr uint32_t kInputTensor = 0;
constexpr uint32_t kWeightsFeatureTensor = 1;
constexpr uint32_t kWeightsTimeTensor = 2;
constexpr uint32_t kBiasTensor = 3;
constexpr uint32_t kStateInTensor = 4;
constexpr uint32_t kRankParam = 5;
constexpr uint32_t kActivationParam = 6;
constexpr uint32_t kStateOutTensor = 0;
constexpr uint32_t kOutputTensor = 1;

namespace {

struct Geometry {
  uint32_t batchSize, inputSize, numFilters, rank, numUnits, memorySize;
  bool hasBias;
};

Result<Geometry> readGeometry(const IOperationExecutionContext* context) {
  for (uint32_t i : {kInputTensor, kWeightsFeatureTensor, kWeightsTimeTensor, kStateInTensor, kRankParam,
                     kActivationParam}) {
    NN_RET_CHECK(!context->isOmittedInput(i)) << "required input " << i << " is omitted";
  }
  const Shape input = context->getInputShape(kInputTensor);
  const Shape feature = context->getInputShape(kWeightsFeatureTensor);
  const Shape time = context->getInputShape(kWeightsTimeTensor);
  const Shape state = context->getInputShape(kStateInTensor);
  NN_RET_CHECK_EQ(getNumberOfDimensions(input), 2u) << "input must be [batch, inputSize]";
  NN_RET_CHECK_EQ(getNumberOfDimensions(feature), 2u) << "weightsFeature must be 2-D";
  NN_RET_CHECK_EQ(getNumberOfDimensions(time), 2u) << "weightsTime must be 2-D";
  NN_RET_CHECK_EQ(getNumberOfDimensions(state), 2u) << "stateIn must be 2-D";
  Geometry g;
  g.batchSize = input.dimensions[0];
  g.inputSize = input.dimensions[1];
  g.numFilters = feature.dimensions[0];
  g.memorySize = time.dimensions[1];
  const int32_t rank = context->getInputValue<int32_t>(kRankParam);
  NN_RET_CHECK_GT(rank, 0) << "rank must be positive";
  g.rank = static_cast<uint32_t>(rank);
  NN_RET_CHECK_EQ(g.numFilters % g.rank, 0u) << "numFilters " << g.numFilters << " is not a multiple of rank";
  g.numUnits = g.numFilters / g.rank;
  NN_RET_CHECK_EQ(feature.dimensions[1], g.inputSize) << "weightsFeature columns must match the input size";
  NN_RET_CHECK_EQ(time.dimensions[0], g.numFilters) << "one weightsTime row per filter";
  NN_RET_CHECK_GT(g.memorySize, 0u) << "memory size must be positive";
  NN_RET_CHECK(state.dimensions[0] == g.batchSize && state.dimensions[1] == g.memorySize * g.numFilters)
      << "stateIn must be [batch, memorySize * numFilters]";
  g.hasBias = !context->isOmittedInput(kBiasTensor);
  if (g.hasBias) {
    const Shape bias = context->getInputShape(kBiasTensor);
    NN_RET_CHECK(getNumberOfDimensions(bias) == 1 && bias.dimensions[0] == g.numUnits) << "bias must be [numUnits]";
  }
  return g;
}

float dot(const float* a, const float* b, uint32_t n) {
  float sum = 0.0f;
  for (uint32_t i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 7, 7));
  NN_TRY(validateOutputCount(context, 2));
  const OperandType type = context->getInputType(kInputTensor);
  NN_TRY(validateTypeIsOneOf(context, "input", type, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
  NN_TRY(validateInputTypes(context, {type, type, type, type, type, OperandType::INT32, OperandType::INT32}));
  NN_TRY(validateOutputTypes(context, {type, type}));
  NN_TRY(validateActivationInput(context, kActivationParam));
  DimensionAgreement dims(context);
  NN_TRY(dims.input(kInputTensor, {"batch", "inputSize"}));
  NN_TRY(dims.input(kWeightsFeatureTensor, {"numFilters", "inputSize"}));
  NN_TRY(dims.input(kWeightsTimeTensor, {"numFilters", "memorySize"}));
  int32_t rank = 0;
  if (getConstantScalar(context, kRankParam, &rank)) {
    NN_RET_CHECK_GT(rank, 0) << "rank must be positive";
    if (const uint32_t filters = dims.get("numFilters"); filters != 0) {
      NN_RET_CHECK_EQ(filters % rank, 0u) << "numFilters " << filters << " is not a multiple of rank " << rank;
      NN_TRY(dims.set("numUnits", filters / rank));
    }
  }
  NN_TRY(dims.input(kBiasTensor, {"numUnits"}));
  if (dims.get("numFilters") != 0 && dims.get("memorySize") != 0) {
    NN_TRY(dims.set("stateSize", dims.get("numFilters") * dims.get("memorySize")));
  }
  NN_TRY(dims.input(kStateInTensor, {"batch", "stateSize"}));
  NN_TRY(dims.output(kStateOutTensor, {"batch", "stateSize"}));
  return dims.output(kOutputTensor, {"batch", "numUnits"});
}

Status prepare(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  Shape state = context->getOutputShape(kStateOutTensor);
  state.dimensions = {g->batchSize, g->memorySize * g->numFilters};
  NN_TRY(context->setOutputShape(kStateOutTensor, state));
  Shape output = context->getOutputShape(kOutputTensor);
  output.dimensions = {g->batchSize, g->numUnits};
  return context->setOutputShape(kOutputTensor, output);
}

Status execute(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  auto activation = getActivation(context, kActivationParam);
  if (!activation.ok()) return activation.error();
  const FloatRange range = floatActivationRange(*activation);
  const std::vector<float> input = inputAsFloat(context, kInputTensor);
  const std::vector<float> feature = inputAsFloat(context, kWeightsFeatureTensor);
  const std::vector<float> time = inputAsFloat(context, kWeightsTimeTensor);
  const std::vector<float> bias = g->hasBias ? inputAsFloat(context, kBiasTensor) : std::vector<float>(g->numUnits);
  std::vector<float> state = inputAsFloat(context, kStateInTensor);
  std::vector<float> output(size_t{g->batchSize} * g->numUnits);
  std::vector<float> filtered(g->numFilters);
  const uint32_t mem = g->memorySize;
  for (uint32_t b = 0; b < g->batchSize; ++b) {
    const float* x = input.data() + size_t{b} * g->inputSize;
    float* memory = state.data() + size_t{b} * mem * g->numFilters;
    for (uint32_t f = 0; f < g->numFilters; ++f) {
      float* m = memory + size_t{f} * mem;
      // The newest activation enters at the end of the filter's memory, which is then filtered.
      m[mem - 1] = dot(feature.data() + size_t{f} * g->inputSize, x, g->inputSize);
      filtered[f] = dot(time.data() + size_t{f} * mem, m, mem);
    }
    float* out = output.data() + size_t{b} * g->numUnits;
    for (uint32_t u = 0; u < g->numUnits; ++u) {
      float sum = bias[u];
      for (uint32_t r = 0; r < g->rank; ++r) sum += filtered[size_t{u} * g->rank + r];
      out[u] = std::min(std::max(sum, range.min), range.max);
    }
    // Age the memory by one step.
    for (uint32_t f = 0; f < g->numFilters; ++f) {
      float* m = memory + size_t{f} * mem;
      std::copy(m + 1, m + mem, m);
      m[mem - 1] = 0.0f;
    }
  }
  NN_TRY(writeOutputFromFloat(context, kStateOutTensor, state.data(), state.size()));
  return writeOutputFromFloat(context, kOutputTensor, output.data(), output.size());
}

}  // namespace weft::nn::svdf

NN_REGISTER_OPERATION(SVDF, "SVDF", svdf::validate, svdf::prepare, svdf::execute, .allowOmittedOperand = true)
