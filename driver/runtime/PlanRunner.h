// Runs an execution plan step by step: builds each step's request from the client's arguments
// and the runtime's temporaries, calls the device, and carries output shapes forward. A
// temporary whose size only the device knows (dynamic shapes) starts empty and is regrown to
// the size the device reports, then the step is run again.
//
// startFencedPlan runs the same plan as a chain of fenced executions (hal::IPreparedModel::
// executeFenced): the first step waits for the given fences, each later step for the one before,
// and nothing waits on the host in between (as Android's ExecutionBuilder::computeFenced).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
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
  // The device's durations, for a one-step plan (kNoTiming otherwise): counted from when the step
  // was launched, and from when what it waited for had signalled (the same when nothing waited).
  nn::Timing timing;
  nn::Timing fencedTiming;
  std::vector<hal::ExecutionProfile> profiles;  // one per step run, client operation indexes
};

RunResult runPlan(const ExecutionPlan& plan, const std::vector<Argument>& inputs, const std::vector<Argument>& outputs,
                  const RunSettings& settings);

struct FencedPlanRun {
  hal::SyncFence fence;  // the last step's: signalled when the plan has run, failed when a step failed
  // Once `fence` has signalled: the outcome, as runPlan would give it. Keeps the temporaries and
  // everything the steps use alive until then.
  std::function<RunResult()> finish;
};

// nullopt when the plan cannot run fenced: a temporary between steps has a size only a device can
// tell (as Android, the caller then waits for the fences and runs the plan itself). The outputs
// must be fully specified. `timeoutAfterFences` bounds the first step from when `waitFor` signalled.
std::optional<FencedPlanRun> startFencedPlan(const ExecutionPlan& plan, const std::vector<Argument>& inputs,
                                             const std::vector<Argument>& outputs, const RunSettings& settings,
                                             const std::vector<hal::SyncFence>& waitFor,
                                             const hal::OptionalDuration& timeoutAfterFences);

}  // namespace weft::runtime
