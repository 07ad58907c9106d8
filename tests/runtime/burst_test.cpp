// ANeuralNetworksBurst_* and ANeuralNetworksExecution_burstCompute.
#include <gtest/gtest.h>

#include <vector>

#include "NnapiTestUtils.h"

namespace weft::test {
namespace {

constexpr int kOk = ANEURALNETWORKS_NO_ERROR;
constexpr int kNull = ANEURALNETWORKS_UNEXPECTED_NULL;
constexpr int kBadData = ANEURALNETWORKS_BAD_DATA;
constexpr int kBadState = ANEURALNETWORKS_BAD_STATE;

TEST(Burst, CreateChecksItsArguments) {
  std::unique_ptr<Model> model = makeAddModel();
  Compilation compilation(*model);
  ANeuralNetworksBurst* burst = reinterpret_cast<ANeuralNetworksBurst*>(0x1);
  EXPECT_EQ(ANeuralNetworksBurst_create(nullptr, &burst), kNull);
  EXPECT_EQ(burst, nullptr);
  EXPECT_EQ(ANeuralNetworksBurst_create(compilation.get(), nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksBurst_create(compilation.get(), &burst), kBadState);  // not finished
  ANeuralNetworksBurst_free(nullptr);
}

TEST(Burst, RunsASequenceOfExecutions) {
  std::unique_ptr<Model> model = makeAddMulModel(4);
  Compilation compilation(*model);
  ASSERT_EQ(compilation.finish(), kOk);
  ANeuralNetworksBurst* burst = nullptr;
  ASSERT_EQ(ANeuralNetworksBurst_create(compilation.get(), &burst), kOk);
  for (int round = 0; round < 4; ++round) {
    Execution execution(compilation);
    std::vector<float> a(4, static_cast<float>(round)), b(4, 1.0f), c(4, 2.0f), out(4);
    ASSERT_EQ(execution.setInput(0, a), kOk);
    ASSERT_EQ(execution.setInput(1, b), kOk);
    ASSERT_EQ(execution.setInput(2, c), kOk);
    ASSERT_EQ(execution.setOutput(0, out), kOk);
    EXPECT_EQ(ANeuralNetworksExecution_burstCompute(nullptr, burst), kNull);
    EXPECT_EQ(ANeuralNetworksExecution_burstCompute(execution.get(), nullptr), kNull);
    ASSERT_EQ(ANeuralNetworksExecution_burstCompute(execution.get(), burst), kOk);
    EXPECT_EQ(out, std::vector<float>(4, 2.0f * (round + 1)));
    EXPECT_EQ(ANeuralNetworksExecution_burstCompute(execution.get(), burst), kBadState);  // not reusable
  }
  ANeuralNetworksBurst_free(burst);
}

TEST(Burst, ExecutionMustComeFromTheBurstsCompilation) {
  std::unique_ptr<Model> model = makeAddModel();
  Compilation first(*model), second(*model);
  ASSERT_EQ(first.finish(), kOk);
  ASSERT_EQ(second.finish(), kOk);
  ANeuralNetworksBurst* burst = nullptr;
  ASSERT_EQ(ANeuralNetworksBurst_create(first.get(), &burst), kOk);
  Execution execution(second);
  std::vector<float> a(4, 1.0f), b(4, 2.0f), out(4);
  ASSERT_EQ(execution.setInput(0, a), kOk);
  ASSERT_EQ(execution.setInput(1, b), kOk);
  ASSERT_EQ(execution.setOutput(0, out), kOk);
  EXPECT_EQ(ANeuralNetworksExecution_burstCompute(execution.get(), burst), kBadData);
  EXPECT_EQ(execution.compute(), kOk);  // the rejected burst computation changed nothing
  ANeuralNetworksBurst_free(burst);
}

}  // namespace
}  // namespace weft::test
