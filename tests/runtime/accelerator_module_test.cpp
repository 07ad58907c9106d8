// The accelerator driver is a module libneuralnetworks.so loads at run time (AcceleratorLoader.h).
// Each test runs in its own process with its own environment (see CMakeLists.txt).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "NnapiTestUtils.h"

namespace weft::test {
namespace {

std::vector<std::string> deviceNames() {
  uint32_t count = 0;
  EXPECT_EQ(ANeuralNetworks_getDeviceCount(&count), ANEURALNETWORKS_NO_ERROR);
  std::vector<std::string> names;
  for (uint32_t i = 0; i < count; ++i) {
    ANeuralNetworksDevice* device = nullptr;
    const char* name = nullptr;
    EXPECT_EQ(ANeuralNetworks_getDevice(i, &device), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksDevice_getName(device, &name), ANEURALNETWORKS_NO_ERROR);
    names.push_back(name);
  }
  return names;
}

// With WEFT_BACKEND=approx and nothing else set: libweft-accel.so is found next to the library.
TEST(AcceleratorModule, IsFoundNextToTheLibrary) {
  EXPECT_EQ(deviceNames(), (std::vector<std::string>{"weft-accel", "weft-cpu"}));
  const ANeuralNetworksDevice* accelerator = findDevice("weft-accel");
  ASSERT_NE(accelerator, nullptr);
  int32_t type = 0;
  EXPECT_EQ(ANeuralNetworksDevice_getType(accelerator, &type), ANEURALNETWORKS_NO_ERROR);
  EXPECT_EQ(type, ANEURALNETWORKS_DEVICE_ACCELERATOR);
}

// With WEFT_ACCEL_DRIVER naming a file that does not exist: no accelerator, the CPU device works.
TEST(AcceleratorModule, AMissingModuleLeavesTheCpuDevice) {
  EXPECT_EQ(deviceNames(), std::vector<std::string>{"weft-cpu"});
  std::unique_ptr<Model> model = makeAddModel();
  Compilation compilation(*model);
  ASSERT_EQ(compilation.finish(), ANEURALNETWORKS_NO_ERROR);
  Execution execution(compilation);
  std::vector<float> a{1, 2, 3, 4}, b{1, 1, 1, 1}, out(4);
  ASSERT_EQ(execution.setInput(0, a), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(execution.setInput(1, b), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(execution.setOutput(0, out), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(execution.compute(), ANEURALNETWORKS_NO_ERROR);
  EXPECT_EQ(out, (std::vector<float>{2, 3, 4, 5}));
}

}  // namespace
}  // namespace weft::test
