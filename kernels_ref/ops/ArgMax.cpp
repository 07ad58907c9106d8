// ARGMAX: index of the largest element along an axis (see ArgMinMax.cpp).
#include "ArgMinMax.h"

namespace weft::nn::arg_max_op {

Status execute(IOperationExecutionContext* context) { return arg_min_max::execute(context, arg_min_max::Kind::MAX); }

}  // namespace weft::nn::arg_max_op

NN_REGISTER_OPERATION(ARGMAX, "ARGMAX", arg_min_max::validate, arg_min_max::prepare, arg_max_op::execute)
