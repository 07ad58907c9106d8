// TANH: element-wise activation (see Activation.cpp).
#include "Activation.h"

namespace weft::nn::tanh_op {

Status validate(const IOperationValidationContext* context) {
  return activation::validate(context, activation::Kind::TANH);
}
Status execute(IOperationExecutionContext* context) { return activation::execute(context, activation::Kind::TANH); }

}  // namespace weft::nn::tanh_op

NN_REGISTER_OPERATION(TANH, "TANH", tanh_op::validate, activation::prepare, tanh_op::execute,
                      .allowZeroSizedInput = true)
