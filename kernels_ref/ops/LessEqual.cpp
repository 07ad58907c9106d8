// LESS_EQUAL: a <= b element-wise over two broadcast tensors, into a TENSOR_BOOL8
// (see Comparisons.cpp).
#include "Comparisons.h"

namespace weft::nn::less_equal_op {

Status execute(IOperationExecutionContext* context) {
  return comparisons::execute(context, comparisons::Kind::LESS_EQUAL);
}

}  // namespace weft::nn::less_equal_op

NN_REGISTER_OPERATION(LESS_EQUAL, "LESS_EQUAL", comparisons::validate, comparisons::prepare, less_equal_op::execute)
