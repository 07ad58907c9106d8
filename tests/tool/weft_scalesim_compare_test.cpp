// `weft layers --compare-to` (alias `scalesim`) as a user runs it, against SCALE-Sim v2's own
// COMPUTE_REPORT.csv files in tests/tool/scalesim (README.md there says how they were made).
// The expected ratios are computed here from the fixture's cells and weft's own JSON report,
// not by the code under test.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "RunWeft.h"
#include "ToolTestPaths.h"
#include "weft/common/files.h"

using weft::tool::test::testDir;

namespace {

using weft::tool::test::ProcessResult;
using weft::tool::test::runWeft;

const std::string kDir = testDir() + "/scalesim/";

std::string tempPath(const std::string& name) { return ::testing::TempDir() + "weft_scalesim_compare_" + name; }

std::string readText(const std::string& path) { return weft::common::readFile(path).value_or(""); }

struct Outputs {
  std::string json, computeReport, csv, compareJson;
  std::string args() const {
    return " --json " + json + " --compute-report " + computeReport + " --compare-csv " + csv + " --compare-json " +
           compareJson;
  }
  bool noneWritten() const {
    for (const auto& p : {json, computeReport, csv, compareJson}) {
      if (std::filesystem::exists(p)) return false;
    }
    return true;
  }
};

Outputs outputs(const std::string& name) {
  const std::string stem = tempPath(name);
  Outputs o{stem + ".json", stem + "-COMPUTE_REPORT.csv", stem + "-vs.csv", stem + "-vs.json"};
  for (const auto& p : {o.json, o.computeReport, o.csv, o.compareJson}) std::filesystem::remove(p);
  return o;
}

ProcessResult compare(const std::string& table, const std::string& report, const Outputs& o) {
  return runWeft("--backend approx --hw weft16 scalesim " + table + " --quiet --compare-to " + report + o.args());
}

// SCALE-Sim's rows as it writes them: "<id>, <cycles>, <stall>, <util>, ...," (simulator.py).
struct Row {
  uint64_t cycles;
  double util;
};
std::vector<Row> scalesimRows(const std::string& path) {
  std::istringstream in(readText(path));
  std::string line;
  std::getline(in, line);  // the header
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    uint64_t id, cycles, stall;
    double util;
    if (std::sscanf(line.c_str(), "%lu, %lu, %lu, %lf", &id, &cycles, &stall, &util) == 4) {
      EXPECT_EQ(id, rows.size());
      rows.push_back({cycles, util});
    }
  }
  return rows;
}

std::string faster(double ratio) {
  return ratio < 1 ? fmt::format("weft {:.2f}x", 1 / ratio) : fmt::format("SCALE-Sim {:.2f}x", ratio);
}

// The printed row of a layer, as the columns are laid out (ScaleSimCompare.cpp).
std::string printedRow(const std::string& index, const std::string& name, uint64_t scalesimCycles,
                       double scalesimUtil, uint64_t weftCycles, double weftUtil) {
  const double ratio = double(weftCycles) / double(scalesimCycles);
  return fmt::format("{:>3}  {:<16} {:>16} {:>6.1f} {:>12} {:>6.1f}  {:>14.3f}  {}\n", index, name, scalesimCycles,
                     scalesimUtil, weftCycles, weftUtil, ratio, faster(ratio));
}

TEST(WeftScaleSimCompare, ResNet18FirstLayersBesideSCALESimsReport) {
  const std::string report = kDir + "resnet18_first3_COMPUTE_REPORT.csv";
  const Outputs o = outputs("resnet18");
  const ProcessResult r = compare(kDir + "resnet18_first3.csv", report, o);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  const std::vector<Row> scalesim = scalesimRows(report);
  ASSERT_EQ(scalesim.size(), 3u);
  const auto weft = nlohmann::json::parse(readText(o.json))["layers"];
  ASSERT_EQ(weft.size(), 3u);
  EXPECT_NE(r.output.find("3 of the table's 3 layers"), std::string::npos) << r.output;

  uint64_t scalesimTotal = 0, weftTotal = 0;
  double scalesimBusy = 0, macs = 0;
  const auto compareJson = nlohmann::json::parse(readText(o.compareJson));
  for (size_t i = 0; i < 3; ++i) {
    const auto cycles = weft[i]["cycles"].get<uint64_t>();
    const auto util = weft[i]["overallUtilPct"].get<double>();
    const std::string name = weft[i]["name"];
    EXPECT_NE(r.output.find(printedRow(std::to_string(i), name, scalesim[i].cycles, scalesim[i].util, cycles, util)),
              std::string::npos)
        << "expected\n" << printedRow(std::to_string(i), name, scalesim[i].cycles, scalesim[i].util, cycles, util)
        << "in\n" << r.output;
    EXPECT_DOUBLE_EQ(compareJson["layers"][i]["cyclesRatio"].get<double>(), double(cycles) / scalesim[i].cycles);
    EXPECT_EQ(compareJson["layers"][i]["scalesim"]["cycles"], scalesim[i].cycles);
    scalesimTotal += scalesim[i].cycles, weftTotal += cycles;
    scalesimBusy += scalesim[i].util * scalesim[i].cycles;
    macs += weft[i]["macs"].get<double>();
  }
  EXPECT_NE(r.output.find(printedRow("", "total", scalesimTotal, scalesimBusy / scalesimTotal, weftTotal,
                                     100 * macs / (256.0 * weftTotal))),
            std::string::npos)
      << r.output;
  EXPECT_DOUBLE_EQ(compareJson["total"]["cyclesRatio"].get<double>(), double(weftTotal) / scalesimTotal);
  // Conv1 (224 - 7 = 217 rows past the first window, stride 2): SCALE-Sim counts ceil(219 / 2) =
  // 110 output rows and columns, NNAPI's VALID padding 109. The 3x3 stride-1 layers agree.
  const auto& mismatches = compareJson["macMismatches"];
  ASSERT_EQ(mismatches.size(), 1u) << compareJson.dump(1);
  EXPECT_EQ(mismatches[0]["index"], 0);
  EXPECT_NEAR(mismatches[0]["scalesimMacs"].get<double>(), 110.0 * 110 * 7 * 7 * 3 * 64, 1);
  EXPECT_EQ(mismatches[0]["weftMacs"], 109 * 109 * 7 * 7 * 3 * 64);
  EXPECT_NE(r.output.find("MAC counts differ on 1 layer"), std::string::npos) << r.output;
  // The CSV form: a row a layer, then the totals.
  std::istringstream csv(readText(o.csv));
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(csv, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 5u) << readText(o.csv);
  EXPECT_EQ(lines[1].rfind("0,Conv1,586000,100161,75.8831,91.8750,91.4142,", 0), 0u) << lines[1];
  EXPECT_EQ(lines[4].rfind(fmt::format(",total,{},", scalesimTotal), 0), 0u) << lines[4];
}

// What editors and spreadsheets do to the file changes nothing in the comparison.
TEST(WeftScaleSimCompare, BomCrlfAndPaddedCellsGiveTheSameComparison) {
  const std::string plainReport = kDir + "tiny_COMPUTE_REPORT.csv", edited = tempPath("edited.csv");
  std::istringstream in(readText(plainReport));
  std::string line, text = "\xEF\xBB\xBF";
  while (std::getline(in, line)) text += "  " + line + " ,,\r\n";
  std::ofstream(edited, std::ios::binary) << text << "\r\n";
  const Outputs plain = outputs("plain"), windows = outputs("windows");
  const ProcessResult a = compare(kDir + "tiny.csv", plainReport, plain);
  const ProcessResult b = compare(kDir + "tiny.csv", edited, windows);
  ASSERT_EQ(a.exitCode, 0) << a.output;
  ASSERT_EQ(b.exitCode, 0) << b.output;
  EXPECT_EQ(readText(plain.csv), readText(windows.csv));
  const std::vector<Row> scalesim = scalesimRows(plainReport);
  const auto weft = nlohmann::json::parse(readText(windows.json))["layers"];
  for (size_t i = 0; i < scalesim.size(); ++i) {
    const auto cycles = weft[i]["cycles"].get<uint64_t>();
    EXPECT_NE(b.output.find(printedRow(std::to_string(i), weft[i]["name"], scalesim[i].cycles, scalesim[i].util,
                                       cycles, weft[i]["overallUtilPct"].get<double>())),
              std::string::npos)
        << b.output;
  }
}

// The table may have been through the same editor as the report.
TEST(WeftScaleSimCompare, ATableWithBomAndCrlfRunsTheSameLayers) {
  const std::string table = tempPath("tiny.csv");  // the same stem, so the same table name
  std::istringstream in(readText(kDir + "tiny.csv"));
  std::string line, text = "\xEF\xBB\xBF";
  while (std::getline(in, line)) text += line + "\r\n";
  std::ofstream(table, std::ios::binary) << text;
  const Outputs plain = outputs("table_plain"), windows = outputs("table_windows");
  const std::string report = kDir + "tiny_COMPUTE_REPORT.csv";
  const ProcessResult a = compare(kDir + "tiny.csv", report, plain);
  const ProcessResult b = compare(table, report, windows);
  ASSERT_EQ(a.exitCode, 0) << a.output;
  ASSERT_EQ(b.exitCode, 0) << b.output;
  EXPECT_EQ(readText(plain.csv), readText(windows.csv));
  EXPECT_EQ(readText(plain.computeReport), readText(windows.computeReport));
}

// SCALE-Sim runs are often cut short: the layers the report has are compared, the rest named.
TEST(WeftScaleSimCompare, AShortReportComparesTheLayersItHas) {
  const std::string shortReport = tempPath("short.csv");
  std::istringstream in(readText(kDir + "tiny_COMPUTE_REPORT.csv"));
  std::string line, text;
  for (int i = 0; i < 3 && std::getline(in, line); ++i) text += line + "\n";  // the header and layers 0 and 1
  std::ofstream(shortReport) << text;
  const Outputs o = outputs("short");
  const ProcessResult r = compare(kDir + "tiny.csv", shortReport, o);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("2 of the table's 3 layers"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 of the table's layers not in SCALE-Sim's report (not compared, not in the totals): "
                          "2 Tiny_fc"),
            std::string::npos)
      << r.output;
  const auto j = nlohmann::json::parse(readText(o.compareJson));
  EXPECT_EQ(j["layersCompared"], 2);
  EXPECT_EQ(j["missing"][0]["name"], "Tiny_fc");
  EXPECT_EQ(j["total"]["scalesimCycles"], 8227 + 5129);
}

// A report that does not fit the table fails before anything runs, and writes nothing.
TEST(WeftScaleSimCompare, BadReportsAreClearErrorsAndWriteNothing) {
  const std::string tooLong = tempPath("too_long.csv"), badNumber = tempPath("bad_number.csv"),
                    noColumns = tempPath("no_columns.csv"), decimalComma = tempPath("decimal_comma.csv");
  std::ofstream(tooLong) << readText(kDir + "tiny_COMPUTE_REPORT.csv") << "3, 1691, 0, 1.77, 83.3, 1.34,\n";
  const std::string header =
      "LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, Compute Util %,\n";
  std::ofstream(badNumber) << header << "0, 8227, 2792, 56.0, 100.0, 80.7,\n1, 5129, 0, 51.6, 100.0, 44.5,\n"
                                        "2, 1691, 0, 1.77, 8x3.3, 1.34,\n";
  std::ofstream(decimalComma) << header << "0, 8227, 2792, 56.0, 100.0, 80.7,\n1, 5129, 0, 51,6, 100.0, 44.5,\n";
  std::ofstream(noColumns) << "LayerID, Cycles, Util\n0, 8227, 56.0\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {tooLong, "line 5, column 1 ('LayerID'): layer 3, but the table has 3 layers (LayerID 0 to 2)"},
      {badNumber, "line 4, column 5 ('Mapping Efficiency %'): '8x3.3' is not a number"},
      {decimalComma, "line 3, column 7: '44.5' beyond the header's 6 columns (a decimal comma?)"},
      {noColumns, "line 1: no column 'Total Cycles', 'Overall Util %' in the header"},
      {tempPath("nonexistent.csv"), "cannot read it (SCALE-Sim's COMPUTE_REPORT.csv)"},
      {kDir + "tiny.csv", "line 1: no column 'LayerID', 'Total Cycles', 'Overall Util %'"},  // the topology, not the report
  };
  for (const auto& [report, message] : cases) {
    SCOPED_TRACE(report);
    const Outputs o = outputs("bad");
    const ProcessResult r = compare(kDir + "tiny.csv", report, o);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("weft: error: " + report + ": " + message), std::string::npos) << r.output;
    EXPECT_TRUE(o.noneWritten()) << r.output;
  }
  // A ResNet-18 report against the tiny table matches by layer count, but not by MACs: that is
  // said (SCALE-Sim may have run another array on purpose), not an error.
  const Outputs o = outputs("other_table");
  const ProcessResult r = compare(kDir + "tiny.csv", kDir + "resnet18_first3_COMPUTE_REPORT.csv", o);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("MAC counts differ on 3 layers"), std::string::npos) << r.output;
}

TEST(WeftScaleSimCompare, ComparisonOutputsNeedAReport) {
  const ProcessResult r =
      runWeft("--backend approx scalesim " + kDir + "tiny.csv --quiet --compare-csv " + tempPath("x.csv"));
  EXPECT_NE(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("--compare-csv requires --compare-to"), std::string::npos) << r.output;
}

}  // namespace
