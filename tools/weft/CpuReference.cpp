#include "CpuReference.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "ApiModelBuilder.h"
#include "Nnapi.h"

namespace weft::tool {

std::vector<std::vector<uint8_t>> cpuReferenceOutputs(const test::TestModel& model, const std::string& origin) {
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

}  // namespace weft::tool
