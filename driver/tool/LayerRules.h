// What NNAPI requires of a layer's quantization given its inputs' (inferShapes, in Network.h,
// is the shape half of the same rules).
#pragma once

#include <string>
#include <vector>

#include "Network.h"

namespace weft::tool {

// NetworkError (prefixed with `where`) when the layer's output quantization is not one NNAPI
// accepts for its op: pools, MEAN and RESHAPE keep their input's, SOFTMAX's is 1/256 and 0.
void checkQuantization(const Layer& l, const std::vector<LayerInput>& inputs, const std::string& where);

}  // namespace weft::tool
