// LESS: a < b element-wise over two broadcast tensors, into a TENSOR_BOOL8
// (see Comparisons.cpp).
#include "Comparisons.h"

namespace weft::nn::less_op {

Status execute(IOperationExecutionContext* context) {
  return comparisons::execute(context, comparisons::Kind::LESS);
}

}  // namespace weft::nn::less_op

NN_REGISTER_OPERATION(LESS, "LESS", comparisons::validate, comparisons::prepare, less_op::execute)
