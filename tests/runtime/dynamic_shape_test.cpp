// Outputs whose dimensions the model leaves unspecified: the actual shape is reported after the
// computation, and a buffer too small for it is ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE.
#include <gtest/gtest.h>

#include <vector>

#include "NnapiTestUtils.h"

namespace weft::test {
namespace {

constexpr int kOk = ANEURALNETWORKS_NO_ERROR;
constexpr int kInsufficient = ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE;

TEST(DynamicShape, UnspecifiedOutputGetsItsActualShape) {
  std::unique_ptr<Model> model = makeAddModel(6, /*unspecifiedOutput=*/true);
  Compilation compilation(*model);
  ASSERT_EQ(compilation.finish(), kOk);
  Execution execution(compilation);
  std::vector<float> a(6, 1.0f), b(6, 2.0f), out(16, 0.0f);  // more room than needed
  ASSERT_EQ(execution.setInput(0, a), kOk);
  ASSERT_EQ(execution.setInput(1, b), kOk);
  ASSERT_EQ(execution.setOutput(0, out), kOk);
  ASSERT_EQ(execution.compute(), kOk);
  uint32_t rank = 0;
  ASSERT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution.get(), 0, &rank), kOk);
  ASSERT_EQ(rank, 1u);
  uint32_t dims[1] = {0};
  ASSERT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution.get(), 0, dims), kOk);
  EXPECT_EQ(dims[0], 6u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out[i], 3.0f);
}

TEST(DynamicShape, TooSmallOutputIsReportedWithItsActualShape) {
  std::unique_ptr<Model> model = makeAddModel(6, /*unspecifiedOutput=*/true);
  Compilation compilation(*model);
  ASSERT_EQ(compilation.finish(), kOk);
  Execution execution(compilation);
  std::vector<float> a(6, 1.0f), b(6, 2.0f), out(4, 0.0f);
  ASSERT_EQ(execution.setInput(0, a), kOk);
  ASSERT_EQ(execution.setInput(1, b), kOk);
  ASSERT_EQ(execution.setOutput(0, out), kOk);  // the size is unknown, so any length is accepted here
  EXPECT_EQ(execution.compute(), kInsufficient);
  uint32_t rank = 0;
  EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution.get(), 0, &rank), kInsufficient);
  EXPECT_EQ(rank, 1u);
  uint32_t dims[1] = {0};
  EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution.get(), 0, dims), kInsufficient);
  EXPECT_EQ(dims[0], 6u);
  uint64_t duration = 0;
  EXPECT_EQ(ANeuralNetworksExecution_getDuration(execution.get(), ANEURALNETWORKS_DURATION_ON_HARDWARE, &duration),
            ANEURALNETWORKS_BAD_STATE);
  // A retry with a buffer of the reported size succeeds.
  Execution retry(compilation);
  std::vector<float> bigEnough(dims[0]);
  ASSERT_EQ(retry.setInput(0, a), kOk);
  ASSERT_EQ(retry.setInput(1, b), kOk);
  ASSERT_EQ(retry.setOutput(0, bigEnough), kOk);
  ASSERT_EQ(retry.compute(), kOk);
  EXPECT_EQ(bigEnough, std::vector<float>(6, 3.0f));
}

TEST(DynamicShape, OutputDimensionsGivenAtExecution) {
  std::unique_ptr<Model> model = makeAddModel(6, /*unspecifiedOutput=*/true);
  Compilation compilation(*model);
  ASSERT_EQ(compilation.finish(), kOk);
  Execution execution(compilation);
  std::vector<float> a(6, 1.0f), b(6, 2.0f), out(6);
  const uint32_t dims[] = {6};
  const ANeuralNetworksOperandType type{ANEURALNETWORKS_TENSOR_FLOAT32, 1, dims, 0.0f, 0};
  ASSERT_EQ(execution.setInput(0, a), kOk);
  ASSERT_EQ(execution.setInput(1, b), kOk);
  // With the dimensions given, the length must match them.
  EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, &type, out.data(), 20), ANEURALNETWORKS_BAD_DATA);
  ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, &type, out.data(), 24), kOk);
  ASSERT_EQ(execution.compute(), kOk);
  EXPECT_EQ(out, std::vector<float>(6, 3.0f));
}

TEST(DynamicShape, ComputeWithDependenciesNeedsFullySpecifiedOutputs) {
  std::unique_ptr<Model> model = makeAddModel(6, /*unspecifiedOutput=*/true);
  Compilation compilation(*model);
  ASSERT_EQ(compilation.finish(), kOk);
  Execution execution(compilation);
  std::vector<float> a(6, 1.0f), b(6, 2.0f), out(6);
  ASSERT_EQ(execution.setInput(0, a), kOk);
  ASSERT_EQ(execution.setInput(1, b), kOk);
  ASSERT_EQ(execution.setOutput(0, out), kOk);
  ANeuralNetworksEvent* event = nullptr;
  EXPECT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(execution.get(), nullptr, 0, 0, &event),
            ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(event, nullptr);
  ASSERT_EQ(execution.compute(), kOk);  // unchanged by the rejected start
}

}  // namespace
}  // namespace weft::test
