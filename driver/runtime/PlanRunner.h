// Runs an execution plan step by step: builds each step's request from the client's arguments
// and the runtime's temporaries, calls the device, and carries output shapes forward. A
// temporary whose size only the device knows (dynamic shapes) starts empty and is regrown to
// the size the device reports, then the step is run again.
#pragma once

#include <chrono>
#include <vector>

#include "Argument.h"
#include "BurstBuilder.h"
#include "ExecutionPlan.h"

namespace weft::runtime {

struct RunSettings {
  hal::OptionalTimePoint deadline;
  std::chrono::nanoseconds loopTimeout{0};
  const BurstBuilder* burst = nullptr;
};

struct RunResult {
  nn::Status status;  // OUTPUT_INSUFFICIENT_SIZE when a main output's buffer was too small
  std::vector<nn::OutputShape> outputShapes;  // one per main output
  nn::Timing timing;  // the device's, for a one-step plan; kNoTiming otherwise
  std::vector<hal::ExecutionProfile> profiles;  // one per step run, client operation indexes
};

RunResult runPlan(const ExecutionPlan& plan, const std::vector<Argument>& inputs, const std::vector<Argument>& outputs,
                  const RunSettings& settings);

}  // namespace weft::runtime
