// ARGMIN: index of the smallest element along an axis (see ArgMinMax.cpp).
#include "ArgMinMax.h"

namespace weft::nn::arg_min_op {

Status execute(IOperationExecutionContext* context) { return arg_min_max::execute(context, arg_min_max::Kind::MIN); }

}  // namespace weft::nn::arg_min_op

NN_REGISTER_OPERATION(ARGMIN, "ARGMIN", arg_min_max::validate, arg_min_max::prepare, arg_min_op::execute)
