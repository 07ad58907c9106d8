// REDUCE_SUM: sum over the given axes (float32, float16) (see Reduction.cpp).
#include "Reduction.h"

namespace weft::nn::reduce_sum_op {

Status validate(const IOperationValidationContext* context) {
  return reduction::validate(context, reduction::Kind::SUM);
}
Status execute(IOperationExecutionContext* context) { return reduction::execute(context, reduction::Kind::SUM); }

}  // namespace weft::nn::reduce_sum_op

NN_REGISTER_OPERATION(REDUCE_SUM, "REDUCE_SUM", reduce_sum_op::validate, reduction::prepare, reduce_sum_op::execute)
