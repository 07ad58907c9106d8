// PRELU: x >= 0 ? x : alpha * x element-wise, alpha broadcast against the input, for float32,
// float16 and quantized 8-bit tensors. The quantized form is TFLite's: the positive side rescaled
// by input / output scale, the negative side by input * alpha / output scale, each with a Q31
// multiplier. The output's quantization may differ from the input's.
#include <cstdint>
#include <type_traits>

#include "ElementwiseShapes.h"
#include "weft/kernels/Broadcast.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"
#include "weft/kernels/QuantUtils.h"

namespace weft::nn::prelu_op {

constexpr uint32_t kInput = 0;
constexpr uint32_t kAlpha = 1;
constexpr uint32_t kOutput = 0;

namespace {

struct QuantParams {
  int32_t positiveMultiplier = 0;
  int positiveShift = 0;
  int32_t negativeMultiplier = 0;
  int negativeShift = 0;
};

Result<QuantParams> quantParams(const Shape& input, const Shape& alpha, const Shape& output) {
  // Float products and quotients widened to double, as the reference computes them.
  const double productScale = input.scale * alpha.scale;
  const double positive = input.scale / output.scale;
  const double negative = productScale / output.scale;
  QuantParams p;
  NN_TRY(quantizeMultiplier(positive, &p.positiveMultiplier, &p.positiveShift));
  NN_TRY(quantizeMultiplier(negative, &p.negativeMultiplier, &p.negativeShift));
  return p;
}

template <typename T>
Status run(IOperationExecutionContext* context) {
  const Shape sx = context->getInputShape(kInput), sa = context->getInputShape(kAlpha);
  const Shape so = context->getOutputShape(kOutput);
  const T* x = context->getInputBuffer<T>(kInput);
  const T* alpha = context->getInputBuffer<T>(kAlpha);
  T* out = context->getOutputBuffer<T>(kOutput);
  if constexpr (std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t>) {
    auto params = quantParams(sx, sa, so);
    if (!params.ok()) return params.error();
    const QuantParams& p = *params;
    forEachBroadcast(sx.dimensions, sa.dimensions, so.dimensions, [&](size_t ix, size_t ia, size_t io) {
      const int32_t input = static_cast<int32_t>(x[ix]) - sx.offset;
      int32_t scaled = 0;
      if (input >= 0) {
        scaled = multiplyByQuantizedMultiplier(input, p.positiveMultiplier, p.positiveShift);
      } else {
        const int32_t a = static_cast<int32_t>(alpha[ia]) - sa.offset;
        scaled = multiplyByQuantizedMultiplier(input * a, p.negativeMultiplier, p.negativeShift);
      }
      out[io] = saturateCast<T>(so.offset + scaled);
    });
  } else {
    forEachBroadcast(sx.dimensions, sa.dimensions, so.dimensions, [&](size_t ix, size_t ia, size_t io) {
      const float v = static_cast<float>(x[ix]);
      out[io] = v >= 0.0f ? x[ix] : static_cast<T>(v * static_cast<float>(alpha[ia]));
    });
  }
  return {};
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 2, 2));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, type}));
  NN_TRY(validateOutputTypes(context, {type}));
  if (isQuantized(type)) {
    auto params = quantParams(context->getInputShape(kInput), context->getInputShape(kAlpha),
                              context->getOutputShape(kOutput));
    if (!params.ok()) return params.error();
  }
  return elementwise::validateBroadcastShapes(context);
}

Status prepare(IOperationExecutionContext* context) {
  return elementwise::prepareBroadcast(context, kInput, kAlpha, kOutput);
}

Status execute(IOperationExecutionContext* context) {
  switch (context->getInputType(kInput)) {
    case OperandType::TENSOR_FLOAT32: return run<float>(context);
    case OperandType::TENSOR_FLOAT16: return run<Float16>(context);
    case OperandType::TENSOR_QUANT8_ASYMM: return run<uint8_t>(context);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return run<int8_t>(context);
    default: return NN_ERROR(BAD_DATA) << "unsupported input type " << toString(context->getInputType(kInput));
  }
}

}  // namespace weft::nn::prelu_op

NN_REGISTER_OPERATION(PRELU, "PRELU", prelu_op::validate, prelu_op::prepare, prelu_op::execute)
