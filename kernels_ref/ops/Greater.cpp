// GREATER: a > b element-wise over two broadcast tensors, into a TENSOR_BOOL8
// (see Comparisons.cpp).
#include "Comparisons.h"

namespace weft::nn::greater_op {

Status execute(IOperationExecutionContext* context) {
  return comparisons::execute(context, comparisons::Kind::GREATER);
}

}  // namespace weft::nn::greater_op

NN_REGISTER_OPERATION(GREATER, "GREATER", comparisons::validate, comparisons::prepare, greater_op::execute)
