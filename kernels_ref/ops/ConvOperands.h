// Operand checks and output requantization shared by GROUPED_CONV_2D and TRANSPOSE_CONV_2D, whose
// input / filter / bias operands follow CONV_2D's rules: float32 and float16 use one type
// throughout; quant8 asymm (signed) inputs take a filter of the input's type or
// TENSOR_QUANT8_SYMM_PER_CHANNEL along dimension 0, and a TENSOR_INT32 bias whose scale is
// input.scale * filter.scale (per-tensor filters).
#pragma once

#include <cstdint>
#include <vector>

#include "weft/kernels/OperationResolver.h"

namespace weft::nn {

// Input 0 (input), 1 (filter), 2 (bias) and output 0 of a convolution, as described above.
Status validateConvOperands(const IOperationValidationContext* context);

// One requantization multiplier and shift per output channel (repeated for a per-tensor filter):
// inputScale * filterScale[c] / outputScale.
struct ConvRequantization {
  std::vector<int32_t> multiplier;
  std::vector<int> shift;
};
Result<ConvRequantization> convRequantization(const Shape& input, const Shape& filter, const Shape& bias,
                                              const Shape& output, uint32_t outputChannels);

}  // namespace weft::nn
