// RELU, RELU1, RELU6, LOGISTIC and TANH: element-wise activations sharing validation and shape
// inference; each op's file registers its kind.
#pragma once

#include "weft/kernels/OperationResolver.h"

namespace weft::nn::activation {

enum class Kind { RELU, RELU1, RELU6, LOGISTIC, TANH };

Status validate(const IOperationValidationContext* context, Kind kind);
Status prepare(IOperationExecutionContext* context);
Status execute(IOperationExecutionContext* context, Kind kind);

}  // namespace weft::nn::activation
