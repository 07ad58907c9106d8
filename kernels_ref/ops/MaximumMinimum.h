// MAXIMUM and MINIMUM share one implementation: the larger (smaller) of two broadcast tensors
// element by element, for float32, float16, int32 and quantized 8-bit tensors. Quantized inputs are
// first requantized to the output's parameters, so the three operands may be quantized differently.
#pragma once

#include "weft/kernels/OperationResolver.h"

namespace weft::nn::maximum_minimum {

enum class Kind { MAXIMUM, MINIMUM };

Status validate(const IOperationValidationContext* context);
Status prepare(IOperationExecutionContext* context);
Status execute(IOperationExecutionContext* context, Kind kind);

}  // namespace weft::nn::maximum_minimum
