// SQRT: square root element-wise, for float32 and float16 (see UnaryMath.cpp).
#include "UnaryMath.h"

namespace weft::nn::sqrt_op {

Status validate(const IOperationValidationContext* context) { return unary::validate(context, unary::Kind::SQRT); }
Status prepare(IOperationExecutionContext* context) { return unary::prepare(context, unary::Kind::SQRT); }
Status execute(IOperationExecutionContext* context) { return unary::execute(context, unary::Kind::SQRT); }

}  // namespace weft::nn::sqrt_op

NN_REGISTER_OPERATION(SQRT, "SQRT", sqrt_op::validate, sqrt_op::prepare, sqrt_op::execute)
