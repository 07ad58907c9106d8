// LOGICAL_AND: element-wise AND of two broadcast TENSOR_BOOL8 tensors (see LogicalBinary.cpp).
#include "LogicalBinary.h"

namespace weft::nn::logical_and_op {

Status execute(IOperationExecutionContext* context) { return logical::execute(context, logical::Kind::AND); }

}  // namespace weft::nn::logical_and_op

NN_REGISTER_OPERATION(LOGICAL_AND, "LOGICAL_AND", logical::validate, logical::prepare, logical_and_op::execute)
