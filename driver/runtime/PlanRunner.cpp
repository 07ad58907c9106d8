#include "PlanRunner.h"

#include <algorithm>
#include <map>
#include <memory>

#include "OperandTypes.h"
#include "Progress.h"

namespace weft::runtime {
namespace {

using Clock = std::chrono::steady_clock;

// A value passed between steps, owned by the runtime for one computation.
struct Temporary {
  std::vector<uint8_t> bytes;  // at least one byte, so that the pointer is never null
  uint32_t length = 0;
  nn::Dimensions dimensions;
};

// How many times a step may be rerun to grow its dynamic temporaries.
constexpr int kMaxStepAttempts = 8;

// The arguments and settings are copies: a fenced run outlives the call that started it.
class PlanRunner : public std::enable_shared_from_this<PlanRunner> {
 public:
  PlanRunner(const ExecutionPlan& plan, std::vector<Argument> inputs, std::vector<Argument> outputs,
             const RunSettings& settings)
      : plan_(plan),
        main_(plan.model().model.main),
        inputs_(std::move(inputs)),
        outputs_(std::move(outputs)),
        settings_(settings) {
    result_.outputShapes.resize(outputs_.size());
    for (size_t i = 0; i < outputs_.size(); ++i) result_.outputShapes[i].dimensions = outputs_[i].dimensions;
  }

  RunResult run() {
    const std::vector<ExecutionStep>& steps = plan_.steps();
    for (size_t i = 0; i < steps.size(); ++i) {
      if (settings_.deadline.has_value() && Clock::now() > *settings_.deadline) {
        result_.status = NN_ERROR(MISSED_DEADLINE_TRANSIENT) << "the execution deadline passed before step " << i;
        break;
      }
      result_.status = runStep(i);
      if (!result_.status.ok()) break;
    }
    return std::move(result_);
  }

  // The steps as a chain of fenced executions; nullopt when a temporary's size is not known yet.
  std::optional<FencedPlanRun> startFenced(const std::vector<hal::SyncFence>& waitFor,
                                           const hal::OptionalDuration& timeoutAfterFences) {
    const std::vector<ExecutionStep>& steps = plan_.steps();
    for (const ExecutionStep& step : steps) {
      for (const StepOperand& operand : step.outputs) {
        if (!clientHolds(operand) && temporaryFor(operand.mainOperand).length == 0) return std::nullopt;
      }
    }
    std::vector<hal::ExecuteFencedInfoCallback> infos;
    std::optional<nn::Error> launchError;
    hal::SyncFence last;  // the fence the next step waits for
    for (size_t i = 0; i < steps.size(); ++i) {
      const ExecutionStep& step = steps[i];
      reportStepStart(step.device->name(), step.clientOperations);
      nn::Result<hal::FencedExecution> fenced = step.preparedModel->executeFenced(
          buildRequest(step), i == 0 ? waitFor : std::vector<hal::SyncFence>{last}, nn::MeasureTiming::YES,
          settings_.deadline, settings_.loopTimeout, i == 0 ? timeoutAfterFences : hal::OptionalDuration());
      if (!fenced.ok()) {
        // The steps already launched still run (and use the temporaries): the outcome waits for them.
        launchError = nn::ErrorBuilder(fenced.error().code) << "device " << step.device->name() << ": "
                                                            << fenced.error().message;
        break;
      }
      last = fenced->fence;
      infos.push_back(std::move(fenced->info));
    }
    auto self = shared_from_this();
    return FencedPlanRun{last, [self, infos = std::move(infos), launchError]() { return self->finishFenced(infos, launchError); }};
  }

 private:
  bool clientHolds(const StepOperand& operand) const {
    return operand.mainOutput.has_value() && outputs_[*operand.mainOutput].hasValue();
  }

  nn::RequestArgument clientArgument(const Argument& argument, nn::Request& request) {
    nn::RequestArgument result;
    result.dimensions = argument.dimensions;
    switch (argument.state) {
      case Argument::State::kPointer:
        result.lifetime = nn::RequestArgument::LifeTime::POINTER;
        result.location.pointer = argument.buffer;
        result.location.length = argument.length;
        break;
      case Argument::State::kMemory: {
        result.lifetime = nn::RequestArgument::LifeTime::POOL;
        auto [it, inserted] = pools_.try_emplace(argument.memory->memory().get(),
                                                 static_cast<uint32_t>(request.pools.size()));
        if (inserted) request.pools.push_back(argument.memory->memory());
        result.location.poolIndex = it->second;
        result.location.offset = argument.offset;
        result.location.length = argument.length;
        break;
      }
      default:
        result.lifetime = nn::RequestArgument::LifeTime::NO_VALUE;
        break;
    }
    return result;
  }

  nn::RequestArgument temporaryArgument(const Temporary& temporary) {
    nn::RequestArgument result;
    result.lifetime = nn::RequestArgument::LifeTime::POINTER;
    result.location.pointer = temporary.bytes.data();
    result.location.length = temporary.length;
    result.dimensions = temporary.dimensions;
    return result;
  }

  Temporary& temporaryFor(uint32_t mainOperand) {
    auto [it, inserted] = temporaries_.try_emplace(mainOperand);
    if (inserted) {
      const nn::Operand& operand = main_.operands[mainOperand];
      it->second.dimensions = operand.dimensions;
      const nn::Result<nn::OperandTypeInfo> info = typeInfo(plan_.model().model, operand.type);
      const uint32_t size = info.ok() && hasKnownSize(*info, operand.dimensions)
                                ? byteSize(*info, operand.dimensions).value_or(0)
                                : 0;
      it->second.bytes.resize(std::max<uint32_t>(size, 1));
      it->second.length = size;
    }
    return it->second;
  }

  nn::Request buildRequest(const ExecutionStep& step) {
    pools_.clear();
    nn::Request request;
    for (const StepOperand& operand : step.inputs) {
      if (operand.mainInput.has_value()) {
        request.inputs.push_back(clientArgument(inputs_[*operand.mainInput], request));
      } else if (clientHolds(operand)) {
        nn::RequestArgument argument = clientArgument(outputs_[*operand.mainOutput], request);
        argument.dimensions = result_.outputShapes[*operand.mainOutput].dimensions;
        request.inputs.push_back(std::move(argument));
      } else {
        request.inputs.push_back(temporaryArgument(temporaryFor(operand.mainOperand)));
      }
    }
    for (const StepOperand& operand : step.outputs) {
      if (clientHolds(operand)) {
        request.outputs.push_back(clientArgument(outputs_[*operand.mainOutput], request));
      } else {
        request.outputs.push_back(temporaryArgument(temporaryFor(operand.mainOperand)));
      }
    }
    return request;
  }

  nn::Result<hal::ExecutionResult> execute(size_t stepIndex, const nn::Request& request) {
    const ExecutionStep& step = plan_.steps()[stepIndex];
    const hal::OptionalDuration loopTimeout = settings_.loopTimeout;
    // Devices always measure: the per-operation profiles need it. Whether the client sees the
    // durations is the execution's business (setMeasureTiming).
    if (settings_.burst != nullptr && settings_.burst->stepBurst(stepIndex) != nullptr) {
      return settings_.burst->stepBurst(stepIndex)->execute(request, nn::MeasureTiming::YES, settings_.deadline,
                                                            loopTimeout);
    }
    return step.preparedModel->execute(request, nn::MeasureTiming::YES, settings_.deadline, loopTimeout);
  }

  // Records the shapes of a step's outputs. True when a temporary must grow (rerun the step).
  nn::Result<bool> takeOutputShapes(const ExecutionStep& step, const std::vector<nn::OutputShape>& shapes) {
    if (shapes.size() != step.outputs.size()) {
      return NN_ERROR(OP_FAILED) << "device " << step.device->name() << " returned " << shapes.size()
                                 << " output shapes for " << step.outputs.size() << " outputs";
    }
    bool mainInsufficient = false;
    bool regrow = false;
    for (size_t k = 0; k < shapes.size(); ++k) {
      const StepOperand& operand = step.outputs[k];
      const nn::OutputShape& shape = shapes[k];
      if (operand.mainOutput.has_value()) result_.outputShapes[*operand.mainOutput] = shape;
      if (clientHolds(operand)) {
        mainInsufficient |= !shape.isSufficient;
        continue;
      }
      Temporary& temporary = temporaryFor(operand.mainOperand);
      if (operand.mainOutput.has_value()) result_.outputShapes[*operand.mainOutput].isSufficient = true;
      if (shape.isSufficient) {
        temporary.dimensions = shape.dimensions;
        continue;
      }
      const nn::OperandType type = main_.operands[operand.mainOperand].type;
      const nn::Result<nn::OperandTypeInfo> info = typeInfo(plan_.model().model, type);
      const std::optional<uint32_t> size = info.ok() ? byteSize(*info, shape.dimensions) : std::nullopt;
      if (!size.has_value() || *size <= temporary.length) {
        return NN_ERROR(OP_FAILED) << "device " << step.device->name() << " found temporary operand "
                                   << operand.mainOperand << " too small but reported dimensions "
                                   << toString(shape.dimensions) << " that do not need more";
      }
      temporary.bytes.assign(*size, 0);
      temporary.length = *size;
      temporary.dimensions = shape.dimensions;
      regrow = true;
    }
    if (mainInsufficient) {
      return NN_ERROR(OUTPUT_INSUFFICIENT_SIZE) << "an output buffer is too small for the output's actual size";
    }
    return regrow;
  }

  // The outcome of a fenced chain once its last fence signalled: the first step's error, else
  // every step's profile and, for one step, its durations. Outputs are fully specified here.
  RunResult finishFenced(const std::vector<hal::ExecuteFencedInfoCallback>& infos,
                         const std::optional<nn::Error>& launchError) {
    for (size_t i = 0; i < infos.size(); ++i) {
      const ExecutionStep& step = plan_.steps()[i];
      nn::Result<hal::FencedExecutionInfo> info = infos[i]();
      if (!info.ok()) {
        result_.status = nn::ErrorBuilder(info.error().code) << "device " << step.device->name() << ": "
                                                             << info.error().message;
        return std::move(result_);
      }
      keepProfile(step, std::move(info->profile));
      if (plan_.steps().size() == 1) {
        result_.timing = info->timingLaunched;
        result_.fencedTiming = info->timingFenced;
      }
    }
    if (launchError.has_value()) result_.status = *launchError;
    return std::move(result_);
  }

  nn::Status runStep(size_t stepIndex) {
    const ExecutionStep& step = plan_.steps()[stepIndex];
    reportStepStart(step.device->name(), step.clientOperations);
    for (int attempt = 1;; ++attempt) {
      const nn::Request request = buildRequest(step);
      nn::Result<hal::ExecutionResult> result = execute(stepIndex, request);
      if (!result.ok()) {
        return nn::ErrorBuilder(result.error().code) << "device " << step.device->name() << ": "
                                                     << result.error().message;
      }
      nn::Result<bool> regrow = takeOutputShapes(step, result->outputShapes);
      if (!regrow.ok()) return regrow.error();
      if (*regrow) {
        if (attempt == kMaxStepAttempts) {
          return NN_ERROR(OP_FAILED) << "device " << step.device->name() << " kept reporting larger temporaries";
        }
        continue;
      }
      keepProfile(step, std::move(result->profile));
      if (plan_.steps().size() == 1) result_.timing = result_.fencedTiming = result->timing;
      return {};
    }
  }

  void keepProfile(const ExecutionStep& step, hal::ExecutionProfile profile) {
    if (profile.device.empty()) profile.device = step.device->name();
    for (hal::OperationProfile& operation : profile.operations) {
      if (operation.operationIndex < step.clientOperations.size()) {
        operation.operationIndex = step.clientOperations[operation.operationIndex];
      }
    }
    result_.profiles.push_back(std::move(profile));
  }

  const ExecutionPlan& plan_;
  const nn::Subgraph& main_;
  const std::vector<Argument> inputs_;
  const std::vector<Argument> outputs_;
  const RunSettings settings_;
  std::map<uint32_t, Temporary> temporaries_;
  std::map<const nn::Memory*, uint32_t> pools_;
  RunResult result_;
};

}  // namespace

RunResult runPlan(const ExecutionPlan& plan, const std::vector<Argument>& inputs, const std::vector<Argument>& outputs,
                  const RunSettings& settings) {
  return std::make_shared<PlanRunner>(plan, inputs, outputs, settings)->run();
}

std::optional<FencedPlanRun> startFencedPlan(const ExecutionPlan& plan, const std::vector<Argument>& inputs,
                                             const std::vector<Argument>& outputs, const RunSettings& settings,
                                             const std::vector<hal::SyncFence>& waitFor,
                                             const hal::OptionalDuration& timeoutAfterFences) {
  return std::make_shared<PlanRunner>(plan, inputs, outputs, settings)->startFenced(waitFor, timeoutAfterFences);
}

}  // namespace weft::runtime
