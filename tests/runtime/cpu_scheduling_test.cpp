// The CPU device's scheduling (driver/cpu/CpuExecutionScheduler.h) and what each execution
// preference means there (CpuPreparedModel.h): priority orders the executions waiting for a slot,
// LOW_POWER runs one at a time on a niced worker, a deadline reached in the queue is
// MISSED_DEADLINE_TRANSIENT, and SUSTAINED_SPEED validates at preparation.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "CpuExecutionScheduler.h"
#include "weft/cpu/CpuDevice.h"

namespace weft::cpu {
namespace {

using namespace std::chrono_literals;

// A job that records its name when it runs.
struct Journal {
  std::mutex mutex;
  std::vector<std::string> order;
  CpuExecutionScheduler::Work job(const std::string& name) {
    return [this, name]() -> nn::Result<hal::ExecutionResult> {
      std::lock_guard<std::mutex> lock(mutex);
      order.push_back(name);
      return hal::ExecutionResult{};
    };
  }
};

// Holds the only slot of `scheduler` until released.
class SlotHolder {
 public:
  explicit SlotHolder(CpuExecutionScheduler& scheduler) {
    thread_ = std::thread([&scheduler, this] {
      (void)scheduler.run(nn::Priority::MEDIUM, false, std::nullopt, [this]() -> nn::Result<hal::ExecutionResult> {
        held_.set_value();
        release_.get_future().wait();
        return hal::ExecutionResult{};
      });
    });
    held_.get_future().wait();
  }
  void release() {
    release_.set_value();
    thread_.join();
  }

 private:
  std::promise<void> held_, release_;
  std::thread thread_;
};

void waitUntil(const std::function<bool()>& condition) {
  for (int i = 0; i < 5000 && !condition(); ++i) std::this_thread::sleep_for(1ms);
  ASSERT_TRUE(condition());
}

TEST(CpuScheduling, HigherPriorityTakesTheNextFreeSlot) {
  CpuExecutionScheduler scheduler(1);
  SlotHolder holder(scheduler);
  Journal journal;
  std::vector<std::thread> waiting;
  const std::pair<nn::Priority, const char*> arrivals[] = {{nn::Priority::LOW, "low"},
                                                           {nn::Priority::MEDIUM, "medium-1"},
                                                           {nn::Priority::HIGH, "high"},
                                                           {nn::Priority::MEDIUM, "medium-2"}};
  for (size_t i = 0; i < std::size(arrivals); ++i) {
    const auto [priority, name] = arrivals[i];
    auto work = journal.job(name);
    waiting.emplace_back(
        [&scheduler, priority = priority, work] { (void)scheduler.run(priority, false, std::nullopt, work); });
    // One at a time, so that the arrival order is the listed one.
    waitUntil([&] { return scheduler.waitingForSlot() == i + 1; });
  }
  holder.release();
  for (std::thread& t : waiting) t.join();
  EXPECT_EQ(journal.order, (std::vector<std::string>{"high", "medium-1", "medium-2", "low"}));
}

TEST(CpuScheduling, ADeadlineReachedInTheQueueIsMissedWithoutRunning) {
  CpuExecutionScheduler scheduler(1);
  SlotHolder holder(scheduler);
  Journal journal;
  const auto start = std::chrono::steady_clock::now();
  nn::Result<hal::ExecutionResult> result = scheduler.run(nn::Priority::HIGH, false, start + 30ms, journal.job("late"));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, nn::ErrorStatus::MISSED_DEADLINE_TRANSIENT);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  EXPECT_EQ(scheduler.waitingForSlot(), 0u);
  holder.release();
  EXPECT_TRUE(journal.order.empty());
  EXPECT_TRUE(scheduler.run(nn::Priority::LOW, false, std::nullopt, journal.job("next")).ok());
}

TEST(CpuScheduling, LowPowerRunsOneAtATimeOnANicedWorkerBesideTheSlots) {
  CpuExecutionScheduler scheduler(1);
  SlotHolder holder(scheduler);  // low-power work needs no slot
  std::atomic<int> running{0}, mostAtOnce{0};
  std::mutex mutex;
  std::vector<long> threads;
  std::vector<int> niceness;
  auto job = [&]() -> nn::Result<hal::ExecutionResult> {
    const int now = ++running;
    mostAtOnce = std::max(mostAtOnce.load(), now);
    {
      std::lock_guard<std::mutex> lock(mutex);
      threads.push_back(syscall(SYS_gettid));
      niceness.push_back(getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid))));
    }
    std::this_thread::sleep_for(5ms);
    --running;
    return hal::ExecutionResult{};
  };
  std::vector<std::thread> callers;
  for (int i = 0; i < 4; ++i) {
    callers.emplace_back([&] { EXPECT_TRUE(scheduler.run(nn::Priority::MEDIUM, true, std::nullopt, job).ok()); });
  }
  for (std::thread& t : callers) t.join();
  holder.release();
  EXPECT_EQ(mostAtOnce.load(), 1);
  ASSERT_EQ(threads.size(), 4u);
  EXPECT_TRUE(std::all_of(threads.begin(), threads.end(), [&](long t) { return t == threads[0]; }));
  EXPECT_NE(threads[0], syscall(SYS_gettid));
  EXPECT_TRUE(std::all_of(niceness.begin(), niceness.end(),
                          [](int n) { return n >= CpuExecutionScheduler::kLowPowerNiceness; }));
}

// out = a + b on TENSOR_FLOAT32 [2], built as a canonical model (bypassing the runtime's checks).
nn::Model sumModel(nn::OperandType bType) {
  nn::Model model;
  auto tensor = [](nn::OperandType type, nn::Operand::LifeTime lifetime) {
    nn::Operand operand;
    operand.type = type;
    operand.dimensions = {2};
    operand.lifetime = lifetime;
    return operand;
  };
  model.main.operands = {tensor(nn::OperandType::TENSOR_FLOAT32, nn::Operand::LifeTime::SUBGRAPH_INPUT),
                         tensor(bType, nn::Operand::LifeTime::SUBGRAPH_INPUT)};
  nn::Operand act;
  act.type = nn::OperandType::INT32;
  act.lifetime = nn::Operand::LifeTime::CONSTANT_COPY;
  act.location.length = 4;
  model.operandValues.assign(4, 0);
  model.main.operands.push_back(act);
  model.main.operands.push_back(tensor(nn::OperandType::TENSOR_FLOAT32, nn::Operand::LifeTime::SUBGRAPH_OUTPUT));
  model.main.operations = {{nn::OperationType::ADD, {0, 1, 2}, {3}}};
  model.main.inputIndexes = {0, 1};
  model.main.outputIndexes = {3};
  return model;
}

nn::Request sumRequest(std::vector<float>& a, std::vector<float>& b, std::vector<float>& out) {
  nn::Request request;
  for (std::vector<float>* v : {&a, &b}) {
    nn::RequestArgument argument;
    argument.location.pointer = v->data();
    argument.location.length = 8;
    request.inputs.push_back(argument);
  }
  nn::RequestArgument output;
  output.location.pointer = out.data();
  output.location.length = 8;
  request.outputs.push_back(output);
  return request;
}

TEST(CpuPreference, SustainedSpeedValidatesAtPreparationFastSingleAnswerAtExecution) {
  const hal::SharedDevice device = createCpuDevice();
  const nn::Model invalid = sumModel(nn::OperandType::TENSOR_INT32);  // ADD of float and int32
  auto sustained = device->prepareModel(invalid, nn::ExecutionPreference::SUSTAINED_SPEED, nn::Priority::MEDIUM,
                                        std::nullopt, std::nullopt);
  ASSERT_FALSE(sustained.ok());
  EXPECT_EQ(sustained.error().code, nn::ErrorStatus::BAD_DATA);
  auto fast = device->prepareModel(invalid, nn::ExecutionPreference::FAST_SINGLE_ANSWER, nn::Priority::MEDIUM,
                                   std::nullopt, std::nullopt);
  ASSERT_TRUE(fast.ok()) << "a fast single answer prepares without validating";
  std::vector<float> a{1, 2}, b{3, 4}, out(2);
  EXPECT_FALSE((*fast)->execute(sumRequest(a, b, out), nn::MeasureTiming::NO, std::nullopt, std::nullopt).ok());

  const nn::Model valid = sumModel(nn::OperandType::TENSOR_FLOAT32);
  for (auto preference : {nn::ExecutionPreference::LOW_POWER, nn::ExecutionPreference::FAST_SINGLE_ANSWER,
                          nn::ExecutionPreference::SUSTAINED_SPEED}) {
    auto prepared = device->prepareModel(valid, preference, nn::Priority::HIGH, std::nullopt, std::nullopt);
    ASSERT_TRUE(prepared.ok());
    ASSERT_TRUE((*prepared)->execute(sumRequest(a, b, out), nn::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
    EXPECT_EQ(out, (std::vector<float>{4, 6}));
  }
}

}  // namespace
}  // namespace weft::cpu
