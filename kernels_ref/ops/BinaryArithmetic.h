// ADD, SUB, MUL and DIV share one implementation: broadcasting element-wise arithmetic with a fused
// activation, for float32, float16 (computed in float32), int32 and quantized 8-bit tensors.
// Each operation's file (Add.cpp, ...) registers it with its own kind.
#pragma once

#include "weft/kernels/OperationResolver.h"

namespace weft::nn::binary {

enum class Kind { ADD, SUB, MUL, DIV };

Status validate(const IOperationValidationContext* context, Kind kind);
Status prepare(IOperationExecutionContext* context);
Status execute(IOperationExecutionContext* context, Kind kind);

}  // namespace weft::nn::binary
