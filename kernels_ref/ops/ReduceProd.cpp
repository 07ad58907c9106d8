// REDUCE_PROD: product over the given axes (float32, float16) (see Reduction.cpp).
#include "Reduction.h"

namespace weft::nn::reduce_prod_op {

Status validate(const IOperationValidationContext* context) {
  return reduction::validate(context, reduction::Kind::PROD);
}
Status execute(IOperationExecutionContext* context) { return reduction::execute(context, reduction::Kind::PROD); }

}  // namespace weft::nn::reduce_prod_op

NN_REGISTER_OPERATION(REDUCE_PROD, "REDUCE_PROD", reduce_prod_op::validate, reduction::prepare, reduce_prod_op::execute)
