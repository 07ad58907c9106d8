// FLOOR: largest integer not greater than x, for float32 and float16 tensors of rank up to 4
// (see UnaryMath.cpp).
#include "UnaryMath.h"

namespace weft::nn::floor_op {

Status validate(const IOperationValidationContext* context) { return unary::validate(context, unary::Kind::FLOOR); }
Status prepare(IOperationExecutionContext* context) { return unary::prepare(context, unary::Kind::FLOOR); }
Status execute(IOperationExecutionContext* context) { return unary::execute(context, unary::Kind::FLOOR); }

}  // namespace weft::nn::floor_op

NN_REGISTER_OPERATION(FLOOR, "FLOOR", floor_op::validate, floor_op::prepare, floor_op::execute)
