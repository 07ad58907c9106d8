// Run with a bad WEFT_BACKEND or WEFT_HW (see CMakeLists.txt): the entry points that need devices
// fail with ANEURALNETWORKS_BAD_STATE; building models does not need devices and still works.
#include <gtest/gtest.h>

#include "NnapiTestUtils.h"

namespace weft::test {
namespace {

TEST(BadEnvironment, DeviceEntryPointsFailWithBadState) {
  uint32_t count = 7;
  EXPECT_EQ(ANeuralNetworks_getDeviceCount(&count), ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(count, 7u);
  ANeuralNetworksDevice* device = nullptr;
  EXPECT_EQ(ANeuralNetworks_getDevice(0, &device), ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(device, nullptr);
  std::unique_ptr<Model> model = makeAddModel();  // models need no device
  ANeuralNetworksCompilation* compilation = nullptr;
  EXPECT_EQ(ANeuralNetworksCompilation_create(model->get(), &compilation), ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(compilation, nullptr);
}

}  // namespace
}  // namespace weft::test
