// An ONNX model made ready to run, for `weft run MODEL.onnx` (OnnxRun.h) and `weft layers
// MODEL.onnx` (OnnxLayers.h) alike: imported with --shape and --relaxed, its inputs set (--input
// files, an ONNX test directory's, else drawn from --seed), quantized after training with
// --quantize int8 [--calibration DIR], each NNAPI operation named after the ONNX node it came
// from, and checked to be a model NNAPI takes. Every refusal is an ImportError (exit code 2),
// raised before anything is written.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "HostTensor.h"
#include "Importer.h"
#include "OnnxQuantize.h"

namespace weft::tool {

// The ONNX options `weft run` and `weft layers` share.
struct OnnxModelOptions {
  std::vector<std::string> shapes;  // --shape NAME=1x3x224x224 or DIM=N
  std::vector<std::string> inputs;  // --input NAME=FILE (.npy or TensorProto .pb)
  bool relaxed = false;             // --relaxed
  uint64_t seed = 1;                // --seed of the inputs drawn at random
  std::string quantize;             // --quantize int8 (empty: none)
  std::string calibrationDir;       // --calibration DIR (with --quantize)
};

// Whether `path` is an ONNX model (.onnx) or a directory holding model.onnx.
bool isOnnxModel(const std::string& path);

struct LoadedOnnx {
  std::string path;      // the model file (DIR/model.onnx for a test directory)
  std::string testData;  // an ONNX test directory's test_data_set_0, else empty
  std::string name;      // the reports' name: the file's stem, or the test directory's name
  onnx::ImportedModel imported;            // its input operands hold the run's float inputs
  std::optional<QuantizedRun> quantized;   // with --quantize int8
  std::vector<std::string> operationNames; // the report's name of each operation of model()
  double importSeconds = 0;                // the import's wall time (reading, folding, converting)

  // What runs: the int8 model with --quantize, else the imported one (inputs in its operands).
  const test::TestModel& model() const { return quantized ? quantized->quantized.model : imported.model; }
  // The types and quantizations of model()'s outputs.
  const std::vector<onnx::ValueInfo>& outputInfos() const { return quantized ? quantized->outputs : imported.outputs; }
};

// `networkPath`: a .onnx file or an ONNX test directory. Prints the importer's notes and, with
// --quantize, what was quantized on stderr/stdout as `weft run` always did.
LoadedOnnx loadOnnx(const std::string& networkPath, const OnnxModelOptions& options);

// An NNAPI output's bytes as the ONNX value (int32 widened back to int64 where ONNX says so).
onnx::HostTensor fromNnapiBytes(const std::vector<uint8_t>& bytes, const onnx::ValueInfo& info);

}  // namespace weft::tool
