// MAXIMUM: element-wise maximum of two broadcast tensors (see MaximumMinimum.cpp).
#include "MaximumMinimum.h"

namespace weft::nn::maximum_op {

Status execute(IOperationExecutionContext* context) {
  return maximum_minimum::execute(context, maximum_minimum::Kind::MAXIMUM);
}

}  // namespace weft::nn::maximum_op

NN_REGISTER_OPERATION(MAXIMUM, "MAXIMUM", maximum_minimum::validate, maximum_minimum::prepare, maximum_op::execute)
