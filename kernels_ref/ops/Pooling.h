// AVERAGE_POOL_2D, MAX_POOL_2D and L2_POOL_2D share their signature and window walk; each op's file
// registers it with its own kind. Windows are clipped to the input (padding is never averaged).
#pragma once

#include "weft/kernels/OperationResolver.h"

namespace weft::nn::pooling {

enum class Kind { AVERAGE, MAX, L2 };

Status validate(const IOperationValidationContext* context, Kind kind);
Status prepare(IOperationExecutionContext* context);
Status execute(IOperationExecutionContext* context, Kind kind);

}  // namespace weft::nn::pooling
