// Energy and area in `weft run` and `weft layers` reports (tools/codesign), and the
// --energy-model file: the figures follow the counters the reports hold, and a bad file stops
// the command before it runs anything.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "RunWeft.h"
#include "ToolTestPaths.h"

using weft::tool::test::testDir;

namespace {

using weft::tool::test::ProcessResult;
using weft::tool::test::runWeft;

// Per test: ctest runs the tests of this file in parallel processes.
std::string tempPath(const std::string& name) {
  return ::testing::TempDir() + "weft_energy_test_" + ::testing::UnitTest::GetInstance()->current_test_info()->name() +
         "_" + name;
}

nlohmann::json readJson(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

std::string tinyTable() {
  const std::string path = tempPath("tiny.csv");
  std::ofstream(path) << "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, "
                         "Strides,\nC1, 12, 10, 3, 3, 3, 8, 2,\nC2, 8, 8, 3, 3, 16, 20, 1,\n";
  return path;
}

// With every coefficient but the MAC's at zero, a layer's energy is its ARRAY_ROWS x Rows x Cols
// PE operations times macPj: the figure comes from the hardware's own counter.
TEST(WeftEnergy, LayersEnergyFollowsTheArrayRowsCounter) {
  const std::string model = tempPath("mac_only.json"), json = tempPath("layers.json"), csv = tempPath("layers.csv");
  std::ofstream(model) << R"({"doc": "MACs only", "macPj": 2, "vectorLaneOpPj": 0, "sramPjPerByteAt8KiB": 0,
                             "dramPjPerByte": 0, "registerAccessPj": 0, "leakageMwPerMm2": 0})";
  const ProcessResult r = runWeft("--backend approx --hw weft8 layers --quiet " + tinyTable() + " --json " + json +
                                  " --csv " + csv + " --energy-model " + model);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  const auto report = readJson(json);
  ASSERT_EQ(report["layers"].size(), 2u);
  double sum = 0;
  for (const auto& l : report["layers"]) {
    const double rows = l["counters"]["ARRAY_ROWS"].get<double>();
    EXPECT_GT(rows, 0);
    EXPECT_DOUBLE_EQ(l["energy"]["totalPj"].get<double>(), rows * 8 * 8 * 2) << l["name"];
    EXPECT_DOUBLE_EQ(l["energy"]["macPj"].get<double>(), l["energy"]["totalPj"].get<double>());
    sum += l["energy"]["totalPj"].get<double>();
  }
  EXPECT_DOUBLE_EQ(report["energy"]["totalPj"].get<double>(), sum);
  EXPECT_EQ(report["estimates"]["energyModel"]["origin"], model);
  EXPECT_EQ(report["estimates"]["energyModel"]["coefficients"]["macPj"]["source"], model);
  EXPECT_NE(report["estimates"]["energyModel"]["coefficients"]["sramUm2PerKiB"]["source"].get<std::string>().find(
                "IEDM 2007"),
            std::string::npos);
  EXPECT_GT(report["estimates"]["areaUm2"].get<double>(), 0);
  std::ifstream in(csv);
  std::string header;
  std::getline(in, header);
  EXPECT_NE(header.find(",energy_pj,area_um2,"), std::string::npos) << header;
  // The area column by its position in the header (columns after it: the device and reason).
  const auto area = std::count(header.begin(), header.begin() + header.find(",area_um2,") + 1, ',');
  std::string first;
  std::getline(in, first);
  size_t at = 0;
  for (auto k = 0; k < area; ++k) at = first.find(',', at) + 1;
  EXPECT_EQ(first.substr(at, first.find(',', at) - at),
            fmt::format("{:.1f}", report["estimates"]["areaUm2"].get<double>()))
      << first;
  EXPECT_NE(r.output.find("energy uJ"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("area: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("macPj = 2 pJ per MAC: from " + model), std::string::npos) << r.output;
}

// The default model: DRAM traffic costs dramPjPerByte, a bigger memory costs more area.
TEST(WeftEnergy, DefaultsChargeDramAndScaleAreaWithTheMemories) {
  const std::string small = tempPath("w8.json"), big = tempPath("w16.json");
  ASSERT_EQ(runWeft("--backend approx --hw weft8 layers --quiet " + tinyTable() + " --json " + small).exitCode, 0);
  ASSERT_EQ(runWeft("--backend approx --hw weft16 layers --quiet " + tinyTable() + " --json " + big).exitCode, 0);
  const auto a = readJson(small), b = readJson(big);
  for (const auto& l : a["layers"]) {
    const double bytes = l["dramReadBytes"].get<double>() + l["dramWriteBytes"].get<double>();
    EXPECT_DOUBLE_EQ(l["energy"]["dramPj"].get<double>(), bytes * 243.75);
    EXPECT_GT(l["energy"]["leakagePj"].get<double>(), 0);
  }
  EXPECT_GT(b["estimates"]["areaUm2"].get<double>(), a["estimates"]["areaUm2"].get<double>());
}

TEST(WeftEnergy, RunReportsEnergyPerAcceleratedLayerAndInTotal) {
  const std::string json = tempPath("run.json"), csv = tempPath("run.csv");
  const ProcessResult r = runWeft("--backend approx --hw weft8 run --quiet " + testDir() +
                                  "/small_net.json --json " + json + " --csv " + csv);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  const auto report = readJson(json);
  double layers = 0;
  for (const auto& l : report["layers"]) {
    if (l["device"] == "weft-accel") {
      EXPECT_GT(l["energy"]["totalPj"].get<double>(), 0) << l["name"];
    } else {
      EXPECT_EQ(l["energy"]["totalPj"].get<double>(), 0) << l["name"];
    }
    layers += l["energy"]["totalPj"].get<double>();
  }
  // The total adds the execution's register accesses, which belong to no layer.
  EXPECT_GT(report["acceleratorEnergy"]["registerPj"].get<double>(), 0);
  EXPECT_NEAR(report["acceleratorEnergy"]["totalPj"].get<double>(),
              layers + report["acceleratorEnergy"]["registerPj"].get<double>(), 1e-6 * layers);
  EXPECT_NE(r.output.find("energy on the accelerator: "), std::string::npos) << r.output;
  std::ifstream in(csv);
  std::string header;
  std::getline(in, header);
  EXPECT_NE(header.find(",energy_pj,area_um2"), std::string::npos) << header;
}

// A bad model file is an error naming the file and the key; nothing runs and no report is written.
TEST(WeftEnergy, BadModelFilesStopTheCommandBeforeItRuns) {
  const std::string model = tempPath("bad.json");
  for (const auto& [text, needle] : std::vector<std::pair<std::string, std::string>>{
           {R"({"dramPjPerbyte": 1})", "unknown key \"dramPjPerbyte\""},
           {R"({"macPj": -0.1})", "\"macPj\" must be a non-negative number"},
           {"not json", "not JSON"}}) {
    std::ofstream(model) << text;
    for (const std::string& command : {"layers --quiet " + tinyTable(), "run --quiet " + testDir() +
                                                                             "/small_net.json --csv " +
                                                                             tempPath("never.csv")}) {
      const std::string json = tempPath("never.json");
      std::filesystem::remove(json);
      const ProcessResult r =
          runWeft("--backend approx --hw weft8 " + command + " --json " + json + " --energy-model " + model);
      EXPECT_EQ(r.exitCode, 2) << r.output;
      EXPECT_NE(r.output.find(needle), std::string::npos) << r.output;
      EXPECT_NE(r.output.find(model), std::string::npos) << r.output;
      EXPECT_FALSE(std::filesystem::exists(json)) << command;
    }
  }
  const ProcessResult missing = runWeft("--backend approx --hw weft8 layers --quiet " + tinyTable() +
                                        " --energy-model /nonexistent/model.json");
  EXPECT_EQ(missing.exitCode, 2) << missing.output;
  EXPECT_NE(missing.output.find("cannot read"), std::string::npos) << missing.output;
}

}  // namespace
