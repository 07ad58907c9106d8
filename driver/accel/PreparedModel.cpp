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

// A request's arguments, checked against the compiled model before the device is touched: each
// in host memory (`inputs` / `outputs`) or in a device buffer of this device (`*Buffers`).
struct Arguments {
  std::vector<Buffer> inputs, outputs;
  std::vector<const DeviceBuffer*> inputBuffers, outputBuffers;
  std::vector<nn::OutputShape> outputShapes;
  bool sufficient = true;  // every host output large enough
};

nn::Status checkInputs(const nn::Request& request, const CompiledModel& cm, const std::vector<uint32_t>& operands,
                       const DeviceQueue* queue, Arguments& args) {
  for (size_t i = 0; i < operands.size(); ++i) {
    auto it = cm.tensors.find(operands[i]);
    if (it == cm.tensors.end()) continue;  // an input no operation reads
    if (const DeviceBuffer* buffer = deviceBufferOf(request, request.inputs[i], queue)) {
      NN_TRY(checkWholeBuffer(*buffer, request.inputs[i], it->second.layout, "input", i));
      NN_TRY(checkDimensions(request.inputs[i].dimensions, it->second.layout.dims, "input", i));
      args.inputBuffers[i] = buffer;
      continue;
    }
    auto b = argumentBuffer(request, request.inputs[i], "input", i);
    if (!b.ok()) return b.error();
    NN_TRY(checkDimensions(request.inputs[i].dimensions, it->second.layout.dims, "input", i));
    if (b.value().length < logicalBytes(it->second.layout)) {
      return NN_ERROR(BAD_DATA) << fmt::format("input {} has {} bytes, the model needs {}", i, b.value().length,
                                               logicalBytes(it->second.layout));
    }
    args.inputs[i] = b.value();
  }
  return {};
}

nn::Status checkOutputs(const nn::Request& request, const CompiledModel& cm, const std::vector<uint32_t>& operands,
                        const DeviceQueue* queue, Arguments& args) {
  for (size_t i = 0; i < operands.size(); ++i) {
    auto it = cm.tensors.find(operands[i]);
    if (it == cm.tensors.end()) {
      return NN_ERROR(BAD_DATA) << "output " << i << " is not computed by the prepared model";
    }
    const TensorLayout& t = it->second.layout;
    if (const DeviceBuffer* buffer = deviceBufferOf(request, request.outputs[i], queue)) {
      NN_TRY(checkWholeBuffer(*buffer, request.outputs[i], t, "output", i));
      NN_TRY(checkDimensions(request.outputs[i].dimensions, t.dims, "output", i));
      args.outputShapes.push_back(nn::OutputShape{t.dims, true});
      args.outputBuffers[i] = buffer;
      continue;
    }
    auto b = argumentBuffer(request, request.outputs[i], "output", i);
    if (!b.ok()) return b.error();
    NN_TRY(checkDimensions(request.outputs[i].dimensions, t.dims, "output", i));
    nn::OutputShape shape{t.dims, b.value().length >= logicalBytes(t)};
    args.sufficient = args.sufficient && shape.isSufficient;
    args.outputShapes.push_back(shape);
    args.outputs[i] = b.value();
  }
  return {};
}

// How an execution's tensors cross between the host and the device: device buffers kept in the
// tensor's own layout are used in place (the program's addresses of the tensor move to the
// buffer, ProgramRelocation.h), others go through the host. The timing backend has no data path
// (`movesData` false): nothing reads the inputs or writes the outputs, so no tensor moves (a
// 4096x4096x64 layer's input is 1 GB), and the output buffers keep what they held. Host copies
// are charged to the operation that reads (inputs) or writes (outputs) them.
class Transfers {
 public:
  Transfers(sim::IDeviceBackend& backend, const CompiledModel& cm, const Arguments& args, bool movesData,
            ExecutionMeasurements& m)
      : backend_(backend), cm_(cm), args_(args), movesData_(movesData), m_(m) {}

  void toDevice(const std::vector<uint32_t>& inputs, const std::vector<uint32_t>& outputs) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      const DeviceBuffer* buffer = args_.inputBuffers[i];
      if (buffer == nullptr) continue;
      const PlacedTensor& t = cm_.tensors.at(inputs[i]);
      hostCopyBytes += buffer->prepareForDeviceRead();
      if (sameDeviceLayout(buffer->layout(), t.layout)) {
        inPlace.add(t.region->addr(), t.region->bytes(), buffer->region()->addr());
        continue;
      }
      if (movesData_) reorder(buffer->layout(), buffer->region()->addr(), t.layout, t.region->addr());
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      const DeviceBuffer* buffer = args_.outputBuffers[i];
      if (buffer == nullptr) continue;
      const PlacedTensor& t = cm_.tensors.at(outputs[i]);
      if (sameDeviceLayout(buffer->layout(), t.layout)) inPlace.add(t.region->addr(), t.region->bytes(), buffer->region()->addr());
    }
    for (size_t i = 0; i < inputs.size() && movesData_; ++i) {
      if (args_.inputs[i].data == nullptr) continue;
      const PlacedTensor& t = cm_.tensors.at(inputs[i]);
      const auto c0 = Clock::now();
      copyToDevice(backend_, t.layout, t.region->addr(), args_.inputs[i].data);
      hostCopyBytes += logicalBytes(t.layout);
      m_.copyTime[cm_.firstReader.at(inputs[i])] += Clock::now() - c0;
    }
  }

  void fromDevice(const std::vector<uint32_t>& outputs) {
    for (size_t i = 0; i < outputs.size() && movesData_; ++i) {
      const PlacedTensor& t = cm_.tensors.at(outputs[i]);
      if (const DeviceBuffer* buffer = args_.outputBuffers[i]) {
        if (!sameDeviceLayout(buffer->layout(), t.layout)) {  // through the host, into its layout
          reorder(t.layout, t.region->addr(), buffer->layout(), buffer->region()->addr());
        }
        continue;
      }
      const auto c0 = Clock::now();
      hostCopyBytes += logicalBytes(t.layout);
      copyFromDevice(backend_, t.layout, t.region->addr(), args_.outputs[i].data);
      auto producer = cm_.producer.find(outputs[i]);
      if (producer != cm_.producer.end()) m_.copyTime[producer->second] += Clock::now() - c0;
    }
  }

  ProgramRelocation inPlace;
  uint64_t hostCopyBytes = 0;

 private:
  // A tensor from one device layout into another, through the host.
  void reorder(const TensorLayout& from, uint64_t fromAddr, const TensorLayout& to, uint64_t toAddr) {
    std::vector<uint8_t> bytes(logicalBytes(from));
    copyFromDevice(backend_, from, fromAddr, bytes.data());
    copyToDevice(backend_, to, toAddr, bytes.data());
    hostCopyBytes += 2 * bytes.size();
  }

  sim::IDeviceBackend& backend_;
  const CompiledModel& cm_;
  const Arguments& args_;
  const bool movesData_;
  ExecutionMeasurements& m_;
};

// Per-command timelines (opt-in): the events in program order, with the commands as executed;
// and the DRAM requests.
void addTimelines(hal::ExecutionProfile& profile, const SubmissionReport& submission,
                  const std::vector<uint8_t>& program) {
  const auto& events = submission.commands;
  profile.commands.reserve(events.size());
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
    profile.commands.push_back(c);
  }
  profile.dramRequests.reserve(submission.dram.size());
  for (const sim::DramEvent& d : submission.dram) {
    profile.dramRequests.push_back({d.issue, d.done, d.bytes, d.write != 0});
  }
  profile.dramCommands.reserve(submission.dramCommands.size());
  for (const sim::DramCommandEvent& d : submission.dramCommands) {
    profile.dramCommands.push_back({d.dramCycle, d.cycle, d.kind, d.channel, d.rank, d.bankGroup, d.bank, d.row, d.addr});
  }
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
  Arguments args;
  args.inputs.resize(inputOperands_.size());
  args.inputBuffers.resize(inputOperands_.size());
  args.outputs.resize(outputOperands_.size());
  args.outputBuffers.resize(outputOperands_.size());
  NN_TRY(checkInputs(request, cm, inputOperands_, queue_.get(), args));
  NN_TRY(checkOutputs(request, cm, outputOperands_, queue_.get(), args));
  hal::ExecutionResult result;
  result.outputShapes = args.outputShapes;
  if (!args.sufficient) return result;  // the runtime reports OUTPUT_INSUFFICIENT_SIZE
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
  ExecutionMeasurements m;
  m.copyTime.assign(cm.operations.size(), std::chrono::nanoseconds(0));
  m.statsBefore = backend.stats();
  Transfers transfers(backend, cm, args, sim::computesData(backend.kind()), m);
  transfers.toDevice(inputOperands_, outputOperands_);
  std::vector<uint8_t> relocated;
  if (!transfers.inPlace.empty()) {
    relocated = cm.program;
    NN_TRY(transfers.inPlace.apply(relocated, /*everyAddressMoves=*/false));
  }
  DeviceQueue::ProgressFn onProgress;
  if (auto listener = progressListener()) {
    clearSnapshotTags(backend, cm);
    onProgress = [&backend, &cm, listener](uint64_t cycles) {
      listener(DeviceProgress{cycles, static_cast<uint64_t>(cm.estimatedCycles), operationsDone(backend, cm),
                              cm.operations.size()});
    };
  }
  const std::vector<uint8_t>& program = transfers.inPlace.empty() ? cm.program : relocated;
  // A cycle-level DRAM's counters at each snapshot (readSnapshots takes them): per-layer figures.
  backend.takeDramCheckpoints();  // an earlier, failed run's
  backend.watchDramSnapshots(cm.snapshots->addr(), (cm.operations.size() + 1) * hw::kSnapshotBytes);
  auto submitted = queue_->run(program, cm.watchdogCycles, onProgress, deadline);
  for (const DeviceBuffer* buffer : args.outputBuffers) {
    if (buffer != nullptr) buffer->deviceWrote();  // or half-wrote, when the run failed
  }
  if (!submitted.ok()) return submitted.error();
  m.submission = submitted.value();
  const auto snapshots = readSnapshots(backend, cm);
  transfers.fromDevice(outputOperands_);
  m.statsAfter = backend.stats();
  m.wallTime = Clock::now() - t0;
  result.profile = makeProfile(cm, snapshots, m, queue_->config(), std::string(sim::toString(backend.kind())));
  result.profile.hostCopyBytes = transfers.hostCopyBytes;
  addTimelines(result.profile, m.submission, program);
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
