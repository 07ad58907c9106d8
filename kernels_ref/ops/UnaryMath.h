// ABS, EXP, LOG, SIN, SQRT, RSQRT, NEG and FLOOR share one implementation: one input, one output
// of the same shape and type, the function applied element by element. Float16 is computed in
// float32 and rounded back once, as NNAPI's reference does; RSQRT's quantized form dequantizes,
// applies the function in float and quantizes with the output's parameters.
// Each operation's file (Abs.cpp, ...) registers it with its own kind.
#pragma once

#include "weft/kernels/OperationResolver.h"

namespace weft::nn::unary {

enum class Kind { ABS, EXP, LOG, SIN, SQRT, RSQRT, NEG, FLOOR };

Status validate(const IOperationValidationContext* context, Kind kind);
Status prepare(IOperationExecutionContext* context, Kind kind);
Status execute(IOperationExecutionContext* context, Kind kind);

}  // namespace weft::nn::unary
