// AVERAGE_POOL_2D: 2-D pooling over NHWC (or NCHW) windows with explicit or implicit padding and a fused
// activation (see Pooling.cpp).
#include "Pooling.h"

namespace weft::nn::average_pool_2d {

Status validate(const IOperationValidationContext* context) {
  return pooling::validate(context, pooling::Kind::AVERAGE);
}
Status execute(IOperationExecutionContext* context) { return pooling::execute(context, pooling::Kind::AVERAGE); }

}  // namespace weft::nn::average_pool_2d

NN_REGISTER_OPERATION(AVERAGE_POOL_2D, "AVERAGE_POOL_2D", average_pool_2d::validate, pooling::prepare, average_pool_2d::execute,
                      .allowZeroSizedInput = true)
