// `weft run MODEL.onnx` (tools/onnx imports it): the model on the accelerator as an application
// would run it, checked against the same NNAPI model on the CPU reference device; or an ONNX test
// directory (model.onnx with test_data_set_0/input_N.pb and output_N.pb, as ONNX's node tests
// ship), checked against its expected outputs with ONNX's tolerance.
#pragma once

#include <string>

#include "OnnxModel.h"
#include "RunCommand.h"

namespace weft::tool {

// The exit code: 0 when the check passes, 1 on a mismatch; an ImportError (exit code 2 in main)
// for a model or an input weft cannot take.
int runOnnx(const RunOptions& options);

}  // namespace weft::tool
