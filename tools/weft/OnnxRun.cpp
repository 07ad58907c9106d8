#include "OnnxRun.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

#include "CpuReference.h"
#include "PostTraining.h"
#include "OnnxQuantize.h"
#include "ImportError.h"
#include "Importer.h"
#include "Npy.h"
#include "OnnxModel.h"
#include "QuantizedGraph.h"

namespace weft::tool {
namespace {

namespace fs = std::filesystem;
using onnx::DType;
using onnx::HostTensor;

struct Tolerance {
  double atol, rtol;
};

// Compares `actual` with `expected`: floats within atol + rtol * |expected|, the rest exactly;
// an output of a quantized model (quantum > 0: the scale of its quantized value) may also be
// one quantization step off, as integer requantization and float rounding differ that much.
void compareOutput(const std::string& name, const HostTensor& actual, const HostTensor& expected, Tolerance tol,
                   double quantum, std::vector<std::string>& failures) {
  tol.atol = std::max(tol.atol, quantum * 1.0001);
  if (actual.shape != expected.shape) {
    failures.push_back(fmt::format("output '{}': shape {}, expected {}", name, onnx::shapeString(actual.shape),
                                   onnx::shapeString(expected.shape)));
    return;
  }
  const bool floating = onnx::isFloat(expected.type);
  int64_t bad = 0, worst = -1;
  double worstExcess = 0;
  for (int64_t i = 0; i < expected.size(); ++i) {
    const double a = actual.asDouble(i), e = expected.asDouble(i);
    double excess;
    if (floating) {
      if (std::isnan(e) && std::isnan(a)) continue;
      excess = std::fabs(a - e) - (tol.atol + tol.rtol * std::fabs(e));
      if (std::isnan(excess)) excess = INFINITY;
    } else {
      const int64_t step = quantum > 0 ? 1 : 0;
      excess = std::llabs(actual.asInt(i) - expected.asInt(i)) <= step ? -1.0 : std::fabs(a - e);
    }
    if (excess > 0) {
      ++bad;
      if (excess > worstExcess || worst < 0) {
        worstExcess = excess;
        worst = i;
      }
    }
  }
  if (bad > 0) {
    failures.push_back(fmt::format("output '{}': {} of {} elements out of tolerance (atol {}, rtol {}); worst at "
                                   "element {}: {} against {}",
                                   name, bad, expected.size(), floating ? tol.atol : 0.0, floating ? tol.rtol : 0.0,
                                   worst, actual.asDouble(worst), expected.asDouble(worst)));
  }
}

// An int8 model's outputs more than one step off the CPU reference's are checked again operation
// by operation, as `weft run` checks a network (RunCommand.cpp, "drift"): an operation the
// accelerator computes within one unit rather than exactly (WEFT_LAYER_NORM) passes its
// difference on, and the operations after it can grow it; ConvNeXt-T's 18 layer norms took an
// output 9 steps away. Each operation runs alone on the CPU reference on the values the
// accelerator gave its inputs, and must come within one step of what the accelerator wrote.
struct OperationCheck {
  size_t operations = 0;   // checked
  int64_t worstSteps = 0;  // the largest difference of one operation on its own inputs
  std::string worstOperation;
  bool passed() const { return worstSteps <= 1; }
};

// The largest difference in steps between two buffers of operand `o` (quantized: integer
// values; anything else must be the same bytes, else INT64_MAX).
int64_t stepsApart(const test::TestOperand& o, const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  if (!nn::isQuantized(o.type)) return a == b ? 0 : INT64_MAX;
  const size_t n = std::min(a.size(), b.size());
  const auto value = [&](const std::vector<uint8_t>& v, size_t i) -> int64_t {
    switch (o.type) {
      case nn::OperandType::TENSOR_QUANT8_ASYMM: return v[i];
      case nn::OperandType::TENSOR_QUANT16_ASYMM: return static_cast<int64_t>(v[2 * i] | v[2 * i + 1] << 8);
      case nn::OperandType::TENSOR_QUANT16_SYMM: return static_cast<int16_t>(v[2 * i] | v[2 * i + 1] << 8);
      default: return static_cast<int8_t>(v[i]);
    }
  };
  const size_t count = o.type == nn::OperandType::TENSOR_QUANT16_ASYMM || o.type == nn::OperandType::TENSOR_QUANT16_SYMM
                           ? n / 2 : n;
  int64_t worst = a.size() == b.size() ? 0 : INT64_MAX;
  for (size_t i = 0; i < count; ++i) worst = std::max<int64_t>(worst, std::llabs(value(a, i) - value(b, i)));
  return worst;
}

OperationCheck checkEachOperation(const test::TestModel& model, const std::vector<std::string>& names,
                                  const std::string& origin) {
  const auto& main = model.main;
  std::vector<uint32_t> computed;
  for (const test::TestOperation& op : main.operations) computed.insert(computed.end(), op.outputs.begin(), op.outputs.end());
  const test::TestModel observing = onnx::observingModel(model, computed);
  const auto outputs = acceleratorOutputs(observing, origin + " (every operation's output kept)");
  std::map<uint32_t, std::vector<uint8_t>> values;
  for (uint32_t i : main.inputIndexes) values[i].assign(main.operands[i].data.data(), main.operands[i].data.data() + main.operands[i].data.size());
  for (size_t k = 0; k < outputs.size(); ++k) values[observing.main.outputIndexes[k]] = outputs[k];
  OperationCheck result;
  for (size_t i = 0; i < main.operations.size(); ++i) {
    const test::TestModel single = singleOperation(model, i, values);
    const auto reference = cpuReferenceOutputs(single, fmt::format("{} (operation {} alone)", origin, i));
    ++result.operations;
    const auto& op = main.operations[i];
    for (size_t k = 0; k < op.outputs.size() && k < reference.size(); ++k) {
      const int64_t steps = stepsApart(main.operands[op.outputs[k]], reference[k], values[op.outputs[k]]);
      if (steps > result.worstSteps) {
        result.worstSteps = steps;
        result.worstOperation = i < names.size() && !names[i].empty() ? names[i] : fmt::format("operation {}", i);
      }
    }
  }
  return result;
}

OnnxModelOptions onnxModelOptions(const RunOptions& options) {
  OnnxModelOptions o;
  o.shapes = options.shapes;
  o.inputs = options.inputs;
  o.relaxed = options.relaxed;
  o.seed = options.seed;
  o.quantize = options.quantize;
  o.calibrationDir = options.calibrationDir;
  return o;
}

}  // namespace

int runOnnx(const RunOptions& options) {
  const LoadedOnnx loaded = loadOnnx(options.networkPath, onnxModelOptions(options));
  const std::string& path = loaded.path;
  const std::string& testData = loaded.testData;
  const onnx::ImportedModel& imported = loaded.imported;
  const std::optional<QuantizedRun>& quantized = loaded.quantized;
  const test::TestModel& model = loaded.model();
  const std::vector<onnx::ValueInfo>& outputInfos = loaded.outputInfos();
  const std::vector<std::string>& names = loaded.operationNames;
  const double importSeconds = loaded.importSeconds;

  // What the outputs are checked against: the test directory's outputs with ONNX's tolerance, or
  // the same NNAPI model on the CPU reference device (for --quantize, the int8 model).
  std::vector<HostTensor> expected;
  std::vector<double> quanta = imported.outputQuanta;
  Tolerance tolerance{1e-5, 1e-3};
  std::string rule;
  if (!testData.empty() && !quantized) {
    for (size_t i = 0; i < imported.outputNames.size(); ++i) {
      expected.push_back(onnx::readTensorProtoFile(fmt::format("{}/output_{}.pb", testData, i)));
    }
    rule = "every output within ONNX's test tolerance (atol 1e-5, rtol 1e-3) of the test data's";
  } else {
    const auto reference = cpuReferenceOutputs(model, path);
    for (size_t i = 0; i < reference.size(); ++i) expected.push_back(fromNnapiBytes(reference[i], outputInfos[i]));
    if (options.relaxed) tolerance = Tolerance{2e-2, 2e-2};
    rule = options.relaxed ? "every output within 2e-2 (absolute and relative) of the CPU reference's float32"
                           : "every output within atol 1e-5, rtol 1e-3 of the CPU reference's";
    if (quantized) {
      for (size_t i = 0; i < quanta.size(); ++i) quanta[i] = outputInfos[i].quant.scales[0];
      rule = "every int8 output within one step of the int8 model's on the CPU reference, or, where the difference "
             "grew through the model, every operation within one step of the reference on the accelerator's own inputs";
    }
  }
  if (!quantized && std::any_of(quanta.begin(), quanta.end(), [](double q) { return q > 0; })) {
    rule += ", or one quantization step of the quantized outputs";
  }
  std::optional<OperationCheck> operationCheck;  // made when the outputs drift (checkEachOperation)
  ModelCase modelCase;
  modelCase.model = &model;
  modelCase.name = loaded.name;
  modelCase.origin = path;
  modelCase.rule = rule;
  modelCase.operationNames = names;
  modelCase.reportExtra["importWallSeconds"] = importSeconds;
  modelCase.check = [&](const std::vector<std::vector<uint8_t>>& outputs) {
    test::CheckReport report;
    for (size_t i = 0; i < outputs.size() && i < expected.size(); ++i) {
      const HostTensor actual = fromNnapiBytes(outputs[i], outputInfos[i]);
      HostTensor want = expected[i];
      if (want.type == DType::kDouble) want = want.castTo(DType::kFloat);
      compareOutput(imported.outputNames[i], actual, want, tolerance, quanta[i], report.failures);
    }
    if (quantized && !report.ok()) {
      operationCheck = checkEachOperation(model, names, path);
      if (operationCheck->passed()) {
        fmt::print("reference check: the outputs drifted more than one step from the CPU reference's ({}); each of the "
                   "{} operations, alone on the accelerator's inputs, is within {} step{} (largest at {})\n",
                   fmt::join(report.failures, "; "), operationCheck->operations, operationCheck->worstSteps,
                   operationCheck->worstSteps == 1 ? "" : "s", operationCheck->worstOperation);
        report.failures.clear();
      } else {
        report.failures.push_back(fmt::format("operation {} alone, on the accelerator's inputs, is {} steps off the "
                                              "CPU reference's",
                                              operationCheck->worstOperation, operationCheck->worstSteps));
      }
    }
    return report;
  };
  modelCase.onOutputs = [&](const std::vector<std::vector<uint8_t>>& outputs, nlohmann::ordered_json& extra) {
    // Built whole, then added: the report keeps its keys in a vector, so a reference into it
    // would not survive the next key.
    nlohmann::ordered_json listed = nlohmann::ordered_json::array();
    for (size_t i = 0; i < outputs.size() && i < outputInfos.size(); ++i) {
      listed.push_back({{"name", imported.outputNames[i]}, {"shape", outputInfos[i].shape}});
    }
    if (quantized) {
      fmt::print("int8 accuracy against the float model on the CPU reference, same inputs:\n");
      nlohmann::ordered_json accuracy = nlohmann::ordered_json::array();
      for (const OutputAccuracy& a : outputAccuracy(*quantized, imported, outputs)) {
        fmt::print("  {}\n", a.describe());
        accuracy.push_back({{"output", a.output}, {"cosine", a.cosine}, {"maxError", a.maxError},
                            {"maxAbsFloat", a.maxAbs}, {"int8Step", a.step}});
      }
      extra["int8Accuracy"] = std::move(accuracy);
    }
    if (!options.saveOutputsDir.empty()) {
      fs::create_directories(options.saveOutputsDir);
      for (size_t i = 0; i < outputs.size() && i < listed.size(); ++i) {
        HostTensor t = fromNnapiBytes(outputs[i], outputInfos[i]);
        if (outputInfos[i].quant.quantized()) t = onnx::dequantize(t, outputInfos[i].quant);
        if (onnx::isFloat(t.type)) t = t.castTo(DType::kFloat);
        const std::string file =
            (fs::path(options.saveOutputsDir) / (npyFileName(imported.outputNames[i]) + ".npy")).string();
        onnx::writeNpy(file, t);
        listed[i]["file"] = file;
      }
      fmt::print("outputs written to {}/\n", options.saveOutputsDir);
    }
    extra["outputs"] = std::move(listed);
    if (operationCheck) {
      extra["operationCheck"] = {{"operations", operationCheck->operations},
                                 {"worstSteps", operationCheck->worstSteps},
                                 {"worstOperation", operationCheck->worstOperation}};
    }
  };
  return runModelCase(modelCase, options);
}

}  // namespace weft::tool
