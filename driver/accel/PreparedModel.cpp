#include "PreparedModel.h"

#include <cstring>

#include <fmt/format.h>

#include <algorithm>

#include "Burst.h"
#include "DeviceBuffer.h"
#include "ProgramRelocation.h"
#include "ExecutionParameters.h"
#include "Profiling.h"
#include "Progress.h"
#include "Transfer.h"

namespace weft::accel {
namespace {

using Clock = std::chrono::steady_clock;

struct Buffer {
  uint8_t* data = nullptr;
  size_t length = 0;
};

// Where a request argument's bytes are; BAD_DATA when it points outside its pool.
nn::Result<Buffer> argumentBuffer(const nn::Request& request, const nn::RequestArgument& a, const char* what,
                                  size_t index) {
  switch (a.lifetime) {
    case nn::RequestArgument::LifeTime::POINTER:
      if (a.location.pointer == nullptr) return NN_ERROR(BAD_DATA) << what << " " << index << " has a null pointer";
      return Buffer{static_cast<uint8_t*>(const_cast<void*>(a.location.pointer)), a.location.length};
    case nn::RequestArgument::LifeTime::POOL: {
      if (a.location.poolIndex >= request.pools.size() || !request.pools[a.location.poolIndex]) {
        return NN_ERROR(BAD_DATA) << what << " " << index << " refers to pool " << a.location.poolIndex
                                  << " of " << request.pools.size();
      }
      auto& pool = *request.pools[a.location.poolIndex];
      if (size_t{a.location.offset} + a.location.length > pool.size()) {
        return NN_ERROR(BAD_DATA) << what << " " << index << " lies outside its pool";
      }
      return Buffer{pool.data() + a.location.offset, a.location.length};
    }
    case nn::RequestArgument::LifeTime::NO_VALUE:
      break;
  }
  return NN_ERROR(BAD_DATA) << what << " " << index << " has no value";
}

// The device buffer of this device an argument lies in, used in place; nullptr for any other.
const DeviceBuffer* deviceBufferOf(const nn::Request& request, const nn::RequestArgument& a, const DeviceQueue* queue) {
  if (a.lifetime != nn::RequestArgument::LifeTime::POOL || a.location.poolIndex >= request.pools.size()) return nullptr;
  const auto* buffer = dynamic_cast<const DeviceBuffer*>(request.pools[a.location.poolIndex].get());
  return buffer != nullptr && buffer->queue() == queue ? buffer : nullptr;
}

// A device buffer serves the whole tensor or nothing.
nn::Status checkWholeBuffer(const DeviceBuffer& buffer, const nn::RequestArgument& a, const TensorLayout& t,
                            const char* what, size_t i) {
  if (a.location.offset != 0 || (a.location.length != 0 && a.location.length != buffer.size()) ||
      buffer.size() < logicalBytes(t)) {
    return NN_ERROR(BAD_DATA) << what << " " << i << " uses part of a device buffer, or one too small";
  }
  return {};
}

// The request's dimensions, where given, must be the model's.
nn::Status checkDimensions(const nn::Dimensions& given, const nn::Dimensions& actual, const char* what, size_t i) {
  if (given.empty()) return {};
  bool same = given.size() == actual.size();
  for (size_t d = 0; same && d < given.size(); ++d) same = given[d] == 0 || given[d] == actual[d];
  if (!same) {
    return NN_ERROR(BAD_DATA) << what << " " << i << " has dimensions that differ from the prepared model's";
  }
  return {};
}

}  // namespace

PreparedModel::PreparedModel(std::shared_ptr<DeviceQueue> queue, const nn::Model& model,
                             std::shared_ptr<const CompiledModel> compiled, nn::Priority priority,
                             nn::ExecutionPreference preference)
    : queue_(std::move(queue)), compiled_(std::move(compiled)), priority_(priority), preference_(preference),
      inputOperands_(model.main.inputIndexes), outputOperands_(model.main.outputIndexes) {
  if (compiled_ == nullptr) {
    model_ = model;
    parameters_ = executionParameters(model);
  }
}

PreparedModel::PreparedModel(std::shared_ptr<DeviceQueue> queue, std::vector<uint32_t> inputOperands,
                             std::vector<uint32_t> outputOperands, std::shared_ptr<const CompiledModel> compiled,
                             nn::Priority priority)
    : queue_(std::move(queue)), compiled_(std::move(compiled)), priority_(priority),
      inputOperands_(std::move(inputOperands)),
      outputOperands_(std::move(outputOperands)) {}

nn::Result<std::shared_ptr<const CompiledModel>> PreparedModel::compiledFor(const nn::Request& request,
                                                                            const hal::OptionalTimePoint& deadline) const {
  constexpr size_t kKept = 8;
  std::vector<std::vector<uint8_t>> values;
  std::string key;
  for (uint32_t operand : parameters_) {
    const auto at = std::find(inputOperands_.begin(), inputOperands_.end(), operand);
    const auto i = static_cast<size_t>(at - inputOperands_.begin());
    if (at == inputOperands_.end() || i >= request.inputs.size()) {
      return NN_ERROR(BAD_DATA) << "parameter operand " << operand << " is not among the request's inputs";
    }
    auto b = argumentBuffer(request, request.inputs[i], "input", i);
    if (!b.ok()) return b.error();
    const nn::Operand& o = model_.main.operands[operand];
    const size_t bytes = nn::sizeOfData(o.type, o.dimensions);
    if (b.value().length < bytes) {
      return NN_ERROR(BAD_DATA) << fmt::format("input {} has {} bytes, the model needs {}", i, b.value().length, bytes);
    }
    values.emplace_back(b.value().data, b.value().data + bytes);
    key.append(reinterpret_cast<const char*>(b.value().data), bytes);
  }
  std::lock_guard<std::mutex> lock(specializationsMutex_);
  for (auto it = specializations_.begin(); it != specializations_.end(); ++it) {
    if (it->first == key) {
      specializations_.splice(specializations_.begin(), specializations_, it);
      return it->second;
    }
  }
  std::shared_ptr<const CompiledModel> compiled;
  {
    auto c = compileModel(withParameterValues(model_, parameters_, values), *queue_, nullptr, deadline, preference_);
    if (!c.ok()) {
      return nn::Error{c.error().code, "compiling for the parameters this execution gives: " + c.error().message};
    }
    compiled = std::make_shared<const CompiledModel>(std::move(c).value());
  }
  specializations_.emplace_front(std::move(key), compiled);
  if (specializations_.size() > kKept) specializations_.pop_back();
  return compiled;
}

nn::Result<hal::ExecutionResult> PreparedModel::execute(const nn::Request& request, nn::MeasureTiming measure,
                                                        const hal::OptionalTimePoint& deadline,
                                                        const hal::OptionalDuration&) const {
  try {
    return executeOnDevice(request, measure, deadline);
  } catch (const std::exception& e) {
    // The device's state is unknown after a fault: reset it, as the watchdog does, so that the
    // next execution works; this one fails and says why.
    queue_->resetAfterFault();
    return NN_ERROR(OP_FAILED) << "the simulated device failed: " << e.what() << "; the device was reset";
  }
}

nn::Result<hal::ExecutionResult> PreparedModel::executeOnDevice(const nn::Request& request, nn::MeasureTiming measure,
                                                                const hal::OptionalTimePoint& deadline) const {
  const auto t0 = Clock::now();
  std::shared_ptr<const CompiledModel> compiled = compiled_;
  if (compiled == nullptr) {
    auto c = compiledFor(request, deadline);
    if (!c.ok()) return c.error();
    compiled = std::move(c).value();
  }
  const CompiledModel& cm = *compiled;
  if (request.inputs.size() != inputOperands_.size() || request.outputs.size() != outputOperands_.size()) {
    return NN_ERROR(BAD_DATA) << fmt::format("the request has {} inputs and {} outputs, the model {} and {}",
                                             request.inputs.size(), request.outputs.size(),
                                             inputOperands_.size(), outputOperands_.size());
  }
  // Validate every argument before touching the device.
  std::vector<Buffer> inputs(inputOperands_.size()), outputs(outputOperands_.size());
  std::vector<const DeviceBuffer*> inputBuffers(inputOperands_.size()), outputBuffers(outputOperands_.size());
  hal::ExecutionResult result;
  bool sufficient = true;
  for (size_t i = 0; i < inputOperands_.size(); ++i) {
    auto it = cm.tensors.find(inputOperands_[i]);
    if (it == cm.tensors.end()) continue;  // an input no operation reads
    if (const DeviceBuffer* buffer = deviceBufferOf(request, request.inputs[i], queue_.get())) {
      NN_TRY(checkWholeBuffer(*buffer, request.inputs[i], it->second.layout, "input", i));
      NN_TRY(checkDimensions(request.inputs[i].dimensions, it->second.layout.dims, "input", i));
      inputBuffers[i] = buffer;
      continue;
    }
    auto b = argumentBuffer(request, request.inputs[i], "input", i);
    if (!b.ok()) return b.error();
    NN_TRY(checkDimensions(request.inputs[i].dimensions, it->second.layout.dims, "input", i));
    if (b.value().length < logicalBytes(it->second.layout)) {
      return NN_ERROR(BAD_DATA) << fmt::format("input {} has {} bytes, the model needs {}", i, b.value().length,
                                               logicalBytes(it->second.layout));
    }
    inputs[i] = b.value();
  }
  for (size_t i = 0; i < outputOperands_.size(); ++i) {
    auto it = cm.tensors.find(outputOperands_[i]);
    if (it == cm.tensors.end()) {
      return NN_ERROR(BAD_DATA) << "output " << i << " is not computed by the prepared model";
    }
    const TensorLayout& t = it->second.layout;
    if (const DeviceBuffer* buffer = deviceBufferOf(request, request.outputs[i], queue_.get())) {
      NN_TRY(checkWholeBuffer(*buffer, request.outputs[i], t, "output", i));
      NN_TRY(checkDimensions(request.outputs[i].dimensions, t.dims, "output", i));
      result.outputShapes.push_back(nn::OutputShape{t.dims, true});
      outputBuffers[i] = buffer;
      continue;
    }
    auto b = argumentBuffer(request, request.outputs[i], "output", i);
    if (!b.ok()) return b.error();
    NN_TRY(checkDimensions(request.outputs[i].dimensions, t.dims, "output", i));
    nn::OutputShape shape{t.dims, b.value().length >= logicalBytes(t)};
    sufficient = sufficient && shape.isSufficient;
    result.outputShapes.push_back(shape);
    outputs[i] = b.value();
  }
  if (!sufficient) return result;  // the runtime reports OUTPUT_INSUFFICIENT_SIZE
  if (deadline && Clock::now() > *deadline) {
    return NN_ERROR(MISSED_DEADLINE_TRANSIENT) << "the execution deadline passed before the device was started";
  }

  // The device by priority (DeviceQueue::waitForTurn); the deadline bounds the wait.
  auto turn = queue_->waitForTurn(priority_, deadline);
  if (!turn.ok()) return turn.error();
  if (deadline && Clock::now() > *deadline) {  // it passed while a compilation had the device
    return NN_ERROR(MISSED_DEADLINE_TRANSIENT) << "the execution deadline passed while waiting for the device";
  }
  auto& backend = queue_->backend();
  // The timing backend has no data path: nothing reads the inputs or writes the outputs, so no
  // tensor moves between the host and the device (a 4096x4096x64 layer's input is 1 GB), and the
  // output buffers keep what they held.
  const bool movesData = sim::computesData(backend.kind());
  ExecutionMeasurements m;
  m.copyTime.assign(cm.operations.size(), std::chrono::nanoseconds(0));
  m.statsBefore = backend.stats();
  // Host copies are charged to the operation that reads (inputs) or writes (outputs) them.
  uint64_t hostCopyBytes = 0;
  // Device buffers kept in the tensor's own layout are used in place: the program's addresses of
  // the tensor move to the buffer (ProgramRelocation.h). Others go through the host.
  ProgramRelocation inPlace;
  for (size_t i = 0; i < inputOperands_.size(); ++i) {
    const DeviceBuffer* buffer = inputBuffers[i];
    if (buffer == nullptr) continue;
    const PlacedTensor& t = cm.tensors.at(inputOperands_[i]);
    hostCopyBytes += buffer->prepareForDeviceRead();
    if (sameDeviceLayout(buffer->layout(), t.layout)) {
      inPlace.add(t.region->addr(), t.region->bytes(), buffer->region()->addr());
      continue;
    }
    if (!movesData) continue;
    std::vector<uint8_t> bytes(logicalBytes(buffer->layout()));
    copyFromDevice(backend, buffer->layout(), buffer->region()->addr(), bytes.data());
    copyToDevice(backend, t.layout, t.region->addr(), bytes.data());
    hostCopyBytes += 2 * bytes.size();
  }
  for (size_t i = 0; i < outputOperands_.size(); ++i) {
    const DeviceBuffer* buffer = outputBuffers[i];
    if (buffer == nullptr) continue;
    const PlacedTensor& t = cm.tensors.at(outputOperands_[i]);
    if (sameDeviceLayout(buffer->layout(), t.layout)) inPlace.add(t.region->addr(), t.region->bytes(), buffer->region()->addr());
  }
  for (size_t i = 0; i < inputOperands_.size() && movesData; ++i) {
    if (inputs[i].data == nullptr) continue;
    const PlacedTensor& t = cm.tensors.at(inputOperands_[i]);
    const auto c0 = Clock::now();
    copyToDevice(backend, t.layout, t.region->addr(), inputs[i].data);
    hostCopyBytes += logicalBytes(t.layout);
    m.copyTime[cm.firstReader.at(inputOperands_[i])] += Clock::now() - c0;
  }
  std::vector<uint8_t> relocated;
  if (!inPlace.empty()) {
    relocated = cm.program;
    NN_TRY(inPlace.apply(relocated, /*everyAddressMoves=*/false));
  }
  DeviceQueue::ProgressFn onProgress;
  if (auto listener = progressListener()) {
    clearSnapshotTags(backend, cm);
    onProgress = [&backend, &cm, listener](uint64_t cycles) {
      listener(DeviceProgress{cycles, static_cast<uint64_t>(cm.estimatedCycles), operationsDone(backend, cm),
                              cm.operations.size()});
    };
  }
  const std::vector<uint8_t>& program = inPlace.empty() ? cm.program : relocated;
  auto submitted = queue_->run(program, cm.watchdogCycles, onProgress, deadline);
  for (const DeviceBuffer* buffer : outputBuffers) {
    if (buffer != nullptr) buffer->deviceWrote();  // or half-wrote, when the run failed
  }
  if (!submitted.ok()) return submitted.error();
  m.submission = submitted.value();
  const auto snapshots = readSnapshots(backend, cm);
  for (size_t i = 0; i < outputOperands_.size() && movesData; ++i) {
    const PlacedTensor& t = cm.tensors.at(outputOperands_[i]);
    if (const DeviceBuffer* buffer = outputBuffers[i]) {
      if (!sameDeviceLayout(buffer->layout(), t.layout)) {  // through the host, into its layout
        std::vector<uint8_t> bytes(logicalBytes(t.layout));
        copyFromDevice(backend, t.layout, t.region->addr(), bytes.data());
        copyToDevice(backend, buffer->layout(), buffer->region()->addr(), bytes.data());
        hostCopyBytes += 2 * bytes.size();
      }
      continue;
    }
    const auto c0 = Clock::now();
    hostCopyBytes += logicalBytes(t.layout);
    copyFromDevice(backend, t.layout, t.region->addr(), outputs[i].data);
    auto producer = cm.producer.find(outputOperands_[i]);
    if (producer != cm.producer.end()) m.copyTime[producer->second] += Clock::now() - c0;
  }
  m.statsAfter = backend.stats();
  m.wallTime = Clock::now() - t0;
  result.profile = makeProfile(cm, snapshots, m, queue_->config(), std::string(sim::toString(backend.kind())));
  result.profile.hostCopyBytes = hostCopyBytes;
  // Per-command timelines (opt-in): the events in program order, with the commands as executed.
  const auto& events = m.submission.commands;
  result.profile.commands.reserve(events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    const sim::CommandEvent& e = events[i];
    hal::CommandProfile c;
    c.index = static_cast<uint32_t>(i);
    c.unit = e.unit;
    c.opcode = e.opcode;
    c.decode = e.decode;
    c.dispatch = e.dispatch;
    c.start = e.start;
    c.complete = e.complete;
    std::memcpy(c.word.data(), program.data() + i * hw::kCommandBytes, hw::kCommandBytes);
    result.profile.commands.push_back(c);
  }
  result.profile.dramRequests.reserve(m.submission.dram.size());
  for (const sim::DramEvent& d : m.submission.dram) {
    result.profile.dramRequests.push_back({d.issue, d.done, d.bytes, d.write != 0});
  }
  result.timing = makeTiming(result.profile, measure);
  return result;
}

nn::Result<hal::FencedExecution> PreparedModel::executeFenced(const nn::Request& request,
                                                              const std::vector<hal::SyncFence>& waitFor,
                                                              nn::MeasureTiming measure,
                                                              const hal::OptionalTimePoint& deadline,
                                                              const hal::OptionalDuration& loopTimeoutDuration,
                                                              const hal::OptionalDuration& timeoutDurationAfterFence) const {
  auto pending = hal::makeFencedExecution(*this, request, measure, deadline, loopTimeoutDuration,
                                          timeoutDurationAfterFence);
  if (!pending.ok()) return pending.error();
  NN_TRY(queue_->fenced().submit(waitFor, priority_, std::move(pending->start)));
  return std::move(pending->execution);
}

nn::Result<hal::SharedBurst> PreparedModel::configureExecutionBurst() const {
  return std::static_pointer_cast<const hal::IBurst>(std::make_shared<Burst>(shared_from_this()));
}

}  // namespace weft::accel
