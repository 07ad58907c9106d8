// ANeuralNetworksExecution_*: arguments, states and results.
#include <gtest/gtest.h>

#include <vector>

#include "NnapiTestUtils.h"

namespace weft::test {
namespace {

constexpr int kOk = ANEURALNETWORKS_NO_ERROR;
constexpr int kNull = ANEURALNETWORKS_UNEXPECTED_NULL;
constexpr int kBadData = ANEURALNETWORKS_BAD_DATA;
constexpr int kBadState = ANEURALNETWORKS_BAD_STATE;

class ExecutionApi : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = makeAddModel(4);
    compilation_ = std::make_unique<Compilation>(*model_);
    ASSERT_EQ(compilation_->finish(), kOk);
    execution_ = std::make_unique<Execution>(*compilation_);
  }
  ANeuralNetworksExecution* execution() { return execution_->get(); }

  std::unique_ptr<Model> model_;
  std::unique_ptr<Compilation> compilation_;
  std::unique_ptr<Execution> execution_;
  std::vector<float> a_{1, 2, 3, 4}, b_{10, 20, 30, 40}, out_ = std::vector<float>(4, 0.0f);
};

TEST_F(ExecutionApi, CreateChecksItsArguments) {
  ANeuralNetworksExecution* execution = reinterpret_cast<ANeuralNetworksExecution*>(0x1);
  EXPECT_EQ(ANeuralNetworksExecution_create(nullptr, &execution), kNull);
  EXPECT_EQ(execution, nullptr);
  EXPECT_EQ(ANeuralNetworksExecution_create(compilation_->get(), nullptr), kNull);
  ANeuralNetworksExecution_free(nullptr);
}

TEST_F(ExecutionApi, SetInputChecksItsArgumentsAndChangesNothing) {
  const uint32_t rightDims[] = {4};
  const uint32_t wrongDims[] = {5};
  const uint32_t twoDims[] = {2, 2};
  const ANeuralNetworksOperandType otherType{ANEURALNETWORKS_TENSOR_INT32, 1, rightDims, 0.0f, 0};
  const ANeuralNetworksOperandType overriding{ANEURALNETWORKS_TENSOR_FLOAT32, 1, wrongDims, 0.0f, 0};
  const ANeuralNetworksOperandType otherRank{ANEURALNETWORKS_TENSOR_FLOAT32, 2, twoDims, 0.0f, 0};
  const ANeuralNetworksOperandType same{ANEURALNETWORKS_TENSOR_FLOAT32, 1, rightDims, 0.0f, 0};
  EXPECT_EQ(ANeuralNetworksExecution_setInput(nullptr, 0, nullptr, a_.data(), 16), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, nullptr, nullptr, 16), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), -1, nullptr, a_.data(), 16), kBadData);
  EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 2, nullptr, a_.data(), 16), kBadData);
  EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, nullptr, a_.data(), 12), kBadData);
  EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, nullptr, a_.data(), 20), kBadData);  // no padding
  EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, &otherType, a_.data(), 16), kBadData);
  EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, &overriding, a_.data(), 20), kBadData);
  EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, &otherRank, a_.data(), 16), kBadData);
  EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, &same, a_.data(), 16), kOk);
  EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, nullptr, a_.data(), 16), kBadState);  // set twice
  EXPECT_EQ(execution_->setInput(1, b_), kOk);
  EXPECT_EQ(execution_->setOutput(0, out_), kOk);
  ASSERT_EQ(execution_->compute(), kOk);
  EXPECT_EQ(out_, (std::vector<float>{11, 22, 33, 44}));
  EXPECT_EQ(execution_->setInput(1, b_), kBadState);  // after the computation
}

TEST_F(ExecutionApi, SetOutputChecksItsArgumentsAndChangesNothing) {
  const uint32_t wrongDims[] = {3};
  const ANeuralNetworksOperandType overriding{ANEURALNETWORKS_TENSOR_FLOAT32, 1, wrongDims, 0.0f, 0};
  EXPECT_EQ(ANeuralNetworksExecution_setOutput(nullptr, 0, nullptr, out_.data(), 16), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution(), 0, nullptr, nullptr, 16), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution(), 1, nullptr, out_.data(), 16), kBadData);
  EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution(), 0, nullptr, out_.data(), 8), kBadData);
  EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution(), 0, &overriding, out_.data(), 12), kBadData);
  ASSERT_EQ(execution_->setInput(0, a_), kOk);
  ASSERT_EQ(execution_->setInput(1, b_), kOk);
  ASSERT_EQ(execution_->setOutput(0, out_), kOk);
  EXPECT_EQ(execution_->setOutput(0, out_), kBadState);
  ASSERT_EQ(execution_->compute(), kOk);
  EXPECT_EQ(out_, (std::vector<float>{11, 22, 33, 44}));
}

TEST_F(ExecutionApi, ComputeNeedsEveryArgumentAndAFailedStartChangesNothing) {
  EXPECT_EQ(ANeuralNetworksExecution_compute(nullptr), kNull);
  ASSERT_EQ(execution_->setInput(0, a_), kOk);
  ASSERT_EQ(execution_->setOutput(0, out_), kOk);
  EXPECT_EQ(execution_->compute(), kBadData);  // input 1 is not set
  ANeuralNetworksEvent* event = nullptr;
  EXPECT_EQ(ANeuralNetworksExecution_startCompute(execution(), &event), kBadData);
  EXPECT_EQ(event, nullptr);
  // Still in the preparation state: the input can be set and the execution computed.
  ASSERT_EQ(execution_->setInput(1, b_), kOk);
  ASSERT_EQ(execution_->compute(), kOk);
  EXPECT_EQ(out_, (std::vector<float>{11, 22, 33, 44}));
}

TEST_F(ExecutionApi, ComputesOnceUnlessReusable) {
  ASSERT_EQ(execution_->setInput(0, a_), kOk);
  ASSERT_EQ(execution_->setInput(1, b_), kOk);
  ASSERT_EQ(execution_->setOutput(0, out_), kOk);
  ASSERT_EQ(execution_->compute(), kOk);
  EXPECT_EQ(execution_->compute(), kBadState);
  ANeuralNetworksEvent* event = nullptr;
  EXPECT_EQ(ANeuralNetworksExecution_startCompute(execution(), &event), kBadState);
  EXPECT_EQ(ANeuralNetworksExecution_setReusable(execution(), true), kBadState);
}

TEST_F(ExecutionApi, ReusableExecutionComputesAgainWithTheBuffersCurrentContents) {
  EXPECT_EQ(ANeuralNetworksExecution_setReusable(nullptr, true), kNull);
  ASSERT_EQ(ANeuralNetworksExecution_setReusable(execution(), true), kOk);
  ASSERT_EQ(execution_->setInput(0, a_), kOk);
  ASSERT_EQ(execution_->setInput(1, b_), kOk);
  ASSERT_EQ(execution_->setOutput(0, out_), kOk);
  ASSERT_EQ(execution_->compute(), kOk);
  EXPECT_EQ(out_, (std::vector<float>{11, 22, 33, 44}));
  a_[0] = 100.0f;
  ASSERT_EQ(execution_->compute(), kOk);
  EXPECT_EQ(out_[0], 110.0f);
  ANeuralNetworksEvent* event = nullptr;
  ASSERT_EQ(ANeuralNetworksExecution_startCompute(execution(), &event), kOk);
  EXPECT_EQ(ANeuralNetworksEvent_wait(event), kOk);
  ANeuralNetworksEvent_free(event);
  // The arguments cannot change between computations.
  EXPECT_EQ(execution_->setInput(0, a_), kBadState);
}

TEST_F(ExecutionApi, PaddingMustBeEnabledBeforeAnyArgument) {
  EXPECT_EQ(ANeuralNetworksExecution_enableInputAndOutputPadding(nullptr, true), kNull);
  std::vector<float> paddedA{1, 2, 3, 4, 0, 0, 0, 0}, paddedOut(8, -1.0f);
  ASSERT_EQ(ANeuralNetworksExecution_enableInputAndOutputPadding(execution(), true), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, nullptr, paddedA.data(), 32), kOk);
  EXPECT_EQ(ANeuralNetworksExecution_enableInputAndOutputPadding(execution(), false), kBadState);
  EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 1, nullptr, b_.data(), 12), kBadData);  // still too short
  ASSERT_EQ(execution_->setInput(1, b_), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution(), 0, nullptr, paddedOut.data(), 32), kOk);
  ASSERT_EQ(execution_->compute(), kOk);
  EXPECT_EQ(std::vector<float>(paddedOut.begin(), paddedOut.begin() + 4), (std::vector<float>{11, 22, 33, 44}));
}

TEST_F(ExecutionApi, TimingAndTimeoutsNeedOneExplicitDevice) {
  EXPECT_EQ(ANeuralNetworksExecution_setMeasureTiming(nullptr, true), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_setMeasureTiming(execution(), true), kBadData);
  EXPECT_EQ(ANeuralNetworksExecution_setTimeout(nullptr, 1000), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_setTimeout(execution(), 1000), kBadData);
  EXPECT_EQ(ANeuralNetworksExecution_setLoopTimeout(nullptr, 1000), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_setLoopTimeout(execution(), 1'000'000), kOk);
  EXPECT_EQ(ANeuralNetworksExecution_setLoopTimeout(execution(), UINT64_MAX), kOk);  // capped at the maximum

  Compilation onCpu(*model_, {cpuDevice()});
  ASSERT_EQ(onCpu.finish(), kOk);
  Execution execution(onCpu);
  EXPECT_EQ(ANeuralNetworksExecution_setMeasureTiming(execution.get(), true), kOk);
  EXPECT_EQ(ANeuralNetworksExecution_setTimeout(execution.get(), 60'000'000'000ULL), kOk);
  ASSERT_EQ(execution.setInput(0, a_), kOk);
  ASSERT_EQ(execution.setInput(1, b_), kOk);
  ASSERT_EQ(execution.setOutput(0, out_), kOk);
  ASSERT_EQ(execution.compute(), kOk);
  EXPECT_EQ(ANeuralNetworksExecution_setMeasureTiming(execution.get(), false), kBadState);
  EXPECT_EQ(ANeuralNetworksExecution_setTimeout(execution.get(), 0), kBadState);
  EXPECT_EQ(ANeuralNetworksExecution_setLoopTimeout(execution.get(), 0), kBadState);
}

TEST_F(ExecutionApi, OutputShapeQueries) {
  uint32_t rank = 0;
  uint32_t dims[1] = {0};
  EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution(), 0, &rank), kBadState);  // not computed
  EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution(), 0, dims), kBadState);
  ASSERT_EQ(execution_->setInput(0, a_), kOk);
  ASSERT_EQ(execution_->setInput(1, b_), kOk);
  ASSERT_EQ(execution_->setOutput(0, out_), kOk);
  ASSERT_EQ(execution_->compute(), kOk);
  EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(nullptr, 0, &rank), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution(), 0, nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution(), 1, &rank), kBadData);
  EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(nullptr, 0, dims), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution(), 0, nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution(), -1, dims), kBadData);
  ASSERT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution(), 0, &rank), kOk);
  EXPECT_EQ(rank, 1u);
  ASSERT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution(), 0, dims), kOk);
  EXPECT_EQ(dims[0], 4u);
}

TEST_F(ExecutionApi, GetDurationChecksItsArguments) {
  uint64_t duration = 0;
  EXPECT_EQ(ANeuralNetworksExecution_getDuration(execution(), ANEURALNETWORKS_DURATION_ON_HARDWARE, &duration),
            kBadState);  // not computed
  ASSERT_EQ(execution_->setInput(0, a_), kOk);
  ASSERT_EQ(execution_->setInput(1, b_), kOk);
  ASSERT_EQ(execution_->setOutput(0, out_), kOk);
  ASSERT_EQ(execution_->compute(), kOk);
  EXPECT_EQ(ANeuralNetworksExecution_getDuration(nullptr, ANEURALNETWORKS_DURATION_ON_HARDWARE, &duration), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_getDuration(execution(), ANEURALNETWORKS_DURATION_ON_HARDWARE, nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_getDuration(execution(), 4, &duration), kBadData);
  EXPECT_EQ(ANeuralNetworksExecution_getDuration(execution(), -1, &duration), kBadData);
  EXPECT_EQ(duration, 0u) << "a rejected call leaves its result untouched";
}

TEST_F(ExecutionApi, FailedComputationCompletesTheExecutionWithItsError) {
  // ADD does not accept an omitted input: the CPU device rejects the request at execution.
  ASSERT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, nullptr, nullptr, 0), kOk);
  ASSERT_EQ(execution_->setInput(1, b_), kOk);
  ASSERT_EQ(execution_->setOutput(0, out_), kOk);
  const int result = execution_->compute();
  EXPECT_NE(result, kOk);
  EXPECT_NE(result, ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE);
  uint32_t rank = 0;
  uint64_t duration = 0;
  EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution(), 0, &rank), kBadState);
  EXPECT_EQ(ANeuralNetworksExecution_getDuration(execution(), ANEURALNETWORKS_DURATION_IN_DRIVER, &duration),
            kBadState);
  EXPECT_EQ(execution_->compute(), kBadState);  // completed, not reusable
}

}  // namespace
}  // namespace weft::test
