// RELU6: element-wise activation (see Activation.cpp).
#include "Activation.h"

namespace weft::nn::relu6 {

Status validate(const IOperationValidationContext* context) {
  return activation::validate(context, activation::Kind::RELU6);
}
Status execute(IOperationExecutionContext* context) { return activation::execute(context, activation::Kind::RELU6); }

}  // namespace weft::nn::relu6

NN_REGISTER_OPERATION(RELU6, "RELU6", relu6::validate, activation::prepare, relu6::execute,
                      .allowZeroSizedInput = true)
