// LOGISTIC: element-wise activation (see Activation.cpp).
#include "Activation.h"

namespace weft::nn::logistic {

Status validate(const IOperationValidationContext* context) {
  return activation::validate(context, activation::Kind::LOGISTIC);
}
Status execute(IOperationExecutionContext* context) { return activation::execute(context, activation::Kind::LOGISTIC); }

}  // namespace weft::nn::logistic

NN_REGISTER_OPERATION(LOGISTIC, "LOGISTIC", logistic::validate, activation::prepare, logistic::execute,
                      .allowZeroSizedInput = true)
