// WEFT_BACKEND and WEFT_HW: accepted values, defaults, and errors that name what is accepted.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "DeviceManager.h"

namespace weft::runtime {
namespace {

TEST(Environment, DefaultsAreRtlAndWeft16) {
  nn::Result<accel::AcceleratorOptions> options = acceleratorOptionsFrom({});
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->backend, "rtl");
  EXPECT_EQ(options->hwConfig, "weft16");
}

TEST(Environment, AcceptsTheBackendsAndNamedConfigurations) {
  nn::Result<accel::AcceleratorOptions> options = acceleratorOptionsFrom({std::string("approx"), std::string("weft8")});
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->backend, "approx");
  EXPECT_EQ(options->hwConfig, "weft8");
}

TEST(Environment, BadBackendNamesTheAcceptedValues) {
  nn::Result<accel::AcceleratorOptions> options = acceleratorOptionsFrom({std::string("verilator"), std::nullopt});
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.error().code, nn::ErrorStatus::BAD_DATA);
  EXPECT_NE(options.error().message.find("WEFT_BACKEND"), std::string::npos) << options.error().message;
  EXPECT_NE(options.error().message.find("rtl, approx"), std::string::npos) << options.error().message;
}

TEST(Environment, BadHardwareConfigurationNamesTheAcceptedValues) {
  nn::Result<accel::AcceleratorOptions> options = acceleratorOptionsFrom({std::nullopt, std::string("weft1024")});
  ASSERT_FALSE(options.ok());
  EXPECT_NE(options.error().message.find("WEFT_HW"), std::string::npos) << options.error().message;
  EXPECT_NE(options.error().message.find("weft16"), std::string::npos) << options.error().message;
}

TEST(Environment, HardwareConfigurationFromAFile) {
  const std::string path = ::testing::TempDir() + "/weft_env_test_config.json";
  {
    std::ofstream file(path);
    file << R"({"name": "tiny", "base": "weft8", "params": {}})";
  }
  nn::Result<accel::AcceleratorOptions> options = acceleratorOptionsFrom({std::nullopt, path});
  EXPECT_TRUE(options.ok()) << (options.ok() ? "" : options.error().message);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace weft::runtime
