// REDUCE_ALL, REDUCE_ANY, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD and REDUCE_SUM share one
// implementation: a tensor of rank up to 4 reduced over the axes of a 1-D TENSOR_INT32 (negative
// axes count from the end, repeats allowed), keeping reduced dimensions as 1 when keep_dims is set;
// reducing every dimension without keep_dims gives shape [1]. As in NNAPI's reference the
// accumulation runs in the element type in row-major input order, MAX/MIN start from the type's
// lowest/highest finite value, and quantized MAX/MIN compare the stored values (the output keeps
// the input's quantization).
#pragma once

#include "weft/kernels/OperationResolver.h"

namespace weft::nn::reduction {

enum class Kind { ALL, ANY, MAX, MIN, PROD, SUM };

Status validate(const IOperationValidationContext* context, Kind kind);
Status prepare(IOperationExecutionContext* context);
Status execute(IOperationExecutionContext* context, Kind kind);

}  // namespace weft::nn::reduction
