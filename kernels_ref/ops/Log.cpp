// LOG: natural logarithm element-wise, for float32 and float16 (see UnaryMath.cpp).
#include "UnaryMath.h"

namespace weft::nn::log_op {

Status validate(const IOperationValidationContext* context) { return unary::validate(context, unary::Kind::LOG); }
Status prepare(IOperationExecutionContext* context) { return unary::prepare(context, unary::Kind::LOG); }
Status execute(IOperationExecutionContext* context) { return unary::execute(context, unary::Kind::LOG); }

}  // namespace weft::nn::log_op

NN_REGISTER_OPERATION(LOG, "LOG", log_op::validate, log_op::prepare, log_op::execute)
