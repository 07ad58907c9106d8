// REDUCE_ALL: logical AND over the given axes of a TENSOR_BOOL8 (see Reduction.cpp).
#include "Reduction.h"

namespace weft::nn::reduce_all_op {

Status validate(const IOperationValidationContext* context) {
  return reduction::validate(context, reduction::Kind::ALL);
}
Status execute(IOperationExecutionContext* context) { return reduction::execute(context, reduction::Kind::ALL); }

}  // namespace weft::nn::reduce_all_op

NN_REGISTER_OPERATION(REDUCE_ALL, "REDUCE_ALL", reduce_all_op::validate, reduction::prepare, reduce_all_op::execute)
