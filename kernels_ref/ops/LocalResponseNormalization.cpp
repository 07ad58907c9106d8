// LOCAL_RESPONSE_NORMALIZATION: along `axis` (optional INT32, default -1),
//   output[i] = input[i] * (bias + alpha * sum_{j in [i - radius, i + radius]} input[j]^2) ^ -beta
// with the window clipped to the tensor. radius INT32 >= 0; bias, alpha, beta FLOAT32 (FLOAT16 for
// float16 tensors, computed in float32). Rank 1 to 4.
#include <algorithm>
#include <cmath>
#include <vector>

#include "TensorOpUtils.h"
#include "weft/kernels/Float16.h"

namespace weft::nn::local_response_normalization {

constexpr uint32_t kInput = 0;
constexpr uint32_t kRadius = 1;
constexpr uint32_t kBias = 2;
constexpr uint32_t kAlpha = 3;
constexpr uint32_t kBeta = 4;
constexpr uint32_t kAxis = 5;
constexpr uint32_t kOutput = 0;

namespace {

struct Params {
  uint32_t axis = 0;
  int32_t radius = 0;
  float bias = 0, alpha = 0, beta = 0;
};

Result<Params> readParams(const IOperationExecutionContext* context) {
  const uint32_t rank = getNumberOfDimensions(context->getInputShape(kInput));
  NN_RET_CHECK(rank >= 1 && rank <= 4) << "input rank " << rank;
  auto axis = resolveAxis(context->getNumInputs() > kAxis ? context->getInputValue<int32_t>(kAxis) : -1, rank);
  if (!axis.ok()) return axis.error();
  Params p;
  p.axis = *axis;
  p.radius = context->getInputValue<int32_t>(kRadius);
  NN_RET_CHECK_GE(p.radius, 0) << "radius must be non-negative";
  p.bias = getFloatScalar(context, kBias);
  p.alpha = getFloatScalar(context, kAlpha);
  p.beta = getFloatScalar(context, kBeta);
  return p;
}

void normalize(const float* in, const AxisSplit& s, const Params& p, float* out) {
  const int64_t size = static_cast<int64_t>(s.axisSize);
  for (size_t o = 0; o < s.outer; ++o) {
    for (size_t i = 0; i < s.inner; ++i) {
      const float* vin = in + o * s.axisSize * s.inner + i;
      float* vout = out + o * s.axisSize * s.inner + i;
      for (int64_t a = 0; a < size; ++a) {
        const int64_t begin = std::max<int64_t>(0, a - p.radius);
        const int64_t end = std::min<int64_t>(size, a + p.radius + 1);
        float sum = 0.0f;
        for (int64_t j = begin; j < end; ++j) sum += vin[j * s.inner] * vin[j * s.inner];
        vout[a * s.inner] = vin[a * s.inner] * std::pow(p.bias + p.alpha * sum, -p.beta);
      }
    }
  }
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 5, 6));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
  const OperandType scalar = type == OperandType::TENSOR_FLOAT32 ? OperandType::FLOAT32 : OperandType::FLOAT16;
  if (context->getNumInputs() == 6) {
    NN_TRY(validateInputTypes(context, {type, OperandType::INT32, scalar, scalar, scalar, OperandType::INT32}));
  } else {
    NN_TRY(validateInputTypes(context, {type, OperandType::INT32, scalar, scalar, scalar}));
  }
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kInput, 1, 4));
  int32_t radius = 0;
  if (constantInt32(context, kRadius, &radius)) {
    NN_RET_CHECK_GE(radius, 0) << "LOCAL_RESPONSE_NORMALIZATION: radius must be non-negative";
  }
  return validateConstantAxis(context, kInput, kAxis);
}

Status prepare(IOperationExecutionContext* context) {
  auto params = readParams(context);
  if (!params.ok()) return params.error();
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = context->getInputShape(kInput).dimensions;
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  auto params = readParams(context);
  if (!params.ok()) return params.error();
  const Shape input = context->getInputShape(kInput);
  const AxisSplit split = splitAtAxis(input.dimensions, params->axis);
  if (input.type == OperandType::TENSOR_FLOAT32) {
    normalize(context->getInputBuffer<float>(kInput), split, *params, context->getOutputBuffer<float>(kOutput));
    return {};
  }
  const size_t n = getNumberOfElements(input);
  const std::vector<float> in = toFloat32(context->getInputBuffer<Float16>(kInput), n);
  std::vector<float> out(n);
  normalize(in.data(), split, *params, out.data());
  fromFloat32(out.data(), n, context->getOutputBuffer<Float16>(kOutput));
  return {};
}

}  // namespace weft::nn::local_response_normalization

NN_REGISTER_OPERATION(LOCAL_RESPONSE_NORMALIZATION, "LOCAL_RESPONSE_NORMALIZATION",
                      local_response_normalization::validate, local_response_normalization::prepare,
                      local_response_normalization::execute)
