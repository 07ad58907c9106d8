// EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS and LESS_EQUAL share one implementation: two
// broadcast tensors of one type (bool8, float32, float16, int32, quantized 8-bit) compared element
// by element into a TENSOR_BOOL8. Quantized inputs are compared as real values, so the two inputs
// may be quantized differently; bool8 inputs as truth values (any non-zero byte is true, where the
// reference compares raw bytes: the same for the canonical 0 / 1). Each operation's file registers
// it with its own kind.
#pragma once

#include "weft/kernels/OperationResolver.h"

namespace weft::nn::comparisons {

enum class Kind { EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL };

Status validate(const IOperationValidationContext* context);
Status prepare(IOperationExecutionContext* context);
Status execute(IOperationExecutionContext* context, Kind kind);

}  // namespace weft::nn::comparisons
