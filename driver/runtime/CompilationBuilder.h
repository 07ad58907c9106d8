// ANeuralNetworksCompilation: the settings of a compilation, then (finish) its execution plan.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ExecutionPlan.h"

namespace weft::runtime {

class CompilationBuilder {
 public:
  // `explicitDeviceList`: made by createForDevices (which restricts timing, timeouts and
  // fallbacks to what NNAPI allows for an explicit list).
  CompilationBuilder(std::shared_ptr<const FinishedModel> model, std::vector<const Device*> devices,
                     bool explicitDeviceList);

  nn::Status setPreference(int32_t preference);
  nn::Status setPriority(int32_t priority);
  nn::Status setTimeout(uint64_t durationNs);
  nn::Status setCaching(const char* cacheDir, const uint8_t* token);
  // Partitions and compiles. Called once: a failed finish leaves the compilation finished but
  // unusable (executions and bursts of it are BAD_STATE), as in NNAPI.
  nn::Status finish();

  bool isFinished() const { return finished_; }
  // BAD_STATE unless finish() succeeded.
  nn::Status checkUsable(const char* what) const;
  // createForDevices with exactly one device: the only case where NNAPI allows timing and
  // timeouts.
  bool isExplicitSingleDevice() const { return explicitDeviceList_ && devices_.size() == 1; }

  const FinishedModel& model() const { return *model_; }
  const nn::Subgraph& mainSubgraph() const { return model_->model.main; }
  const ExecutionPlan& plan() const { return *plan_; }
  const std::vector<const Device*>& devices() const { return devices_; }

 private:
  nn::Status checkModifiable() const;

  std::shared_ptr<const FinishedModel> model_;
  std::vector<const Device*> devices_;
  bool explicitDeviceList_;
  nn::ExecutionPreference preference_ = nn::ExecutionPreference::FAST_SINGLE_ANSWER;
  nn::Priority priority_ = nn::Priority::MEDIUM;
  std::optional<uint64_t> timeoutNs_;
  // setCaching: where the devices keep compilation caches, and the token naming this model there.
  std::optional<std::string> cacheDir_;
  std::array<uint8_t, ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN> cacheToken_{};
  bool finished_ = false;
  std::optional<ExecutionPlan> plan_;
};

}  // namespace weft::runtime
