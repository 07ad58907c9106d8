// Operations whose shape parameters are model inputs: PAD's and PAD_V2's paddings, RESHAPE's
// shape, MEAN's axes given at execution instead of as constants. The program (tiling, DMA
// strides, output dimensions) depends on their values, so the device compiles the model when
// an execution brings them: the support check accepts such an operation with the parameter's
// type and rank checked (its data tensors read as dense bytes), preparation keeps the model,
// and each execution compiles it with the values substituted as constants, once per distinct
// set of values (PreparedModel keeps the last few). Values the hardware cannot take (a MEAN over
// more than 255 x 255 elements) fail that execution with the reason.
#pragma once

#include <cstdint>
#include <vector>

#include "Lowering.h"
#include "ops/OperationReader.h"
#include "weft/nn/Types.h"

namespace weft::accel {

// Input `i` of the operation is one of the shape parameters above and a model input.
bool isExecutionParameter(const OperationReader& r, uint32_t i);

// The support check's lowering of such an operation: its input 0 and output 0 as dense tensors
// (the output's declared dimensions, possibly unknown), no commands.
LoweredOperation compiledAtExecution(const OperationReader& r, uint32_t index);

// The model's shape parameters given at execution (operand indexes, ascending).
std::vector<uint32_t> executionParameters(const nn::Model& model);

// `model` with each operand of `operands` a constant of the matching `values` (its bytes).
nn::Model withParameterValues(const nn::Model& model, const std::vector<uint32_t>& operands,
                              const std::vector<std::vector<uint8_t>>& values);

}  // namespace weft::accel
