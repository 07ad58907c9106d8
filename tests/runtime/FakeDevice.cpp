#include "FakeDevice.h"

#include <thread>

#include "weft/kernels/CpuExecutor.h"

namespace weft::test {
namespace {

class FakePreparedModel : public hal::IPreparedModel, public std::enable_shared_from_this<FakePreparedModel> {
 public:
  FakePreparedModel(const FakeDevice* device, nn::Model model) : device_(device), model_(std::move(model)) {}
  nn::Result<hal::ExecutionResult> execute(const nn::Request& request, nn::MeasureTiming measure,
                                           const hal::OptionalTimePoint& deadline,
                                           const hal::OptionalDuration&) const override {
    return device_->run(model_, request, measure, deadline);
  }
  nn::Result<hal::SharedBurst> configureExecutionBurst() const override;
  nn::Result<hal::FencedExecution> executeFenced(const nn::Request& request, const std::vector<hal::SyncFence>& waitFor,
                                                 nn::MeasureTiming measure, const hal::OptionalTimePoint& deadline,
                                                 const hal::OptionalDuration& loopTimeout,
                                                 const hal::OptionalDuration& afterFence) const override {
    device_->countFencedExecution();
    return IPreparedModel::executeFenced(request, waitFor, measure, deadline, loopTimeout, afterFence);
  }

 private:
  const FakeDevice* device_;
  nn::Model model_;
};

class FakeBurst : public hal::IBurst {
 public:
  explicit FakeBurst(std::shared_ptr<const FakePreparedModel> prepared) : prepared_(std::move(prepared)) {}
  nn::Result<hal::ExecutionResult> execute(const nn::Request& request, nn::MeasureTiming measure,
                                           const hal::OptionalTimePoint& deadline,
                                           const hal::OptionalDuration& loopTimeout) const override {
    return prepared_->execute(request, measure, deadline, loopTimeout);
  }

 private:
  std::shared_ptr<const FakePreparedModel> prepared_;
};

nn::Result<hal::SharedBurst> FakePreparedModel::configureExecutionBurst() const {
  return hal::SharedBurst(std::make_shared<FakeBurst>(shared_from_this()));
}

}  // namespace

FakeDevice::FakeDevice(std::string name, FakeDeviceBehaviour behaviour)
    : name_(std::move(name)), behaviour_(std::move(behaviour)) {}

nn::Result<std::vector<bool>> FakeDevice::getSupportedOperations(const nn::Model& model) const {
  std::vector<bool> supported;
  for (const nn::Operation& operation : model.main.operations) {
    supported.push_back(behaviour_.supported.count(operation.type) != 0);
  }
  return supported;
}

nn::Result<hal::SharedPreparedModel> FakeDevice::prepareModel(const nn::Model& model, nn::ExecutionPreference,
                                                              nn::Priority, const hal::OptionalTimePoint&,
                                                              const std::optional<hal::CacheRequest>& cache) const {
  for (const nn::Operation& operation : model.main.operations) {
    if (behaviour_.supported.count(operation.type) == 0) {
      return NN_ERROR(BAD_DATA) << name_ << " was asked to compile " << nn::toString(operation.type);
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (behaviour_.preparationError.has_value()) {
    ++failedPreparations_;
    return nn::ErrorBuilder(*behaviour_.preparationError) << name_ << " fails to prepare as told";
  }
  compiled_.push_back(model);
  cacheRequests_.push_back(cache);
  return hal::SharedPreparedModel(std::make_shared<FakePreparedModel>(this, model));
}

std::vector<nn::Model> FakeDevice::compiledModels() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return compiled_;
}

std::vector<std::optional<hal::CacheRequest>> FakeDevice::cacheRequests() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cacheRequests_;
}

void FakeDevice::waitUntilBlocked() const {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return blocked_; });
}

void FakeDevice::release() const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    released_ = true;
  }
  changed_.notify_all();
}

nn::Result<hal::ExecutionResult> FakeDevice::run(const nn::Model& model, const nn::Request& request,
                                                 nn::MeasureTiming measure,
                                                 const hal::OptionalTimePoint& deadline) const {
  ++executions_;
  if (behaviour_.blockUntilReleased) {
    std::unique_lock<std::mutex> lock(mutex_);
    blocked_ = true;
    changed_.notify_all();
    changed_.wait(lock, [this] { return released_; });
  }
  std::this_thread::sleep_for(behaviour_.delay);
  if (deadline.has_value() && std::chrono::steady_clock::now() > *deadline) {
    return NN_ERROR(MISSED_DEADLINE_TRANSIENT) << name_ << ": deadline passed";
  }
  if (behaviour_.executionError.has_value()) {
    return nn::ErrorBuilder(*behaviour_.executionError) << name_ << " fails as told";
  }
  nn::Result<std::vector<nn::OutputShape>> shapes = nn::executeOnCpu(model, request);
  if (!shapes.ok()) return shapes.error();
  hal::ExecutionResult result;
  result.outputShapes = std::move(shapes).value();
  if (measure == nn::MeasureTiming::YES) result.timing = behaviour_.timing;
  for (uint32_t i = 0; i < model.main.operations.size(); ++i) {
    hal::OperationProfile operation;
    operation.operationIndex = i;
    operation.type = model.main.operations[i].type;
    operation.cycles = 100 + i;
    result.profile.operations.push_back(operation);
  }
  return result;
}

}  // namespace weft::test
