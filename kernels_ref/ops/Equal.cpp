// EQUAL: a == b element-wise over two broadcast tensors, into a TENSOR_BOOL8
// (see Comparisons.cpp).
#include "Comparisons.h"

namespace weft::nn::equal_op {

Status execute(IOperationExecutionContext* context) {
  return comparisons::execute(context, comparisons::Kind::EQUAL);
}

}  // namespace weft::nn::equal_op

NN_REGISTER_OPERATION(EQUAL, "EQUAL", comparisons::validate, comparisons::prepare, equal_op::execute)
