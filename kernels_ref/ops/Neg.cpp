// NEG: -x element-wise, for float32, float16 and int32 (-INT32_MIN wraps) (see UnaryMath.cpp).
#include "UnaryMath.h"

namespace weft::nn::neg_op {

Status validate(const IOperationValidationContext* context) { return unary::validate(context, unary::Kind::NEG); }
Status prepare(IOperationExecutionContext* context) { return unary::prepare(context, unary::Kind::NEG); }
Status execute(IOperationExecutionContext* context) { return unary::execute(context, unary::Kind::NEG); }

}  // namespace weft::nn::neg_op

NN_REGISTER_OPERATION(NEG, "NEG", neg_op::validate, neg_op::prepare, neg_op::execute)
