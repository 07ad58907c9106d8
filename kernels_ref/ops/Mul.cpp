// MUL: element-wise mul with broadcasting and a fused activation (see BinaryArithmetic.cpp).
#include "BinaryArithmetic.h"

namespace weft::nn::mul {

Status validate(const IOperationValidationContext* context) { return binary::validate(context, binary::Kind::MUL); }
Status execute(IOperationExecutionContext* context) { return binary::execute(context, binary::Kind::MUL); }

}  // namespace weft::nn::mul

NN_REGISTER_OPERATION(MUL, "MUL", mul::validate, binary::prepare, mul::execute, .allowZeroSizedInput = true)
