// ABS: |x| element-wise, for float32, float16 and int32 (|INT32_MIN| wraps) (see UnaryMath.cpp).
#include "UnaryMath.h"

namespace weft::nn::abs_op {

Status validate(const IOperationValidationContext* context) { return unary::validate(context, unary::Kind::ABS); }
Status prepare(IOperationExecutionContext* context) { return unary::prepare(context, unary::Kind::ABS); }
Status execute(IOperationExecutionContext* context) { return unary::execute(context, unary::Kind::ABS); }

}  // namespace weft::nn::abs_op

NN_REGISTER_OPERATION(ABS, "ABS", abs_op::validate, abs_op::prepare, abs_op::execute)
