// LOG_SOFTMAX: along `axis` (INT32), output = x * beta - log(sum exp(x * beta)), evaluated as
// NNAPI's reference does for stability: (x - max) * beta - log(sum exp((x - max) * beta)), the sum
// in double. beta: FLOAT32 (FLOAT16 for float16 tensors, computed in float32). Types: float32,
// float16; any rank from 1.
#include <algorithm>
#include <cmath>
#include <vector>

#include "TensorOpUtils.h"
#include "weft/kernels/Float16.h"

namespace weft::nn::log_softmax {

constexpr uint32_t kInput = 0;
constexpr uint32_t kBeta = 1;
constexpr uint32_t kAxis = 2;
constexpr uint32_t kOutput = 0;

namespace {

void logSoftmax(const float* in, const AxisSplit& s, float beta, float* out) {
  for (size_t o = 0; o < s.outer; ++o) {
    for (size_t i = 0; i < s.inner; ++i) {
      const float* vin = in + o * s.axisSize * s.inner + i;
      float* vout = out + o * s.axisSize * s.inner + i;
      float maxValue = vin[0];
      for (size_t a = 1; a < s.axisSize; ++a) maxValue = std::max(maxValue, vin[a * s.inner]);
      double sum = 0.0;
      for (size_t a = 0; a < s.axisSize; ++a) sum += std::exp(static_cast<double>((vin[a * s.inner] - maxValue) * beta));
      const float logSum = static_cast<float>(std::log(sum));
      for (size_t a = 0; a < s.axisSize; ++a) vout[a * s.inner] = (vin[a * s.inner] - maxValue) * beta - logSum;
    }
  }
}

Result<uint32_t> readAxis(const IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const uint32_t rank = getNumberOfDimensions(input);
  NN_RET_CHECK_GE(rank, 1u) << "input must have rank 1 or more";
  auto axis = resolveAxis(context->getInputValue<int32_t>(kAxis), rank);
  if (!axis.ok()) return axis.error();
  NN_RET_CHECK_GT(input.dimensions[*axis], 0u) << "empty softmax axis";
  return axis;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 3, 3));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
  const OperandType scalar = type == OperandType::TENSOR_FLOAT32 ? OperandType::FLOAT32 : OperandType::FLOAT16;
  NN_TRY(validateInputTypes(context, {type, scalar, OperandType::INT32}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kInput, 1, UINT32_MAX));  // any rank from 1
  return validateConstantAxis(context, kInput, kAxis);
}

Status prepare(IOperationExecutionContext* context) {
  auto axis = readAxis(context);
  if (!axis.ok()) return axis.error();
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = context->getInputShape(kInput).dimensions;
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  auto axis = readAxis(context);
  if (!axis.ok()) return axis.error();
  const Shape input = context->getInputShape(kInput);
  const AxisSplit split = splitAtAxis(input.dimensions, *axis);
  const float beta = getFloatScalar(context, kBeta);
  if (input.type == OperandType::TENSOR_FLOAT32) {
    logSoftmax(context->getInputBuffer<float>(kInput), split, beta, context->getOutputBuffer<float>(kOutput));
    return {};
  }
  const size_t n = getNumberOfElements(input);
  const std::vector<float> in = toFloat32(context->getInputBuffer<Float16>(kInput), n);
  std::vector<float> out(n);
  logSoftmax(in.data(), split, beta, out.data());
  fromFloat32(out.data(), n, context->getOutputBuffer<Float16>(kOutput));
  return {};
}

}  // namespace weft::nn::log_softmax

NN_REGISTER_OPERATION(LOG_SOFTMAX, "LOG_SOFTMAX", log_softmax::validate, log_softmax::prepare, log_softmax::execute)
