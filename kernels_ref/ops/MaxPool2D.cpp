// MAX_POOL_2D: 2-D pooling over NHWC (or NCHW) windows with explicit or implicit padding and a fused
// activation (see Pooling.cpp).
#include "Pooling.h"

namespace weft::nn::max_pool_2d {

Status validate(const IOperationValidationContext* context) {
  return pooling::validate(context, pooling::Kind::MAX);
}
Status execute(IOperationExecutionContext* context) { return pooling::execute(context, pooling::Kind::MAX); }

}  // namespace weft::nn::max_pool_2d

NN_REGISTER_OPERATION(MAX_POOL_2D, "MAX_POOL_2D", max_pool_2d::validate, pooling::prepare, max_pool_2d::execute,
                      .allowZeroSizedInput = true)
