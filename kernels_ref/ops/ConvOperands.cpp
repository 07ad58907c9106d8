#include "ConvOperands.h"

#include <algorithm>
#include <cmath>

#include "weft/kernels/OperationUtils.h"
#include "weft/kernels/QuantUtils.h"

namespace weft::nn {

Status validateConvOperands(const IOperationValidationContext* context, uint32_t perChannelDim, bool checkBiasScale) {
  const char* name = context->getOperationName();
  const OperandType inputType = context->getInputType(0);
  NN_TRY(validateTypeIsOneOf(context, "input", inputType,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  const OperandType filterType = context->getInputType(1);
  const OperandType biasType = context->getInputType(2);
  if (!isQuantized(inputType)) {
    NN_RET_CHECK(filterType == inputType && biasType == inputType)
        << name << ": filter and bias must have the input's type";
  } else {
    NN_RET_CHECK(filterType == inputType || filterType == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL)
        << name << ": a quantized filter must have the input's type or be per-channel, got " << toString(filterType);
    NN_RET_CHECK(biasType == OperandType::TENSOR_INT32) << name << ": a quantized bias must be TENSOR_INT32";
    if (filterType == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
      const auto* params = std::get_if<SymmPerChannelQuantParams>(&context->getInputExtraParams(1));
      NN_RET_CHECK(params != nullptr && params->channelDim == perChannelDim)
          << name << ": a per-channel filter must be quantized along dimension " << perChannelDim;
    } else if (checkBiasScale) {
      const double product = static_cast<double>(context->getInputShape(0).scale) * context->getInputShape(1).scale;
      const double biasScale = context->getInputShape(2).scale;
      NN_RET_CHECK(std::abs(product - biasScale) <= 1e-6 * std::min(product, biasScale))
          << name << ": bias scale " << biasScale << " must be input scale * filter scale " << product;
    }
  }
  NN_TRY(validateOutputTypes(context, {inputType}));
  NN_TRY(validateInputRank(context, 0, 4, 4));
  NN_TRY(validateInputRank(context, 1, 4, 4));
  return validateInputRank(context, 2, 1, 1);
}

Result<ConvRequantization> convRequantization(const Shape& input, const Shape& filter, const Shape& bias,
                                              const Shape& output, uint32_t outputChannels, uint32_t perChannelDim) {
  ConvRequantization r;
  if (filter.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    const auto* params = std::get_if<SymmPerChannelQuantParams>(&filter.extraParams);
    NN_RET_CHECK(params != nullptr && params->channelDim == perChannelDim)
        << "per-channel filter must use dimension " << perChannelDim;
    NN_RET_CHECK_EQ(params->scales.size(), outputChannels) << "one filter scale per output channel";
    auto m = perChannelMultipliers(input.scale, params->scales, output.scale);
    if (!m.ok()) return m.error();
    r.multiplier = std::move(m->multiplier);
    r.shift = std::move(m->shift);
    return r;
  }
  double real = 0.0;
  NN_TRY(getQuantizedConvolutionMultiplier(input.scale, filter.scale, bias.scale, output.scale, &real));
  int32_t multiplier = 0;
  int shift = 0;
  NN_TRY(quantizeMultiplier(real, &multiplier, &shift));
  r.multiplier.assign(outputChannels, multiplier);
  r.shift.assign(outputChannels, shift);
  return r;
}

}  // namespace weft::nn
