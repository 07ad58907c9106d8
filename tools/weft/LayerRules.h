// What NNAPI requires of a layer's quantization given its inputs' (inferShapes, in Network.h,
// is the shape half of the same rules).
#pragma once

#include <string>
#include <vector>

#include "Network.h"

namespace weft::tool {

// NetworkError (prefixed with `where`) when the layer's output quantization is not one NNAPI
// accepts for its op: pools, MEAN, RESHAPE, PAD and the RELUs keep their input's; SOFTMAX and
// LOGISTIC output 1/256 steps from 0 (-128 signed), TANH 1/128 steps around 128 (0 signed).
// `isSigned`: the tensors are TENSOR_QUANT8_ASYMM_SIGNED.
void checkQuantization(const Layer& l, const std::vector<LayerInput>& inputs, bool isSigned, const std::string& where);

// The output quantization NNAPI fixes for SOFTMAX, LOGISTIC and TANH (scale 0 for other ops).
QuantParams fixedOutputQuant(LayerOp op, bool isSigned);
// Whether the op's output keeps its input's quantization.
bool keepsInputQuant(LayerOp op);

}  // namespace weft::tool
