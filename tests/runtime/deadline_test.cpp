// Deadlines on the CPU device while it runs: a WHILE loop that outlasts its loop timeout, and an
// execution that outlasts its deadline, stop promptly with MISSED_DEADLINE_*; the next execution
// of the same compilation works.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <vector>

#include "NnapiTestUtils.h"

namespace weft::test {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kOk = ANEURALNETWORKS_NO_ERROR;

// while (i < limit) i = i + 1; with i and limit TENSOR_FLOAT32 [1]: model inputs i and limit,
// output the final i. Counting to 1e9 takes far longer than any timeout here.
struct CountingLoop {
  Model condition, body, main;

  CountingLoop() {
    {
      const uint32_t i = condition.addTensor({1});
      const uint32_t limit = condition.addTensor({1});
      const uint32_t less = condition.addOperand(ANEURALNETWORKS_TENSOR_BOOL8, {1});
      EXPECT_EQ(condition.addOperation(ANEURALNETWORKS_LESS, {i, limit}, {less}), kOk);
      EXPECT_EQ(condition.identify({i, limit}, {less}), kOk);
      EXPECT_EQ(condition.finish(), kOk);
    }
    {
      const uint32_t i = body.addTensor({1});
      const uint32_t limit = body.addTensor({1});
      const uint32_t one = body.addFloatTensorConstant({1}, {1.0f});
      const uint32_t act = body.addInt32Constant(0);
      const uint32_t next = body.addTensor({1});
      EXPECT_EQ(body.addOperation(ANEURALNETWORKS_ADD, {i, one, act}, {next}), kOk);
      EXPECT_EQ(body.identify({i, limit}, {next}), kOk);
      EXPECT_EQ(body.finish(), kOk);
    }
    const uint32_t conditionOperand = main.addOperand(ANEURALNETWORKS_MODEL);
    const uint32_t bodyOperand = main.addOperand(ANEURALNETWORKS_MODEL);
    const uint32_t i = main.addTensor({1});
    const uint32_t limit = main.addTensor({1});
    const uint32_t result = main.addTensor({1});
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromModel(main.get(), conditionOperand, condition.get()), kOk);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromModel(main.get(), bodyOperand, body.get()), kOk);
    EXPECT_EQ(main.addOperation(ANEURALNETWORKS_WHILE, {conditionOperand, bodyOperand, i, limit}, {result}), kOk);
    EXPECT_EQ(main.identify({i, limit}, {result}), kOk);
    EXPECT_EQ(main.finish(), kOk);
  }

  // Counts from 0 to `limit`; returns the result code and, through `result`, the count.
  static int run(const Compilation& compilation, float limit, float* result, uint64_t timeoutNs = 0,
                 uint64_t loopTimeoutNs = 0) {
    Execution execution(compilation);
    std::vector<float> start{0.0f}, bound{limit}, out{-1.0f};
    EXPECT_EQ(execution.setInput(0, start), kOk);
    EXPECT_EQ(execution.setInput(1, bound), kOk);
    EXPECT_EQ(execution.setOutput(0, out), kOk);
    if (timeoutNs != 0) {
      EXPECT_EQ(ANeuralNetworksExecution_setTimeout(execution.get(), timeoutNs), kOk);
    }
    if (loopTimeoutNs != 0) {
      EXPECT_EQ(ANeuralNetworksExecution_setLoopTimeout(execution.get(), loopTimeoutNs), kOk);
    }
    const int code = execution.compute();
    *result = out[0];
    return code;
  }
};

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

TEST(CpuDeadlines, AWhileLoopPastItsLoopTimeoutStopsWithMissedDeadline) {
  CountingLoop loop;
  Compilation compilation(loop.main, {cpuDevice()});
  ASSERT_EQ(compilation.finish(), kOk);
  float count = 0;
  const Clock::time_point start = Clock::now();
  EXPECT_EQ(CountingLoop::run(compilation, 1e9f, &count, 0, 20'000'000), ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT);
  EXPECT_LT(secondsSince(start), 1.0) << "the loop must stop near its 20 ms timeout";
  // The same compilation still runs a loop that ends in time.
  EXPECT_EQ(CountingLoop::run(compilation, 10.0f, &count), kOk);
  EXPECT_EQ(count, 10.0f);
}

TEST(CpuDeadlines, AnExecutionPastItsDeadlineStopsPromptly) {
  CountingLoop loop;
  Compilation compilation(loop.main, {cpuDevice()});
  ASSERT_EQ(compilation.finish(), kOk);
  float count = 0;
  const Clock::time_point start = Clock::now();
  const int code = CountingLoop::run(compilation, 1e9f, &count, 50'000'000, ANeuralNetworks_getMaximumLoopTimeout());
  EXPECT_TRUE(code == ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT || code == ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT)
      << code;
  EXPECT_LT(secondsSince(start), 1.0) << "the execution must stop near its 50 ms deadline, not run its 15 s loop";
  EXPECT_EQ(CountingLoop::run(compilation, 3.0f, &count), kOk);
  EXPECT_EQ(count, 3.0f);
}

TEST(CpuDeadlines, ACompilationPastItsDeadlineFails) {
  CountingLoop loop;
  Compilation compilation(loop.main, {cpuDevice()});
  ASSERT_EQ(ANeuralNetworksCompilation_setTimeout(compilation.get(), 1), kOk);
  EXPECT_EQ(compilation.finish(), ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT);
}

}  // namespace
}  // namespace weft::test
