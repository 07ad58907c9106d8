// REDUCE_ANY: logical OR over the given axes of a TENSOR_BOOL8 (see Reduction.cpp).
#include "Reduction.h"

namespace weft::nn::reduce_any_op {

Status validate(const IOperationValidationContext* context) {
  return reduction::validate(context, reduction::Kind::ANY);
}
Status execute(IOperationExecutionContext* context) { return reduction::execute(context, reduction::Kind::ANY); }

}  // namespace weft::nn::reduce_any_op

NN_REGISTER_OPERATION(REDUCE_ANY, "REDUCE_ANY", reduce_any_op::validate, reduction::prepare, reduce_any_op::execute)
