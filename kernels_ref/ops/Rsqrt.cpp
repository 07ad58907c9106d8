// RSQRT: 1 / sqrt(x) element-wise, for float32, float16 and quantized 8-bit tensors (through
// float, requantized to the output's parameters) (see UnaryMath.cpp).
#include "UnaryMath.h"

namespace weft::nn::rsqrt_op {

Status validate(const IOperationValidationContext* context) { return unary::validate(context, unary::Kind::RSQRT); }
Status prepare(IOperationExecutionContext* context) { return unary::prepare(context, unary::Kind::RSQRT); }
Status execute(IOperationExecutionContext* context) { return unary::execute(context, unary::Kind::RSQRT); }

}  // namespace weft::nn::rsqrt_op

NN_REGISTER_OPERATION(RSQRT, "RSQRT", rsqrt_op::validate, rsqrt_op::prepare, rsqrt_op::execute)
