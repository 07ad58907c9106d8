// RELU: element-wise activation (see Activation.cpp).
#include "Activation.h"

namespace weft::nn::relu {

Status validate(const IOperationValidationContext* context) {
  return activation::validate(context, activation::Kind::RELU);
}
Status execute(IOperationExecutionContext* context) { return activation::execute(context, activation::Kind::RELU); }

}  // namespace weft::nn::relu

NN_REGISTER_OPERATION(RELU, "RELU", relu::validate, activation::prepare, relu::execute,
                      .allowZeroSizedInput = true)
