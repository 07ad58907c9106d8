// Logic area from synthesis (tools/codesign/Synthesis.h): the per-cell table, the stat parser,
// and the cache, run against a fake yosys that counts its calls.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "Area.h"
#include "Synthesis.h"
#include "weft/common/files.h"

namespace weft::codesign {
namespace {
namespace fs = std::filesystem;

std::string read(const fs::path& p) { return weft::common::readFile(p.string()).value_or(""); }

TEST(CellTable, NanGateAreasForGatesAndFlipFlops) {
  EXPECT_DOUBLE_EQ(cellUm2("$_NOT_"), 0.532);
  EXPECT_DOUBLE_EQ(cellUm2("$_NAND_"), 0.798);
  EXPECT_DOUBLE_EQ(cellUm2("$_AND_"), 1.064);
  EXPECT_DOUBLE_EQ(cellUm2("$_XOR_"), 1.596);
  EXPECT_DOUBLE_EQ(cellUm2("$_MUX_"), 1.862);
  EXPECT_DOUBLE_EQ(cellUm2("$_ANDNOT_"), 0.532 + 0.798);
  EXPECT_DOUBLE_EQ(cellUm2("$_DFF_P_"), 4.522);
  EXPECT_DOUBLE_EQ(cellUm2("$_DFF_PN0_"), 5.32);             // asynchronous reset: DFFR
  EXPECT_DOUBLE_EQ(cellUm2("$_DFFE_PP_"), 4.522 + 1.862);    // enable: a MUX2 in front
  EXPECT_DOUBLE_EQ(cellUm2("$_DFFE_PN0P_"), 5.32 + 1.862);
  EXPECT_DOUBLE_EQ(cellUm2("$_SDFF_PP0_"), 4.522 + 1.064);   // synchronous reset: an AND2
  EXPECT_DOUBLE_EQ(cellUm2("$_SDFFE_PP0P_"), 4.522 + 1.064 + 1.862);
  EXPECT_LT(cellUm2("$add"), 0);  // a coarse cell: not in the table
  EXPECT_LT(cellUm2("$_FOO_"), 0);
}

TEST(ParseNetlist, PricesTheHierarchyAndLeavesMemoriesToTheSramModel) {
  const std::string rtlil = R"(autoidx 1
module \leaf
  attribute \src "x.sv:1"
  cell $mul $m
    parameter \A_SIGNED 1
    parameter \A_WIDTH 9
    parameter \B_WIDTH 9
    parameter \Y_WIDTH 32'00000000000000000000000000010010
    connect \A \a
  end
  cell $dffe $r
    parameter \WIDTH 32
  end
end
attribute \top 1
module $paramod\top\X=1
  cell \leaf u0
  end
  cell \leaf u1
  end
  cell $alu $a
    parameter \A_WIDTH 16
    parameter \B_WIDTH 16
    parameter \Y_WIDTH 16
  end
  cell $mem_v2 $ram
    parameter \WIDTH 8
  end
  cell $weird $w
  end
end
)";
  const LogicArea a = parseNetlist(rtlil);
  ASSERT_TRUE(a.synthesized) << a.note;
  EXPECT_EQ(a.cellsByType.at("$mul"), 2u);  // once per instance of leaf
  EXPECT_EQ(a.cells, 5u);
  EXPECT_EQ(a.srams, 1u);
  EXPECT_EQ(a.uncounted, 1u);
  // 9 x 9 -> 18 bits: 81 partial-product bits, each an AND2 and a full adder.
  EXPECT_DOUBLE_EQ(a.um2ByType.at("$mul"), 2 * 81 * (1.064 + 4.256));
  EXPECT_DOUBLE_EQ(a.um2ByType.at("$dffe"), 2 * 32 * (4.522 + 1.862));
  EXPECT_DOUBLE_EQ(a.um2ByType.at("$alu"), 16 * 4.256);
  EXPECT_DOUBLE_EQ(a.um2, a.um2ByType.at("$mul") + a.um2ByType.at("$dffe") + a.um2ByType.at("$alu"));
  EXPECT_NE(a.note.find("5 cells"), std::string::npos) << a.note;
  EXPECT_NE(a.note.find("1 cells of unknown types"), std::string::npos) << a.note;
  EXPECT_FALSE(parseNetlist("not rtlil").synthesized);
  EXPECT_FALSE(parseNetlist("module \\m\nend\n").synthesized);  // no top
}

TEST(ParseNetlist, ATruncatedProductCostsOnlyTheBitsItKeeps) {
  const LogicArea a = parseNetlist("attribute \\top 1\nmodule \\t\n  cell $mul $m\n    parameter \\A_WIDTH 8\n"
                                   "    parameter \\B_WIDTH 8\n    parameter \\Y_WIDTH 8\n  end\nend\n");
  EXPECT_DOUBLE_EQ(a.um2, 36 * (1.064 + 4.256));  // 8+7+...+1 partial-product bits below bit 8
}

TEST(Dissolve, PackagesLandInTheCompilationUnit) {
  const fs::path dir = fs::temp_directory_path() / ("weft_dissolve_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "a.sv") << "package a_pkg;\n  localparam int X = 1;\nendpackage\n";
  std::ofstream(dir / "b.sv") << "module b\n  import a_pkg::*;\n(output int y);\n  assign y = a_pkg::X;\nendmodule\n";
  const std::string out = dissolvePackages({(dir / "a.sv").string(), (dir / "b.sv").string()});
  EXPECT_EQ(out.find("package"), std::string::npos) << out;
  EXPECT_EQ(out.find("import"), std::string::npos) << out;
  EXPECT_EQ(out.find("::"), std::string::npos) << out;
  EXPECT_NE(out.find("assign y = X;"), std::string::npos) << out;
  fs::remove_all(dir);
}

// A fake yosys: counts its calls in <dir>/calls, then writes the stat report the script asks
// for, with Rows x Cols x 100 NAND gates (read from the script's chparam line), or fails.
class FakeYosys : public ::testing::Test {
 protected:
  void SetUp() override {
    forgetSynthesisResults();
    dir_ = fs::temp_directory_path() / ("weft_fake_yosys_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "cache");
    setup_ = SynthesisSetup::fromBuild();
    setup_.cacheDir = (dir_ / "cache").string();
    setup_.yosys = write("yosys", 0);
  }
  void TearDown() override {
    forgetSynthesisResults();
    fs::remove_all(dir_);
  }

  std::string write(const std::string& name, int exitCode) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << "#!/bin/sh\n"
                     << "echo x >> '" << (dir_ / "calls").string() << "'\n"
                     << "[ " << exitCode << " -eq 0 ] || { echo 'ERROR: fake failure'; exit " << exitCode << "; }\n"
                     << "script=$3\n"
                     << "out=$(sed -n 's/^write_rtlil \\(.*\\)$/\\1/p' \"$script\")\n"
                     << "rows=$(sed -n 's/.*-set Rows \\([0-9]*\\).*/\\1/p' \"$script\")\n"
                     << "cols=$(sed -n 's/.*-set Cols \\([0-9]*\\).*/\\1/p' \"$script\")\n"
                     << "sleep 0.2\n"
                     << "{ printf 'module \\\\pe\\n  cell $_NAND_ g\\n  end\\nend\\nattribute \\\\top 1\\nmodule \\\\top\\n'\n"
                     << "  i=0; while [ $i -lt $((rows * cols * 100)) ]; do printf '  cell \\\\pe p%d\\n  end\\n' $i; "
                        "i=$((i + 1)); done\n"
                     << "  printf '  cell $mem_v2 m\\n  end\\nend\\n'; } > \"$out\"\n";
    ::chmod(p.c_str(), 0755);
    return p.string();
  }
  int calls() const {
    std::ifstream in(dir_ / "calls");
    int n = 0;
    for (std::string l; std::getline(in, l);) ++n;
    return n;
  }
  std::vector<fs::path> cacheFiles() const {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir_ / "cache")) {
      if (e.path().extension() == ".json") files.push_back(e.path());
    }
    return files;
  }

  fs::path dir_;
  SynthesisSetup setup_;
};

TEST_F(FakeYosys, LargerArraysHaveMoreLogic) {
  const LogicArea a8 = synthesizeLogic(hw::HwConfig::load("weft8"), setup_);
  const LogicArea a16 = synthesizeLogic(hw::HwConfig::load("weft16"), setup_);
  ASSERT_TRUE(a8.synthesized) << a8.note;
  ASSERT_TRUE(a16.synthesized) << a16.note;
  EXPECT_EQ(a8.cells, 8u * 8 * 100);
  EXPECT_EQ(a8.srams, 1u);
  EXPECT_GT(a16.um2, a8.um2);
  EXPECT_EQ(calls(), 2);
}

TEST_F(FakeYosys, TheCacheSavesTheSecondRun) {
  const auto hw = hw::HwConfig::load("weft8");
  const LogicArea first = synthesizeLogic(hw, setup_);
  ASSERT_TRUE(first.synthesized) << first.note;
  EXPECT_FALSE(first.fromCache);
  forgetSynthesisResults();  // as a new process would: only the file is left
  const LogicArea second = synthesizeLogic(hw, setup_);
  EXPECT_TRUE(second.fromCache);
  EXPECT_DOUBLE_EQ(second.um2, first.um2);
  EXPECT_EQ(second.cellsByType, first.cellsByType);
  EXPECT_EQ(calls(), 1);
  // Within a process, a result is remembered without reading the file again.
  fs::remove(cacheFiles().at(0));
  EXPECT_DOUBLE_EQ(synthesizeLogic(hw, setup_).um2, first.um2);
  EXPECT_EQ(calls(), 1);
}

TEST_F(FakeYosys, ConfigurationsWithTheSameRtlParametersShareTheResult) {
  const auto hw = hw::HwConfig::load("weft8");
  const auto faster = hw.with(hw::Param::kClockMHz, static_cast<int64_t>(2 * hw.clockMHz()));  // not an RTL parameter
  ASSERT_EQ(faster.rtlKey(), hw.rtlKey());
  synthesizeLogic(hw, setup_);
  forgetSynthesisResults();
  EXPECT_TRUE(synthesizeLogic(faster, setup_).fromCache);
  EXPECT_EQ(calls(), 1);
  EXPECT_EQ(cacheFiles().size(), 1u);
}

TEST_F(FakeYosys, ConcurrentCallersSynthesizeOnce) {
  const auto hw = hw::HwConfig::load("weft16");
  std::vector<double> areas(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < areas.size(); ++i) {
    threads.emplace_back([&, i] { areas[i] = synthesizeLogic(hw, setup_).um2; });
  }
  for (auto& t : threads) t.join();
  for (double a : areas) EXPECT_NEAR(a, 16.0 * 16 * 100 * 0.798, 1e-6);
  EXPECT_EQ(calls(), 1);
  EXPECT_EQ(cacheFiles().size(), 1u);
  for (const auto& e : fs::directory_iterator(dir_ / "cache")) {
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
  }
}

TEST_F(FakeYosys, ACorruptCacheFileIsIgnoredAndRewritten) {
  const auto hw = hw::HwConfig::load("weft8");
  const double um2 = synthesizeLogic(hw, setup_).um2;
  const fs::path file = cacheFiles().at(0);
  for (const char* bad : {"{not json", R"({"rtlKey": "other", "logic": {}})", ""}) {
    std::ofstream(file, std::ios::trunc) << bad;
    forgetSynthesisResults();
    const LogicArea again = synthesizeLogic(hw, setup_);
    EXPECT_TRUE(again.synthesized) << again.note;
    EXPECT_FALSE(again.fromCache);
    EXPECT_DOUBLE_EQ(again.um2, um2);
    EXPECT_NE(read(file).find("\"rtlKey\""), std::string::npos);
  }
  EXPECT_EQ(calls(), 4);
}

TEST_F(FakeYosys, NoYosysMeansSramOnlyWithANote) {
  setup_.yosys = (dir_ / "no-such-yosys").string();
  const auto hw = hw::HwConfig::load("weft8");
  const LogicArea a = synthesizeLogic(hw, setup_);
  EXPECT_FALSE(a.synthesized);
  EXPECT_NE(a.note.find("no yosys"), std::string::npos) << a.note;
  const EnergyModel model;
  const AreaEstimate area = estimateArea(model, hw, setup_);
  EXPECT_EQ(area.logicUm2, 0);
  EXPECT_DOUBLE_EQ(area.totalUm2(), sramArea(model, hw).sramUm2);
  EXPECT_NE(area.describe().find("no yosys"), std::string::npos) << area.describe();

  setup_.yosys = "none";
  EXPECT_NE(synthesizeLogic(hw, setup_).note.find("WEFT_YOSYS=none"), std::string::npos);
}

TEST_F(FakeYosys, AFailingYosysMeansSramOnlyWithTheError) {
  setup_.yosys = write("broken-yosys", 3);
  const auto hw = hw::HwConfig::load("weft8");
  const LogicArea a = synthesizeLogic(hw, setup_);
  EXPECT_FALSE(a.synthesized);
  EXPECT_NE(a.note.find("exited with 3"), std::string::npos) << a.note;
  EXPECT_NE(a.note.find("fake failure"), std::string::npos) << a.note;
  EXPECT_TRUE(cacheFiles().empty());
  const AreaEstimate area = estimateArea(EnergyModel(), hw, setup_);
  EXPECT_EQ(area.logicUm2, 0);
  EXPECT_EQ(calls(), 1);  // the failure is remembered too: a sweep does not retry every point
}

TEST_F(FakeYosys, AnImplicitlyDeclaredIdentifierIsAFailure) {
  // What yosys 0.23 says when it reads `arr[i].field` as a new wire (rtl/README.md).
  const std::string good = write("yosys", 0);
  std::ofstream(dir_ / "misreading-yosys")
      << "#!/bin/sh\necho \"x.sv:3: Warning: Identifier col_q[0].valid is implicitly declared.\"\n"
      << "exec '" << good << "' \"$@\"\n";
  ::chmod((dir_ / "misreading-yosys").c_str(), 0755);
  setup_.yosys = (dir_ / "misreading-yosys").string();
  const LogicArea a = synthesizeLogic(hw::HwConfig::load("weft8"), setup_);
  EXPECT_FALSE(a.synthesized);
  EXPECT_NE(a.note.find("misread"), std::string::npos) << a.note;
  EXPECT_NE(a.note.find("implicitly declared"), std::string::npos) << a.note;
  EXPECT_TRUE(cacheFiles().empty());
}

TEST_F(FakeYosys, LogicAddsToTheSramArea) {
  const auto hw = hw::HwConfig::load("weft8");
  const EnergyModel model;
  const AreaEstimate area = estimateArea(model, hw, setup_);
  EXPECT_NEAR(area.logicUm2, 8 * 8 * 100 * 0.798, 1e-6);
  EXPECT_DOUBLE_EQ(area.totalUm2(), sramArea(model, hw).sramUm2 + area.logicUm2);
  EXPECT_NE(area.describe().find("yosys coarse synthesis"), std::string::npos) << area.describe();
}

}  // namespace
}  // namespace weft::codesign
