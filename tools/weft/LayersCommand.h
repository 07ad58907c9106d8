// `weft layers` (alias `weft scalesim`): a layer set, a SCALE-Sim layer table or the operations of
// an ONNX model (OnnxLayers.h), each layer run
// alone on the accelerator of this process's backend and hardware, reported per layer: cycles
// and utilization as a table, JSON, CSV, and SCALE-Sim's COMPUTE_REPORT.csv form.
#pragma once

#include <string>

#include "OnnxModel.h"

namespace weft::tool {

struct LayersOptions {
  std::string tablePath;
  std::string jsonPath, csvPath, computeReportPath;  // empty: not written
  std::string outputsPath;  // the layers' outputs, concatenated in order (for `weft validate`)
  std::string cacheDir;     // compilation cache (ANeuralNetworksCompilation_setCaching); empty: none
  std::string tracePath;        // Chrome trace-event timeline (Trace.h); empty: none
  // Commands the trace shows, from the first layer on (0: all). A command is about 1 KB of trace
  // (its slices on two tracks and the counter changes it makes): 200 MB at the default.
  size_t traceLimit = 200000;
  std::string htmlPath;         // also the HTML report (scripts/weft_report.py); empty: none
  std::string energyModelPath;  // energy coefficients overriding the defaults (tools/codesign); empty: none
  // SCALE-Sim's COMPUTE_REPORT.csv for the same table, set beside weft's figures
  // (ScaleSimCompare.h); empty: no comparison. Its CSV and JSON forms: empty, beside the reports.
  std::string compareToPath, compareCsvPath, compareJsonPath;
  int repeat = 1;
  // Compile and run every layer, also one identical to an earlier one (LayerRunOptions::
  // reuseIdentical); the default reuses where only figures are read.
  bool noReuse = false;
  // Layers compiled on helper threads ahead of the one executing (LayerRunOptions::
  // prepareAhead); 0: each after the previous ran. Not with --repeat or --trace.
  size_t compileAhead = 2;
  bool quiet = false;
  // An ONNX model (or test directory) instead of a table: its operations, one at a time
  // (OnnxLayers.h), imported and quantized as `weft run` does with these options.
  OnnxModelOptions onnx;
};

// Returns the process exit code.
int runLayers(const LayersOptions& options);

}  // namespace weft::tool
