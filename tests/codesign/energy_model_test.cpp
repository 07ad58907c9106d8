// The energy model: the arithmetic from counters to picojoules, and override files.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "Area.h"
#include "Energy.h"
#include "Estimator.h"
#include "EnergyModel.h"

namespace weft::codesign {
namespace {

hw::HwConfig weft8() { return hw::HwConfig::load("weft8"); }

TEST(EnergyModel, DefaultsCiteTheirSources) {
  const EnergyModel m;
  EXPECT_DOUBLE_EQ(m.get(Coefficient::kMacPj), 0.3);  // Horowitz: 0.2 pJ int8 mult + 0.1 pJ int32 add
  EXPECT_DOUBLE_EQ(m.get(Coefficient::kDramPjPerByte), 243.75);
  EXPECT_EQ(m.origin(), "defaults");
  for (const auto& line : m.describe()) EXPECT_GT(line.size(), 30u) << line;
}

TEST(EnergyModel, OverridesOnlyTheGivenKeys) {
  const auto m = EnergyModel::fromJson(R"({"doc": "mine", "macPj": 0.5, "dramPjPerByte": 10})", "mine.json");
  EXPECT_DOUBLE_EQ(m.get(Coefficient::kMacPj), 0.5);
  EXPECT_DOUBLE_EQ(m.get(Coefficient::kDramPjPerByte), 10);
  EXPECT_DOUBLE_EQ(m.get(Coefficient::kVectorLaneOpPj), 0.3);
  EXPECT_TRUE(m.overridden(Coefficient::kMacPj));
  EXPECT_FALSE(m.overridden(Coefficient::kVectorLaneOpPj));
  EXPECT_NE(m.describe()[0].find("from mine.json"), std::string::npos);
}

void expectError(std::string_view text, std::string_view needle) {
  try {
    EnergyModel::fromJson(text, "bad.json");
    FAIL() << "accepted " << text;
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos) << e.what();
  }
}

TEST(EnergyModel, BadFilesAreClearErrors) {
  expectError("{", "not JSON");
  expectError("[1, 2]", "must be an object");
  expectError(R"({"macpj": 1})", "unknown key \"macpj\" (accepted: doc, macPj");
  expectError(R"({"macPj": -1})", "\"macPj\" must be a non-negative number");
  expectError(R"({"macPj": "1"})", "\"macPj\" must be a non-negative number");
  EXPECT_THROW(EnergyModel::load("/nonexistent/energy.json"), ModelError);
}

TEST(EnergyModel, LoadsAFile) {
  const auto path = std::filesystem::temp_directory_path() / "weft_energy_model_test.json";
  std::ofstream(path) << R"({"leakageMwPerMm2": 0})";
  const auto m = EnergyModel::load(path.string());
  EXPECT_DOUBLE_EQ(m.get(Coefficient::kLeakageMwPerMm2), 0);
  EXPECT_EQ(m.origin(), path.string());
  std::filesystem::remove(path);
}

TEST(Energy, SramEnergyGrowsWithTheSquareRootOfCapacity) {
  const EnergyModel m;
  EXPECT_DOUBLE_EQ(sramPjPerByte(m, 8192), 1.25);
  EXPECT_DOUBLE_EQ(sramPjPerByte(m, 4 * 8192), 2.5);  // Horowitz: 32 KB, 20 pJ per 64 bits
}

TEST(Energy, MemoriesOfAConfiguration) {
  const auto mems = memories(weft8());
  ASSERT_EQ(mems.size(), 6u);
  EXPECT_EQ(mems[0].bytes, uint64_t{weft8().inSpadRows()} * 8);
  EXPECT_EQ(mems[2].bytes, uint64_t{weft8().accRows()} * 8 * 4);
  EXPECT_EQ(mems[3].copies, 2u);
}

TEST(Energy, EachEventCostsItsCoefficient) {
  const hw::HwConfig hw = weft8();
  // Only one coefficient non-zero at a time: the energy is that event's count times it.
  auto only = [](const char* key, double v) {
    std::string text = R"({"macPj": 0, "fp16MacPj": 0, "vectorLaneOpPj": 0, "sramPjPerByteAt8KiB": 0, "dramPjPerByte": 0,
                           "registerAccessPj": 0, "leakageMwPerMm2": 0, ")";
    return EnergyModel::fromJson(text + key + "\": " + std::to_string(v) + "}", "test");
  };
  const Counters c = {{"CYCLES", 1000}, {"ARRAY_ROWS", 100}, {"VECTOR_SLOTS", 10},
                      {"DMA_RD_BYTES", 4096 + 64}, {"DMA_WR_BYTES", 512}, {"CMDS_RETIRED", 2}};
  EXPECT_DOUBLE_EQ(estimateEnergy(only("macPj", 0.5), hw, c, 0, 0).totalPj(), 100 * 8 * 8 * 0.5);
  // GEMM fp16 rows (FP16_ROWS, within ARRAY_ROWS) cost one fp16 MAC per pair of PE rows instead.
  Counters fp = c;
  fp.emplace_back("FP16_ROWS", 30);
  EXPECT_DOUBLE_EQ(estimateEnergy(only("macPj", 0.5), hw, fp, 0, 0).macPj, 70 * 8 * 8 * 0.5);
  EXPECT_DOUBLE_EQ(estimateEnergy(only("fp16MacPj", 2), hw, fp, 0, 0).macPj, 30 * 4 * 8 * 2);
  EXPECT_DOUBLE_EQ(estimateEnergy(only("vectorLaneOpPj", 2), hw, c, 0, 0).vectorPj, 10 * 8 * 2);
  EXPECT_DOUBLE_EQ(estimateEnergy(only("dramPjPerByte", 1), hw, c, 0, 0).dramPj, 4096 + 64 + 512);
  EXPECT_DOUBLE_EQ(estimateEnergy(only("registerAccessPj", 20), hw, c, 7, 0).registerPj, 140);
  // 10 mW/mm^2 over 1 mm^2 for 1000 cycles of weft8's clock.
  const double ns = 1000 * hw.cyclePeriodNs();
  EXPECT_DOUBLE_EQ(estimateEnergy(only("leakageMwPerMm2", 10), hw, c, 0, 1e6).leakagePj, 10 * ns);
  EXPECT_DOUBLE_EQ(estimateEnergy(only("leakageMwPerMm2", 10), hw, c, 0, 0).leakagePj, 0);

  const EnergyBreakdown sram = estimateEnergy(only("sramPjPerByteAt8KiB", 1), hw, c, 0, 0);
  const auto mems = memories(hw);
  auto perByte = [](uint64_t bytes) { return std::sqrt(bytes / 8192.0); };
  // 100 rows x 8 input bytes, 10 slots x 2 copies x 8 bytes, 4096 loaded bytes (command fetches excluded).
  EXPECT_NEAR(sram.scratchpadPj, (100 * 8 + 4096) * perByte(mems[0].bytes) + 10 * 2 * 8 * perByte(mems[3].bytes),
              1e-9);
  EXPECT_NEAR(sram.accumulatorPj, (100 * 8 * 8 + 10 * 8 * 4 + 512 * 4) * perByte(mems[2].bytes), 1e-9);
  EXPECT_DOUBLE_EQ(sram.macPj + sram.dramPj + sram.leakagePj, 0);
}

TEST(Energy, BreakdownsAdd) {
  EnergyBreakdown a, b;
  a.macPj = 1, a.leakagePj = 2, b.dramPj = 3, b.registerPj = 4;
  a += b;
  EXPECT_DOUBLE_EQ(a.totalPj(), 10);
  EXPECT_DOUBLE_EQ(a.dynamicPj(), 8);
}

}  // namespace
}  // namespace weft::codesign

namespace weft::codesign {
namespace {

TEST(Area, SramMacrosCostTheirCapacityAtThePerKiBFigure) {
  const hw::HwConfig hw = hw::HwConfig::load("weft8");
  const EnergyModel model = EnergyModel::fromJson(R"({"sramUm2PerKiB": 1000})", "test");
  const AreaEstimate a = sramArea(model, hw);
  double kib = 0;
  for (const auto& m : memories(hw)) kib += static_cast<double>(m.bytes * m.copies) / 1024.0;
  EXPECT_DOUBLE_EQ(a.sramUm2, kib * 1000);
  EXPECT_EQ(a.sramParts.size(), memories(hw).size());
  EXPECT_EQ(a.logicUm2, 0);
  EXPECT_DOUBLE_EQ(a.totalUm2(), a.sramUm2);
  EXPECT_NE(a.describe().find("logic not synthesized"), std::string::npos) << a.describe();
  // Doubling the accumulator's depth adds its capacity again.
  const AreaEstimate deeper = sramArea(model, hw.with(hw::Param::kAccRows, 2 * hw.accRows()));
  EXPECT_DOUBLE_EQ(deeper.sramUm2 - a.sramUm2, hw.accRows() * hw.cols() * 4 / 1024.0 * 1000);
}

TEST(Estimator, EnergyLeaksOverTheWholeArea) {
  const hw::HwConfig hw = hw::HwConfig::load("weft8");
  const Estimator e(hw, "");
  const EnergyBreakdown b = e.energy({{"CYCLES", 1000}}, 0);
  EXPECT_DOUBLE_EQ(b.leakagePj, 20 * e.area().totalUm2() * 1e-6 * 1000 * hw.cyclePeriodNs());
  EXPECT_EQ(e.json()["areaUm2"].get<double>(), e.area().totalUm2());
  EXPECT_EQ(e.json()["energyModel"]["origin"], "defaults");
  EXPECT_THROW(Estimator(hw, "/nonexistent.json"), ModelError);
}

}  // namespace
}  // namespace weft::codesign
