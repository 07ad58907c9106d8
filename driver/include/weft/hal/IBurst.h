// A burst (as NN HAL IBurst): a sequence of executions of one prepared model that may keep
// resources (mapped memories, device state) between them.
#pragma once

#include "weft/hal/IPreparedModel.h"

namespace weft::hal {

class IBurst {
 public:
  virtual ~IBurst() = default;
  virtual Result<ExecutionResult> execute(const nn::Request& request, nn::MeasureTiming measure,
                                          const OptionalTimePoint& deadline,
                                          const OptionalDuration& loopTimeoutDuration) const = 0;
};

}  // namespace weft::hal
