// LOGICAL_AND and LOGICAL_OR share one implementation: two broadcast TENSOR_BOOL8 tensors combined
// element by element (any non-zero byte is true; results are 0 or 1).
#pragma once

#include "weft/kernels/OperationResolver.h"

namespace weft::nn::logical {

enum class Kind { AND, OR };

Status validate(const IOperationValidationContext* context);
Status prepare(IOperationExecutionContext* context);
Status execute(IOperationExecutionContext* context, Kind kind);

}  // namespace weft::nn::logical
