#include "OnnxLayers.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string_view>

#include "ApiModelBuilder.h"
#include "CpuReference.h"
#include "HostTensor.h"
#include "Nnapi.h"
#include "PostTraining.h"
#include "Trace.h"
#include "weft/common/fnv1a.h"
#include "weft/runtime/Profile.h"

namespace weft::tool {
namespace {

using Clock = std::chrono::steady_clock;
using LifeTime = nn::Operand::LifeTime;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// The values flowing through `model` on the inputs its input operands hold: every operand an
// operation reads or writes that is not a constant, from one run of the whole model on the CPU
// reference (zeros where nothing reads values).
std::map<uint32_t, std::vector<uint8_t>> flowingValues(const test::TestModel& model, bool compute,
                                                       const std::string& origin) {
  const auto& main = model.main;
  std::map<uint32_t, std::vector<uint8_t>> values;
  for (uint32_t i : main.inputIndexes) {
    const test::TestBuffer& data = main.operands[i].data;
    values[i].assign(data.data(), data.data() + data.size());
  }
  std::set<uint32_t> computed;
  for (const test::TestOperation& op : main.operations) {
    for (uint32_t o : op.outputs) computed.insert(o);
  }
  if (!compute) {
    for (uint32_t o : computed) values[o].assign(operandBytes(main.operands[o]), 0);
    return values;
  }
  const std::vector<uint32_t> operands(computed.begin(), computed.end());
  const test::TestModel observing = onnx::observingModel(model, operands);
  const auto outputs = cpuReferenceOutputs(observing, origin + " (the values flowing into each layer)");
  for (size_t k = 0; k < outputs.size(); ++k) values[observing.main.outputIndexes[k]] = outputs[k];
  return values;
}

bool hasType(const test::TestModel& single, nn::OperandType type) {
  return std::any_of(single.main.operands.begin(), single.main.operands.end(),
                     [&](const test::TestOperand& o) { return o.type == type; });
}

// Why the accelerator cannot take the one operation of `single`, as far as weft's hardware says it
// for certain (DESIGN.md: the array computes int8, and float16 on a configuration with the fp16
// datapath, which also takes float32 where the model allows relaxed computation); empty otherwise.
std::string hardwareReason(const test::TestModel& single, const hw::HwConfig& hw) {
  const nn::OperationType type = single.main.operations.front().type;
  if (type == nn::OperationType::IF || type == nn::OperationType::WHILE) {
    return "control flow (IF/WHILE) runs on the CPU device only";
  }
  const bool float32 = hasType(single, nn::OperandType::TENSOR_FLOAT32);
  const bool float16 = hasType(single, nn::OperandType::TENSOR_FLOAT16) || (float32 && single.isRelaxed);
  if (float32 && !single.isRelaxed) {
    return hw.fp16() ? "float32 without relaxed computation: the accelerator computes int8, and float16 "
                       "(--relaxed lets float32 compute in float16; --quantize int8 quantizes the model)"
                     : fmt::format("float32: the accelerator computes int8 (--quantize int8), and float16 only with the "
                                   "fp16 datapath, which {} lacks (--hw weft16fp with --relaxed)",
                                   hw.name());
  }
  if (float16 && !hw.fp16()) {
    return fmt::format("float16: {} has no fp16 datapath (Fp16 0); --hw weft16fp has one", hw.name());
  }
  return "";
}

// Why the accelerator does not claim `single`: what the hardware makes certain (above), then its
// driver's own words (weft::runtime::getUnsupportedReasons); failing both, the operation and its
// operands.
std::string unclaimedReason(const test::TestModel& single, const hw::HwConfig& hw, const std::string& driverReason) {
  const std::string hardware = hardwareReason(single, hw);
  if (!hardware.empty()) return driverReason.empty() ? hardware : hardware + "; the driver: " + driverReason;
  if (!driverReason.empty()) return driverReason;
  const nn::OperationType type = single.main.operations.front().type;
  std::vector<std::string> operands;
  for (uint32_t o : single.main.operations.front().inputs) {
    const test::TestOperand& t = single.main.operands[o];
    if (t.dimensions.empty()) continue;  // scalar parameters
    operands.push_back(fmt::format("{} {}", nn::toString(t.type), fmt::join(t.dimensions, "x")));
  }
  return fmt::format("the accelerator's driver does not take {} on {} (getSupportedOperations)", nn::toString(type),
                     operands.empty() ? std::string("these operands") : fmt::format("{}", fmt::join(operands, ", ")));
}

// What decides the program the device runs for `single`: the operation, its operands' types,
// shapes and quantization, and the values of its small constants (parameters: axes, shapes,
// paddings; weights' values never change the timing).
std::string operationIdentity(const test::TestModel& single) {
  const auto& sub = single.main;
  std::string id = fmt::format("{} relaxed {}", single.operationName(sub.operations.front().type), single.isRelaxed);
  for (const test::TestOperand& o : sub.operands) {
    id += fmt::format("; {} [{}] {}/{} life {} pc [{}] {}", nn::toString(o.type), fmt::join(o.dimensions, "x"), o.scale,
                      o.zeroPoint, static_cast<int>(o.lifetime), fmt::join(o.channelQuant.scales, ","),
                      o.channelQuant.channelDim);
    if (isConstant(o) && o.data.size() <= 256) {
      id += " =";
      for (size_t k = 0; k < o.data.size(); ++k) id += fmt::format("{:02x}", o.data.data()[k]);
    }
  }
  return id;
}

std::string describeShape(const test::TestModel& single) {
  const auto& sub = single.main;
  const test::TestOperation& op = sub.operations.front();
  std::vector<std::string> in, out;
  for (uint32_t o : op.inputs) {
    const test::TestOperand& t = sub.operands[o];
    if (t.lifetime == LifeTime::SUBGRAPH_INPUT) in.push_back(fmt::format("{}", fmt::join(t.dimensions, "x")));
  }
  for (uint32_t o : op.outputs) out.push_back(fmt::format("{}", fmt::join(sub.operands[o].dimensions, "x")));
  return fmt::format("{} -> {}", in.empty() ? std::string("const") : fmt::format("{}", fmt::join(in, ",")),
                     fmt::join(out, ","));
}

}  // namespace

std::vector<std::string> onnxLayerNames(const LoadedOnnx& loaded) {
  std::vector<std::string> names;
  const auto& ops = loaded.model().main.operations;
  for (size_t i = 0; i < ops.size(); ++i) {
    names.push_back(i < loaded.operationNames.size() && !loaded.operationNames[i].empty()
                        ? loaded.operationNames[i]
                        : fmt::format("{}#{}", loaded.model().operationName(ops[i].type), i));
  }
  return names;
}

namespace {

// The layer's outputs as the accelerator wrote them against the CPU reference's on the same inputs:
// 8-bit values within one step (integer requantization and the reference's float rounding
// differ that much; WEFT_LAYER_NORM is within one unit), float ones within atol 1e-5 and rtol
// 1e-3 (float16 and relaxed float32: 2e-2, as `weft run` checks them), integers exactly.
void checkAgainstReference(const test::TestModel& model, const std::vector<uint32_t>& outputOperands,
                           const std::vector<std::vector<uint8_t>>& accelerator,
                           const std::map<uint32_t, std::vector<uint8_t>>& reference, LayerRun& run) {
  double worst = 0;
  bool passed = true;
  for (size_t k = 0; k < outputOperands.size(); ++k) {
    const auto want = reference.find(outputOperands[k]);
    if (want == reference.end()) return;  // nothing to compare with
    const test::TestOperand& o = model.main.operands[outputOperands[k]];
    const std::vector<uint8_t>& got = accelerator[k];
    const size_t n = std::min(got.size(), want->second.size());
    const auto read = [&](const std::vector<uint8_t>& bytes, size_t i) -> double {
      switch (o.type) {
        case nn::OperandType::TENSOR_QUANT8_ASYMM: return bytes[i];
        case nn::OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return static_cast<int8_t>(bytes[i]);
        case nn::OperandType::TENSOR_FLOAT32: {
          float v;
          std::memcpy(&v, bytes.data() + 4 * i, 4);
          return v;
        }
        case nn::OperandType::TENSOR_FLOAT16: {
          uint16_t h;
          std::memcpy(&h, bytes.data() + 2 * i, 2);
          return onnx::halfToFloat(h);
        }
        case nn::OperandType::TENSOR_INT32: {
          int32_t v;
          std::memcpy(&v, bytes.data() + 4 * i, 4);
          return v;
        }
        default: return bytes[i];
      }
    };
    const size_t width = o.type == nn::OperandType::TENSOR_FLOAT32 || o.type == nn::OperandType::TENSOR_INT32 ? 4
                         : o.type == nn::OperandType::TENSOR_FLOAT16                                             ? 2
                                                                                                                 : 1;
    const bool quant8 = o.type == nn::OperandType::TENSOR_QUANT8_ASYMM ||
                        o.type == nn::OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    const bool floating = o.type == nn::OperandType::TENSOR_FLOAT32 || o.type == nn::OperandType::TENSOR_FLOAT16;
    const bool loose = o.type == nn::OperandType::TENSOR_FLOAT16 || model.isRelaxed;
    const double atol = loose ? 2e-2 : 1e-5, rtol = loose ? 2e-2 : 1e-3;
    for (size_t i = 0; i < n / width; ++i) {
      const double a = read(got, i), e = read(want->second, i);
      if (floating && std::isnan(a) && std::isnan(e)) continue;
      const double d = std::fabs(a - e);
      worst = std::max(worst, std::isnan(d) ? INFINITY : d);
      if (quant8 ? d > 1 : floating ? !(d <= atol + rtol * std::fabs(e)) : d != 0) passed = false;
    }
  }
  run.referenceError = worst;
  run.referencePassed = passed;
}

}  // namespace

std::vector<LayerRun> runOnnxLayers(const LoadedOnnx& loaded, const hw::HwConfig& hw, const LayerRunOptions& options) {
  const test::TestModel& model = loaded.model();
  if (!model.referenced.empty()) {
    throw std::runtime_error(fmt::format("{}: control flow (IF/WHILE) runs on the CPU only", loaded.path));
  }
  ANeuralNetworksDevice* accelerator = findDevice(ANEURALNETWORKS_DEVICE_ACCELERATOR);
  const std::string cpuName = deviceName(findDevice(ANEURALNETWORKS_DEVICE_CPU));
  if (!options.cacheDir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(options.cacheDir, error);
    if (error) {
      throw std::runtime_error(fmt::format("cannot make the cache directory '{}': {}", options.cacheDir, error.message()));
    }
  }
  const std::vector<std::string> names = onnxLayerNames(loaded);
  const auto values = flowingValues(model, options.values == TensorValues::kDrawn, loaded.path);
  const size_t count = model.main.operations.size();
  std::map<std::string, size_t> firstOf;  // operationIdentity() -> the layer that has its figures
  std::vector<LayerRun> runs;
  TraceBudget traced;  // commands kept for the trace so far
  for (size_t i = 0; i < count; ++i) {
    if (options.onLayer) options.onLayer(i, count, names[i]);
    const auto prepareStart = Clock::now();
    const test::TestModel single = singleOperation(model, i, values);
    const test::TestSubgraph& sub = single.main;
    LayerRun run;
    run.name = names[i];
    run.op = single.operationName(sub.operations.front().type);
    run.shape = describeShape(single);
    for (const test::TestOperand& o : sub.operands) {
      if (!o.dimensions.empty() && o.lifetime != LifeTime::NO_VALUE) run.minDramBytes += operandBytes(o);
    }
    // The outputs the layer writes, as the whole model's CPU reference computed them (what an
    // operation left on the CPU gives for --outputs).
    std::vector<std::vector<uint8_t>> outputs;
    for (uint32_t o : model.main.operations[i].outputs) {
      const auto it = values.find(o);
      outputs.push_back(it != values.end() ? it->second : std::vector<uint8_t>(operandBytes(model.main.operands[o])));
    }
    auto keepOutputs = [&] {
      if (!options.keepOutputs) return;
      for (const auto& o : outputs) run.output.insert(run.output.end(), o.begin(), o.end());
    };

    test::ApiModelBuilder builder(single);
    if (builder.model() == nullptr) {
      throw std::runtime_error(fmt::format("{}: layer {} ({}): building its one-operation model failed: {}", loaded.path,
                                           run.name, run.op, builder.failure()));
    }
    bool claimed = false;
    check(ANeuralNetworksModel_getSupportedOperationsForDevices(builder.model(), &accelerator, 1, &claimed),
          "ANeuralNetworksModel_getSupportedOperationsForDevices");
    if (!claimed) {
      run.device = cpuName;
      // The driver's own words where it gives them, else what the tool can tell.
      const auto reasons = runtime::getUnsupportedReasons(builder.model(), accelerator);
      run.reason = unclaimedReason(single, hw, reasons.empty() ? std::string() : reasons.begin()->second);
      run.prepareSeconds = secondsSince(prepareStart);
      keepOutputs();
      runs.push_back(std::move(run));
      continue;
    }
    run.device = deviceName(accelerator);
    const std::string identity = operationIdentity(single);
    if (options.reuseIdentical) {
      const auto [known, added] = firstOf.emplace(identity, runs.size());
      if (!added) {
        LayerRun same = runs[known->second];
        same.name = run.name;
        same.sameAs = known->second;
        same.simulatorSeconds = same.executeSeconds = same.prepareSeconds = 0;
        runs.push_back(std::move(same));
        continue;
      }
    }
    ANeuralNetworksCompilation* rawCompilation = nullptr;
    check(ANeuralNetworksCompilation_createForDevices(builder.model(), &accelerator, 1, &rawCompilation),
          "ANeuralNetworksCompilation_createForDevices");
    CompilationPtr compilation(rawCompilation);
    if (!options.cacheDir.empty()) {
      // The constants' values too: a cache restores the compiled weights, and another model (or
      // another training of this one) may have the same names and shapes.
      uint64_t constants = common::kFnv1aOffsetBasis;
      for (const test::TestOperand& o : sub.operands) {
        if (isConstant(o)) {
          constants = common::fnv1a(std::string_view(reinterpret_cast<const char*>(o.data.data()), o.data.size()), constants);
        }
      }
      const auto token =
          layerCacheToken(fmt::format("{}|{}|{:016x}|{}", run.name, identity, constants, options.cacheSalt));
      check(ANeuralNetworksCompilation_setCaching(rawCompilation, options.cacheDir.c_str(), token.data()),
            "ANeuralNetworksCompilation_setCaching");
    }
    check(ANeuralNetworksCompilation_finish(rawCompilation),
          fmt::format("ANeuralNetworksCompilation_finish({}) on the accelerator alone", run.name));
    run.prepareSeconds = secondsSince(prepareStart);

    std::vector<double> simulator, execute;
    for (int r = 0; r < std::max(1, options.repeat); ++r) {
      ANeuralNetworksExecution* raw = nullptr;
      check(ANeuralNetworksExecution_create(rawCompilation, &raw), "ANeuralNetworksExecution_create");
      ExecutionPtr execution(raw);
      for (size_t k = 0; k < sub.inputIndexes.size(); ++k) {
        const test::TestBuffer& data = sub.operands[sub.inputIndexes[k]].data;
        check(ANeuralNetworksExecution_setInput(raw, static_cast<int32_t>(k), nullptr, data.data(), data.size()),
              "ANeuralNetworksExecution_setInput");
      }
      for (size_t k = 0; k < outputs.size(); ++k) {
        check(ANeuralNetworksExecution_setOutput(raw, static_cast<int32_t>(k), nullptr, outputs[k].data(),
                                                 outputs[k].size()),
              "ANeuralNetworksExecution_setOutput");
      }
      check(ANeuralNetworksExecution_setMeasureTiming(raw, true), "ANeuralNetworksExecution_setMeasureTiming");
      const auto start = Clock::now();
      check(ANeuralNetworksExecution_compute(raw), fmt::format("ANeuralNetworksExecution_compute({})", run.name));
      const LayerExecution e = profiledExecution(raw, secondsSince(start));
      if (r == 0) {
        recordFirstExecution(run, e, options.traceCommandLimit, traced);
        if (e.unitOps > 0) run.macs = e.unitOps;
      }
      simulator.push_back(e.simulatorSeconds);
      execute.push_back(e.executeSeconds);
    }
    run.simulatorSeconds = median(simulator);
    run.executeSeconds = median(execute);
    if (options.values == TensorValues::kDrawn) {
      checkAgainstReference(model, model.main.operations[i].outputs, outputs, values, run);
    }
    keepOutputs();  // the accelerator's
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace weft::tool
