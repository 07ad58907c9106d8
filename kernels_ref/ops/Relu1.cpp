// RELU1: element-wise activation (see Activation.cpp).
#include "Activation.h"

namespace weft::nn::relu1 {

Status validate(const IOperationValidationContext* context) {
  return activation::validate(context, activation::Kind::RELU1);
}
Status execute(IOperationExecutionContext* context) { return activation::execute(context, activation::Kind::RELU1); }

}  // namespace weft::nn::relu1

NN_REGISTER_OPERATION(RELU1, "RELU1", relu1::validate, activation::prepare, relu1::execute,
                      .allowZeroSizedInput = true)
