#include "ExecutionPlan.h"

#include <chrono>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "Errors.h"
#include "ModelCopier.h"
#include "StepPreparation.h"

namespace weft::runtime {

using LifeTime = nn::Operand::LifeTime;

namespace {

bool isControlFlow(nn::OperationType type) {
  return type == nn::OperationType::IF || type == nn::OperationType::WHILE;
}

// Accelerators (and any other non-CPU device) first, in the order given, then CPU devices.
std::vector<size_t> preferenceOrder(const std::vector<const Device*>& devices) {
  std::vector<size_t> order;
  for (size_t d = 0; d < devices.size(); ++d) {
    if (!devices[d]->isCpu()) order.push_back(d);
  }
  for (size_t d = 0; d < devices.size(); ++d) {
    if (devices[d]->isCpu()) order.push_back(d);
  }
  return order;
}

std::string deviceNames(const std::vector<const Device*>& devices) {
  std::string names;
  for (const Device* device : devices) names += (names.empty() ? "" : ", ") + device->name();
  return names;
}

std::optional<uint32_t> positionIn(const std::vector<uint32_t>& list, uint32_t value) {
  const auto it = std::find(list.begin(), list.end(), value);
  if (it == list.end()) return std::nullopt;
  return static_cast<uint32_t>(it - list.begin());
}

StepOperand stepOperandFor(const nn::Subgraph& main, uint32_t operand) {
  return StepOperand{operand, positionIn(main.inputIndexes, operand), positionIn(main.outputIndexes, operand)};
}

// The step model of operations [begin, end) of the main model (run order): operands they use,
// renumbered; values from earlier steps and main inputs become step inputs; values used by later
// steps and main outputs become step outputs.
void buildStepModel(const nn::Model& main, size_t begin, size_t end, const std::vector<int64_t>& producerOperation,
                    const std::vector<size_t>& lastConsumerOperation, ExecutionStep& step) {
  auto model = std::make_shared<nn::Model>();
  model->relaxComputationFloat32toFloat16 = main.relaxComputationFloat32toFloat16;
  model->extensionNameToPrefix = main.extensionNameToPrefix;
  ModelCopier copier(*model);
  const ValueSource values{&main.operandValues, &main.pools};
  auto subgraphIndex = [&](uint32_t k) { return copier.copySubgraph(main, main.referenced[k]); };

  std::map<uint32_t, uint32_t> stepIndexOf;
  auto mapOperand = [&](uint32_t operand) {
    auto [it, inserted] = stepIndexOf.try_emplace(operand, static_cast<uint32_t>(model->main.operands.size()));
    if (!inserted) return it->second;
    nn::Operand copy = copier.copyOperand(main.main.operands[operand], values, subgraphIndex);
    const LifeTime lifetime = copy.lifetime;
    const bool producedHere = producerOperation[operand] >= static_cast<int64_t>(begin) &&
                              producerOperation[operand] < static_cast<int64_t>(end);
    if (lifetime == LifeTime::SUBGRAPH_INPUT ||
        ((lifetime == LifeTime::TEMPORARY_VARIABLE || lifetime == LifeTime::SUBGRAPH_OUTPUT) && !producedHere)) {
      copy.lifetime = LifeTime::SUBGRAPH_INPUT;
      model->main.inputIndexes.push_back(it->second);
      step.inputs.push_back(stepOperandFor(main.main, operand));
    } else if (producedHere && (lifetime == LifeTime::SUBGRAPH_OUTPUT || lastConsumerOperation[operand] >= end)) {
      copy.lifetime = LifeTime::SUBGRAPH_OUTPUT;
      model->main.outputIndexes.push_back(it->second);
      step.outputs.push_back(stepOperandFor(main.main, operand));
    } else if (producedHere) {
      copy.lifetime = LifeTime::TEMPORARY_VARIABLE;
    }
    model->main.operands.push_back(std::move(copy));
    return it->second;
  };
  for (size_t i = begin; i < end; ++i) {
    const nn::Operation& operation = main.main.operations[i];
    nn::Operation copy;
    copy.type = operation.type;
    for (uint32_t input : operation.inputs) copy.inputs.push_back(mapOperand(input));
    for (uint32_t output : operation.outputs) copy.outputs.push_back(mapOperand(output));
    model->main.operations.push_back(std::move(copy));
  }
  step.model = std::move(model);
}

// What Android's CompilationBuilder::finish does for a partitioned compilation, per step: when a
// device fails to compile its step for a reason other than the client's model (BAD_DATA and
// UNEXPECTED_NULL are the client's), the step is compiled on the CPU device instead, which
// implements every operation. createForDevices never falls back (NNAPI: the client chose the
// devices). On success `step.device` becomes the CPU device.
nn::Result<PreparedStep> prepareOnCpuInstead(ExecutionStep& step, const std::vector<const Device*>& devices,
                                             const PlanOptions& options, const StepSettings& settings,
                                             const nn::Error& failure) {
  const auto failed = [&]() -> nn::Error {
    return nn::ErrorBuilder(failure.code) << "device " << step.device->name() << " failed to compile its "
                                          << step.clientOperations.size() << " operation(s): " << failure.message;
  };
  if (options.explicitDeviceList || step.device->isCpu() || failure.code == nn::ErrorStatus::BAD_DATA ||
      failure.code == nn::ErrorStatus::UNEXPECTED_NULL) {
    return failed();
  }
  const auto cpu = std::find_if(devices.begin(), devices.end(), [](const Device* d) { return d->isCpu(); });
  if (cpu == devices.end()) return failed();
  nn::Result<std::vector<bool>> supported = (*cpu)->hal()->getSupportedOperations(*step.model);
  if (!supported.ok() || std::find(supported->begin(), supported->end(), false) != supported->end()) {
    return failed();
  }
  nn::Result<PreparedStep> prepared = prepareStep(**cpu, *step.model, settings);
  if (!prepared.ok()) return failed();
  logWarning(failed().message + "; they run on " + (*cpu)->name() + " instead");
  step.device = *cpu;
  return prepared;
}

}  // namespace

size_t ExecutionPlan::deviceCount() const {
  std::set<const Device*> devices;
  for (const ExecutionStep& step : steps_) devices.insert(step.device);
  return devices.size();
}

nn::Result<ExecutionPlan> ExecutionPlan::create(std::shared_ptr<const FinishedModel> finished,
                                                const std::vector<const Device*>& devices,
                                                const PlanOptions& options) {
  const nn::Model& model = finished->model;
  const size_t operationCount = model.main.operations.size();

  // Which operations each device can run.
  std::vector<std::vector<bool>> supported(devices.size());
  for (size_t d = 0; d < devices.size(); ++d) {
    nn::Result<std::vector<bool>> result = devices[d]->hal()->getSupportedOperations(model);
    if (result.ok() && result->size() == operationCount) {
      supported[d] = std::move(result).value();
      continue;
    }
    const std::string why = result.ok() ? "it answered for the wrong number of operations" : result.error().message;
    if (options.explicitDeviceList) {
      return NN_ERROR(OP_FAILED) << "device " << devices[d]->name() << " cannot say which operations it supports: "
                                 << why;
    }
    logWarning("device " + devices[d]->name() + " is left out of the compilation: " + why);
    supported[d].assign(operationCount, false);
  }

  // One device per operation.
  const std::vector<size_t> order = preferenceOrder(devices);
  std::vector<size_t> assigned(operationCount);
  for (size_t i = 0; i < operationCount; ++i) {
    std::optional<size_t> choice;
    if (isControlFlow(model.main.operations[i].type)) {
      for (size_t d : order) {
        if (devices[d]->isCpu() && supported[d][i]) {
          choice = d;
          break;
        }
      }
    }
    for (size_t k = 0; k < order.size() && !choice.has_value(); ++k) {
      if (supported[order[k]][i]) choice = order[k];
    }
    if (!choice.has_value()) {
      return NN_ERROR(BAD_DATA) << "operation " << finished->clientOperationIndex[i] << " ("
                                << nn::toString(model.main.operations[i].type) << ") is not supported by "
                                << (devices.size() == 1 ? "the device " : "any of the devices ") << deviceNames(devices);
    }
    assigned[i] = *choice;
  }

  // Who produces and who last reads each operand, by run-order operation index.
  std::vector<int64_t> producer(model.main.operands.size(), -1);
  std::vector<size_t> lastConsumer(model.main.operands.size(), 0);
  for (size_t i = 0; i < operationCount; ++i) {
    for (uint32_t output : model.main.operations[i].outputs) producer[output] = static_cast<int64_t>(i);
    for (uint32_t input : model.main.operations[i].inputs) lastConsumer[input] = std::max(lastConsumer[input], i);
  }

  ExecutionPlan plan;
  plan.model_ = finished;
  plan.operationDevices_.resize(operationCount);
  for (size_t begin = 0; begin < operationCount;) {
    size_t end = begin + 1;
    while (end < operationCount && assigned[end] == assigned[begin]) ++end;
    ExecutionStep step;
    step.device = devices[assigned[begin]];
    if (begin == 0 && end == operationCount) {
      // One step runs the whole model: the device gets the model as the client built it.
      step.model = std::shared_ptr<const nn::Model>(finished, &finished->model);
      for (uint32_t operand : model.main.inputIndexes) step.inputs.push_back(stepOperandFor(model.main, operand));
      for (uint32_t operand : model.main.outputIndexes) step.outputs.push_back(stepOperandFor(model.main, operand));
    } else {
      buildStepModel(model, begin, end, producer, lastConsumer, step);
    }
    for (size_t i = begin; i < end; ++i) step.clientOperations.push_back(finished->clientOperationIndex[i]);
    // Each partition is a model of its own to the device: its own cache key.
    StepSettings settings{options.preference, options.priority, options.deadline, options.cache};
    if (settings.cache.has_value()) settings.cache->key += fmt::format("-{}", plan.steps_.size());
    const auto prepareStart = std::chrono::steady_clock::now();
    nn::Result<PreparedStep> prepared = prepareStep(*step.device, *step.model, settings);
    if (!prepared.ok()) {
      prepared = prepareOnCpuInstead(step, devices, options, settings, prepared.error());
      if (!prepared.ok()) return prepared.error();
    }
    step.prepareSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - prepareStart).count();
    step.preparedModel = std::move(prepared->preparedModel);
    step.cacheUse = prepared->cacheUse;
    for (uint32_t operation : step.clientOperations) plan.operationDevices_[operation] = step.device;
    plan.steps_.push_back(std::move(step));
    begin = end;
  }
  return plan;
}

}  // namespace weft::runtime
