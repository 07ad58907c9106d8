#include "CpuReference.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "ApiModelBuilder.h"
#include "Nnapi.h"

namespace weft::tool {

using LifeTime = nn::Operand::LifeTime;

bool isConstant(const test::TestOperand& o) {
  return o.lifetime == LifeTime::CONSTANT_COPY || o.lifetime == LifeTime::CONSTANT_REFERENCE ||
         o.lifetime == LifeTime::NO_VALUE || o.lifetime == LifeTime::SUBGRAPH;
}

uint64_t operandBytes(const test::TestOperand& o) {
  return nn::numberOfElements(o.dimensions) * test::testElementSize(o.type);
}

namespace {

// `model` compiled for `devices` (none: NNAPI's own choice) and run once on its inputs.
std::vector<std::vector<uint8_t>> outputsOn(const test::TestModel& model, std::vector<ANeuralNetworksDevice*> devices,
                                            const std::string& origin, const char* what) {
  test::ApiModelBuilder builder(model);
  if (builder.model() == nullptr) {
    throw std::runtime_error(fmt::format("{}: building the model failed: {}", origin, builder.failure()));
  }
  ANeuralNetworksCompilation* rawCompilation = nullptr;
  if (devices.empty()) {
    check(ANeuralNetworksCompilation_create(builder.model(), &rawCompilation), "ANeuralNetworksCompilation_create");
  } else {
    check(ANeuralNetworksCompilation_createForDevices(builder.model(), devices.data(),
                                                      static_cast<uint32_t>(devices.size()), &rawCompilation),
          fmt::format("ANeuralNetworksCompilation_createForDevices({})", what));
  }
  CompilationPtr compilation(rawCompilation);
  check(ANeuralNetworksCompilation_finish(rawCompilation), fmt::format("ANeuralNetworksCompilation_finish({})", what));
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
    outputs[i].resize(std::max<size_t>(1, operandBytes(main.operands[main.outputIndexes[i]])));
    check(ANeuralNetworksExecution_setOutput(raw, static_cast<int32_t>(i), nullptr, outputs[i].data(), outputs[i].size()),
          "ANeuralNetworksExecution_setOutput");
  }
  check(ANeuralNetworksExecution_compute(raw), fmt::format("ANeuralNetworksExecution_compute({})", what));
  return outputs;
}

}  // namespace

std::vector<std::vector<uint8_t>> cpuReferenceOutputs(const test::TestModel& model, const std::string& origin) {
  return outputsOn(model, {findDevice(ANEURALNETWORKS_DEVICE_CPU)}, origin, "cpu reference");
}

std::vector<std::vector<uint8_t>> acceleratorOutputs(const test::TestModel& model, const std::string& origin) {
  test::ApiModelBuilder builder(model);
  if (builder.model() == nullptr) {
    throw std::runtime_error(fmt::format("{}: building the model failed: {}", origin, builder.failure()));
  }
  ANeuralNetworksDevice* accelerator = findDevice(ANEURALNETWORKS_DEVICE_ACCELERATOR);
  const size_t count = model.main.operations.size();
  std::unique_ptr<bool[]> supported(new bool[std::max<size_t>(1, count)]);
  check(ANeuralNetworksModel_getSupportedOperationsForDevices(builder.model(), &accelerator, 1, supported.get()),
        "ANeuralNetworksModel_getSupportedOperationsForDevices");
  const bool whole = std::all_of(supported.get(), supported.get() + count, [](bool s) { return s; });
  return outputsOn(model, whole ? std::vector<ANeuralNetworksDevice*>{accelerator} : std::vector<ANeuralNetworksDevice*>{},
                   origin, "accelerator");
}

// Operation `index` of `model` as a model of its own: its constant operands as they are, its
// other inputs model inputs holding `values`, its outputs the model's outputs.
test::TestModel singleOperation(const test::TestModel& model, size_t index,
                                const std::map<uint32_t, std::vector<uint8_t>>& values) {
  const auto& main = model.main;
  const test::TestOperation& op = main.operations[index];
  test::TestModel single;
  single.name = fmt::format("{} operation {}", model.name, index);
  single.isRelaxed = model.isRelaxed;
  single.extensionNameToPrefix = model.extensionNameToPrefix;
  single.referenced = model.referenced;
  auto& sub = single.main;
  std::map<uint32_t, uint32_t> mapped;  // operand of `model` -> operand of `single`
  auto map = [&](uint32_t o, bool output) {
    if (auto it = mapped.find(o); it != mapped.end()) return it->second;
    test::TestOperand copy = main.operands[o];
    if (output) {
      copy.lifetime = LifeTime::SUBGRAPH_OUTPUT;
      copy.data = test::TestBuffer();
    } else if (!isConstant(copy)) {
      copy.lifetime = LifeTime::SUBGRAPH_INPUT;
      const auto it = values.find(o);
      copy.data = it != values.end() ? test::TestBuffer(it->second) : test::TestBuffer(std::vector<uint8_t>(operandBytes(copy)));
    }
    const auto k = static_cast<uint32_t>(sub.operands.size());
    sub.operands.push_back(std::move(copy));
    if (output) {
      sub.outputIndexes.push_back(k);
    } else if (sub.operands[k].lifetime == LifeTime::SUBGRAPH_INPUT) {
      sub.inputIndexes.push_back(k);
    }
    mapped[o] = k;
    return k;
  };
  test::TestOperation copy;
  copy.type = op.type;
  for (uint32_t o : op.inputs) copy.inputs.push_back(map(o, false));
  for (uint32_t o : op.outputs) copy.outputs.push_back(map(o, true));
  sub.operations.push_back(std::move(copy));
  return single;
}

}  // namespace weft::tool
