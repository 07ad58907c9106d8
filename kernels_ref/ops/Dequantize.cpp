// DEQUANTIZE: quant8 asymm / asymm signed / symm / symm per-channel -> float32 or float16,
// x = scale * (q - zeroPoint) computed in float (per-channel: scales[c] * q).
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::dequantize {

constexpr uint32_t kInput = 0;
constexpr uint32_t kOutput = 0;

namespace {

template <typename In, typename Out>
Status dequantizeAll(const IOperationExecutionContext* context, Out* out) {
  const Shape input = context->getInputShape(kInput);
  const In* in = context->getInputBuffer<In>(kInput);
  const size_t count = getNumberOfElements(input);
  if (input.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    const auto& params = std::get<SymmPerChannelQuantParams>(input.extraParams);
    NN_RET_CHECK_LT(params.channelDim, input.dimensions.size());
    const size_t channels = input.dimensions[params.channelDim];
    NN_RET_CHECK_EQ(params.scales.size(), channels);
    const size_t inner = getNumberOfElements(input, params.channelDim + 1, getNumberOfDimensions(input));
    for (size_t i = 0; i < count; ++i) {
      const size_t c = (i / inner) % channels;
      out[i] = static_cast<Out>(params.scales[c] * static_cast<float>(in[i]));
    }
    return {};
  }
  for (size_t i = 0; i < count; ++i) {
    out[i] = static_cast<Out>(input.scale * static_cast<float>(static_cast<int32_t>(in[i]) - input.offset));
  }
  return {};
}

template <typename Out>
Status run(IOperationExecutionContext* context, Out* out) {
  switch (context->getInputType(kInput)) {
    case OperandType::TENSOR_QUANT8_ASYMM:
      return dequantizeAll<uint8_t>(context, out);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
      return dequantizeAll<int8_t>(context, out);
    default:
      return NN_ERROR(BAD_DATA) << "unsupported input type";
  }
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 1, 1));
  NN_TRY(validateOutputCount(context, 1));
  NN_TRY(validateTypeIsOneOf(context, "input", context->getInputType(kInput),
                             {OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED,
                              OperandType::TENSOR_QUANT8_SYMM, OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL}));
  NN_TRY(validateTypeIsOneOf(context, "output", context->getOutputType(kOutput),
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
  NN_TRY(validateInputRank(context, kInput, 1, 4));
  return {};
}

Status prepare(IOperationExecutionContext* context) {
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = context->getInputShape(kInput).dimensions;
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  if (context->getOutputType(kOutput) == OperandType::TENSOR_FLOAT32) {
    return run(context, context->getOutputBuffer<float>(kOutput));
  }
  return run(context, context->getOutputBuffer<Float16>(kOutput));
}

}  // namespace weft::nn::dequantize

NN_REGISTER_OPERATION(DEQUANTIZE, "DEQUANTIZE", dequantize::validate, dequantize::prepare, dequantize::execute,
                      .allowZeroSizedInput = true)
