// MINIMUM: element-wise minimum of two broadcast tensors (see MaximumMinimum.cpp).
#include "MaximumMinimum.h"

namespace weft::nn::minimum_op {

Status execute(IOperationExecutionContext* context) {
  return maximum_minimum::execute(context, maximum_minimum::Kind::MINIMUM);
}

}  // namespace weft::nn::minimum_op

NN_REGISTER_OPERATION(MINIMUM, "MINIMUM", maximum_minimum::validate, maximum_minimum::prepare, minimum_op::execute)
