// ANeuralNetworksExecution: the arguments of one application of a compilation, its computations
// (synchronous, asynchronous, with dependencies, on a burst) and their results: output shapes,
// durations and per-step profiles.
//
// States as in NNAPI: preparation (arguments may be set) -> computation -> completed; a reusable
// execution may compute again from completed. A call that is rejected (bad argument or state)
// changes nothing; a computation that fails completes the execution with that error.
#pragma once

#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "Argument.h"
#include "CompilationBuilder.h"
#include "Event.h"
#include "PlanRunner.h"

namespace weft::runtime {

class BurstBuilder;

// NNAPI's WHILE loop timeouts (ANeuralNetworks_getDefaultLoopTimeout / getMaximumLoopTimeout).
uint64_t defaultLoopTimeoutNs();
uint64_t maximumLoopTimeoutNs();

class ExecutionBuilder {
 public:
  explicit ExecutionBuilder(const CompilationBuilder* compilation);
  // Waits for an asynchronous computation still running.
  ~ExecutionBuilder();

  nn::Status setInput(uint32_t index, const ANeuralNetworksOperandType* type, const void* buffer, size_t length);
  nn::Status setInputFromMemory(uint32_t index, const ANeuralNetworksOperandType* type, const RuntimeMemory& memory,
                                size_t offset, size_t length);
  nn::Status setOutput(uint32_t index, const ANeuralNetworksOperandType* type, void* buffer, size_t length);
  nn::Status setOutputFromMemory(uint32_t index, const ANeuralNetworksOperandType* type, const RuntimeMemory& memory,
                                 size_t offset, size_t length);
  nn::Status setMeasureTiming(bool measure);
  nn::Status setTimeout(uint64_t durationNs);
  nn::Status setLoopTimeout(uint64_t durationNs);
  nn::Status enableInputAndOutputPadding(bool enable);
  nn::Status setReusable(bool reusable);

  // Synchronous computation, on `burst` when given.
  nn::Status compute(BurstBuilder* burst = nullptr);
  // Asynchronous computation after every dependency has signalled (none for startCompute);
  // `durationAfterDependenciesNs` is startComputeWithDependencies' timeout (0 = none).
  nn::Result<std::unique_ptr<Event>> startCompute(const std::vector<const Event*>& dependencies,
                                                  uint64_t durationAfterDependenciesNs, bool withDependencies);

  // On a completed execution. getDuration's duration is UINT64_MAX when timing was not asked for
  // or is not available; the rank/dimensions queries return OUTPUT_INSUFFICIENT_SIZE (with the
  // values) for an output whose buffer was too small.
  nn::Status getDuration(int32_t durationCode, uint64_t* duration) const;
  nn::Status getOutputOperandRank(uint32_t index, uint32_t* rank) const;
  nn::Status getOutputOperandDimensions(uint32_t index, uint32_t* dimensions) const;

  const CompilationBuilder* compilation() const { return compilation_; }
  // One profile per step of the latest computation.
  const std::vector<hal::ExecutionProfile>& profiles() const;

 private:
  enum class State { kPreparation, kComputation, kCompleted };

  nn::Status checkPreparation(const char* what) const;
  nn::Status checkArgumentType(const nn::Operand& operand, const ANeuralNetworksOperandType* type,
                               bool allowUnspecified) const;
  nn::Result<Argument> makeArgument(const nn::Operand& operand, const ANeuralNetworksOperandType* type,
                                    uint32_t length) const;
  // The model operand of input (output) `index`; BAD_DATA when the index is out of range.
  nn::Result<nn::Operand> argumentOperand(IoType io, uint32_t index) const;
  // setInput / setOutput: a buffer, or NULL with length 0 for an omitted argument.
  nn::Status setPointerArgument(IoType io, const char* caller, uint32_t index, const ANeuralNetworksOperandType* type,
                                void* buffer, size_t length);
  // setInputFromMemory / setOutputFromMemory.
  nn::Status setMemoryArgument(IoType io, const char* caller, uint32_t index, const ANeuralNetworksOperandType* type,
                               const RuntimeMemory& memory, size_t offset, size_t length);
  // Checks that a computation may start (state, every argument set, ...) and enters the
  // computation state. Nothing changes when it fails.
  nn::Status beginComputation(bool needFullySpecifiedOutputs);
  RunSettings runSettings(BurstBuilder* burst, hal::OptionalTimePoint deadline) const;
  // Records what a computation gave and completes the execution; returns its status.
  // `waitedForDependenciesNs` is added to the in-driver time of a computation the runtime started
  // only after its dependencies (the fenced durations leave it out).
  nn::Status complete(RunResult result, uint64_t waitedForDependenciesNs);
  // Completes a computation that failed before running (a failed dependency, no thread).
  void completeWithoutRunning(nn::ErrorStatus error);
  std::vector<Argument> argumentsWithMemoryDimensions(const std::vector<Argument>& arguments) const;
  // For the output shape queries, with the lock held: the shape of output `index` of a completed
  // computation (BAD_STATE before completion or after a failure other than
  // OUTPUT_INSUFFICIENT_SIZE, BAD_DATA for an index out of range), and OUTPUT_INSUFFICIENT_SIZE
  // when that output's buffer was too small.
  nn::Result<const nn::OutputShape*> completedOutputShape(uint32_t index) const;
  nn::Status checkOutputSufficient(uint32_t index) const;

  const CompilationBuilder* compilation_;
  const nn::Subgraph& main_;
  std::vector<Argument> inputs_;
  std::vector<Argument> outputs_;
  bool measureTiming_ = false;
  std::optional<uint64_t> timeoutNs_;
  uint64_t loopTimeoutNs_;
  bool paddingEnabled_ = false;
  bool anyArgumentSet_ = false;
  bool reusable_ = false;

  mutable std::mutex mutex_;  // guards the state and the results below
  State state_ = State::kPreparation;
  nn::ErrorStatus completion_ = nn::ErrorStatus::NONE;
  std::vector<nn::OutputShape> outputShapes_;
  nn::Timing timing_;         // as the device reported, once the execution has started
  nn::Timing fencedTiming_;   // from when the dependencies signalled
  std::vector<hal::ExecutionProfile> profiles_;

  std::thread worker_;  // the latest asynchronous computation
};

}  // namespace weft::runtime
