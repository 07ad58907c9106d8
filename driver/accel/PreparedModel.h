// A compiled model on the accelerator (NN HAL IPreparedModel): each execution copies the
// inputs into device DRAM, runs the model's program, reads the snapshots and copies the
// outputs back. A model with shape parameters given at execution (ExecutionParameters.h) is
// compiled by the execution that brings their values; the last few compilations are kept.
#pragma once

#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "DeviceQueue.h"
#include "ModelCompiler.h"
#include "weft/hal/IPreparedModel.h"

namespace weft::accel {

class PreparedModel : public hal::IPreparedModel, public std::enable_shared_from_this<PreparedModel> {
 public:
  // `compiled` is null when the model has execution parameters: it is compiled per execution.
  // Its executions wait for the device with `priority` (DeviceQueue::waitForTurn); a model
  // compiled per execution is compiled for `preference` (compileModel).
  PreparedModel(std::shared_ptr<DeviceQueue> queue, const nn::Model& model,
                std::shared_ptr<const CompiledModel> compiled, nn::Priority priority = nn::Priority::MEDIUM,
                nn::ExecutionPreference preference = nn::ExecutionPreference::FAST_SINGLE_ANSWER);
  // A compilation restored from a cache (PreparedModelCache.h): no model, only its inputs and
  // outputs.
  PreparedModel(std::shared_ptr<DeviceQueue> queue, std::vector<uint32_t> inputOperands,
                std::vector<uint32_t> outputOperands, std::shared_ptr<const CompiledModel> compiled,
                nn::Priority priority = nn::Priority::MEDIUM);

  nn::Result<hal::ExecutionResult> execute(const nn::Request& request, nn::MeasureTiming measure,
                                           const hal::OptionalTimePoint& deadline,
                                           const hal::OptionalDuration& loopTimeoutDuration) const override;
  nn::Result<hal::SharedBurst> configureExecutionBurst() const override;
  // Queued on the device's FencedQueue, which starts it once `waitFor` has signalled (no thread
  // of its own per execution), in this model's priority.
  nn::Result<hal::FencedExecution> executeFenced(const nn::Request& request, const std::vector<hal::SyncFence>& waitFor,
                                                 nn::MeasureTiming measure, const hal::OptionalTimePoint& deadline,
                                                 const hal::OptionalDuration& loopTimeoutDuration,
                                                 const hal::OptionalDuration& timeoutDurationAfterFence) const override;

  // The compilation of a model without execution parameters (null for one with them).
  const CompiledModel& compiled() const { return *compiled_; }
  bool isCompiled() const { return compiled_ != nullptr; }
  const std::shared_ptr<DeviceQueue>& queue() const { return queue_; }
  const std::vector<uint32_t>& inputOperands() const { return inputOperands_; }
  const std::vector<uint32_t>& outputOperands() const { return outputOperands_; }

 private:
  // execute() without its guard: a simulator fault (a DRAM access out of range, say) surfaces
  // as an exception here; execute() turns it into OP_FAILED and resets the device.
  nn::Result<hal::ExecutionResult> executeOnDevice(const nn::Request& request, nn::MeasureTiming measure,
                                                   const hal::OptionalTimePoint& deadline) const;
  // The compilation for this request's parameter values: kept, or made now.
  // Past `deadline` (the execution's), the compilation stops with MISSED_DEADLINE_PERSISTENT.
  nn::Result<std::shared_ptr<const CompiledModel>> compiledFor(const nn::Request& request,
                                                               const hal::OptionalTimePoint& deadline) const;

  std::shared_ptr<DeviceQueue> queue_;
  std::shared_ptr<const CompiledModel> compiled_;
  nn::Priority priority_;
  nn::ExecutionPreference preference_ = nn::ExecutionPreference::FAST_SINGLE_ANSWER;
  // Execution parameters: the model, which of its inputs they are, compilations by value.
  nn::Model model_;
  std::vector<uint32_t> parameters_;
  mutable std::mutex specializationsMutex_;
  mutable std::list<std::pair<std::string, std::shared_ptr<const CompiledModel>>> specializations_;
  std::vector<uint32_t> inputOperands_, outputOperands_;
};

}  // namespace weft::accel
