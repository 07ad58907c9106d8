#include "weft/kernels/OperationUtils.h"

#include <cmath>
#include <sstream>

namespace weft::nn {

size_t getNumberOfElements(const Shape& shape, uint32_t start, uint32_t end) {
  size_t n = 1;
  for (uint32_t i = start; i < end && i < shape.dimensions.size(); ++i) n *= shape.dimensions[i];
  return n;
}

Result<uint32_t> resolveAxis(int32_t axis, uint32_t rank) {
  const int32_t r = static_cast<int32_t>(rank);
  NN_RET_CHECK(axis >= -r && axis < r) << "axis " << axis << " out of range for rank " << rank;
  return static_cast<uint32_t>(axis < 0 ? axis + r : axis);
}

std::string toString(const Dimensions& dims) {
  std::ostringstream s;
  s << "[";
  for (size_t i = 0; i < dims.size(); ++i) s << (i ? ", " : "") << dims[i];
  s << "]";
  return s.str();
}

Status setOutputDimensions(IOperationExecutionContext* context, const std::vector<Dimensions>& dims) {
  for (uint32_t o = 0; o < dims.size(); ++o) {
    Shape shape = context->getOutputShape(o);
    shape.dimensions = dims[o];
    NN_TRY(context->setOutputShape(o, shape));
  }
  return {};
}

namespace {

Status validateTypes(const IOperationValidationContext* context, bool inputs, const OperandType* types,
                     size_t numTypes) {
  const uint32_t count = inputs ? context->getNumInputs() : context->getNumOutputs();
  NN_RET_CHECK_EQ(count, numTypes) << context->getOperationName() << ": wrong number of "
                                   << (inputs ? "inputs" : "outputs");
  for (uint32_t i = 0; i < numTypes; ++i) {
    if (inputs && context->isOmittedInput(i)) continue;
    const OperandType actual = inputs ? context->getInputType(i) : context->getOutputType(i);
    NN_RET_CHECK(actual == types[i]) << context->getOperationName() << ": " << (inputs ? "input " : "output ")
                                     << i << " has type " << toString(actual) << ", expected "
                                     << toString(types[i]);
  }
  return {};
}

}  // namespace

Status validateInputTypes(const IOperationValidationContext* context, std::initializer_list<OperandType> types) {
  return validateTypes(context, true, types.begin(), types.size());
}

Status validateInputTypes(const IOperationValidationContext* context, const std::vector<OperandType>& types) {
  return validateTypes(context, true, types.data(), types.size());
}

Status validateOutputTypes(const IOperationValidationContext* context, std::initializer_list<OperandType> types) {
  return validateTypes(context, false, types.begin(), types.size());
}

Status validateInputCount(const IOperationValidationContext* context, uint32_t minCount, uint32_t maxCount) {
  const uint32_t n = context->getNumInputs();
  NN_RET_CHECK(n >= minCount && n <= maxCount) << context->getOperationName() << ": " << n
                                               << " inputs, expected " << minCount << ".." << maxCount;
  return {};
}

Status validateOutputCount(const IOperationValidationContext* context, uint32_t count) {
  NN_RET_CHECK_EQ(context->getNumOutputs(), count) << context->getOperationName() << ": wrong number of outputs";
  return {};
}

Status validateInputRank(const IOperationValidationContext* context, uint32_t index, uint32_t minRank,
                         uint32_t maxRank) {
  const Shape shape = context->getInputShape(index);
  if (hasUnknownRank(shape)) return {};
  const uint32_t rank = getNumberOfDimensions(shape);
  NN_RET_CHECK(rank >= minRank && rank <= maxRank) << context->getOperationName() << ": input " << index
                                                   << " has rank " << rank << ", expected " << minRank
                                                   << ".." << maxRank;
  return {};
}

Status validateTypeIsOneOf(const IOperationValidationContext* context, const char* what, OperandType type,
                           std::initializer_list<OperandType> allowed) {
  for (OperandType t : allowed) {
    if (t == type) return {};
  }
  return NN_ERROR(BAD_DATA) << context->getOperationName() << ": unsupported " << what << " type "
                            << toString(type);
}

Status validateQuantization(const Shape& shape) {
  auto zeroPointIn = [&](int32_t lo, int32_t hi) -> Status {
    NN_RET_CHECK(shape.offset >= lo && shape.offset <= hi)
        << toString(shape.type) << " zero point " << shape.offset << " outside [" << lo << ", " << hi << "]";
    return {};
  };
  auto positiveScale = [&]() -> Status {
    NN_RET_CHECK(std::isfinite(shape.scale) && shape.scale > 0.0f)
        << toString(shape.type) << " needs a positive scale, got " << shape.scale;
    return {};
  };
  switch (shape.type) {
    case OperandType::TENSOR_QUANT8_ASYMM:
      NN_TRY(positiveScale());
      return zeroPointIn(0, 255);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      NN_TRY(positiveScale());
      return zeroPointIn(-128, 127);
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT16_SYMM:
      NN_TRY(positiveScale());
      return zeroPointIn(0, 0);
    case OperandType::TENSOR_QUANT16_ASYMM:
      NN_TRY(positiveScale());
      return zeroPointIn(0, 65535);
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL: {
      const auto* params = std::get_if<SymmPerChannelQuantParams>(&shape.extraParams);
      NN_RET_CHECK(params != nullptr) << "TENSOR_QUANT8_SYMM_PER_CHANNEL without channel quantization";
      NN_RET_CHECK(shape.dimensions.empty() || params->channelDim < shape.dimensions.size())
          << "channelDim " << params->channelDim << " out of range";
      if (!shape.dimensions.empty() && shape.dimensions[params->channelDim] != 0) {
        NN_RET_CHECK_EQ(params->scales.size(), shape.dimensions[params->channelDim])
            << "one scale per channel needed";
      }
      for (float s : params->scales) {
        NN_RET_CHECK(std::isfinite(s) && s > 0.0f) << "per-channel scale " << s << " must be positive";
      }
      return zeroPointIn(0, 0);
    }
    default:
      return {};
  }
}

Status validateActivationInput(const IOperationValidationContext* context, uint32_t index) {
  NN_RET_CHECK(index < context->getNumInputs());
  NN_RET_CHECK(context->getInputType(index) == OperandType::INT32)
      << context->getOperationName() << ": activation must be INT32";
  int32_t code = 0;
  if (getConstantScalar(context, index, &code)) {
    NN_RET_CHECK(code >= 0 && code <= 3) << context->getOperationName() << ": invalid fused activation " << code;
  }
  return {};
}

Result<FusedActivationFunc> getActivation(const IOperationExecutionContext* context, uint32_t index) {
  NN_RET_CHECK(index < context->getNumInputs() && !context->isOmittedInput(index));
  const int32_t code = context->getInputValue<int32_t>(index);
  NN_RET_CHECK(code >= 0 && code <= 3) << "invalid fused activation " << code;
  return static_cast<FusedActivationFunc>(code);
}

bool getOptionalBool(const IOperationExecutionContext* context, uint32_t index, bool fallback) {
  if (index >= context->getNumInputs() || context->isOmittedInput(index)) return fallback;
  return context->getInputValue<uint8_t>(index) != 0;
}

void calculateExplicitPadding(int32_t inSize, int32_t stride, int32_t dilation, int32_t filterSize,
                              PaddingScheme scheme, int32_t* head, int32_t* tail) {
  *head = 0;
  *tail = 0;
  if (scheme != PaddingScheme::SAME || stride <= 0) return;
  const int32_t effectiveFilter = (filterSize - 1) * dilation + 1;
  const int32_t outSize = (inSize + stride - 1) / stride;
  const int32_t needed = (outSize - 1) * stride + effectiveFilter - inSize;
  if (needed > 0) {
    *head = needed / 2;
    *tail = (needed + 1) / 2;
  }
}

Result<uint32_t> computeOutSize(uint32_t inSize, uint32_t filterSize, uint32_t stride, uint32_t dilation,
                                uint32_t padHead, uint32_t padTail) {
  NN_RET_CHECK(stride > 0 && dilation > 0 && filterSize > 0);
  const int64_t effectiveFilter = (int64_t{filterSize} - 1) * dilation + 1;
  const int64_t padded = int64_t{inSize} + padHead + padTail;
  NN_RET_CHECK(padded >= effectiveFilter) << "window " << effectiveFilter << " larger than padded input "
                                          << padded;
  return static_cast<uint32_t>((padded - effectiveFilter + stride) / stride);
}

Status computeWindowOutSize(const Window2D& w, uint32_t inHeight, uint32_t inWidth, uint32_t filterHeight,
                            uint32_t filterWidth, uint32_t* outHeight, uint32_t* outWidth) {
  auto h = computeOutSize(inHeight, filterHeight, w.strideHeight, w.dilationHeight, w.padTop, w.padBottom);
  if (!h.ok()) return h.error();
  auto width = computeOutSize(inWidth, filterWidth, w.strideWidth, w.dilationWidth, w.padLeft, w.padRight);
  if (!width.ok()) return width.error();
  *outHeight = *h;
  *outWidth = *width;
  return {};
}

Status validateWindow(const Window2D& w) {
  NN_RET_CHECK(w.strideWidth > 0 && w.strideHeight > 0) << "strides must be positive";
  NN_RET_CHECK(w.dilationWidth > 0 && w.dilationHeight > 0) << "dilations must be positive";
  NN_RET_CHECK(w.padLeft >= 0 && w.padRight >= 0 && w.padTop >= 0 && w.padBottom >= 0)
      << "paddings must be non-negative";
  return {};
}

}  // namespace weft::nn
