// `weft run MODEL.onnx --quantize int8`: the imported float model quantized after training
// (tools/onnx/PostTraining.h), calibrated on the CPU reference over `--calibration DIR` or the
// run's own inputs; the int8 model is what runs on the accelerator, and each output's accuracy
// against the float model on the same inputs is reported.
#pragma once

#include <string>
#include <vector>

#include "HostTensor.h"
#include "Importer.h"
#include "Npy.h"
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

// One output of the int8 run (dequantized) against the float model's on the same inputs.
struct OutputAccuracy {
  std::string output;
  double cosine = 0;      // cosine similarity of the two
  double maxError = 0;    // largest absolute difference
  double maxAbs = 0;      // largest absolute float output
  double step = 0;        // one int8 step of the output (its scale)
  std::string describe() const;  // one line for the terminal
};
std::vector<OutputAccuracy> outputAccuracy(const QuantizedRun& run, const onnx::ImportedModel& imported,
                                           const std::vector<std::vector<uint8_t>>& int8Outputs);

using onnx::npyFileName;

}  // namespace weft::tool
