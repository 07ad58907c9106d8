// ANeuralNetworksBurst: a context for a rapid sequence of executions of one compilation; holds
// one device burst per step of the plan, used by one execution at a time.
#pragma once

#include <atomic>
#include <vector>

#include "CompilationBuilder.h"
#include "weft/hal/IBurst.h"

namespace weft::runtime {

class BurstBuilder {
 public:
  explicit BurstBuilder(const CompilationBuilder* compilation);

  const CompilationBuilder* compilation() const { return compilation_; }
  // The device burst of step `i`, or nullptr when the device offers none (the step then runs
  // on its prepared model).
  const hal::SharedBurst& stepBurst(size_t i) const { return stepBursts_[i]; }

  // NNAPI allows one execution at a time on a burst: false when it is in use.
  bool tryAcquire() { return !inUse_.exchange(true); }
  void release() { inUse_ = false; }

 private:
  const CompilationBuilder* compilation_;
  std::vector<hal::SharedBurst> stepBursts_;
  std::atomic<bool> inUse_{false};
};

}  // namespace weft::runtime
