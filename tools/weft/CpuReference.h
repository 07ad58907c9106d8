// A model run on the CPU reference device through the NNAPI C API: what an ONNX model's
// accelerated run is checked against, and what post-training quantization calibrates on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "TestModel.h"

namespace weft::tool {

// The outputs of `model` with the values its input operands hold, one buffer per output
// (`origin` names the model in errors).
std::vector<std::vector<uint8_t>> cpuReferenceOutputs(const test::TestModel& model, const std::string& origin);

}  // namespace weft::tool
