// SCALE-Sim's COMPUTE_REPORT.csv as `weft layers --compare-to` reads it, and the comparison
// made from it. The fixture tests/tool/scalesim/tiny_COMPUTE_REPORT.csv is SCALE-Sim v2's own
// output (tests/tool/scalesim/README.md); the variants below are what users' files look like
// after an editor or a spreadsheet has had them.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ScaleSimCompare.h"
#include "ScaleSimReport.h"
#include "ToolTestPaths.h"
#include "weft/common/files.h"

using weft::tool::test::testDir;

namespace weft::tool {
namespace {

const std::vector<std::string> kTiny = {"Tiny_conv3x3", "Tiny_conv3x3_s2", "Tiny_fc"};

std::string fixture() {
  return weft::common::readFile(testDir() + "/scalesim/tiny_COMPUTE_REPORT.csv").value_or("");
}

// The message of the ScaleSimReportError that parsing `text` against kTiny throws.
std::string errorOf(const std::string& text, const std::vector<std::string>& table = kTiny) {
  try {
    parseComputeReport(text, "r.csv", table);
  } catch (const ScaleSimReportError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted:\n" << text;
  return "";
}

const std::string kHeader = "LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, Compute Util %,\n";

TEST(ScaleSimReport, ReadsSCALESimsOwnReport) {
  const std::string text = fixture();
  ASSERT_EQ(text.rfind(kHeader, 0), 0u) << "the fixture is not SCALE-Sim's format:\n" << text;
  const ScaleSimReport r = parseComputeReport(text, "tiny", kTiny);
  ASSERT_EQ(r.layers.size(), 3u);
  EXPECT_EQ(r.layers[0].id, 0u);
  EXPECT_EQ(r.layers[0].totalCycles, 8227u);
  EXPECT_EQ(r.layers[0].stallCycles, 2792u);
  EXPECT_DOUBLE_EQ(r.layers[0].overallUtilPct, 56.01069648717637);
  EXPECT_DOUBLE_EQ(*r.layers[0].mappingEfficiencyPct, 100.0);
  EXPECT_DOUBLE_EQ(*r.layers[0].computeUtilPct, 80.75709779179813);
  EXPECT_FALSE(r.layers[0].name.has_value());
  EXPECT_EQ(r.layers[2].totalCycles, 1691u);
  EXPECT_DOUBLE_EQ(*r.layers[2].mappingEfficiencyPct, 83.33333333333334);
  EXPECT_EQ(r.layers[2].line, 4u);
}

TEST(ScaleSimReport, AcceptsBomCrlfSpacesQuotesAndBlankLines) {
  const ScaleSimReport plain = parseComputeReport(fixture(), "tiny", kTiny);
  std::string edited = "\xEF\xBB\xBF\r\n";
  std::istringstream in(fixture());
  std::string line;
  for (int i = 0; std::getline(in, line); ++i) {
    if (i == 1) line = "  \"0\" ,  8227 , 2792,56.01069648717637 , 100.0,80.75709779179813,,,";
    edited += line + "\r\n";
    if (i == 2) edited += ",,,,,,\r\n\r\n";
  }
  const ScaleSimReport r = parseComputeReport(edited, "edited", kTiny);
  ASSERT_EQ(r.layers.size(), plain.layers.size());
  for (size_t i = 0; i < r.layers.size(); ++i) {
    EXPECT_EQ(r.layers[i].totalCycles, plain.layers[i].totalCycles);
    EXPECT_EQ(r.layers[i].stallCycles, plain.layers[i].stallCycles);
    EXPECT_DOUBLE_EQ(r.layers[i].overallUtilPct, plain.layers[i].overallUtilPct);
    EXPECT_EQ(r.layers[i].computeUtilPct, plain.layers[i].computeUtilPct);
  }
}

TEST(ScaleSimReport, ReadsPythonsNumberForms) {
  const ScaleSimReport r =
      parseComputeReport("LayerID, Total Cycles, Overall Util %\n0, 8227.0, 5e-05\n", "r.csv", kTiny);
  ASSERT_EQ(r.layers.size(), 1u);
  EXPECT_EQ(r.layers[0].totalCycles, 8227u);
  EXPECT_DOUBLE_EQ(r.layers[0].overallUtilPct, 5e-05);
  EXPECT_FALSE(r.layers[0].stallCycles.has_value()) << "a column the file lacks is absent, not 0";
}

TEST(ScaleSimReport, ReadsWeftsOwnFormAndChecksItsNames) {
  const std::string weft = "LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, Compute Util "
                           "%, Layer name,\n0, 7005, 2397, 65.7816, 100.0000, 100.0000, Tiny_conv3x3,\n";
  EXPECT_EQ(*parseComputeReport(weft, "w.csv", kTiny).layers[0].name, "Tiny_conv3x3");
  EXPECT_EQ(errorOf(weft, {"Other", "b", "c"}),
            "r.csv: line 2, column 7 ('Layer name'): 'Tiny_conv3x3', but the table's layer 0 is 'Other'");
}

TEST(ScaleSimReport, FewerLayersThanTheTableAreAccepted) {
  const ScaleSimReport r = parseComputeReport(kHeader + "1, 5129, 0, 51.589003704425814, 100.0, 44.5,\n", "r", kTiny);
  ASSERT_EQ(r.layers.size(), 1u);
  EXPECT_EQ(r.layers[0].id, 1u);
}

TEST(ScaleSimReport, LayersBeyondTheTableAreAnError) {
  const std::string text = fixture() + "3, 100, 0, 1.0, 1.0, 1.0,\n";
  EXPECT_EQ(errorOf(text), "r.csv: line 5, column 1 ('LayerID'): layer 3, but the table has 3 layers (LayerID 0 to "
                           "2): is the report for this table?");
  EXPECT_NE(errorOf(fixture(), {"only"}).find("line 3, column 1 ('LayerID'): layer 1, but the table has 1 layer "),
            std::string::npos);
}

TEST(ScaleSimReport, ARepeatedLayerIsAnError) {
  EXPECT_EQ(errorOf(kHeader + "0, 1, 0, 1, 1, 1,\n1, 1, 0, 1, 1, 1,\n0, 2, 0, 1, 1, 1,\n"),
            "r.csv: line 4, column 1 ('LayerID'): layer 0 again (first on line 2)");
}

TEST(ScaleSimReport, UnparsableNumbersNameLineAndColumn) {
  EXPECT_EQ(errorOf(kHeader + "0, 8227, 0, 56.0, 100.0, 80.0,\n1, 51x29, 0, 51.5, 100.0, 44.5,\n"),
            "r.csv: line 3, column 2 ('Total Cycles'): '51x29' is not a number");
  EXPECT_EQ(errorOf(kHeader + "0, 8227, 0, nan, 100.0, 80.0,\n"),
            "r.csv: line 2, column 4 ('Overall Util %'): 'nan' is not a number");
  EXPECT_EQ(errorOf(kHeader + "0, 8227.5, 0, 56, 100.0, 80.0,\n"),
            "r.csv: line 2, column 2 ('Total Cycles'): '8227.5' is not a whole number");
  EXPECT_EQ(errorOf(kHeader + "0, 8227, -1, 56, 100.0, 80.0,\n"),
            "r.csv: line 2, column 3 ('Stall Cycles'): '-1' is negative");
  EXPECT_EQ(errorOf(kHeader + "0, 0, 0, 56, 100.0, 80.0,\n"), "r.csv: line 2, column 2 ('Total Cycles'): 0 cycles");
  EXPECT_EQ(errorOf(kHeader + "zero, 8227, 0, 56, 100.0, 80.0,\n"),
            "r.csv: line 2, column 1 ('LayerID'): 'zero' is not a number");
  EXPECT_EQ(errorOf(kHeader + "0,\n"), "r.csv: line 2, column 2 ('Total Cycles'): empty, a number is expected");
  EXPECT_EQ(errorOf(kHeader + "0, 8227, 0, 56, 100.0, 8O.0,\n"),
            "r.csv: line 2, column 6 ('Compute Util %'): '8O.0' is not a number");
}

// A decimal comma splits a number in two and shifts the row: cells beyond the header's
// columns are an error, where empty ones (SCALE-Sim ends every line with a comma) are not.
TEST(ScaleSimReport, CellsBeyondTheHeaderAreAnError) {
  EXPECT_EQ(errorOf(kHeader + "0, 8227, 2792, 56,01, 100,0, 80,76,\n"),
            "r.csv: line 2, column 7: '0' beyond the header's 6 columns (a decimal comma?)");
  EXPECT_EQ(parseComputeReport(kHeader + "0, 8227, 2792, 56.01, 100.0, 80.76, , ,\n", "r", kTiny).layers.size(), 1u);
}

TEST(ScaleSimReport, OtherFilesAreRejectedByTheirHeader) {
  // SCALE-Sim's BANDWIDTH_REPORT.csv, and the topology, passed by mistake.
  EXPECT_EQ(errorOf("LayerID, Avg IFMAP SRAM BW, Avg FILTER SRAM BW, Avg OFMAP SRAM BW,\n0, 1.0, 2.0, 3.0,\n"),
            "r.csv: line 1: no column 'Total Cycles', 'Overall Util %' in the header 'LayerID, Avg IFMAP SRAM BW, Avg "
            "FILTER SRAM BW, Avg OFMAP SRAM BW,': a SCALE-Sim COMPUTE_REPORT.csv starts 'LayerID, Total Cycles, Stall "
            "Cycles, Overall Util %, Mapping Efficiency %, Compute Util %,'");
  EXPECT_NE(errorOf("Layer name, IFMAP Height, IFMAP Width\nConv1,224,224\n").find("no column 'LayerID', 'Total Cycles', "
                                                                                   "'Overall Util %'"),
            std::string::npos);
  EXPECT_EQ(errorOf(""), "r.csv: empty, not a SCALE-Sim COMPUTE_REPORT.csv");
  EXPECT_EQ(errorOf("\xEF\xBB\xBF\r\n\r\n"), "r.csv: empty, not a SCALE-Sim COMPUTE_REPORT.csv");
  EXPECT_EQ(errorOf(kHeader + ",,,\n"), "r.csv: a header but no layers");
  EXPECT_EQ(errorOf("LayerID, Total Cycles, total  cycles, Overall Util %\n"),
            "r.csv: line 1: column 'Total Cycles' appears twice (columns 2 and 3)");
}

TEST(ScaleSimReport, AMissingFileIsAnError) {
  EXPECT_THROW(loadComputeReport("/nonexistent/COMPUTE_REPORT.csv", kTiny), ScaleSimReportError);
}

// weft's figures for kTiny, as `weft --backend approx --hw weft16` measured them (the numbers
// only need to be consistent: util = macs / (256 * cycles)).
std::vector<WeftLayerFigures> weftTiny() {
  return {{"Tiny_conv3x3", 7005, 2397, 1179648, 100.0 * 1179648 / (256.0 * 7005), 100},
          {"Tiny_conv3x3_s2", 7737, 5091, 677376, 100.0 * 677376 / (256.0 * 7737), 100},
          {"Tiny_fc", 1364, 1328, 7680, 100.0 * 7680 / (256.0 * 1364), 83.3}};
}

TEST(ScaleSimCompare, RatiosAndTotalsFromBothReports) {
  const ScaleSimReport r = parseComputeReport(fixture(), "tiny", kTiny);
  const ScaleSimComparison c = compareWithScaleSim(r, weftTiny(), 16, 16);
  ASSERT_EQ(c.layers.size(), 3u);
  EXPECT_TRUE(c.missing.empty());
  EXPECT_TRUE(c.macMismatches.empty()) << c.macMismatches.front().name;  // SCALE-Sim counts the same MACs
  EXPECT_DOUBLE_EQ(c.layers[0].cyclesRatio, 7005.0 / 8227);
  EXPECT_DOUBLE_EQ(c.layers[1].cyclesRatio, 7737.0 / 5129);
  EXPECT_EQ(c.scalesimCycles, 8227u + 5129 + 1691);
  EXPECT_EQ(c.weftCycles, 7005u + 7737 + 1364);
  EXPECT_DOUBLE_EQ(c.cyclesRatio, 16106.0 / 15047);
  const double macs = 1179648.0 + 677376 + 7680;
  EXPECT_NEAR(c.scalesimUtilPct, 100 * macs / (256.0 * 15047), 1e-9);
  EXPECT_NEAR(c.weftUtilPct, 100 * macs / (256.0 * 16106), 1e-9);

  const nlohmann::ordered_json j = comparisonJson(c);
  EXPECT_EQ(j["layers"][1]["faster"], "SCALE-Sim 1.51x");
  EXPECT_EQ(j["total"]["scalesimCycles"], 15047);
  EXPECT_TRUE(j["missing"].empty());
  const std::string csv = comparisonCsv(c);
  EXPECT_NE(csv.find("\n0,Tiny_conv3x3,8227,2792,56.0107,100.0000,80.7571,7005,2397,65.7816,100.0000,0.851465,weft "
                     "1.17x\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\n,total,15047,,48.4083,,,16106,,45.2254,,1.070379,SCALE-Sim 1.07x\n"), std::string::npos) << csv;
}

TEST(ScaleSimCompare, AShortReportComparesWhatItHas) {
  const ScaleSimReport r = parseComputeReport(kHeader + "0, 8227, 2792, 56.01069648717637, 100.0, 80.75,\n", "r", kTiny);
  const ScaleSimComparison c = compareWithScaleSim(r, weftTiny(), 16, 16);
  ASSERT_EQ(c.layers.size(), 1u);
  ASSERT_EQ(c.missing.size(), 2u);
  EXPECT_EQ(c.missing[1].first, 2u);
  EXPECT_EQ(c.missing[1].second, "Tiny_fc");
  EXPECT_EQ(c.weftCycles, 7005u) << "the totals cover the compared layers only";
  EXPECT_EQ(c.scalesimCycles, 8227u);
  std::ostringstream out;
  printComparison(c, out);
  EXPECT_NE(out.str().find("1 of the table's 3 layers"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("2 of the table's layers not in SCALE-Sim's report (not compared, not in the totals): 1 "
                           "Tiny_conv3x3_s2, 2 Tiny_fc"),
            std::string::npos)
      << out.str();
}

TEST(ScaleSimCompare, AReportOfAnotherArrayIsFlagged) {
  // The same cycles at a quarter of the utilization: SCALE-Sim ran a 32x32 array.
  ScaleSimReport r = parseComputeReport(fixture(), "tiny", kTiny);
  for (ScaleSimLayer& l : r.layers) l.overallUtilPct /= 4;
  const ScaleSimComparison c = compareWithScaleSim(r, weftTiny(), 16, 16);
  ASSERT_EQ(c.macMismatches.size(), 3u);
  EXPECT_EQ(c.macMismatches[0].index, 0u);
  EXPECT_NEAR(c.macMismatches[0].scalesimMacs, 1179648 / 4.0, 1);
  EXPECT_EQ(c.macMismatches[0].weftMacs, 1179648u);
  std::ostringstream out;
  printComparison(c, out);
  EXPECT_NE(out.str().find("MAC counts differ on 3 layers (SCALE-Sim's: its utilization x cycles x 256 PEs):\n  0  "
                           "Tiny_conv3x3     SCALE-Sim 294912, weft 1179648 (-75.0 %)\n"),
            std::string::npos)
      << out.str();
}

TEST(ScaleSimCompare, FasterNamesTheSimulatorWithFewerCycles) {
  EXPECT_EQ(fasterOf(0.5), "weft 2.00x");
  EXPECT_EQ(fasterOf(1.25), "SCALE-Sim 1.25x");
  EXPECT_EQ(fasterOf(1.0), "same");
  EXPECT_EQ(fasterOf(0.0), "-");
}

}  // namespace
}  // namespace weft::tool
