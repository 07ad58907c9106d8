#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "weft/hw/config.h"

namespace weft::hw {
namespace {

TEST(HwConfig, DefaultsAreWeft16) {
  const HwConfig def;
  const HwConfig named = HwConfig::load("weft16");
  EXPECT_EQ(def, named);
  EXPECT_EQ(named.rows(), 16u);
  EXPECT_EQ(named.cols(), 16u);
  EXPECT_DOUBLE_EQ(named.cyclePeriodNs(), 1.0);
}

TEST(HwConfig, Weft8OverridesTheArray) {
  const HwConfig c = HwConfig::load("weft8");
  EXPECT_EQ(c.rows(), 8u);
  EXPECT_EQ(c.cols(), 8u);
  EXPECT_EQ(c.name(), "weft8");
  EXPECT_NE(c.rtlKey(), HwConfig().rtlKey());
}

TEST(HwConfig, ModelParametersDoNotChangeTheRtlKey) {
  const HwConfig a;
  EXPECT_EQ(a.with(Param::kDramLatencyCycles, 300).rtlKey(), a.rtlKey());
  EXPECT_EQ(a.with(Param::kClockMHz, 500).rtlKey(), a.rtlKey());
  EXPECT_NE(a.with(Param::kAccRows, 512).rtlKey(), a.rtlKey());
}

TEST(HwConfig, UnknownNameListsTheAcceptedOnes) {
  try {
    HwConfig::load("weft99");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("weft99"), std::string::npos);
    EXPECT_NE(msg.find("weft16"), std::string::npos);
    EXPECT_NE(msg.find("weft8"), std::string::npos);
  }
}

TEST(HwConfig, FileWithBaseAndOverrides) {
  const std::string path = ::testing::TempDir() + "/weft_cfg_test.json";
  {
    std::ofstream f(path);
    f << R"({"name": "mine", "base": "weft8", "params": {"DramLatencyCycles": 250}})";
  }
  const HwConfig c = HwConfig::load(path);
  EXPECT_EQ(c.name(), "mine");
  EXPECT_EQ(c.rows(), 8u);
  EXPECT_EQ(c.get(Param::kDramLatencyCycles), 250);
  std::remove(path.c_str());
}

TEST(HwConfig, RejectsBadValues) {
  EXPECT_THROW(HwConfig::fromJson(R"({"params": {"Rows": 1}})", "t"), ConfigError);
  EXPECT_THROW(HwConfig::fromJson(R"({"params": {"BusBytes": 12}})", "t"), ConfigError);
  EXPECT_THROW(HwConfig::fromJson(R"({"params": {"Rows": "16"}})", "t"), ConfigError);
  EXPECT_THROW(HwConfig::fromJson(R"({"params": {"Bogus": 3}})", "t"), ConfigError);
  EXPECT_THROW(HwConfig::fromJson(R"({"parms": {}})", "t"), ConfigError);
  EXPECT_THROW(HwConfig::fromJson(R"({"base": "nope"})", "t"), ConfigError);
  EXPECT_THROW(HwConfig::fromJson("{", "t"), ConfigError);
  EXPECT_THROW(HwConfig().with(Param::kCols, 1000), ConfigError);
}

TEST(HwConfig, JsonRoundTrip) {
  const HwConfig c = HwConfig::load("weft8").with(Param::kClockMHz, 800);
  const HwConfig back = HwConfig::fromJson(c.toJson(), "roundtrip");
  EXPECT_EQ(back, c);
  EXPECT_EQ(back.name(), c.name());
}

TEST(HwConfig, VerilatorParamsCoverRtlParameters) {
  const auto args = HwConfig().verilatorParams();
  size_t rtl = 0;
  for (const auto& s : kParamSpecs) rtl += s.rtl ? 1 : 0;
  EXPECT_EQ(args.size(), rtl);
  EXPECT_EQ(args.front(), "-GRows=16");
}

}  // namespace
}  // namespace weft::hw
