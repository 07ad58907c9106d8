// Operand checks, output requantization and the by-type execution shared by the convolutions
// (CONV_2D, DEPTHWISE_CONV_2D, GROUPED_CONV_2D, TRANSPOSE_CONV_2D), whose input / filter / bias
// operands follow CONV_2D's rules: float32 and float16 use one type throughout; quant8 asymm
// (signed) inputs take a filter of the input's type or TENSOR_QUANT8_SYMM_PER_CHANNEL along the
// filter's output-channel dimension (0; 3 for the depthwise filter [1, h, w, outDepth]), and a
// TENSOR_INT32 bias whose scale is input.scale * filter.scale (per-tensor filters).
#pragma once

#include <cstdint>
#include <vector>

#include "weft/kernels/Float16.h"
#include "weft/kernels/Layout.h"
#include "weft/kernels/OperationResolver.h"
#include "weft/kernels/OperationUtils.h"
#include "weft/kernels/QuantUtils.h"

namespace weft::nn {

// Input 0 (input), 1 (filter), 2 (bias) and output 0 of a convolution, as described above, with
// per-channel filters quantized along `perChannelDim`. `checkBiasScale`: whether a per-tensor
// quantized bias must have scale input.scale * filter.scale (DEPTHWISE_CONV_2D does not check it).
Status validateConvOperands(const IOperationValidationContext* context, uint32_t perChannelDim = 0,
                            bool checkBiasScale = true);

// One requantization multiplier and shift per output channel (repeated for a per-tensor filter):
// inputScale * filterScale[c] / outputScale.
struct ConvRequantization {
  std::vector<int32_t> multiplier;
  std::vector<int> shift;
};
Result<ConvRequantization> convRequantization(const Shape& input, const Shape& filter, const Shape& bias,
                                              const Shape& output, uint32_t outputChannels,
                                              uint32_t perChannelDim = 0);

// What a quantized convolution kernel needs besides its operands' data: zero points, the
// requantization of each output channel and the fused activation's clamp range.
struct ConvQuantization {
  int32_t inputZeroPoint = 0;
  int32_t filterZeroPoint = 0;
  int32_t outputZeroPoint = 0;
  ConvRequantization requantization;
  QuantizedRange range{};
};

namespace conv_detail {

template <typename T, typename QuantKernel>
Status executeQuant(IOperationExecutionContext* context, bool useNchw, uint32_t outDepth,
                    FusedActivationFunc activation, uint32_t perChannelDim, QuantKernel& kernel) {
  const Shape input = context->getInputShape(0), filter = context->getInputShape(1);
  const Shape output = context->getOutputShape(0);
  auto rq = convRequantization(input, filter, context->getInputShape(2), output, outDepth, perChannelDim);
  if (!rq.ok()) return rq.error();
  ConvQuantization q;
  q.inputZeroPoint = input.offset;
  q.filterZeroPoint = filter.offset;
  q.outputZeroPoint = output.offset;
  q.requantization = std::move(*rq);
  q.range = quantizedActivationRange<T>(activation, output.scale, output.offset);
  NhwcInput<T> in(context->getInputBuffer<T>(0), input, useNchw);
  NhwcOutput<T> out(context->getOutputBuffer<T>(0), output, useNchw);
  const int32_t* bias = context->getInputBuffer<int32_t>(2);
  if (filter.type == OperandType::TENSOR_QUANT8_ASYMM) {
    kernel(in.data(), context->getInputBuffer<uint8_t>(1), bias, q, out.data());
  } else {
    kernel(in.data(), context->getInputBuffer<int8_t>(1), bias, q, out.data());
  }
  out.commit();
  return {};
}

}  // namespace conv_detail

// Runs a convolution on input 0, filter 1, bias 2 and output 0 by the input's type, NCHW operands
// (`useNchw`) seen as NHWC:
//   floatKernel(const float* input, const float* filter, const float* bias, float* output) for
//     float32, and for float16 computed in float32 and rounded once;
//   quantKernel(const T* input, const F* filter, const int32_t* bias, const ConvQuantization&,
//     T* output) for quant8 asymm (T = uint8_t) and asymm signed (int8_t), F the filter's element
//     type (T, or int8_t for a per-channel filter quantized along `perChannelDim`).
template <typename FloatKernel, typename QuantKernel>
Status executeConvolution(IOperationExecutionContext* context, bool useNchw, uint32_t outDepth,
                          FusedActivationFunc activation, uint32_t perChannelDim, FloatKernel&& floatKernel,
                          QuantKernel&& quantKernel) {
  const Shape input = context->getInputShape(0);
  const Shape output = context->getOutputShape(0);
  switch (input.type) {
    case OperandType::TENSOR_FLOAT32: {
      NhwcInput<float> in(context->getInputBuffer<float>(0), input, useNchw);
      NhwcOutput<float> out(context->getOutputBuffer<float>(0), output, useNchw);
      floatKernel(in.data(), context->getInputBuffer<float>(1), context->getInputBuffer<float>(2), out.data());
      out.commit();
      return {};
    }
    case OperandType::TENSOR_FLOAT16: {
      const auto input32 = toFloat32(context->getInputBuffer<Float16>(0), getNumberOfElements(input));
      const auto filter32 =
          toFloat32(context->getInputBuffer<Float16>(1), getNumberOfElements(context->getInputShape(1)));
      const auto bias32 = toFloat32(context->getInputBuffer<Float16>(2), outDepth);
      std::vector<float> output32(getNumberOfElements(output));
      NhwcInput<float> in(input32.data(), input, useNchw);
      NhwcOutput<float> out(output32.data(), output, useNchw);
      floatKernel(in.data(), filter32.data(), bias32.data(), out.data());
      out.commit();
      fromFloat32(output32.data(), output32.size(), context->getOutputBuffer<Float16>(0));
      return {};
    }
    case OperandType::TENSOR_QUANT8_ASYMM:
      return conv_detail::executeQuant<uint8_t>(context, useNchw, outDepth, activation, perChannelDim, quantKernel);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return conv_detail::executeQuant<int8_t>(context, useNchw, outDepth, activation, perChannelDim, quantKernel);
    default:
      return NN_ERROR(BAD_DATA) << "unsupported input type " << toString(input.type);
  }
}

}  // namespace weft::nn
