// ADD: element-wise add with broadcasting and a fused activation (see BinaryArithmetic.cpp).
#include "BinaryArithmetic.h"

namespace weft::nn::add {

Status validate(const IOperationValidationContext* context) { return binary::validate(context, binary::Kind::ADD); }
Status execute(IOperationExecutionContext* context) { return binary::execute(context, binary::Kind::ADD); }

}  // namespace weft::nn::add

NN_REGISTER_OPERATION(ADD, "ADD", add::validate, binary::prepare, add::execute, .allowZeroSizedInput = true)
