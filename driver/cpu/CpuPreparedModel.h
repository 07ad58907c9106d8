// A model prepared on the CPU reference device: a self-contained copy of the model, run by
// weft::nn::executeOnCpu for each request, when the device's scheduler gives it its turn
// (CpuExecutionScheduler.h: priority, LOW_POWER).
//
// SUSTAINED_SPEED and FAST_SINGLE_ANSWER differ in when the model is validated: a model prepared
// for sustained speed is validated once, at preparation (which takes longer and refuses an
// invalid model at once), and its executions skip that work; one prepared for a fast single
// answer is ready at once and validated by each execution. LOW_POWER behaves as the latter and
// runs on the device's low-power worker.
#pragma once

#include <memory>
#include <string>

#include "CpuExecutionScheduler.h"
#include "weft/hal/IBurst.h"
#include "weft/hal/IPreparedModel.h"

namespace weft::cpu {

struct CpuPreparation {
  nn::ExecutionPreference preference = nn::ExecutionPreference::FAST_SINGLE_ANSWER;
  nn::Priority priority = nn::Priority::MEDIUM;
  bool modelValidated = false;  // validateModel() accepted the model already
};

class CpuPreparedModel final : public hal::IPreparedModel,
                               public std::enable_shared_from_this<CpuPreparedModel> {
 public:
  CpuPreparedModel(nn::Model model, std::string deviceName, CpuPreparation preparation,
                   std::shared_ptr<CpuExecutionScheduler> scheduler);

  // On-hardware time is the time spent in executeOnCpu (the kernels); in-driver time is the
  // whole call, so it is never less than on-hardware time.
  nn::Result<hal::ExecutionResult> execute(const nn::Request& request, nn::MeasureTiming measure,
                                           const hal::OptionalTimePoint& deadline,
                                           const hal::OptionalDuration& loopTimeoutDuration) const override;

  nn::Result<hal::SharedBurst> configureExecutionBurst() const override;

  const nn::Model& model() const { return model_; }
  const CpuPreparation& preparation() const { return preparation_; }

 private:
  nn::Result<hal::ExecutionResult> executeNow(const nn::Request& request, nn::MeasureTiming measure,
                                              const hal::OptionalTimePoint& deadline,
                                              const hal::OptionalDuration& loopTimeoutDuration,
                                              std::chrono::steady_clock::time_point driverStart) const;

  nn::Model model_;
  std::string deviceName_;
  CpuPreparation preparation_;
  std::shared_ptr<CpuExecutionScheduler> scheduler_;
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
