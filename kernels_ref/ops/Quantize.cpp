// QUANTIZE: float32 / float16 -> quant8 asymm or asymm signed, q = clamp(zeroPoint + round(x / scale)).
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"
#include "weft/kernels/QuantUtils.h"

namespace weft::nn::quantize {

constexpr uint32_t kInput = 0;
constexpr uint32_t kOutput = 0;

namespace {

template <typename In, typename Out>
void quantizeAll(const In* in, size_t count, const Shape& output, Out* out) {
  for (size_t i = 0; i < count; ++i) out[i] = quantizeValue<Out>(static_cast<float>(in[i]), output.scale, output.offset);
}

template <typename In>
Status run(IOperationExecutionContext* context) {
  const size_t count = getNumberOfElements(context->getInputShape(kInput));
  const Shape output = context->getOutputShape(kOutput);
  const In* in = context->getInputBuffer<In>(kInput);
  if (output.type == OperandType::TENSOR_QUANT8_ASYMM) {
    quantizeAll(in, count, output, context->getOutputBuffer<uint8_t>(kOutput));
  } else {
    quantizeAll(in, count, output, context->getOutputBuffer<int8_t>(kOutput));
  }
  return {};
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 1, 1));
  NN_TRY(validateOutputCount(context, 1));
  NN_TRY(validateTypeIsOneOf(context, "input", context->getInputType(kInput),
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
  NN_TRY(validateTypeIsOneOf(context, "output", context->getOutputType(kOutput),
                             {OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  return {};
}

Status prepare(IOperationExecutionContext* context) {
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = context->getInputShape(kInput).dimensions;
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  return context->getInputType(kInput) == OperandType::TENSOR_FLOAT32 ? run<float>(context) : run<Float16>(context);
}

}  // namespace weft::nn::quantize

NN_REGISTER_OPERATION(QUANTIZE, "QUANTIZE", quantize::validate, quantize::prepare, quantize::execute,
                      .allowZeroSizedInput = true)
