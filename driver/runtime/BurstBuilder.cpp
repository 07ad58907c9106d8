#include "BurstBuilder.h"

#include "Errors.h"

namespace weft::runtime {

BurstBuilder::BurstBuilder(const CompilationBuilder* compilation) : compilation_(compilation) {
  for (const ExecutionStep& step : compilation->plan().steps()) {
    nn::Result<hal::SharedBurst> burst = step.preparedModel->configureExecutionBurst();
    if (burst.ok()) {
      stepBursts_.push_back(std::move(burst).value());
    } else {
      logWarning("device " + step.device->name() + " has no burst (" + burst.error().message +
                 "); its step runs as a plain execution");
      stepBursts_.push_back(nullptr);
    }
  }
}

}  // namespace weft::runtime
