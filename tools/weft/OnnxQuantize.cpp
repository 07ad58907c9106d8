#include "OnnxQuantize.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "CpuReference.h"
#include "ImportError.h"
#include "Npy.h"
#include "QuantizedGraph.h"

namespace weft::tool {
namespace {

namespace fs = std::filesystem;
using onnx::DType;
using onnx::HostTensor;
using onnx::ImportError;

using Sample = std::vector<HostTensor>;  // one value per model input

std::vector<fs::path> sortedEntries(const fs::path& dir, bool directories) {
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (directories ? e.is_directory() : (e.is_regular_file() && e.path().extension() == ".npy")) {
      entries.push_back(e.path());
    }
  }
  std::sort(entries.begin(), entries.end());
  return entries;
}

// Whether the quantized model takes input values of `info` as they are: integers (token ids,
// positions) and booleans (masks) stay what they are; float32 inputs are quantized.
bool keptAsIs(const onnx::ValueInfo& info) {
  return info.type == DType::kInt32 || info.type == DType::kInt64 || info.type == DType::kBool;
}

// `t` as samples of `info`: itself, or the slices of a stack along a new first axis.
std::vector<HostTensor> samplesOf(const HostTensor& t, const onnx::ValueInfo& info, const fs::path& file) {
  const bool integers = info.type == DType::kInt32 || info.type == DType::kInt64;
  const bool fits = t.type == info.type || (integers && (t.type == DType::kInt32 || t.type == DType::kInt64));
  if (!fits) {
    throw ImportError(fmt::format("{}: a calibration sample of this input is {}, this one is {}", file.string(),
                                  info.type == DType::kFloat ? "float32" : onnx::dtypeName(info.type),
                                  onnx::dtypeName(t.type)));
  }
  if (t.shape == info.shape) return {t};
  onnx::Shape inner(t.shape.begin() + (t.shape.empty() ? 0 : 1), t.shape.end());
  if (t.shape.empty() || inner != info.shape) {
    throw ImportError(fmt::format("{}: shape {}, the input takes {} (or N samples stacked: Nx{})", file.string(),
                                  onnx::shapeString(t.shape), onnx::shapeString(info.shape),
                                  onnx::shapeString(info.shape)));
  }
  std::vector<HostTensor> out;
  const size_t bytes = t.bytes.size() / static_cast<size_t>(t.shape[0]);
  for (int64_t n = 0; n < t.shape[0]; ++n) {
    HostTensor s(t.type, info.shape);
    std::memcpy(s.bytes.data(), t.bytes.data() + static_cast<size_t>(n) * bytes, bytes);
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<Sample> readCalibration(const onnx::ImportedModel& imported, const std::string& dir) {
  if (!fs::is_directory(dir)) throw ImportError(fmt::format("--calibration {}: not a directory", dir));
  std::vector<Sample> samples;
  if (imported.inputs.size() == 1) {
    for (const fs::path& file : sortedEntries(dir, false)) {
      for (HostTensor& t : samplesOf(onnx::readNpy(file.string()), imported.inputs[0], file)) samples.push_back({t});
    }
  } else {
    for (const fs::path& sub : sortedEntries(dir, true)) {
      Sample sample;
      for (size_t i = 0; i < imported.inputs.size(); ++i) {
        const fs::path file = sub / (npyFileName(imported.inputNames[i]) + ".npy");
        if (!fs::exists(file)) throw ImportError(fmt::format("{}: missing (input '{}')", file.string(), imported.inputNames[i]));
        const auto values = samplesOf(onnx::readNpy(file.string()), imported.inputs[i], file);
        if (values.size() != 1) throw ImportError(fmt::format("{}: one sample per file with several inputs", file.string()));
        sample.push_back(values[0]);
      }
      samples.push_back(std::move(sample));
    }
  }
  if (samples.empty()) {
    throw ImportError(fmt::format("--calibration {}: no samples ({})", dir,
                                  imported.inputs.size() == 1 ? "*.npy files of the input's shape"
                                                              : "subdirectories of <input name>.npy files"));
  }
  return samples;
}

void checkFloatModel(const onnx::ImportedModel& imported) {
  for (size_t i = 0; i < imported.inputs.size(); ++i) {
    const onnx::ValueInfo& input = imported.inputs[i];
    if ((input.type != DType::kFloat && !keptAsIs(input)) || input.quant.quantized()) {
      throw ImportError(fmt::format("--quantize int8 takes a float32 model (integer and boolean inputs stay as they "
                                    "are); input '{}' is {}",
                                    imported.inputNames[i],
                                    input.quant.quantized() ? "quantized" : onnx::dtypeName(input.type)));
    }
  }
  for (size_t i = 0; i < imported.outputs.size(); ++i) {
    if (imported.outputs[i].type != DType::kFloat || imported.outputs[i].quant.quantized()) {
      throw ImportError(fmt::format("--quantize int8 takes a float32 model; output '{}' is {}", imported.outputNames[i],
                                    imported.outputs[i].quant.quantized() ? "quantized" : onnx::dtypeName(imported.outputs[i].type)));
    }
  }
  if (imported.model.isRelaxed) throw ImportError("--quantize int8 and --relaxed: choose one");
}

HostTensor quantizeTensor(const HostTensor& f, const onnx::Quantization& q) {
  HostTensor t(DType::kInt8, f.shape);
  for (int64_t i = 0; i < f.size(); ++i) {
    const double v = std::nearbyint(f.asDouble(i) / q.scales[0]) + q.zeroPoints[0];
    t.setInt(i, static_cast<int64_t>(std::clamp(v, -128.0, 127.0)));
  }
  return t;
}

}  // namespace

QuantizedRun quantizeImported(const onnx::ImportedModel& imported, const std::string& calibrationDir,
                              const std::string& origin) {
  checkFloatModel(imported);
  const auto& main = imported.model.main;
  std::vector<Sample> samples;
  if (calibrationDir.empty()) {
    Sample own;
    for (size_t i = 0; i < main.inputIndexes.size(); ++i) {
      // The operand holds NNAPI's bytes: int64 values already narrowed to int32.
      const DType type = imported.inputs[i].type == DType::kInt64 ? DType::kInt32 : imported.inputs[i].type;
      HostTensor t(type, imported.inputs[i].shape);
      const auto& data = main.operands[main.inputIndexes[i]].data;
      std::memcpy(t.bytes.data(), data.data(), std::min(data.size(), t.bytes.size()));
      own.push_back(std::move(t));
    }
    samples.push_back(std::move(own));
  } else {
    samples = readCalibration(imported, calibrationDir);
  }

  // Calibration: every value the float model computes, observed on the CPU reference.
  test::TestModel observing = onnx::observingModel(imported.model, onnx::calibratedOperands(imported.model));
  onnx::RangeObserver observer;
  for (const Sample& sample : samples) {
    for (size_t i = 0; i < sample.size(); ++i) {
      const uint32_t operand = observing.main.inputIndexes[i];
      observing.main.operands[operand].data =
          test::TestBuffer(onnx::nnapiBytes(sample[i], fmt::format("calibration input '{}'", imported.inputNames[i])));
      if (sample[i].type == DType::kFloat) observer.observe(operand, sample[i].bytes.data(), sample[i].bytes.size());
    }
    const auto values = cpuReferenceOutputs(observing, origin + " (calibration)");
    for (size_t k = 0; k < values.size(); ++k) {
      observer.observe(observing.main.outputIndexes[k], values[k].data(), values[k].size());
    }
  }

  QuantizedRun run;
  run.calibrationSamples = samples.size();
  run.quantized = onnx::quantizeInt8(imported.model, observer.ranges());
  auto& q = run.quantized.model.main;
  for (size_t i = 0; i < q.inputIndexes.size(); ++i) {
    const auto& data = main.operands[main.inputIndexes[i]].data;
    if (keptAsIs(imported.inputs[i])) {
      q.operands[q.inputIndexes[i]].data = data;
      continue;
    }
    HostTensor f(DType::kFloat, imported.inputs[i].shape);
    std::memcpy(f.bytes.data(), data.data(), std::min(data.size(), f.bytes.size()));
    q.operands[q.inputIndexes[i]].data = test::TestBuffer(quantizeTensor(f, run.quantized.inputs[i]).bytes);
  }
  for (size_t i = 0; i < imported.outputs.size(); ++i) {
    run.outputs.push_back(onnx::ValueInfo(DType::kInt8, imported.outputs[i].shape, run.quantized.outputs[i]));
  }
  const auto reference = cpuReferenceOutputs(imported.model, origin + " (float)");
  for (size_t i = 0; i < reference.size(); ++i) {
    HostTensor t(DType::kFloat, imported.outputs[i].shape);
    std::memcpy(t.bytes.data(), reference[i].data(), std::min(reference[i].size(), t.bytes.size()));
    run.floatOutputs.push_back(std::move(t));
  }
  return run;
}

std::vector<OutputAccuracy> outputAccuracy(const QuantizedRun& run, const onnx::ImportedModel& imported,
                                           const std::vector<std::vector<uint8_t>>& int8Outputs) {
  std::vector<OutputAccuracy> result;
  for (size_t i = 0; i < int8Outputs.size() && i < run.floatOutputs.size(); ++i) {
    HostTensor q(DType::kInt8, run.outputs[i].shape);
    std::memcpy(q.bytes.data(), int8Outputs[i].data(), std::min(q.bytes.size(), int8Outputs[i].size()));
    const HostTensor d = onnx::dequantize(q, run.outputs[i].quant);
    const HostTensor& f = run.floatOutputs[i];
    double dot = 0, nq = 0, nf = 0;
    OutputAccuracy a;
    a.output = imported.outputNames[i];
    a.step = run.outputs[i].quant.scales[0];
    for (int64_t k = 0; k < f.size(); ++k) {
      const double x = d.asDouble(k), y = f.asDouble(k);
      dot += x * y;
      nq += x * x;
      nf += y * y;
      a.maxError = std::max(a.maxError, std::fabs(x - y));
      a.maxAbs = std::max(a.maxAbs, std::fabs(y));
    }
    a.cosine = nq > 0 && nf > 0 ? dot / std::sqrt(nq * nf) : (nq == nf ? 1.0 : 0.0);
    result.push_back(std::move(a));
  }
  return result;
}

std::string OutputAccuracy::describe() const {
  return fmt::format("output '{}': cosine similarity {:.4f}, max error {:.4g} (float outputs up to {:.4g}; one int8 "
                     "step {:.4g})",
                     output, cosine, maxError, maxAbs, step);
}

}  // namespace weft::tool
