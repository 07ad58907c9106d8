// A burst (NN HAL IBurst): executions of one prepared model in a row. The accelerator keeps
// everything a prepared model needs resident in device DRAM already, so a burst is the
// prepared model's own execute path, kept alive by the burst.
#pragma once

#include <memory>

#include "PreparedModel.h"
#include "weft/hal/IBurst.h"

namespace weft::accel {

class Burst : public hal::IBurst {
 public:
  explicit Burst(std::shared_ptr<const PreparedModel> model) : model_(std::move(model)) {}
  nn::Result<hal::ExecutionResult> execute(const nn::Request& request, nn::MeasureTiming measure,
                                           const hal::OptionalTimePoint& deadline,
                                           const hal::OptionalDuration& loopTimeoutDuration) const override {
    return model_->execute(request, measure, deadline, loopTimeoutDuration);
  }

 private:
  std::shared_ptr<const PreparedModel> model_;
};

}  // namespace weft::accel
