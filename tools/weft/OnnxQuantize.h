// `weft run MODEL.onnx --quantize int8`: the imported float model quantized after training
// (tools/onnx/PostTraining.h), calibrated on the CPU reference over `--calibration DIR` or the
// run's own inputs; the int8 model is what runs on the accelerator, and each output's accuracy
// against the float model on the same inputs is reported.
#pragma once

#include <string>
#include <vector>

#include "HostTensor.h"
#include "Importer.h"
#include "PostTraining.h"

namespace weft::tool {

struct QuantizedRun {
  onnx::QuantizedModel quantized;                   // its input operands hold the run's inputs, quantized
  std::vector<onnx::ValueInfo> outputs;             // the int8 outputs' types and quantizations
  std::vector<onnx::HostTensor> floatOutputs;       // the float model's, on the CPU reference, same inputs
  size_t calibrationSamples = 0;
};

// Quantizes `imported` (whose input operands hold the run's float inputs). The calibration
// samples: with one model input, every .npy file of `calibrationDir` (sorted by name) holding one
// sample of the input's shape or several stacked along a new first axis; with several, every
// subdirectory holding <input name>.npy for each input. No directory: the run's inputs. A
// missing or malformed sample is an ImportError naming the file.
QuantizedRun quantizeImported(const onnx::ImportedModel& imported, const std::string& calibrationDir,
                              const std::string& origin);

// Per output: the cosine similarity and largest absolute difference of the int8 run's output
// (dequantized) against the float model's, one line each.
std::vector<std::string> accuracyLines(const QuantizedRun& run, const onnx::ImportedModel& imported,
                                       const std::vector<std::vector<uint8_t>>& int8Outputs);

// An ONNX value's name as a file name ("/layer1/Relu_output_0" -> "layer1_Relu_output_0").
std::string npyFileName(const std::string& valueName);

}  // namespace weft::tool
