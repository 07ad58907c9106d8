// EXP: e^x element-wise, for float32 and float16 (see UnaryMath.cpp).
#include "UnaryMath.h"

namespace weft::nn::exp_op {

Status validate(const IOperationValidationContext* context) { return unary::validate(context, unary::Kind::EXP); }
Status prepare(IOperationExecutionContext* context) { return unary::prepare(context, unary::Kind::EXP); }
Status execute(IOperationExecutionContext* context) { return unary::execute(context, unary::Kind::EXP); }

}  // namespace weft::nn::exp_op

NN_REGISTER_OPERATION(EXP, "EXP", exp_op::validate, exp_op::prepare, exp_op::execute)
