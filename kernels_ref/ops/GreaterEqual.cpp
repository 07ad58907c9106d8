// GREATER_EQUAL: a >= b element-wise over two broadcast tensors, into a TENSOR_BOOL8
// (see Comparisons.cpp).
#include "Comparisons.h"

namespace weft::nn::greater_equal_op {

Status execute(IOperationExecutionContext* context) {
  return comparisons::execute(context, comparisons::Kind::GREATER_EQUAL);
}

}  // namespace weft::nn::greater_equal_op

NN_REGISTER_OPERATION(GREATER_EQUAL, "GREATER_EQUAL", comparisons::validate, comparisons::prepare, greater_equal_op::execute)
