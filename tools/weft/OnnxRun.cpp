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
#include <random>

#include "ApiModelBuilder.h"
#include "CpuReference.h"
#include "OnnxQuantize.h"
#include "ImportError.h"
#include "Importer.h"
#include "Nnapi.h"
#include "Npy.h"
#include "QuantizedGraph.h"

namespace weft::tool {
namespace {

namespace fs = std::filesystem;
using onnx::DType;
using onnx::HostTensor;

// Where an ONNX test directory keeps its data (ONNX's node tests: model.onnx beside
// test_data_set_0/input_N.pb and output_N.pb).
std::string testDataDir(const std::string& path) {
  if (!fs::is_directory(path)) return {};
  const fs::path set = fs::path(path) / "test_data_set_0";
  return fs::is_directory(set) ? set.string() : std::string();
}

std::string modelFile(const std::string& path) {
  return fs::is_directory(path) ? (fs::path(path) / "model.onnx").string() : path;
}

HostTensor readTensorFile(const std::string& path) {
  const std::string ext = fs::path(path).extension().string();
  if (ext == ".npy") return onnx::readNpy(path);
  if (ext == ".pb") return onnx::readTensorProtoFile(path);
  throw onnx::ImportError(fmt::format("{}: an input file is .npy or an ONNX TensorProto .pb", path));
}

// Seeded values in the input's type: floats uniform in [-1, 1), quantized values over their
// whole range, other integers in [0, 10), booleans.
HostTensor randomTensor(const onnx::ValueInfo& info, uint64_t seed) {
  HostTensor t(info.type, info.shape);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  for (int64_t i = 0; i < t.size(); ++i) {
    if (onnx::isFloat(info.type)) {
      t.setDouble(i, real(rng));
    } else if (info.type == DType::kBool) {
      t.setInt(i, static_cast<int64_t>(rng() & 1));
    } else if (info.quant.quantized()) {
      t.setInt(i, static_cast<int64_t>(rng() % 256) + (info.type == DType::kInt8 ? -128 : 0));
    } else {
      t.setInt(i, static_cast<int64_t>(rng() % 10));
    }
  }
  return t;
}

// The bytes NNAPI takes for an ONNX value: int64 narrowed to int32 (refused when out of range).
std::vector<uint8_t> toNnapiBytes(const HostTensor& t, const std::string& name) {
  if (t.type != DType::kInt64) return t.bytes;
  std::vector<uint8_t> out(static_cast<size_t>(t.size()) * 4);
  for (int64_t i = 0; i < t.size(); ++i) {
    const int64_t v = t.asInt(i);
    if (v < INT32_MIN || v > INT32_MAX) {
      throw onnx::ImportError(fmt::format("input '{}' holds {}, beyond NNAPI's 32-bit integers", name, v));
    }
    const auto narrow = static_cast<int32_t>(v);
    std::memcpy(out.data() + i * 4, &narrow, 4);
  }
  return out;
}

// An NNAPI output's bytes as the ONNX value (int32 widened back to int64 where ONNX says so).
HostTensor fromNnapiBytes(const std::vector<uint8_t>& bytes, const onnx::ValueInfo& info) {
  HostTensor t(info.type, info.shape);
  if (info.type == DType::kInt64) {
    for (int64_t i = 0; i < t.size(); ++i) {
      int32_t v;
      std::memcpy(&v, bytes.data() + i * 4, 4);
      t.setInt(i, v);
    }
    return t;
  }
  std::memcpy(t.bytes.data(), bytes.data(), std::min(bytes.size(), t.bytes.size()));
  return t;
}

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

}  // namespace

bool isOnnxModel(const std::string& path) {
  return onnx::isOnnxPath(path) || (fs::is_directory(path) && fs::exists(fs::path(path) / "model.onnx"));
}

namespace {

onnx::ImportedModel importForRun(const std::string& path, const RunOptions& options) {
  onnx::ImportOptions importOptions;
  importOptions.relaxed = options.relaxed;
  for (const std::string& s : options.shapes) {
    const size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0) throw onnx::ImportError(fmt::format("--shape {}: give NAME=1x3x224x224", s));
    importOptions.shapes[s.substr(0, eq)] = onnx::parseShape(s.substr(eq + 1));
  }
  onnx::ImportedModel imported = onnx::importOnnxFile(path, importOptions);
  for (const std::string& note : imported.notes) fmt::print(stderr, "weft: {}: {}\n", path, note);
  return imported;
}

// The inputs, into the model's input operands: --input files, else the test directory's, else
// drawn from the seed.
void setInputs(onnx::ImportedModel& imported, const RunOptions& options, const std::string& testData) {
  std::map<std::string, std::string> given;
  for (const std::string& s : options.inputs) {
    const size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0) throw onnx::ImportError(fmt::format("--input {}: give NAME=FILE", s));
    const std::string name = s.substr(0, eq);
    if (std::find(imported.inputNames.begin(), imported.inputNames.end(), name) == imported.inputNames.end()) {
      throw onnx::ImportError(fmt::format("--input {}: the model has no input '{}' (its inputs: {})", s, name,
                                          fmt::join(imported.inputNames, ", ")));
    }
    given[name] = s.substr(eq + 1);
  }
  auto& main = imported.model.main;
  for (size_t i = 0; i < imported.inputNames.size(); ++i) {
    const std::string& name = imported.inputNames[i];
    const onnx::ValueInfo& info = imported.inputs[i];
    HostTensor value;
    if (auto it = given.find(name); it != given.end()) {
      value = readTensorFile(it->second);
    } else if (!testData.empty()) {
      value = onnx::readTensorProtoFile(fmt::format("{}/input_{}.pb", testData, i));
    } else {
      value = randomTensor(info, options.seed + i);
    }
    if (value.type != info.type || value.shape != info.shape) {
      throw onnx::ImportError(fmt::format("input '{}' is {} {}, the model takes {} {}", name, onnx::dtypeName(value.type),
                                          onnx::shapeString(value.shape), onnx::dtypeName(info.type),
                                          onnx::shapeString(info.shape)));
    }
    main.operands[main.inputIndexes[i]].data = test::TestBuffer(toNnapiBytes(value, name));
  }
}

// The report's name of each operation: the ONNX node it came from ("node.k" when one node made
// several), and for a quantized model the role of the QUANTIZE/DEQUANTIZE around a float one.
std::vector<std::string> operationNames(const onnx::ImportedModel& imported, const QuantizedRun* quantized) {
  std::vector<std::string> names(imported.model.main.operations.size());
  for (const onnx::NodeRecord& node : imported.nodes) {
    const std::string label = node.name.empty() ? fmt::format("{}#{}", node.op, node.index) : node.name;
    for (size_t k = 0; k < node.operations.size(); ++k) {
      names[node.operations[k]] = node.operations.size() == 1 ? label : fmt::format("{}.{}", label, k);
    }
  }
  if (quantized == nullptr) return names;
  std::vector<std::string> mapped;
  for (size_t i = 0; i < quantized->quantized.origin.size(); ++i) {
    std::string name = names.at(quantized->quantized.origin[i]);
    if (const int64_t folded = quantized->quantized.folded[i]; folded >= 0) {
      name += "+" + names.at(static_cast<size_t>(folded));
    }
    const std::string& role = quantized->quantized.role[i];
    mapped.push_back(role.empty() ? name : fmt::format("{}.{}", name, role));
  }
  return mapped;
}

// An operation NNAPI refuses (a shape or type its validation does not take) is a bad model,
// named by the node it came from, before anything runs.
void checkNnapiTakesIt(const test::TestModel& model, const std::vector<std::string>& names, const std::string& path) {
  test::ApiModelBuilder builder(model);
  if (builder.model() != nullptr) return;
  const auto op = builder.failedOperation();
  if (op && *op < names.size() && !names[*op].empty()) {
    throw onnx::ImportError(fmt::format("{}: node '{}': NNAPI refuses the {} it became (see the reason above): {}", path,
                                        names[*op], nn::toString(model.main.operations[*op].type), builder.failure()));
  }
  throw onnx::ImportError(fmt::format("{}: NNAPI refuses the model: {}", path, builder.failure()));
}

}  // namespace

int runOnnx(const RunOptions& options) {
  const std::string path = modelFile(options.networkPath), testData = testDataDir(options.networkPath);
  if (!options.calibrationDir.empty() && options.quantize.empty()) {
    throw onnx::ImportError("--calibration is for --quantize int8");
  }
  if (!options.quantize.empty() && options.quantize != "int8") {
    throw onnx::ImportError(fmt::format("--quantize {}: weft quantizes to int8", options.quantize));
  }
  const auto importStart = std::chrono::steady_clock::now();
  onnx::ImportedModel imported = importForRun(path, options);
  // The import's wall time (reading, folding, converting), beside the compilation's in the report.
  const double importSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - importStart).count();
  setInputs(imported, options, testData);

  std::optional<QuantizedRun> quantized;
  if (!options.quantize.empty()) {
    quantized = quantizeImported(imported, options.calibrationDir, path);
    fmt::print("quantized to int8 after calibration on {} sample{} ({} of {} operations kept in float{}{})\n",
               quantized->calibrationSamples, quantized->calibrationSamples == 1 ? "" : "s",
               quantized->quantized.keptInFloat.size(), imported.model.main.operations.size(),
               quantized->quantized.keptInFloat.empty() ? "" : ": ", fmt::join(quantized->quantized.keptInFloat, ", "));
  }
  const test::TestModel& model = quantized ? quantized->quantized.model : imported.model;
  const std::vector<onnx::ValueInfo>& outputInfos = quantized ? quantized->outputs : imported.outputs;
  const std::vector<std::string> names = operationNames(imported, quantized ? &*quantized : nullptr);
  checkNnapiTakesIt(model, names, path);

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
      rule = "every int8 output within one step of the int8 model's on the CPU reference";
    }
  }
  if (!quantized && std::any_of(quanta.begin(), quanta.end(), [](double q) { return q > 0; })) {
    rule += ", or one quantization step of the quantized outputs";
  }
  ModelCase modelCase;
  modelCase.model = &model;
  // Reports are named after the file (exporters name every graph "main_graph" or "torch-jit-export").
  modelCase.name = fs::is_directory(options.networkPath) ? fs::path(options.networkPath).lexically_normal().filename().string()
                                                         : fs::path(path).stem().string();
  if (modelCase.name.empty()) modelCase.name = fs::path(fs::absolute(options.networkPath).lexically_normal().parent_path()).filename().string();
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
  };
  return runModelCase(modelCase, options);
}

}  // namespace weft::tool
