// The partitioner: cuts a finished model into steps, each a run of consecutive operations (in
// run order) on one device, compiled there. Each operation goes to the first device that
// supports it in preference order (accelerators before the CPU, in list order); IF and WHILE go
// to the CPU. A step its device fails to compile is compiled on the CPU device instead, unless
// the client chose the devices (createForDevices) or the failure is the model's (BAD_DATA).
// Values that flow between steps are temporaries the runtime allocates at execution time.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "DeviceManager.h"
#include "ModelBuilder.h"
#include "weft/hal/IPreparedModel.h"
#include "weft/runtime/Profile.h"

namespace weft::runtime {

// A step input or output: an operand of the main model, which may be one of its inputs or
// outputs (then it lives in the client's argument) or a temporary between steps.
struct StepOperand {
  uint32_t mainOperand = 0;
  std::optional<uint32_t> mainInput;   // its position among the main model's inputs
  std::optional<uint32_t> mainOutput;  // its position among the main model's outputs
};

struct ExecutionStep {
  const Device* device = nullptr;
  std::shared_ptr<const nn::Model> model;  // what the device compiled
  hal::SharedPreparedModel preparedModel;
  std::vector<StepOperand> inputs;   // in the order of model->main.inputIndexes
  std::vector<StepOperand> outputs;  // in the order of model->main.outputIndexes
  std::vector<uint32_t> clientOperations;  // step operation i -> index in the client's order
  CacheUse cacheUse = CacheUse::kNotRequested;
  double prepareSeconds = 0;  // wall time of the device's prepareModel (or cache restore)
};

struct PlanOptions {
  bool explicitDeviceList = false;  // createForDevices: fail rather than leave anything out
  nn::ExecutionPreference preference = nn::ExecutionPreference::FAST_SINGLE_ANSWER;
  nn::Priority priority = nn::Priority::MEDIUM;
  hal::OptionalTimePoint deadline;
  // setCaching: the client's directory, a key from its token, and the token itself
  std::optional<hal::CacheRequest> cache;
};

class ExecutionPlan {
 public:
  // BAD_DATA when an operation is supported by none of `devices`; a device's own error when
  // it fails to compile its step and the CPU cannot take the step over.
  static nn::Result<ExecutionPlan> create(std::shared_ptr<const FinishedModel> model,
                                          const std::vector<const Device*>& devices, const PlanOptions& options);

  const FinishedModel& model() const { return *model_; }
  const std::vector<ExecutionStep>& steps() const { return steps_; }
  // operationDevices()[i]: the device running the client's operation i.
  const std::vector<const Device*>& operationDevices() const { return operationDevices_; }
  // The number of distinct devices the steps run on.
  size_t deviceCount() const;

 private:
  std::shared_ptr<const FinishedModel> model_;
  std::vector<ExecutionStep> steps_;
  std::vector<const Device*> operationDevices_;
};

}  // namespace weft::runtime
