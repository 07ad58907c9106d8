// A model prepared on the CPU reference device: a self-contained copy of the model, run by
// weft::nn::executeOnCpu for each request.
#pragma once

#include <memory>
#include <string>

#include "weft/hal/IBurst.h"
#include "weft/hal/IPreparedModel.h"

namespace weft::cpu {

class CpuPreparedModel final : public hal::IPreparedModel,
                               public std::enable_shared_from_this<CpuPreparedModel> {
 public:
  CpuPreparedModel(nn::Model model, std::string deviceName);

  // On-hardware time is the time spent in executeOnCpu (the kernels); in-driver time is the
  // whole call, so it is never less than on-hardware time.
  nn::Result<hal::ExecutionResult> execute(const nn::Request& request, nn::MeasureTiming measure,
                                           const hal::OptionalTimePoint& deadline,
                                           const hal::OptionalDuration& loopTimeoutDuration) const override;

  nn::Result<hal::SharedBurst> configureExecutionBurst() const override;

 private:
  nn::Model model_;
  std::string deviceName_;
};

// A burst on the CPU keeps nothing between executions: it runs each one on its prepared model.
class CpuBurst final : public hal::IBurst {
 public:
  explicit CpuBurst(std::shared_ptr<const CpuPreparedModel> preparedModel)
      : preparedModel_(std::move(preparedModel)) {}
  nn::Result<hal::ExecutionResult> execute(const nn::Request& request, nn::MeasureTiming measure,
                                           const hal::OptionalTimePoint& deadline,
                                           const hal::OptionalDuration& loopTimeoutDuration) const override {
    return preparedModel_->execute(request, measure, deadline, loopTimeoutDuration);
  }

 private:
  std::shared_ptr<const CpuPreparedModel> preparedModel_;
};

}  // namespace weft::cpu
