#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

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

// An enumerated parameter (params.json "values") is written by its value name; the integer is the
// name's index, which the RTL key and the -G arguments carry.
TEST(HwConfig, EnumeratedParameterTakesItsValueName) {
  const HwConfig os = HwConfig::fromJson(R"({"name": "mine", "base": "weft8", "params": {"Dataflow": "OS"}})", "t");
  EXPECT_EQ(os.get(Param::kDataflow), 1);
  EXPECT_EQ(os.getEnum<Param::kDataflow>(), Dataflow::kOS);
  EXPECT_EQ(os.dataflow(), Dataflow::kOS);
  EXPECT_EQ(os.text(Param::kDataflow), "OS");
  EXPECT_EQ(os.text(Param::kRows), "8");
  EXPECT_EQ(os.enumParamsText(), "Dataflow OS");
  // The DRAM's are named only when the DRAM is a cycle-level one (simple ignores DramMapping).
  EXPECT_EQ(HwConfig::load("weft16-lpddr4").enumParamsText(), "Dataflow WS, Dram lpddr4, DramMapping device");
  EXPECT_EQ(toString(os.dataflow()), "OS");
  EXPECT_EQ(HwConfig().dataflow(), Dataflow::kWS);  // the default
  EXPECT_EQ(os.rows(), 8u);
  EXPECT_NE(os.rtlKey(), HwConfig::load("weft8").rtlKey());
  EXPECT_NE(os.rtlKey().find("Dataflow1"), std::string::npos) << os.rtlKey();
  const auto args = os.verilatorParams();
  EXPECT_NE(std::find(args.begin(), args.end(), "-GDataflow=1"), args.end());

  const ParamSpec& spec = kParamSpecs[static_cast<size_t>(Param::kDataflow)];
  ASSERT_TRUE(spec.isEnum());
  ASSERT_EQ(spec.values.size(), 2u);
  EXPECT_EQ(spec.values[0], "WS");
  EXPECT_EQ(spec.values[1], "OS");
  EXPECT_FALSE(kParamSpecs[static_cast<size_t>(Param::kRows)].isEnum());
  EXPECT_EQ(paramValueByName(Param::kDataflow, "WS"), 0);
  EXPECT_EQ(paramValueText(Param::kDataflow, 1), "OS");
  EXPECT_EQ(paramValueText(Param::kClockMHz, 800), "800");
  EXPECT_EQ(paramValueNames(Param::kDataflow), R"("WS", "OS")");
}

TEST(HwConfig, EnumeratedParameterRefusesOtherNamesAndNumbers) {
  const auto message = [](const std::string& json) {
    try {
      HwConfig::fromJson(json, "t");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(R"({"params": {"Dataflow": "XS"}})"), R"(t: Dataflow = "XS" is not one of "WS", "OS")");
  EXPECT_EQ(message(R"({"params": {"Dataflow": "os"}})"), R"(t: Dataflow = "os" is not one of "WS", "OS")");
  EXPECT_EQ(message(R"({"params": {"Dataflow": 1}})"),
            R"(t: Dataflow = 1 is not one of "WS", "OS" (an enumerated parameter takes its value's name))");
  EXPECT_NE(message(R"({"params": {"Dataflow": ["OS"]}})").find(R"(is not one of "WS", "OS")"), std::string::npos);
  EXPECT_EQ(message(R"({"params": {"Rows": "OS"}})"), "t: Rows must be an integer");
  try {
    HwConfig().with(Param::kDataflow, 2);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "weft16: Dataflow = 2 is not one of its values 0 (WS), 1 (OS)");
  }
  EXPECT_THROW(paramValueByName(Param::kDataflow, "XS"), ConfigError);
  EXPECT_THROW(paramValueByName(Param::kRows, "8"), ConfigError);
}

TEST(HwConfig, EnumeratedParameterRoundTripsByName) {
  const HwConfig c = HwConfig::load("weft16").with(Param::kDataflow, 1);
  const std::string json = c.toJson();
  EXPECT_NE(json.find(R"("Dataflow": "OS")"), std::string::npos) << json;
  const HwConfig back = HwConfig::fromJson(json, "roundtrip");
  EXPECT_EQ(back, c);
  EXPECT_EQ(back.dataflow(), Dataflow::kOS);
}

// weft8os and weft16os are weft8 and weft16 with the output-stationary array (by "base").
TEST(HwConfig, OutputStationaryNamedConfigurations) {
  for (const std::string base : {"weft8", "weft16"}) {
    const HwConfig ws = HwConfig::load(base);
    const HwConfig os = HwConfig::load(base + "os");
    EXPECT_EQ(os.name(), base + "os");
    EXPECT_EQ(ws.dataflow(), Dataflow::kWS);
    EXPECT_EQ(os.dataflow(), Dataflow::kOS);
    EXPECT_EQ(os, ws.with(Param::kDataflow, static_cast<int64_t>(Dataflow::kOS)));
  }
  const auto names = HwConfig::namedConfigs();
  EXPECT_NE(std::find(names.begin(), names.end(), "weft8os"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "weft16os"), names.end());
}

TEST(HwConfig, VerilatorParamsCoverRtlParameters) {
  const auto args = HwConfig().verilatorParams();
  size_t rtl = 0;
  for (const auto& s : kParamSpecs) rtl += s.rtl ? 1 : 0;
  EXPECT_EQ(args.size(), rtl);
  EXPECT_EQ(args.front(), "-GRows=16");
}

// params.json's constraints: combinations no hardware has are refused with the constraint's
// message (fromJson, named or not); with() lets a configuration pass through them.
TEST(HwConfig, ConstraintsRefuseFp16WithoutItsArray) {
  const HwConfig fp = HwConfig::load("weft16fp");
  EXPECT_TRUE(fp.fp16());
  EXPECT_FALSE(HwConfig::load("weft16").fp16());
  EXPECT_NE(fp.rtlKey(), HwConfig::load("weft16").rtlKey());
  auto messageOf = [](const char* json) {
    try {
      HwConfig::fromJson(json, "mine.json");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(messageOf(R"({"base": "weft16os", "params": {"Fp16": 1}})"),
            "mine.json: Fp16 needs Dataflow WS: the output-stationary array has no fp16 datapath");
  EXPECT_EQ(messageOf(R"({"base": "weft16fp", "params": {"Rows": 7}})"),
            "mine.json: Fp16 needs an even Rows: a pair of PE rows makes one fp16 lane");
  EXPECT_EQ(messageOf(R"({"base": "weft16fp", "params": {"Rows": 6, "Cols": 5}})"), "accepted");
  EXPECT_EQ(messageOf(R"({"base": "weft16os", "params": {"Rows": 7}})"), "accepted");  // int8 only: any Rows
  const HwConfig passing = fp.with(Param::kDataflow, 1);  // on the way to another value
  EXPECT_THROW(passing.checkConstraints("t"), ConfigError);
  EXPECT_NO_THROW(passing.with(Param::kFp16, 0).checkConstraints("t"));
}

}  // namespace
}  // namespace weft::hw
