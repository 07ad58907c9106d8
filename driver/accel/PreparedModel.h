// A compiled model on the accelerator (NN HAL IPreparedModel): each execution copies the
// inputs into device DRAM, runs the model's program, reads the snapshots and copies the
// outputs back.
#pragma once

#include <memory>

#include "DeviceQueue.h"
#include "ModelCompiler.h"
#include "weft/hal/IPreparedModel.h"

namespace weft::accel {

class PreparedModel : public hal::IPreparedModel, public std::enable_shared_from_this<PreparedModel> {
 public:
  PreparedModel(std::shared_ptr<DeviceQueue> queue, const nn::Model& model,
                std::shared_ptr<const CompiledModel> compiled);

  nn::Result<hal::ExecutionResult> execute(const nn::Request& request, nn::MeasureTiming measure,
                                           const hal::OptionalTimePoint& deadline,
                                           const hal::OptionalDuration& loopTimeoutDuration) const override;
  nn::Result<hal::SharedBurst> configureExecutionBurst() const override;

  const CompiledModel& compiled() const { return *compiled_; }

 private:
  std::shared_ptr<DeviceQueue> queue_;
  std::shared_ptr<const CompiledModel> compiled_;
  std::vector<uint32_t> inputOperands_, outputOperands_;
  std::vector<nn::Operand> inputDecl_;  // declared model inputs, to check request dimensions
};

}  // namespace weft::accel
