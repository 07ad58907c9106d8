// Durations (DESIGN.md "Timing"): UINT64_MAX unless measured; measured only for createForDevices
// with one device; IN_DRIVER never less than ON_HARDWARE; the FENCED variants equal the others for
// computations without dependencies.
#include <gtest/gtest.h>

#include <vector>

#include "NnapiTestUtils.h"

namespace weft::test {
namespace {

constexpr int kOk = ANEURALNETWORKS_NO_ERROR;
constexpr int32_t kCodes[] = {ANEURALNETWORKS_DURATION_ON_HARDWARE, ANEURALNETWORKS_DURATION_IN_DRIVER,
                              ANEURALNETWORKS_FENCED_DURATION_ON_HARDWARE, ANEURALNETWORKS_FENCED_DURATION_IN_DRIVER};

struct Durations {
  uint64_t values[4];
};

Durations computeAndRead(const Compilation& compilation, bool measure) {
  Execution execution(compilation);
  std::vector<float> a(256, 1.0f), b(256, 2.0f), out(256);
  if (measure) {
    EXPECT_EQ(ANeuralNetworksExecution_setMeasureTiming(execution.get(), true), kOk);
  }
  EXPECT_EQ(execution.setInput(0, a), kOk);
  EXPECT_EQ(execution.setInput(1, b), kOk);
  EXPECT_EQ(execution.setOutput(0, out), kOk);
  EXPECT_EQ(execution.compute(), kOk);
  Durations d{};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(ANeuralNetworksExecution_getDuration(execution.get(), kCodes[i], &d.values[i]), kOk);
  }
  return d;
}

TEST(Timing, NotAvailableUnlessRequested) {
  std::unique_ptr<Model> model = makeAddModel(256);
  Compilation compilation(*model, {cpuDevice()});
  ASSERT_EQ(compilation.finish(), kOk);
  const Durations d = computeAndRead(compilation, /*measure=*/false);
  for (uint64_t value : d.values) EXPECT_EQ(value, UINT64_MAX);
}

TEST(Timing, NotAvailableForAPartitionedCompilation) {
  std::unique_ptr<Model> model = makeAddModel(256);
  Compilation compilation(*model);  // ANeuralNetworksCompilation_create: any device may run it
  ASSERT_EQ(compilation.finish(), kOk);
  const Durations d = computeAndRead(compilation, /*measure=*/false);
  for (uint64_t value : d.values) EXPECT_EQ(value, UINT64_MAX);
}

TEST(Timing, MeasuredOnTheCpuDevice) {
  std::unique_ptr<Model> model = makeAddModel(256);
  Compilation compilation(*model, {cpuDevice()});
  ASSERT_EQ(compilation.finish(), kOk);
  const Durations d = computeAndRead(compilation, /*measure=*/true);
  const uint64_t onHardware = d.values[0], inDriver = d.values[1];
  EXPECT_NE(onHardware, UINT64_MAX);
  EXPECT_NE(inDriver, UINT64_MAX);
  EXPECT_GT(inDriver, 0u);
  EXPECT_LE(onHardware, inDriver);
  // Without dependencies the fenced durations are the plain ones.
  EXPECT_EQ(d.values[2], onHardware);
  EXPECT_EQ(d.values[3], inDriver);
}

}  // namespace
}  // namespace weft::test
