// ANeuralNetworks_getDevice*, ANeuralNetworksDevice_* and the runtime-wide queries.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "NnapiTestUtils.h"

namespace weft::test {
namespace {

constexpr int kOk = ANEURALNETWORKS_NO_ERROR;
constexpr int kNull = ANEURALNETWORKS_UNEXPECTED_NULL;
constexpr int kBadData = ANEURALNETWORKS_BAD_DATA;

TEST(DeviceApi, EnumeratesTheCpuDeviceLast) {
  uint32_t count = 0;
  EXPECT_EQ(ANeuralNetworks_getDeviceCount(nullptr), kNull);
  ASSERT_EQ(ANeuralNetworks_getDeviceCount(&count), kOk);
  ASSERT_GE(count, 1u);
  ANeuralNetworksDevice* device = nullptr;
  EXPECT_EQ(ANeuralNetworks_getDevice(0, nullptr), kNull);
  EXPECT_EQ(ANeuralNetworks_getDevice(count, &device), kBadData);
  ASSERT_EQ(ANeuralNetworks_getDevice(count - 1, &device), kOk);
  ANeuralNetworksDevice* again = nullptr;
  ASSERT_EQ(ANeuralNetworks_getDevice(count - 1, &again), kOk);
  EXPECT_EQ(device, again) << "the same handle every time";

  const char* name = nullptr;
  int32_t type = -1;
  const char* version = nullptr;
  int64_t featureLevel = 0;
  ASSERT_EQ(ANeuralNetworksDevice_getName(device, &name), kOk);
  EXPECT_STREQ(name, "weft-cpu");
  ASSERT_EQ(ANeuralNetworksDevice_getType(device, &type), kOk);
  EXPECT_EQ(type, ANEURALNETWORKS_DEVICE_CPU);
  ASSERT_EQ(ANeuralNetworksDevice_getVersion(device, &version), kOk);
  EXPECT_GT(std::strlen(version), 0u);
  ASSERT_EQ(ANeuralNetworksDevice_getFeatureLevel(device, &featureLevel), kOk);
  EXPECT_EQ(featureLevel, ANEURALNETWORKS_FEATURE_LEVEL_8);
  EXPECT_LE(featureLevel, ANeuralNetworks_getRuntimeFeatureLevel());
  EXPECT_EQ(ANeuralNetworksDevice_wait(device), kOk);
  bool supported = true;
  ASSERT_EQ(ANeuralNetworksDevice_getExtensionSupport(device, "com.example.extension", &supported), kOk);
  EXPECT_FALSE(supported);

  // Any other device is the accelerator.
  for (uint32_t i = 0; i + 1 < count; ++i) {
    ASSERT_EQ(ANeuralNetworks_getDevice(i, &device), kOk);
    ASSERT_EQ(ANeuralNetworksDevice_getType(device, &type), kOk);
    EXPECT_EQ(type, ANEURALNETWORKS_DEVICE_ACCELERATOR);
  }
}

TEST(DeviceApi, QueriesCheckTheirArguments) {
  const ANeuralNetworksDevice* cpu = cpuDevice();
  ASSERT_NE(cpu, nullptr);
  int notADevice = 0;
  const ANeuralNetworksDevice* bogus = reinterpret_cast<const ANeuralNetworksDevice*>(&notADevice);
  const char* text = nullptr;
  int32_t type = 0;
  int64_t level = 0;
  bool supported = false;
  EXPECT_EQ(ANeuralNetworksDevice_getName(nullptr, &text), kNull);
  EXPECT_EQ(ANeuralNetworksDevice_getName(cpu, nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksDevice_getName(bogus, &text), kBadData);
  EXPECT_EQ(ANeuralNetworksDevice_getType(nullptr, &type), kNull);
  EXPECT_EQ(ANeuralNetworksDevice_getType(cpu, nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksDevice_getType(bogus, &type), kBadData);
  EXPECT_EQ(ANeuralNetworksDevice_getVersion(nullptr, &text), kNull);
  EXPECT_EQ(ANeuralNetworksDevice_getVersion(cpu, nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksDevice_getFeatureLevel(nullptr, &level), kNull);
  EXPECT_EQ(ANeuralNetworksDevice_getFeatureLevel(cpu, nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksDevice_wait(nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksDevice_wait(bogus), kBadData);
  EXPECT_EQ(ANeuralNetworksDevice_getExtensionSupport(nullptr, "x", &supported), kNull);
  EXPECT_EQ(ANeuralNetworksDevice_getExtensionSupport(cpu, nullptr, &supported), kNull);
  EXPECT_EQ(ANeuralNetworksDevice_getExtensionSupport(cpu, "x", nullptr), kNull);
}

TEST(RuntimeApi, FeatureLevelAndLoopTimeouts) {
  EXPECT_EQ(ANeuralNetworks_getRuntimeFeatureLevel(), ANEURALNETWORKS_FEATURE_LEVEL_8);
  EXPECT_EQ(ANeuralNetworks_getDefaultLoopTimeout(), 2'000'000'000ULL);
  EXPECT_EQ(ANeuralNetworks_getMaximumLoopTimeout(), 15'000'000'000ULL);
}

}  // namespace
}  // namespace weft::test
