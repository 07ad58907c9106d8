// REDUCE_MIN: minimum over the given axes (float32, float16, quant8) (see Reduction.cpp).
#include "Reduction.h"

namespace weft::nn::reduce_min_op {

Status validate(const IOperationValidationContext* context) {
  return reduction::validate(context, reduction::Kind::MIN);
}
Status execute(IOperationExecutionContext* context) { return reduction::execute(context, reduction::Kind::MIN); }

}  // namespace weft::nn::reduce_min_op

NN_REGISTER_OPERATION(REDUCE_MIN, "REDUCE_MIN", reduce_min_op::validate, reduction::prepare, reduce_min_op::execute)
