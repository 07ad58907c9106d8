// L2_POOL_2D: 2-D pooling over NHWC (or NCHW) windows with explicit or implicit padding and a fused
// activation (see Pooling.cpp).
#include "Pooling.h"

namespace weft::nn::l2_pool_2d {

Status validate(const IOperationValidationContext* context) {
  return pooling::validate(context, pooling::Kind::L2);
}
Status execute(IOperationExecutionContext* context) { return pooling::execute(context, pooling::Kind::L2); }

}  // namespace weft::nn::l2_pool_2d

NN_REGISTER_OPERATION(L2_POOL_2D, "L2_POOL_2D", l2_pool_2d::validate, pooling::prepare, l2_pool_2d::execute,
                      .allowZeroSizedInput = true)
