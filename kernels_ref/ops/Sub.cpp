// SUB: element-wise sub with broadcasting and a fused activation (see BinaryArithmetic.cpp).
#include "BinaryArithmetic.h"

namespace weft::nn::sub {

Status validate(const IOperationValidationContext* context) { return binary::validate(context, binary::Kind::SUB); }
Status execute(IOperationExecutionContext* context) { return binary::execute(context, binary::Kind::SUB); }

}  // namespace weft::nn::sub

NN_REGISTER_OPERATION(SUB, "SUB", sub::validate, binary::prepare, sub::execute, .allowZeroSizedInput = true)
