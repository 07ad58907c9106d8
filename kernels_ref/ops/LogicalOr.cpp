// LOGICAL_OR: element-wise OR of two broadcast TENSOR_BOOL8 tensors (see LogicalBinary.cpp).
#include "LogicalBinary.h"

namespace weft::nn::logical_or_op {

Status execute(IOperationExecutionContext* context) { return logical::execute(context, logical::Kind::OR); }

}  // namespace weft::nn::logical_or_op

NN_REGISTER_OPERATION(LOGICAL_OR, "LOGICAL_OR", logical::validate, logical::prepare, logical_or_op::execute)
