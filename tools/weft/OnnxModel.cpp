#include "OnnxModel.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>

#include "ApiModelBuilder.h"
#include "ImportError.h"
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

onnx::ImportedModel importForRun(const std::string& path, const OnnxModelOptions& options) {
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
void setInputs(onnx::ImportedModel& imported, const OnnxModelOptions& options, const std::string& testData) {
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
    main.operands[main.inputIndexes[i]].data = test::TestBuffer(onnx::nnapiBytes(value, "input '" + name + "'"));
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
                                        names[*op], model.operationName(model.main.operations[*op].type), builder.failure()));
  }
  throw onnx::ImportError(fmt::format("{}: NNAPI refuses the model: {}", path, builder.failure()));
}

}  // namespace

LoadedOnnx loadOnnx(const std::string& networkPath, const OnnxModelOptions& options) {
  LoadedOnnx loaded;
  loaded.path = modelFile(networkPath);
  loaded.testData = testDataDir(networkPath);
  if (!options.calibrationDir.empty() && options.quantize.empty()) {
    throw onnx::ImportError("--calibration is for --quantize int8");
  }
  if (!options.quantize.empty() && options.quantize != "int8") {
    throw onnx::ImportError(fmt::format("--quantize {}: weft quantizes to int8", options.quantize));
  }
  const auto importStart = std::chrono::steady_clock::now();
  loaded.imported = importForRun(loaded.path, options);
  loaded.importSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - importStart).count();
  setInputs(loaded.imported, options, loaded.testData);
  if (!options.quantize.empty()) {
    loaded.quantized = quantizeImported(loaded.imported, options.calibrationDir, loaded.path);
    const QuantizedRun& q = *loaded.quantized;
    fmt::print("quantized to int8 after calibration on {} sample{} ({} of {} operations kept in float{}{})\n",
               q.calibrationSamples, q.calibrationSamples == 1 ? "" : "s", q.quantized.keptInFloat.size(),
               loaded.imported.model.main.operations.size(), q.quantized.keptInFloat.empty() ? "" : ": ",
               fmt::join(q.quantized.keptInFloat, ", "));
  }
  loaded.operationNames = operationNames(loaded.imported, loaded.quantized ? &*loaded.quantized : nullptr);
  checkNnapiTakesIt(loaded.model(), loaded.operationNames, loaded.path);
  // Reports are named after the file (exporters name every graph "main_graph" or "torch-jit-export").
  loaded.name = fs::is_directory(networkPath) ? fs::path(networkPath).lexically_normal().filename().string()
                                              : fs::path(loaded.path).stem().string();
  if (loaded.name.empty()) {
    loaded.name = fs::path(fs::absolute(networkPath).lexically_normal().parent_path()).filename().string();
  }
  return loaded;
}

bool isOnnxModel(const std::string& path) {
  return onnx::isOnnxPath(path) || (fs::is_directory(path) && fs::exists(fs::path(path) / "model.onnx"));
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

}  // namespace weft::tool
