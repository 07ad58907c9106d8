// WEFT_LAYER_NORM of the org.weft.accel extension (weft/WeftExtension.h): each row along the last
// axis normalized to zero mean and unit variance, then scaled by gamma and shifted by beta:
//
//   y[..., c] = (x[..., c] - mean) / sqrt(variance + epsilon) * gamma[c] + beta[c]
//
// with the mean and the (biased) variance of the row, as torch.nn.LayerNorm and ONNX's
// LayerNormalization over the last axis compute them.
//
// float32 computes in float32 (sums in double), float16 in float32 rounded once to float16. An
// 8-bit quantized input's statistics are exact integer sums of (q - zero point) (what the vector
// unit accumulates in 32 bits: rows up to 2^15 elements); the normalization, gamma and beta are
// applied in double and the result requantized to the output's scale and zero point, rounding
// half away from zero and saturating. gamma and beta are TENSOR_FLOAT32 for 8-bit inputs (the
// affine constants a device folds into its requantization), the input's type otherwise.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "ElementwiseShapes.h"
#include "weft/kernels/Extensions.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::weft_layer_norm {

constexpr uint32_t kInput = 0;
constexpr uint32_t kGamma = 1;
constexpr uint32_t kBeta = 2;
constexpr uint32_t kEpsilon = 3;
constexpr uint32_t kOutput = 0;
// Rows of 8-bit values whose squared sums stay exact in 32 bits: 2^15 * 255^2 < 2^31.
constexpr uint32_t kMaxQuantizedRow = 1u << 15;

namespace {

OperandType affineType(OperandType input) {
  return isQuantized(input) ? OperandType::TENSOR_FLOAT32 : input;
}

template <typename T>
std::vector<double> asDoubles(const IOperationExecutionContext* context, uint32_t index, size_t n) {
  const T* p = context->getInputBuffer<T>(index);
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<double>(static_cast<float>(p[i]));
  return v;
}

double epsilonOf(const IOperationExecutionContext* context) {
  return context->getInputType(kEpsilon) == OperandType::FLOAT16
             ? static_cast<double>(static_cast<float>(context->getInputValue<Float16>(kEpsilon)))
             : static_cast<double>(context->getInputValue<float>(kEpsilon));
}

template <typename T>
void executeFloat(IOperationExecutionContext* context, size_t rows, size_t width) {
  const T* x = context->getInputBuffer<T>(kInput);
  T* y = context->getOutputBuffer<T>(kOutput);
  const auto gamma = asDoubles<T>(context, kGamma, width), beta = asDoubles<T>(context, kBeta, width);
  const double epsilon = epsilonOf(context);
  for (size_t r = 0; r < rows; ++r) {
    const T* row = x + r * width;
    double sum = 0, squares = 0;
    for (size_t c = 0; c < width; ++c) sum += static_cast<float>(row[c]);
    const double mean = sum / static_cast<double>(width);
    for (size_t c = 0; c < width; ++c) {
      const double d = static_cast<float>(row[c]) - mean;
      squares += d * d;
    }
    const double inverse = 1.0 / std::sqrt(squares / static_cast<double>(width) + epsilon);
    for (size_t c = 0; c < width; ++c) {
      const float v = static_cast<float>((static_cast<float>(row[c]) - mean) * inverse * gamma[c] + beta[c]);
      y[r * width + c] = static_cast<T>(v);
    }
  }
}

template <typename T>
void executeQuantized(IOperationExecutionContext* context, size_t rows, size_t width) {
  const Shape in = context->getInputShape(kInput), out = context->getOutputShape(kOutput);
  const T* x = context->getInputBuffer<T>(kInput);
  T* y = context->getOutputBuffer<T>(kOutput);
  const auto gamma = asDoubles<float>(context, kGamma, width), beta = asDoubles<float>(context, kBeta, width);
  const double epsilon = epsilonOf(context), scale = in.scale;
  for (size_t r = 0; r < rows; ++r) {
    const T* row = x + r * width;
    int64_t sum = 0, squares = 0;  // exact: what 32-bit accumulators hold for rows up to kMaxQuantizedRow
    for (size_t c = 0; c < width; ++c) {
      const int64_t v = int64_t{row[c]} - in.offset;
      sum += v;
      squares += v * v;
    }
    const double n = static_cast<double>(width);
    const double mean = static_cast<double>(sum) / n;
    const double variance = std::max(0.0, static_cast<double>(squares) / n - mean * mean) * scale * scale;
    const double inverse = 1.0 / std::sqrt(variance + epsilon);
    for (size_t c = 0; c < width; ++c) {
      const double normalized = (static_cast<double>(int64_t{row[c]} - in.offset) - mean) * scale * inverse;
      const double q = std::round((normalized * gamma[c] + beta[c]) / static_cast<double>(out.scale)) + out.offset;
      y[r * width + c] = static_cast<T>(std::clamp<double>(q, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
    }
  }
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 4, 4));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  const OperandType epsilon = type == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
  NN_TRY(validateInputTypes(context, {type, affineType(type), affineType(type), epsilon}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kInput, 1, 4));
  NN_TRY(validateInputRank(context, kGamma, 1, 1));
  NN_TRY(validateInputRank(context, kBeta, 1, 1));
  const Shape in = context->getInputShape(kInput);
  const uint32_t width = in.dimensions.empty() ? 0 : in.dimensions.back();
  for (uint32_t index : {kGamma, kBeta}) {
    const Shape s = context->getInputShape(index);
    NN_RET_CHECK(width == 0 || s.dimensions.empty() || s.dimensions[0] == 0 || s.dimensions[0] == width)
        << (index == kGamma ? "gamma" : "beta") << " has " << s.dimensions[0] << " elements, the last axis " << width;
  }
  if (isQuantized(type)) {
    NN_TRY(validateQuantization(in));
    NN_TRY(validateQuantization(context->getOutputShape(kOutput)));
    NN_RET_CHECK_LE(width, kMaxQuantizedRow) << "8-bit rows hold at most " << kMaxQuantizedRow << " elements";
  }
  return elementwise::validateUnaryShapes(context);
}

Status prepare(IOperationExecutionContext* context) {
  const Shape in = context->getInputShape(kInput);
  NN_RET_CHECK(!in.dimensions.empty() && in.dimensions.size() <= 4) << "the input has rank 1 to 4";
  const uint32_t width = in.dimensions.back();
  for (uint32_t index : {kGamma, kBeta}) {
    const Shape s = context->getInputShape(index);
    NN_RET_CHECK(s.dimensions.size() == 1 && s.dimensions[0] == width)
        << (index == kGamma ? "gamma" : "beta") << " must be [" << width << "]";
  }
  NN_RET_CHECK(!isQuantized(in.type) || width <= kMaxQuantizedRow)
      << "8-bit rows hold at most " << kMaxQuantizedRow << " elements";
  const double epsilon = epsilonOf(context);
  NN_RET_CHECK(std::isfinite(epsilon) && epsilon >= 0) << "epsilon " << epsilon << " must be finite and >= 0";
  return elementwise::prepareSameShape(context, kInput, kOutput);
}

Status execute(IOperationExecutionContext* context) {
  const Shape in = context->getInputShape(kInput);
  const size_t width = in.dimensions.back();
  if (width == 0) return {};
  const size_t rows = getNumberOfElements(in) / width;
  switch (in.type) {
    case OperandType::TENSOR_FLOAT32: executeFloat<float>(context, rows, width); return {};
    case OperandType::TENSOR_FLOAT16: executeFloat<Float16>(context, rows, width); return {};
    case OperandType::TENSOR_QUANT8_ASYMM: executeQuantized<uint8_t>(context, rows, width); return {};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: executeQuantized<int8_t>(context, rows, width); return {};
    default: return NN_ERROR(BAD_DATA) << "unsupported input type " << toString(in.type);
  }
}

}  // namespace weft::nn::weft_layer_norm

NN_REGISTER_EXTENSION_OPERATION(WEFT_LAYER_NORM, weft::nn::weft_extension::kName,
                                weft::nn::weft_extension::kLayerNorm, "WEFT_LAYER_NORM", weft_layer_norm::validate,
                                weft_layer_norm::prepare, weft_layer_norm::execute, .allowZeroSizedInput = true)
