// ARGMAX and ARGMIN share one implementation: the index of the largest (smallest) element along one
// axis, as a TENSOR_INT32 with that axis removed ([1] for a 1-D input). The first occurrence wins
// ties. Inputs float32, float16, int32 and quantized 8-bit (compared as stored values, which orders
// them as their real values).
#pragma once

#include "weft/kernels/OperationResolver.h"

namespace weft::nn::arg_min_max {

enum class Kind { MAX, MIN };

Status validate(const IOperationValidationContext* context);
Status prepare(IOperationExecutionContext* context);
Status execute(IOperationExecutionContext* context, Kind kind);

}  // namespace weft::nn::arg_min_max
