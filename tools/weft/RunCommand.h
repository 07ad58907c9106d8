// `weft run`: a bundled network on the accelerator and on the CPU reference, with the
// per-layer timing report and the reference check.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ResultChecker.h"
#include "TestModel.h"

namespace weft::tool {

struct RunOptions {
  std::string networkPath;
  std::string jsonPath, csvPath;  // empty: out/<network>-<backend>-<hw>.{json,csv}
  std::string tracePath;          // Chrome trace-event timeline (Trace.h); empty: none
  size_t traceLimit = 200000;     // commands the trace shows (Trace.h keepFirstCommands; 0: all)
  std::string htmlPath;           // also the HTML report (scripts/weft_report.py); empty: none
  std::string energyModelPath;    // energy coefficients overriding the defaults (tools/codesign); empty: none
  int tolerance = 3;              // DESIGN.md: quant8 atol 3 for whole MobileNet-style networks
  // ANeuralNetworksCompilation_setPreference for the accelerated compilation:
  // ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER (1), _SUSTAINED_SPEED (2) or _LOW_POWER (0).
  int32_t preference = 1;
  bool quiet = false;
  // ONNX models (OnnxRun.h): --shape NAME=DxD..., --input NAME=FILE, --save-outputs DIR,
  // --relaxed (float32 computed in float16: the fp16 accelerator runs it), the seed of the inputs
  // drawn at random.
  std::vector<std::string> shapes, inputs;
  std::string saveOutputsDir;
  bool relaxed = false;
  uint64_t seed = 1;
  // --quantize int8: post-training quantization (OnnxQuantize.h), calibrated over
  // --calibration DIR (empty: on the run's inputs).
  std::string quantize, calibrationDir;
};

// Returns the process exit code: 0 when the reference check passes, 1 on a mismatch.
int runNetwork(const RunOptions& options);

// A model in NNAPI's terms (a corpus case, an imported ONNX model) and how its outputs are judged.
struct ModelCase {
  const test::TestModel* model = nullptr;  // its input operands hold the inputs
  std::string name;                        // the report's name
  std::string origin;                      // the file, for errors
  std::vector<std::string> operationNames; // the report's name of each operation (empty: OP#index)
  std::string rule;                        // what the check requires, for the report
  std::function<test::CheckReport(const std::vector<std::vector<uint8_t>>& outputs)> check;
  nlohmann::ordered_json reportExtra = nlohmann::ordered_json::object();  // RunReport::extra to begin with
  // After the check: what else to do with the outputs, and what to add to the JSON report.
  std::function<void(const std::vector<std::vector<uint8_t>>& outputs, nlohmann::ordered_json& reportExtra)> onOutputs;
};

// Runs `modelCase` on the accelerator (alone when it claims every operation) with the
// per-operation report; the exit code as runNetwork's.
int runModelCase(const ModelCase& modelCase, const RunOptions& options);

}  // namespace weft::tool
