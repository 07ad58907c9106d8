// weft::runtime's C++ extension (weft/runtime/Profile.h).
#include "weft/runtime/Profile.h"

#include "CompilationBuilder.h"
#include "DeviceManager.h"
#include "ExecutionBuilder.h"
#include "Handles.h"
#include "ModelBuilder.h"

namespace weft::runtime {

const std::vector<hal::ExecutionProfile>& getExecutionProfiles(const ANeuralNetworksExecution* execution) {
  static const std::vector<hal::ExecutionProfile> kNone;
  if (execution == nullptr) return kNone;
  return fromHandle(execution)->profiles();
}

std::vector<CompilationStep> getCompilationSteps(const ANeuralNetworksCompilation* compilation) {
  std::vector<CompilationStep> steps;
  if (compilation == nullptr || !fromHandle(compilation)->checkUsable("").ok()) return steps;
  for (const ExecutionStep& step : fromHandle(compilation)->plan().steps()) {
    steps.push_back(CompilationStep{step.device->name(), step.clientOperations, step.cacheUse, step.prepareSeconds});
  }
  return steps;
}

std::vector<std::string> getOperationDevices(const ANeuralNetworksCompilation* compilation) {
  std::vector<std::string> devices;
  if (compilation == nullptr || !fromHandle(compilation)->checkUsable("").ok()) return devices;
  for (const Device* device : fromHandle(compilation)->plan().operationDevices()) devices.push_back(device->name());
  return devices;
}

std::map<uint32_t, std::string> getUnsupportedReasons(const ANeuralNetworksModel* model,
                                                      const ANeuralNetworksDevice* device) {
  if (model == nullptr || device == nullptr || !DeviceManager::get().isKnown(fromHandle(device))) return {};
  const ModelBuilder& builder = *fromHandle(model);
  if (!builder.isFinished()) return {};
  const FinishedModel& finished = *builder.finished();
  auto reasons = fromHandle(device)->hal()->getUnsupportedReasons(finished.model);
  if (!reasons.ok()) return {};
  // The device speaks of operations in run order; the client knows them in the order it added them.
  std::map<uint32_t, std::string> byClientIndex;
  for (const auto& [index, reason] : *reasons) {
    if (index < finished.clientOperationIndex.size()) byClientIndex[finished.clientOperationIndex[index]] = reason;
  }
  return byClientIndex;
}

}  // namespace weft::runtime
