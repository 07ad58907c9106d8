// DIV: element-wise div with broadcasting and a fused activation (see BinaryArithmetic.cpp).
#include "BinaryArithmetic.h"

namespace weft::nn::divide {

Status validate(const IOperationValidationContext* context) { return binary::validate(context, binary::Kind::DIV); }
Status execute(IOperationExecutionContext* context) { return binary::execute(context, binary::Kind::DIV); }

}  // namespace weft::nn::divide

NN_REGISTER_OPERATION(DIV, "DIV", divide::validate, binary::prepare, divide::execute, .allowZeroSizedInput = true)
