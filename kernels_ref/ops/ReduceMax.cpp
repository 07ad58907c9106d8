// REDUCE_MAX: maximum over the given axes (float32, float16, quant8) (see Reduction.cpp).
#include "Reduction.h"

namespace weft::nn::reduce_max_op {

Status validate(const IOperationValidationContext* context) {
  return reduction::validate(context, reduction::Kind::MAX);
}
Status execute(IOperationExecutionContext* context) { return reduction::execute(context, reduction::Kind::MAX); }

}  // namespace weft::nn::reduce_max_op

NN_REGISTER_OPERATION(REDUCE_MAX, "REDUCE_MAX", reduce_max_op::validate, reduction::prepare, reduce_max_op::execute)
