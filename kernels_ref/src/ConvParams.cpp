#include "weft/kernels/ConvParams.h"

namespace weft::nn {

ConvInputLayout convInputLayout(uint32_t numInputs, bool input7PlusExtraIsInt32, uint32_t extra) {
  ConvInputLayout l;
  l.explicitPadding = numInputs >= 10 + extra && input7PlusExtraIsInt32;
  const uint32_t afterStrides = l.explicitPadding ? 9 : 6;
  l.firstExtra = afterStrides;
  l.activation = afterStrides + extra;
  l.layout = l.activation + 1;
  l.dilationWidth = l.activation + 2;
  return l;
}

namespace {

ConvInputLayout layoutOf(uint32_t numInputs, OperandType typeAt7PlusExtra, uint32_t extra) {
  return convInputLayout(numInputs, typeAt7PlusExtra == OperandType::INT32, extra);
}

}  // namespace

Status validateConvParams(const IOperationValidationContext* context, uint32_t extra, bool allowDilation) {
  const uint32_t n = context->getNumInputs();
  const uint32_t implicitMin = 7 + extra;
  NN_RET_CHECK_GE(n, implicitMin) << context->getOperationName() << ": too few inputs";
  const OperandType at = n > 7 + extra ? context->getInputType(7 + extra) : OperandType::BOOL;
  const ConvInputLayout l = layoutOf(n, at, extra);
  const uint32_t maxInputs = l.activation + 1 + 1 + (allowDilation ? 2 : 0);
  NN_RET_CHECK(n == l.activation + 1 || n == l.layout + 1 || (allowDilation && n == maxInputs))
      << context->getOperationName() << ": " << n << " inputs fit neither the explicit nor the implicit signature";
  auto checkInt = [&](uint32_t i, const char* what, int32_t minValue) -> Status {
    NN_RET_CHECK(context->getInputType(i) == OperandType::INT32)
        << context->getOperationName() << ": " << what << " (input " << i << ") must be INT32";
    int32_t v = 0;
    if (getConstantScalar(context, i, &v)) {
      NN_RET_CHECK_GE(v, minValue) << context->getOperationName() << ": " << what;
    }
    return {};
  };
  if (l.explicitPadding) {
    for (uint32_t i = 3; i < 7; ++i) NN_TRY(checkInt(i, "padding", 0));
    NN_TRY(checkInt(7, "stride width", 1));
    NN_TRY(checkInt(8, "stride height", 1));
  } else {
    NN_TRY(checkInt(3, "padding scheme", 1));
    int32_t scheme = 0;
    if (getConstantScalar(context, 3, &scheme)) {
      NN_RET_CHECK(scheme == 1 || scheme == 2) << context->getOperationName() << ": padding scheme " << scheme;
    }
    NN_TRY(checkInt(4, "stride width", 1));
    NN_TRY(checkInt(5, "stride height", 1));
  }
  for (uint32_t i = 0; i < extra; ++i) NN_TRY(checkInt(l.firstExtra + i, "parameter", 1));
  NN_TRY(validateActivationInput(context, l.activation));
  if (n > l.layout) {
    NN_RET_CHECK(context->getInputType(l.layout) == OperandType::BOOL)
        << context->getOperationName() << ": layout (input " << l.layout << ") must be BOOL";
  }
  if (n > l.dilationWidth) {
    NN_TRY(checkInt(l.dilationWidth, "dilation width", 1));
    NN_TRY(checkInt(l.dilationWidth + 1, "dilation height", 1));
  }
  return {};
}

bool convUsesNchw(const IOperationExecutionContext* context, uint32_t extra) {
  const uint32_t n = context->getNumInputs();
  const OperandType at = n > 7 + extra ? context->getInputType(7 + extra) : OperandType::BOOL;
  const ConvInputLayout l = layoutOf(n, at, extra);
  return getOptionalBool(context, l.layout, false);
}

Result<ConvParams> readConvParams(const IOperationExecutionContext* context, uint32_t extra, uint32_t inputHeight,
                                  uint32_t inputWidth, uint32_t filterHeight, uint32_t filterWidth) {
  const uint32_t n = context->getNumInputs();
  const OperandType at = n > 7 + extra ? context->getInputType(7 + extra) : OperandType::BOOL;
  const ConvInputLayout l = layoutOf(n, at, extra);
  auto value = [&](uint32_t i) { return context->getInputValue<int32_t>(i); };
  ConvParams p;
  Window2D& w = p.window;
  if (n > l.dilationWidth) {
    w.dilationWidth = value(l.dilationWidth);
    w.dilationHeight = value(l.dilationWidth + 1);
  }
  if (l.explicitPadding) {
    w.padLeft = value(3);
    w.padRight = value(4);
    w.padTop = value(5);
    w.padBottom = value(6);
    w.strideWidth = value(7);
    w.strideHeight = value(8);
  } else {
    const int32_t scheme = value(3);
    NN_RET_CHECK(scheme == 1 || scheme == 2) << "padding scheme " << scheme;
    w.strideWidth = value(4);
    w.strideHeight = value(5);
    NN_TRY(validateWindow(w));
    calculateExplicitPadding(static_cast<int32_t>(inputWidth), w.strideWidth, w.dilationWidth,
                             static_cast<int32_t>(filterWidth), static_cast<PaddingScheme>(scheme), &w.padLeft,
                             &w.padRight);
    calculateExplicitPadding(static_cast<int32_t>(inputHeight), w.strideHeight, w.dilationHeight,
                             static_cast<int32_t>(filterHeight), static_cast<PaddingScheme>(scheme), &w.padTop,
                             &w.padBottom);
  }
  NN_TRY(validateWindow(w));
  auto activation = getActivation(context, l.activation);
  if (!activation.ok()) return activation.error();
  p.activation = *activation;
  p.useNchw = getOptionalBool(context, l.layout, false);
  for (uint32_t i = 0; i < extra; ++i) p.extra.push_back(value(l.firstExtra + i));
  return p;
}

}  // namespace weft::nn
