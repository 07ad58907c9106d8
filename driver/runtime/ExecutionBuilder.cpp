#include "ExecutionBuilder.h"

#include <algorithm>
#include <chrono>
#include <limits>

#include "BurstBuilder.h"
#include "Errors.h"
#include "OperandTypes.h"

namespace weft::runtime {

namespace {

using Clock = std::chrono::steady_clock;

constexpr uint64_t kDefaultLoopTimeoutNs = 2'000'000'000;
constexpr uint64_t kMaximumLoopTimeoutNs = 15'000'000'000;

// Durations beyond this (about 31 years) are as good as none.
hal::OptionalTimePoint deadlineAfter(Clock::time_point start, std::optional<uint64_t> durationNs) {
  if (!durationNs.has_value() || *durationNs > 1'000'000'000'000'000'000ULL) return std::nullopt;
  return start + std::chrono::nanoseconds(static_cast<int64_t>(*durationNs));
}

uint64_t nanosecondsBetween(Clock::time_point start, Clock::time_point end) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
}

uint64_t addDurations(uint64_t a, uint64_t b) {
  if (a == nn::kNoTiming || b == nn::kNoTiming) return nn::kNoTiming;
  return std::min(a + b, nn::kNoTiming - 1);
}

}  // namespace

uint64_t defaultLoopTimeoutNs() { return kDefaultLoopTimeoutNs; }
uint64_t maximumLoopTimeoutNs() { return kMaximumLoopTimeoutNs; }

ExecutionBuilder::ExecutionBuilder(const CompilationBuilder* compilation)
    : compilation_(compilation),
      main_(compilation->mainSubgraph()),
      inputs_(main_.inputIndexes.size()),
      outputs_(main_.outputIndexes.size()),
      loopTimeoutNs_(kDefaultLoopTimeoutNs) {}

ExecutionBuilder::~ExecutionBuilder() {
  if (worker_.joinable()) worker_.join();
}

nn::Status ExecutionBuilder::checkPreparation(const char* what) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ != State::kPreparation) {
    return NN_ERROR(BAD_STATE) << what << " is only allowed before the execution's first computation";
  }
  return {};
}

nn::Status ExecutionBuilder::checkArgumentType(const nn::Operand& operand, const ANeuralNetworksOperandType* type,
                                               bool allowUnspecified) const {
  nn::Result<nn::OperandTypeInfo> info = typeInfo(compilation_->model().model, operand.type);
  if (!info.ok()) return info.error();
  if (type == nullptr) {
    if (!allowUnspecified && !hasKnownSize(*info, operand.dimensions)) {
      return NN_ERROR(BAD_DATA) << "the operand's dimensions " << toString(operand.dimensions)
                                << " are not fully specified: pass a type that specifies them";
    }
    return {};
  }
  NN_TRY(validateOperandType(*type, allowUnspecified, nn::isExtension(operand.type) ? &*info : nullptr));
  if (static_cast<nn::OperandType>(type->type) != operand.type || type->scale != operand.scale ||
      type->zeroPoint != operand.zeroPoint) {
    return NN_ERROR(BAD_DATA) << "the type (" << type->type << ", scale " << type->scale << ", zeroPoint "
                              << type->zeroPoint << ") differs from the model operand's ("
                              << nn::toString(operand.type) << ", scale " << operand.scale << ", zeroPoint "
                              << operand.zeroPoint << "); only unspecified dimensions may be given";
  }
  if (!operand.dimensions.empty()) {
    const nn::Dimensions given = dimensionsOf(*type);
    if (given.size() != operand.dimensions.size()) {
      return NN_ERROR(BAD_DATA) << "rank " << given.size() << " differs from the operand's "
                                << toString(operand.dimensions);
    }
    for (size_t i = 0; i < given.size(); ++i) {
      if (operand.dimensions[i] != 0 && given[i] != operand.dimensions[i]) {
        return NN_ERROR(BAD_DATA) << "dimensions " << toString(given) << " override the specified dimensions "
                                  << toString(operand.dimensions);
      }
    }
  }
  return {};
}

nn::Result<Argument> ExecutionBuilder::makeArgument(const nn::Operand& operand, const ANeuralNetworksOperandType* type,
                                                    uint32_t length) const {
  Argument argument;
  argument.dimensions = operand.dimensions;
  if (type != nullptr) {
    nn::Result<nn::Dimensions> combined = combine(dimensionsOf(*type), operand.dimensions);
    if (!combined.ok()) return combined.error();
    argument.dimensions = std::move(combined).value();
  }
  nn::Result<nn::OperandTypeInfo> info = typeInfo(compilation_->model().model, operand.type);
  if (!info.ok()) return info.error();
  uint32_t needed = 0;
  if (hasKnownSize(*info, argument.dimensions)) {
    const std::optional<uint32_t> size = byteSize(*info, argument.dimensions);
    if (!size.has_value()) return NN_ERROR(BAD_DATA) << "the operand's size exceeds 4 GiB";
    needed = *size;
  }
  if (needed > length) {
    return NN_ERROR(BAD_DATA) << "length " << length << " is less than the operand's size " << needed << " ("
                              << nn::toString(operand.type) << " " << toString(argument.dimensions) << ")";
  }
  if (needed != 0 && length > needed && !paddingEnabled_) {
    return NN_ERROR(BAD_DATA) << "length " << length << " exceeds the operand's size " << needed
                              << " (longer buffers need ANeuralNetworksExecution_enableInputAndOutputPadding)";
  }
  argument.length = length;
  return argument;
}

nn::Result<nn::Operand> ExecutionBuilder::argumentOperand(IoType io, uint32_t index) const {
  const bool input = io == IoType::kInput;
  const char* what = input ? "input" : "output";
  const size_t count = input ? inputs_.size() : outputs_.size();
  if (index >= count) {
    return NN_ERROR(BAD_DATA) << what << " index " << static_cast<int32_t>(index) << " is out of range (the model has "
                              << count << " " << what << "s)";
  }
  return main_.operands[(input ? main_.inputIndexes : main_.outputIndexes)[index]];
}

nn::Status ExecutionBuilder::setPointerArgument(IoType io, const char* caller, uint32_t index,
                                                const ANeuralNetworksOperandType* type, void* buffer, size_t length) {
  NN_TRY(checkPreparation(caller));
  nn::Result<nn::Operand> operand = argumentOperand(io, index);
  if (!operand.ok()) return operand.error();
  const bool input = io == IoType::kInput;
  const char* what = input ? "input" : "output";
  // An output's dimensions may stay unspecified; an input's only when it is omitted.
  NN_TRY(checkArgumentType(*operand, type, /*allowUnspecified=*/!input || buffer == nullptr));
  if (length > std::numeric_limits<uint32_t>::max()) return NN_ERROR(BAD_DATA) << "length exceeds 4 GiB";
  if ((buffer == nullptr) != (length == 0)) {
    return NN_ERROR(BAD_DATA) << "the buffer must be NULL exactly when the length is 0 (an omitted " << what << ")";
  }
  std::vector<Argument>& arguments = input ? inputs_ : outputs_;
  if (arguments[index].state != Argument::State::kUnspecified) {
    return NN_ERROR(BAD_STATE) << what << " " << index << " is already set";
  }
  Argument argument;
  if (buffer == nullptr) {
    argument.state = Argument::State::kNoValue;
  } else {
    nn::Result<Argument> made = makeArgument(*operand, type, static_cast<uint32_t>(length));
    if (!made.ok()) return made.error();
    argument = std::move(made).value();
    argument.state = Argument::State::kPointer;
    argument.buffer = buffer;
  }
  arguments[index] = std::move(argument);
  anyArgumentSet_ = true;
  return {};
}

nn::Status ExecutionBuilder::setMemoryArgument(IoType io, const char* caller, uint32_t index,
                                               const ANeuralNetworksOperandType* type, const RuntimeMemory& memory,
                                               size_t offset, size_t length) {
  NN_TRY(checkPreparation(caller));
  nn::Result<nn::Operand> found = argumentOperand(io, index);
  if (!found.ok()) return found.error();
  nn::Operand operand = std::move(found).value();
  const bool input = io == IoType::kInput;
  // A memory from a descriptor may supply the dimensions the model leaves unspecified.
  if (memory.isFromDescription()) {
    nn::Result<nn::Dimensions> combined = combine(operand.dimensions, memory.description()->dimensions);
    if (combined.ok()) operand.dimensions = std::move(combined).value();
  }
  NN_TRY(checkArgumentType(operand, type, /*allowUnspecified=*/!input));
  NN_TRY(memory.validateForExecution(compilation_, io, index, type, offset, length));
  if (memory.isFromDescription()) length = memory.size();
  if (offset > std::numeric_limits<uint32_t>::max() || length > std::numeric_limits<uint32_t>::max()) {
    return NN_ERROR(BAD_DATA) << "offset or length exceeds 4 GiB";
  }
  std::vector<Argument>& arguments = input ? inputs_ : outputs_;
  if (arguments[index].state != Argument::State::kUnspecified) {
    return NN_ERROR(BAD_STATE) << (input ? "input " : "output ") << index << " is already set";
  }
  nn::Result<Argument> made = makeArgument(operand, type, static_cast<uint32_t>(length));
  if (!made.ok()) return made.error();
  Argument argument = std::move(made).value();
  argument.state = Argument::State::kMemory;
  argument.memory = &memory;
  argument.offset = static_cast<uint32_t>(offset);
  arguments[index] = std::move(argument);
  anyArgumentSet_ = true;
  return {};
}

nn::Status ExecutionBuilder::setInput(uint32_t index, const ANeuralNetworksOperandType* type, const void* buffer,
                                      size_t length) {
  // The buffer is never written: it is an input.
  return setPointerArgument(IoType::kInput, "setInput", index, type, const_cast<void*>(buffer), length);
}

nn::Status ExecutionBuilder::setOutput(uint32_t index, const ANeuralNetworksOperandType* type, void* buffer,
                                       size_t length) {
  return setPointerArgument(IoType::kOutput, "setOutput", index, type, buffer, length);
}

nn::Status ExecutionBuilder::setInputFromMemory(uint32_t index, const ANeuralNetworksOperandType* type,
                                                const RuntimeMemory& memory, size_t offset, size_t length) {
  return setMemoryArgument(IoType::kInput, "setInputFromMemory", index, type, memory, offset, length);
}

nn::Status ExecutionBuilder::setOutputFromMemory(uint32_t index, const ANeuralNetworksOperandType* type,
                                                 const RuntimeMemory& memory, size_t offset, size_t length) {
  return setMemoryArgument(IoType::kOutput, "setOutputFromMemory", index, type, memory, offset, length);
}

nn::Status ExecutionBuilder::setMeasureTiming(bool measure) {
  if (!compilation_->isExplicitSingleDevice()) {
    return NN_ERROR(BAD_DATA) << "timing can only be measured for a compilation created by createForDevices with "
                              << "one device";
  }
  NN_TRY(checkPreparation("setMeasureTiming"));
  measureTiming_ = measure;
  return {};
}

nn::Status ExecutionBuilder::setTimeout(uint64_t durationNs) {
  if (!compilation_->isExplicitSingleDevice()) {
    return NN_ERROR(BAD_DATA) << "a timeout needs a compilation created by createForDevices with one device";
  }
  NN_TRY(checkPreparation("setTimeout"));
  if (durationNs == 0) {
    timeoutNs_.reset();
  } else {
    timeoutNs_ = durationNs;
  }
  return {};
}

nn::Status ExecutionBuilder::setLoopTimeout(uint64_t durationNs) {
  NN_TRY(checkPreparation("setLoopTimeout"));
  loopTimeoutNs_ = std::min(durationNs, kMaximumLoopTimeoutNs);
  return {};
}

nn::Status ExecutionBuilder::enableInputAndOutputPadding(bool enable) {
  NN_TRY(checkPreparation("enableInputAndOutputPadding"));
  if (anyArgumentSet_) {
    return NN_ERROR(BAD_STATE) << "padding must be enabled before any input or output is set";
  }
  paddingEnabled_ = enable;
  return {};
}

nn::Status ExecutionBuilder::setReusable(bool reusable) {
  NN_TRY(checkPreparation("setReusable"));
  reusable_ = reusable;
  return {};
}

nn::Status ExecutionBuilder::beginComputation(bool needFullySpecifiedOutputs) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ == State::kComputation) return NN_ERROR(BAD_STATE) << "the execution is already computing";
  if (state_ == State::kCompleted && !reusable_) {
    return NN_ERROR(BAD_STATE) << "the execution has completed and is not reusable (ANeuralNetworksExecution_setReusable)";
  }
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const Argument& input = inputs_[i];
    if (input.state == Argument::State::kUnspecified) return NN_ERROR(BAD_DATA) << "input " << i << " is not set";
    if (input.state == Argument::State::kMemory && !input.memory->isInitialized()) {
      return NN_ERROR(BAD_DATA) << "input " << i << " is a memory that holds no data yet";
    }
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const Argument& output = outputs_[i];
    if (output.state == Argument::State::kUnspecified) return NN_ERROR(BAD_DATA) << "output " << i << " is not set";
    const nn::OperandType type = main_.operands[main_.outputIndexes[i]].type;
    nn::Result<nn::OperandTypeInfo> info = typeInfo(compilation_->model().model, type);
    if (needFullySpecifiedOutputs && output.hasValue() && info.ok() && !hasKnownSize(*info, output.dimensions)) {
      return NN_ERROR(BAD_DATA) << "output " << i << " has unspecified dimensions " << toString(output.dimensions)
                                << "; computations with dependencies need fully specified outputs";
    }
  }
  state_ = State::kComputation;
  completion_ = nn::ErrorStatus::NONE;
  outputShapes_.clear();
  timing_ = fencedTiming_ = nn::Timing{};
  profiles_.clear();
  return {};
}

std::vector<Argument> ExecutionBuilder::argumentsWithMemoryDimensions(const std::vector<Argument>& arguments) const {
  std::vector<Argument> result = arguments;
  for (Argument& argument : result) {
    if (argument.state != Argument::State::kMemory || !argument.memory->isFromDescription()) continue;
    // A memory from a descriptor has the dimensions of the output last written into it.
    nn::Result<nn::Dimensions> combined = combine(argument.dimensions, argument.memory->dimensions());
    if (combined.ok()) argument.dimensions = std::move(combined).value();
  }
  return result;
}

RunSettings ExecutionBuilder::runSettings(BurstBuilder* burst, hal::OptionalTimePoint deadline) const {
  RunSettings settings;
  settings.deadline = deadline;
  settings.loopTimeout = std::chrono::nanoseconds(loopTimeoutNs_);
  settings.burst = burst;
  return settings;
}

nn::Status ExecutionBuilder::complete(RunResult result, uint64_t waitedForDependenciesNs) {
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (outputs_[i].state != Argument::State::kMemory) continue;
    if (result.status.ok()) {
      outputs_[i].memory->setInitialized(true, result.outputShapes[i].dimensions);
    } else {
      outputs_[i].memory->setInitialized(false);
    }
  }

  // In-driver time includes on-hardware time; a device that reports otherwise is corrected.
  for (nn::Timing* timing : {&result.timing, &result.fencedTiming}) {
    if (timing->timeInDriverNs != nn::kNoTiming && timing->timeOnDeviceNs != nn::kNoTiming &&
        timing->timeInDriverNs < timing->timeOnDeviceNs) {
      timing->timeInDriverNs = timing->timeOnDeviceNs;
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  completion_ = result.status.ok() ? nn::ErrorStatus::NONE : result.status.error().code;
  if (result.status.ok() || completion_ == nn::ErrorStatus::OUTPUT_INSUFFICIENT_SIZE) {
    outputShapes_ = std::move(result.outputShapes);
  }
  fencedTiming_ = result.fencedTiming;
  timing_ = result.timing;
  timing_.timeInDriverNs = addDurations(timing_.timeInDriverNs, waitedForDependenciesNs);
  profiles_ = std::move(result.profiles);
  state_ = State::kCompleted;
  return result.status;
}

void ExecutionBuilder::completeWithoutRunning(nn::ErrorStatus error) {
  for (const Argument& output : outputs_) {
    if (output.state == Argument::State::kMemory) output.memory->setInitialized(false);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  completion_ = error;
  state_ = State::kCompleted;
}

nn::Status ExecutionBuilder::compute(BurstBuilder* burst) {
  if (burst != nullptr && burst->compilation() != compilation_) {
    return NN_ERROR(BAD_DATA) << "the burst and the execution come from different compilations";
  }
  NN_TRY(beginComputation(/*needFullySpecifiedOutputs=*/false));
  if (worker_.joinable()) worker_.join();  // a previous asynchronous computation, already completed
  const hal::OptionalTimePoint deadline = deadlineAfter(Clock::now(), timeoutNs_);
  return complete(runPlan(compilation_->plan(), argumentsWithMemoryDimensions(inputs_), outputs_,
                          runSettings(burst, deadline)),
                  0);
}

nn::Result<std::unique_ptr<Event>> ExecutionBuilder::startCompute(const std::vector<const Event*>& dependencies,
                                                                  uint64_t durationAfterDependenciesNs,
                                                                  bool withDependencies) {
  if (durationAfterDependenciesNs > 0 && !compilation_->isExplicitSingleDevice()) {
    return NN_ERROR(BAD_DATA) << "a timeout needs a compilation created by createForDevices with one device";
  }
  std::vector<hal::SyncFence> fences;
  for (size_t i = 0; i < dependencies.size(); ++i) {
    const std::optional<int> state = dependencies[i]->poll();
    if (state.has_value() && *state != ANEURALNETWORKS_NO_ERROR) {
      return NN_ERROR(BAD_DATA) << "dependency " << i << " has already failed (result " << *state << ")";
    }
    fences.push_back(dependencies[i]->fence());
  }
  nn::Result<std::shared_ptr<Completion>> created = Completion::create();
  if (!created.ok()) return created.error();
  std::shared_ptr<Completion> completion = std::move(created).value();
  NN_TRY(beginComputation(/*needFullySpecifiedOutputs=*/withDependencies));
  if (worker_.joinable()) worker_.join();

  const Clock::time_point start = Clock::now();
  const RunSettings settings = runSettings(nullptr, deadlineAfter(start, timeoutNs_));
  const hal::OptionalDuration afterDependencies =
      durationAfterDependenciesNs > 0 && durationAfterDependenciesNs <= 1'000'000'000'000'000'000ULL
          ? hal::OptionalDuration(std::chrono::nanoseconds(durationAfterDependenciesNs))
          : std::nullopt;
  // startComputeWithDependencies goes through the devices' fenced execution; where the plan
  // cannot (a temporary of unknown size), or for startCompute, the runtime runs the plan itself.
  std::optional<FencedPlanRun> fenced;
  if (withDependencies) {
    fenced = startFencedPlan(compilation_->plan(), argumentsWithMemoryDimensions(inputs_), outputs_, settings, fences,
                             afterDependencies);
  }
  auto finish = [this, completion](const nn::Status& status) {
    int code = ANEURALNETWORKS_NO_ERROR;
    if (!status.ok()) code = reportError("ANeuralNetworksEvent_wait (the asynchronous computation)", status.error());
    completion->signal(code);
  };
  const hal::SyncFence launched = fenced.has_value() ? fenced->fence : hal::SyncFence();
  std::function<void()> work;
  if (fenced.has_value()) {
    work = [this, finish, run = std::move(*fenced)] {
      run.fence.wait();
      finish(complete(run.finish(), 0));
    };
  } else {
    work = [this, finish, completion, fences = std::move(fences), start, settings, afterDependencies] {
      for (const hal::SyncFence& fence : fences) {
        if (fence.wait() != hal::SyncFence::State::kSignaled) {
          completeWithoutRunning(nn::ErrorStatus::OP_FAILED);
          reportError("ANeuralNetworksExecution_startComputeWithDependencies",
                      nn::Error{nn::ErrorStatus::OP_FAILED, "a dependency failed; the execution did not run"});
          completion->signal(ANEURALNETWORKS_OP_FAILED);
          return;
        }
      }
      const Clock::time_point signalled = Clock::now();
      RunSettings afterSignal = settings;
      if (afterDependencies.has_value()) {
        const hal::TimePoint fencedDeadline = signalled + *afterDependencies;
        afterSignal.deadline = afterSignal.deadline.has_value() ? std::min(*afterSignal.deadline, fencedDeadline)
                                                                : fencedDeadline;
      }
      finish(complete(runPlan(compilation_->plan(), argumentsWithMemoryDimensions(inputs_), outputs_, afterSignal),
                      nanosecondsBetween(start, signalled)));
    };
  }
  try {
    worker_ = std::thread(std::move(work));
  } catch (const std::exception& e) {
    // A fenced run already launched is waited for here; what it did is not reported.
    launched.wait();
    completeWithoutRunning(nn::ErrorStatus::OP_FAILED);
    return NN_ERROR(OP_FAILED) << "cannot start a thread for the computation: " << e.what();
  }
  return std::unique_ptr<Event>(std::make_unique<ExecutionEvent>(completion, /*showsFence=*/withDependencies));
}

nn::Status ExecutionBuilder::getDuration(int32_t durationCode, uint64_t* duration) const {
  if (durationCode < ANEURALNETWORKS_DURATION_ON_HARDWARE || durationCode > ANEURALNETWORKS_FENCED_DURATION_IN_DRIVER) {
    return NN_ERROR(BAD_DATA) << "invalid duration code " << durationCode;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ != State::kCompleted) return NN_ERROR(BAD_STATE) << "the execution has not completed";
  if (completion_ != nn::ErrorStatus::NONE) {
    *duration = UINT64_MAX;
    return NN_ERROR(BAD_STATE) << "the computation failed (" << nn::toString(completion_) << ")";
  }
  if (!measureTiming_) {
    *duration = UINT64_MAX;
    return {};
  }
  switch (durationCode) {
    case ANEURALNETWORKS_DURATION_ON_HARDWARE: *duration = timing_.timeOnDeviceNs; break;
    case ANEURALNETWORKS_DURATION_IN_DRIVER: *duration = timing_.timeInDriverNs; break;
    case ANEURALNETWORKS_FENCED_DURATION_ON_HARDWARE: *duration = fencedTiming_.timeOnDeviceNs; break;
    default: *duration = fencedTiming_.timeInDriverNs; break;
  }
  return {};
}

nn::Result<const nn::OutputShape*> ExecutionBuilder::completedOutputShape(uint32_t index) const {
  if (state_ != State::kCompleted) return NN_ERROR(BAD_STATE) << "the execution has not completed";
  if (completion_ != nn::ErrorStatus::NONE && completion_ != nn::ErrorStatus::OUTPUT_INSUFFICIENT_SIZE) {
    return NN_ERROR(BAD_STATE) << "the computation failed (" << nn::toString(completion_) << ")";
  }
  if (index >= outputShapes_.size()) {
    return NN_ERROR(BAD_DATA) << "output index " << static_cast<int32_t>(index) << " is out of range (the model has "
                              << outputShapes_.size() << " outputs)";
  }
  return &outputShapes_[index];
}

nn::Status ExecutionBuilder::checkOutputSufficient(uint32_t index) const {
  if (!outputShapes_[index].isSufficient) {
    return NN_ERROR(OUTPUT_INSUFFICIENT_SIZE) << "output " << index << "'s buffer was too small";
  }
  return {};
}

nn::Status ExecutionBuilder::getOutputOperandRank(uint32_t index, uint32_t* rank) const {
  std::lock_guard<std::mutex> lock(mutex_);
  nn::Result<const nn::OutputShape*> shape = completedOutputShape(index);
  if (!shape.ok()) return shape.error();
  *rank = static_cast<uint32_t>((*shape)->dimensions.size());
  return checkOutputSufficient(index);
}

nn::Status ExecutionBuilder::getOutputOperandDimensions(uint32_t index, uint32_t* dimensions) const {
  std::lock_guard<std::mutex> lock(mutex_);
  nn::Result<const nn::OutputShape*> shape = completedOutputShape(index);
  if (!shape.ok()) return shape.error();
  const nn::Dimensions& dims = (*shape)->dimensions;
  if (dims.empty()) return NN_ERROR(BAD_DATA) << "output " << index << " is a scalar (or omitted): it has no dimensions";
  std::copy(dims.begin(), dims.end(), dimensions);
  return checkOutputSufficient(index);
}

const std::vector<hal::ExecutionProfile>& ExecutionBuilder::profiles() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return profiles_;
}

}  // namespace weft::runtime
