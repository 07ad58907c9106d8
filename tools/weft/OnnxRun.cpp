#include "OnnxRun.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>

#include "ApiModelBuilder.h"
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

// The outputs of `model` (its inputs set in its input operands) computed by the CPU reference
// device through NNAPI: what an ONNX model's accelerated run is checked against.
std::vector<std::vector<uint8_t>> referenceOutputs(const test::TestModel& model, const std::string& origin) {
  test::ApiModelBuilder builder(model);
  if (builder.model() == nullptr) {
    throw std::runtime_error(fmt::format("{}: building the model failed: {}", origin, builder.failure()));
  }
  ANeuralNetworksDevice* cpu = findDevice(ANEURALNETWORKS_DEVICE_CPU);
  ANeuralNetworksCompilation* rawCompilation = nullptr;
  check(ANeuralNetworksCompilation_createForDevices(builder.model(), &cpu, 1, &rawCompilation),
        "ANeuralNetworksCompilation_createForDevices(cpu)");
  CompilationPtr compilation(rawCompilation);
  check(ANeuralNetworksCompilation_finish(rawCompilation), "ANeuralNetworksCompilation_finish(cpu)");
  ANeuralNetworksExecution* raw = nullptr;
  check(ANeuralNetworksExecution_create(rawCompilation, &raw), "ANeuralNetworksExecution_create");
  ExecutionPtr execution(raw);
  const auto& main = model.main;
  for (size_t i = 0; i < main.inputIndexes.size(); ++i) {
    const test::TestBuffer& data = main.operands[main.inputIndexes[i]].data;
    check(ANeuralNetworksExecution_setInput(raw, static_cast<int32_t>(i), nullptr, data.data(), data.size()),
          "ANeuralNetworksExecution_setInput");
  }
  std::vector<std::vector<uint8_t>> outputs(main.outputIndexes.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const test::TestOperand& o = main.operands[main.outputIndexes[i]];
    outputs[i].resize(std::max<size_t>(1, nn::numberOfElements(o.dimensions) * test::testElementSize(o.type)));
    check(ANeuralNetworksExecution_setOutput(raw, static_cast<int32_t>(i), nullptr, outputs[i].data(), outputs[i].size()),
          "ANeuralNetworksExecution_setOutput");
  }
  check(ANeuralNetworksExecution_compute(raw), "ANeuralNetworksExecution_compute(cpu reference)");
  return outputs;
}

// An ONNX value's name as a file name: exporters write "/layer1/Relu_output_0" or "onnx::Add_5".
std::string fileNameOf(std::string name) {
  for (char& c : name) {
    if (c == '/' || c == ':' || c == '\\') c = '_';
  }
  const size_t start = name.find_first_not_of('_');
  return start == std::string::npos ? "output" : name.substr(start);
}

}  // namespace

bool isOnnxModel(const std::string& path) {
  return onnx::isOnnxPath(path) || (fs::is_directory(path) && fs::exists(fs::path(path) / "model.onnx"));
}

int runOnnx(const RunOptions& options) {
  const std::string path = modelFile(options.networkPath), testData = testDataDir(options.networkPath);
  onnx::ImportOptions importOptions;
  importOptions.relaxed = options.relaxed;
  for (const std::string& s : options.shapes) {
    const size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0) throw onnx::ImportError(fmt::format("--shape {}: give NAME=1x3x224x224", s));
    importOptions.shapes[s.substr(0, eq)] = onnx::parseShape(s.substr(eq + 1));
  }
  onnx::ImportedModel imported = onnx::importOnnxFile(path, importOptions);
  for (const std::string& note : imported.notes) fmt::print(stderr, "weft: {}: {}\n", path, note);

  // The inputs: --input files, else the test directory's, else drawn from the seed.
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

  // What the outputs are checked against: the test directory's outputs with ONNX's tolerance, or
  // the same NNAPI model on the CPU reference device.
  std::vector<HostTensor> expected;
  Tolerance tolerance{1e-5, 1e-3};
  std::string rule;
  if (!testData.empty()) {
    for (size_t i = 0; i < imported.outputNames.size(); ++i) {
      expected.push_back(onnx::readTensorProtoFile(fmt::format("{}/output_{}.pb", testData, i)));
    }
    rule = "every output within ONNX's test tolerance (atol 1e-5, rtol 1e-3) of the test data's";
  } else {
    const auto reference = referenceOutputs(imported.model, path);
    for (size_t i = 0; i < reference.size(); ++i) expected.push_back(fromNnapiBytes(reference[i], imported.outputs[i]));
    if (options.relaxed) tolerance = Tolerance{2e-2, 2e-2};
    rule = options.relaxed ? "every output within 2e-2 (absolute and relative) of the CPU reference's float32"
                           : "every output within atol 1e-5, rtol 1e-3 of the CPU reference's";
  }

  if (std::any_of(imported.outputQuanta.begin(), imported.outputQuanta.end(), [](double q) { return q > 0; })) {
    rule += ", or one quantization step of the quantized outputs";
  }
  ModelCase modelCase;
  modelCase.model = &imported.model;
  // Reports are named after the file (exporters name every graph "main_graph" or "torch-jit-export").
  modelCase.name = fs::is_directory(options.networkPath) ? fs::path(options.networkPath).lexically_normal().filename().string()
                                                         : fs::path(path).stem().string();
  if (modelCase.name.empty()) modelCase.name = fs::path(fs::absolute(options.networkPath).lexically_normal().parent_path()).filename().string();
  modelCase.origin = path;
  modelCase.rule = rule;
  modelCase.operationNames.resize(main.operations.size());
  for (const onnx::NodeRecord& node : imported.nodes) {
    const std::string label = node.name.empty() ? fmt::format("{}#{}", node.op, node.index) : node.name;
    for (size_t k = 0; k < node.operations.size(); ++k) {
      modelCase.operationNames[node.operations[k]] =
          node.operations.size() == 1 ? label : fmt::format("{}.{}", label, k);
    }
  }
  modelCase.check = [&](const std::vector<std::vector<uint8_t>>& outputs) {
    test::CheckReport report;
    for (size_t i = 0; i < outputs.size() && i < expected.size(); ++i) {
      const HostTensor actual = fromNnapiBytes(outputs[i], imported.outputs[i]);
      HostTensor want = expected[i];
      if (want.type == DType::kDouble) want = want.castTo(DType::kFloat);
      compareOutput(imported.outputNames[i], actual, want, tolerance, imported.outputQuanta[i], report.failures);
    }
    return report;
  };
  modelCase.onOutputs = [&](const std::vector<std::vector<uint8_t>>& outputs) {
    if (options.saveOutputsDir.empty()) return;
    fs::create_directories(options.saveOutputsDir);
    for (size_t i = 0; i < outputs.size(); ++i) {
      HostTensor t = fromNnapiBytes(outputs[i], imported.outputs[i]);
      if (imported.outputs[i].quant.quantized()) t = onnx::dequantize(t, imported.outputs[i].quant);
      if (onnx::isFloat(t.type)) t = t.castTo(DType::kFloat);
      onnx::writeNpy((fs::path(options.saveOutputsDir) / (fileNameOf(imported.outputNames[i]) + ".npy")).string(), t);
    }
    fmt::print("outputs written to {}/\n", options.saveOutputsDir);
  };
  return runModelCase(modelCase, options);
}

}  // namespace weft::tool
