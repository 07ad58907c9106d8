// INSTANCE_NORMALIZATION: normalizes each (batch, channel) plane of a 4-D image to zero mean and
// unit variance, then scales and shifts it:
//   output = (input - mean) * gamma / sqrt(variance + epsilon) + beta
// (population variance over height x width). gamma, beta, epsilon: FLOAT32 (FLOAT16 for float16
// tensors, computed in float32); NCHW layout flag. Types: float32, float16.
#include <cmath>
#include <vector>

#include "TensorOpUtils.h"
#include "weft/kernels/Float16.h"

namespace weft::nn::instance_normalization {

constexpr uint32_t kInput = 0;
constexpr uint32_t kGamma = 1;
constexpr uint32_t kBeta = 2;
constexpr uint32_t kEpsilon = 3;
constexpr uint32_t kLayout = 4;
constexpr uint32_t kOutput = 0;

namespace {

struct Params {
  float gamma, beta, epsilon;
};

// Normalizes every (batch, channel) plane, addressing elements through the layout's strides.
void normalize(const float* in, const ImageGeometry& g, const Params& p, float* out) {
  const size_t planeSize = size_t{g.height} * g.width;
  for (uint32_t b = 0; b < g.batches; ++b) {
    for (uint32_t c = 0; c < g.channels; ++c) {
      const int64_t base = b * g.batchStride + c * g.channelStride;
      auto index = [&](uint32_t y, uint32_t x) { return base + y * g.heightStride + x * g.widthStride; };
      float mean = 0.0f;
      for (uint32_t y = 0; y < g.height; ++y)
        for (uint32_t x = 0; x < g.width; ++x) mean += in[index(y, x)];
      mean /= static_cast<float>(planeSize);
      float variance = 0.0f;
      for (uint32_t y = 0; y < g.height; ++y)
        for (uint32_t x = 0; x < g.width; ++x) variance += (in[index(y, x)] - mean) * (in[index(y, x)] - mean);
      const float sigma = std::sqrt(variance / static_cast<float>(planeSize) + p.epsilon);
      for (uint32_t y = 0; y < g.height; ++y)
        for (uint32_t x = 0; x < g.width; ++x) out[index(y, x)] = (in[index(y, x)] - mean) * p.gamma / sigma + p.beta;
    }
  }
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 5, 5));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
  const OperandType scalar = type == OperandType::TENSOR_FLOAT32 ? OperandType::FLOAT32 : OperandType::FLOAT16;
  NN_TRY(validateInputTypes(context, {type, scalar, scalar, scalar, OperandType::BOOL}));
  NN_TRY(validateOutputTypes(context, {type}));
  return validateInputRank(context, kInput, 4, 4);
}

Status prepare(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  NN_RET_CHECK_EQ(getNumberOfDimensions(input), 4u) << "input must be 4-D";
  const ImageGeometry g = imageGeometry(input.dimensions, getOptionalBool(context, kLayout, false));
  NN_RET_CHECK(g.height > 0 && g.width > 0) << "empty image plane " << toString(input.dimensions);
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = input.dimensions;
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const ImageGeometry g = imageGeometry(input.dimensions, getOptionalBool(context, kLayout, false));
  const Params p{getFloatScalar(context, kGamma), getFloatScalar(context, kBeta), getFloatScalar(context, kEpsilon)};
  if (input.type == OperandType::TENSOR_FLOAT32) {
    normalize(context->getInputBuffer<float>(kInput), g, p, context->getOutputBuffer<float>(kOutput));
    return {};
  }
  const size_t n = getNumberOfElements(input);
  const std::vector<float> in = toFloat32(context->getInputBuffer<Float16>(kInput), n);
  std::vector<float> out(n);
  normalize(in.data(), g, p, out.data());
  fromFloat32(out.data(), n, context->getOutputBuffer<Float16>(kOutput));
  return {};
}

}  // namespace weft::nn::instance_normalization

NN_REGISTER_OPERATION(INSTANCE_NORMALIZATION, "INSTANCE_NORMALIZATION", instance_normalization::validate,
                      instance_normalization::prepare, instance_normalization::execute)
