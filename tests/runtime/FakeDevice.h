// A device for partitioning tests: it supports the operation types it is given, runs what it
// compiles on the reference kernels (so results stay checkable), reports the timing it is told
// to, and records what it was asked to compile and run.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "weft/hal/IBurst.h"
#include "weft/hal/IPreparedModel.h"

namespace weft::test {

struct FakeDeviceBehaviour {
  std::set<nn::OperationType> supported{};
  nn::Timing timing{1000, 5000};                    // reported when measuring
  std::optional<nn::ErrorStatus> executionError{};  // every execution fails with it
  std::chrono::milliseconds delay{0};               // before running (deadlines)
  bool blockUntilReleased = false;                  // executions wait for release()
  std::optional<nn::ErrorStatus> preparationError{};  // every prepareModel fails with it
};

class FakeDevice : public hal::IDevice {
 public:
  FakeDevice(std::string name, FakeDeviceBehaviour behaviour);

  const std::string& getName() const override { return name_; }
  const std::string& getVersionString() const override { return version_; }
  int64_t getFeatureLevel() const override { return nn::kFeatureLevel8; }
  nn::DeviceType getType() const override { return nn::DeviceType::ACCELERATOR; }
  const hal::Capabilities& getCapabilities() const override { return capabilities_; }
  nn::Result<std::vector<bool>> getSupportedOperations(const nn::Model& model) const override;
  nn::Result<hal::SharedPreparedModel> prepareModel(const nn::Model& model, nn::ExecutionPreference, nn::Priority,
                                                    const hal::OptionalTimePoint&,
                                                    const std::optional<hal::CacheRequest>& cache) const override;
  nn::Result<hal::SharedBuffer> allocate(const hal::BufferDesc&, const std::vector<hal::SharedPreparedModel>&,
                                         const std::vector<hal::BufferRole>&,
                                         const std::vector<hal::BufferRole>&) const override {
    return NN_ERROR(OP_FAILED) << "no device memory";
  }

  // What the device compiled, in order, and the cache request of each compilation.
  std::vector<nn::Model> compiledModels() const;
  std::vector<std::optional<hal::CacheRequest>> cacheRequests() const;
  int executions() const { return executions_; }
  int failedPreparations() const { return failedPreparations_; }
  // How many executions came through executeFenced (which then runs them as the HAL's default does).
  int fencedExecutions() const { return fencedExecutions_; }
  void countFencedExecution() const { ++fencedExecutions_; }
  // Lets blocked executions go, and waits until one is blocked first when asked.
  void waitUntilBlocked() const;
  void release() const;

  // Used by the prepared model.
  nn::Result<hal::ExecutionResult> run(const nn::Model& model, const nn::Request& request, nn::MeasureTiming measure,
                                       const hal::OptionalTimePoint& deadline) const;

 private:
  std::string name_;
  std::string version_ = "fake-1";
  FakeDeviceBehaviour behaviour_;
  hal::Capabilities capabilities_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  mutable std::vector<nn::Model> compiled_;
  mutable std::vector<std::optional<hal::CacheRequest>> cacheRequests_;
  mutable std::atomic<int> executions_{0};
  mutable std::atomic<int> failedPreparations_{0};
  mutable std::atomic<int> fencedExecutions_{0};
  mutable bool blocked_ = false;
  mutable bool released_ = false;
};

}  // namespace weft::test
