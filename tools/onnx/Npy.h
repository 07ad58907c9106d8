// numpy's .npy files (format version 1 and 2, little-endian, C order): inputs given with
// `--input NAME=x.npy` and calibration samples are read, outputs are written with
// `--save-outputs DIR`.
#pragma once

#include <string>
#include <string_view>

#include "HostTensor.h"

namespace weft::onnx {

// ImportError naming the file on anything it cannot read (Fortran order, big-endian, objects).
HostTensor readNpy(const std::string& path);
// The same from the file's bytes; `origin` names it in errors.
HostTensor parseNpy(std::string_view bytes, const std::string& origin);
// Writes `tensor` (float32, float16, int32, int64, uint8, int8, bool, double); throws on failure.
void writeNpy(const std::string& path, const HostTensor& tensor);

// An ONNX value's name as the stem of its .npy file ("/layer1/Relu_output_0" ->
// "layer1_Relu_output_0"): --save-outputs writes, and --calibration's subdirectories hold, these.
std::string npyFileName(const std::string& valueName);

}  // namespace weft::onnx
