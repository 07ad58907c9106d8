// Executions waiting for the accelerator (DeviceQueue::waitForTurn): taken in NNAPI priority
// order, equal priorities in arrival order, as on the CPU device; one whose deadline passes while
// it waits leaves the line with MISSED_DEADLINE_TRANSIENT at once, running nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <chrono>
#include <thread>

#include "AccelTestUtil.h"
#include "DeadlineModels.h"
#include "Device.h"
#include "WrappedBackend.h"

namespace weft::accel::test {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Records which execution reached the device in which order: each waiter's input is all one
// marker byte, and the host writes a model input into DRAM only once the execution has the device.
class RecordingBackend final : public WrappedBackend {
 public:
  using WrappedBackend::WrappedBackend;
  void writeDram(uint64_t addr, const void* src, size_t bytes) override {
    const auto* p = static_cast<const uint8_t*>(src);
    if (bytes == kInputBytes && p[0] >= 1 && p[0] <= 4 && std::all_of(p, p + bytes, [&](uint8_t b) { return b == p[0]; })) {
      std::lock_guard<std::mutex> lock(mutex_);
      order_.push_back(p[0]);
    }
    WrappedBackend::writeDram(addr, src, bytes);
  }
  std::vector<int> order() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return order_;
  }
  static constexpr size_t kInputBytes = 8 * 8 * 8;

 private:
  mutable std::mutex mutex_;
  std::vector<int> order_;
};

struct Line {
  RecordingBackend* backend = nullptr;
  hal::SharedDevice device = deviceOn([this] {
    auto b = std::make_unique<RecordingBackend>(sim::createBackend(sim::BackendKind::kApprox, hw::HwConfig::load("weft8")));
    backend = b.get();
    return b;
  }());
  DeviceQueue& queue = *std::static_pointer_cast<const Device>(device)->queue();
  std::mt19937 rng{31};
  OpModel model = makeConvChain(1, 8, 8, rng, /*kernel=*/1);  // no halo: the input is written as given

  hal::SharedPreparedModel prepared(nn::Priority priority) {
    return device->prepareModel(model.model, nn::ExecutionPreference::FAST_SINGLE_ANSWER, priority, {}, std::nullopt)
        .value();
  }
};

TEST(Priority, WaitingExecutionsRunHighestPriorityFirstThenInArrivalOrder) {
  Line line;
  const auto low = line.prepared(nn::Priority::LOW);
  const auto medium = line.prepared(nn::Priority::MEDIUM);
  const auto high = line.prepared(nn::Priority::HIGH);
  struct Waiter {
    hal::SharedPreparedModel prepared;
    OpModel model;
    std::thread thread;
  };
  // Arrivals, while the device is taken: 1 LOW, 2 MEDIUM, 3 HIGH, 4 MEDIUM.
  std::vector<Waiter> waiters(4);
  const hal::SharedPreparedModel byArrival[] = {low, medium, high, medium};
  for (int i = 0; i < 4; ++i) {
    waiters[i].prepared = byArrival[i];
    waiters[i].model = line.model;
    waiters[i].model.inputs[0].assign(RecordingBackend::kInputBytes, static_cast<uint8_t>(i + 1));
  }
  {
    auto taken = line.queue.waitForTurn(nn::Priority::HIGH, std::nullopt);
    ASSERT_TRUE(taken.ok());
    for (auto& w : waiters) {
      w.thread = std::thread([&w] {
        auto run = runOnPrepared(*w.prepared, w.model);
        ASSERT_TRUE(run.ok()) << run.error().message;
        EXPECT_EQ(firstMismatch(run.value().outputs[0], runOnCpu(w.model).value().outputs[0]), -1);
      });
      std::this_thread::sleep_for(milliseconds(50));  // each waits before the next arrives
    }
    EXPECT_TRUE(line.backend->order().empty()) << "an execution ran while the device was taken";
  }  // the device is free: the line runs
  for (auto& w : waiters) w.thread.join();
  EXPECT_EQ(line.backend->order(), (std::vector<int>{3, 2, 4, 1}));  // HIGH, MEDIUM, MEDIUM, LOW
}

TEST(Priority, ADeadlineThatPassesInTheLineFailsAtOnceAndRunsNothing) {
  Line line;
  const auto prepared = line.prepared(nn::Priority::HIGH);
  auto taken = line.queue.waitForTurn(nn::Priority::LOW, std::nullopt);
  ASSERT_TRUE(taken.ok());
  const uint64_t cycles = line.queue.backend().cycle();
  const auto t0 = Clock::now();
  auto missed = runOnPrepared(*prepared, line.model, nn::MeasureTiming::NO, Clock::now() + milliseconds(30));
  const double waited = std::chrono::duration<double>(Clock::now() - t0).count();
  ASSERT_FALSE(missed.ok());
  EXPECT_EQ(missed.error().code, nn::ErrorStatus::MISSED_DEADLINE_TRANSIENT) << missed.error().message;
  EXPECT_GE(waited, 0.03);
  EXPECT_LT(waited, 0.03 + 0.3);
  EXPECT_EQ(line.queue.backend().cycle(), cycles);
}

TEST(Priority, TheLineMovesOnWhenItsFirstLeavesPastItsDeadline) {
  Line line;
  const auto high = line.prepared(nn::Priority::HIGH);
  const auto low = line.prepared(nn::Priority::LOW);
  std::optional<DeviceQueue::ExecutionTurn> taken;
  {
    auto t = line.queue.waitForTurn(nn::Priority::MEDIUM, std::nullopt);
    ASSERT_TRUE(t.ok());
    taken.emplace(std::move(t).value());
  }
  std::thread lowThread([&] { EXPECT_TRUE(runOnPrepared(*low, line.model).ok()); });
  std::this_thread::sleep_for(milliseconds(30));
  // HIGH is first in line, then gives up; LOW must still get the device once it is free.
  auto missed = runOnPrepared(*high, line.model, nn::MeasureTiming::NO, Clock::now() + milliseconds(30));
  EXPECT_FALSE(missed.ok());
  taken.reset();
  lowThread.join();
}

}  // namespace
}  // namespace weft::accel::test
