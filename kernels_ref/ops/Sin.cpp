// SIN: sine element-wise, for float32 and float16 (see UnaryMath.cpp).
#include "UnaryMath.h"

namespace weft::nn::sin_op {

Status validate(const IOperationValidationContext* context) { return unary::validate(context, unary::Kind::SIN); }
Status prepare(IOperationExecutionContext* context) { return unary::prepare(context, unary::Kind::SIN); }
Status execute(IOperationExecutionContext* context) { return unary::execute(context, unary::Kind::SIN); }

}  // namespace weft::nn::sin_op

NN_REGISTER_OPERATION(SIN, "SIN", sin_op::validate, sin_op::prepare, sin_op::execute)
