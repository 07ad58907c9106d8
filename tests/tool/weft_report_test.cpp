// `weft report` and --html: one self-contained HTML page from a run report, a layers report and
// a sweep, loaded in a real headless browser (Debian's chromium): every plot must be drawn and
// the page must log no script error. The page checks itself on load and writes what it found
// into <body data-...>, which the browser's --dump-dom hands back.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>

#include "RunWeft.h"
#include "ToolTestPaths.h"
#include "weft/common/files.h"

using weft::tool::test::testDir;

namespace {

namespace fs = std::filesystem;
using weft::tool::test::ProcessResult;
using weft::tool::test::runWeft;

// Per test: ctest runs the tests of this file in parallel processes.
std::string tempPath(const std::string& name) {
  return ::testing::TempDir() + "weft_report_test_" + ::testing::UnitTest::GetInstance()->current_test_info()->name() +
         "_" + name;
}

std::string readFile(const std::string& path) { return weft::common::readFile(path).value_or(""); }

std::string tinyTable() {
  const std::string path = tempPath("tiny.csv");
  std::ofstream(path) << "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, "
                         "Strides,\nC1, 12, 10, 3, 3, 3, 8, 2,\nC2, 8, 8, 3, 3, 16, 20, 1,\n";
  return path;
}

// The page as the browser built it, or "" when there is no browser (the test is skipped).
std::string domInBrowser(const std::string& page) {
  const std::string cmd = "chromium --headless=new --no-sandbox --disable-gpu --dump-dom file://" +
                          fs::absolute(page).string() + " 2>/dev/null";
  std::string dom;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return dom;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) dom.append(buf, n);
  pclose(p);
  return dom;
}

std::string bodyAttribute(const std::string& dom, const std::string& name) {
  std::smatch m;
  const std::regex attribute("<body[^>]*\\s" + name + "=\"([^\"]*)\"");
  return std::regex_search(dom, m, attribute) ? m[1].str() : "<missing>";
}

bool chromiumAvailable() { return std::system("command -v chromium > /dev/null 2>&1") == 0; }

TEST(WeftReport, PageFromRunLayersAndSweepRendersEveryPlotWithoutScriptErrors) {
  if (!chromiumAvailable()) {
    const char* ci = std::getenv("CI");
    if (ci != nullptr && std::string(ci) == "true") FAIL() << "chromium is missing: scripts/setup.sh installs it";
    GTEST_SKIP() << "chromium is not installed (Debian chromium; scripts/setup.sh)";
  }
  const std::string run = tempPath("run.json"), layers = tempPath("layers.json"), sweep = tempPath("sweep");
  ASSERT_EQ(runWeft("--backend approx --hw weft8 run --quiet " + testDir() + "/small_net.json --json " +
                    run + " --csv " + tempPath("run.csv"))
                .exitCode,
            0);
  const std::string page = tempPath("layers.html");
  const ProcessResult l = runWeft("--backend approx --hw weft8 layers --quiet " + tinyTable() + " --json " + layers +
                                  " --html " + page);
  ASSERT_EQ(l.exitCode, 0) << l.output;
  EXPECT_TRUE(fs::exists(page)) << l.output;  // --html on layers
  const std::string spec = tempPath("spec.json");
  std::ofstream(spec) << R"({"grid": {"Rows": [8, 16], "Cols": [8, 16]}, "workloads": [")" + tinyTable() + "\"]}";
  fs::remove_all(sweep);
  ASSERT_EQ(runWeft("sweep --quiet --report " + spec + " --out " + sweep).exitCode, 0);
  EXPECT_TRUE(fs::exists(sweep + "/report.html"));  // sweep --report

  const std::string all = tempPath("all.html"), plots = tempPath("plots");
  fs::remove_all(plots);
  const ProcessResult r = runWeft("report " + run + " " + layers + " " + sweep + " --out " + all + " --plots " + plots);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  // run and layers: a cycle and an energy breakdown and a roofline each; the sweep: two Pareto
  // views, a heat map, the rooflines of its configurations.
  EXPECT_NE(r.output.find("(10 plots)"), std::string::npos) << r.output;
  const std::string html = readFile(all);
  // Self-contained: nothing fetched from anywhere.
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_NE(html.find("small_net on weft8"), std::string::npos);
  EXPECT_NE(html.find("Rows16-Cols8"), std::string::npos);

  const std::string dom = domInBrowser(all);
  ASSERT_EQ(bodyAttribute(dom, "data-checked"), "yes") << "the page's own check did not run:\n" << dom.substr(0, 500);
  EXPECT_EQ(bodyAttribute(dom, "data-plots"), "10");
  EXPECT_EQ(bodyAttribute(dom, "data-plots-drawn"), "10");
  EXPECT_EQ(bodyAttribute(dom, "data-script-errors"), "0") << bodyAttribute(dom, "data-error-text");

  // The same plots for papers: SVG and PNG files.
  size_t svg = 0, png = 0;
  for (const auto& e : fs::directory_iterator(plots)) {
    svg += e.path().extension() == ".svg" ? 1 : 0;
    png += e.path().extension() == ".png" ? 1 : 0;
  }
  EXPECT_EQ(svg, 10u);
  EXPECT_EQ(png, 10u);
}

// A sweep over an enumerated parameter: its value names label the heat map's axis in the spec's
// order (WS before OS, not alphabetical) and fill a text column of the totals table.
TEST(WeftReport, SweepOverAnEnumeratedParameterKeepsItsValueNamesInSpecOrder) {
  const std::string spec = tempPath("spec.json"), sweep = tempPath("sweep"), plots = tempPath("plots");
  std::ofstream(spec) << R"({"base": "weft8", "grid": {"Dataflow": ["WS", "OS"], "Rows": [8, 16]}, "workloads": [")" +
                             tinyTable() + "\"]}";
  fs::remove_all(sweep);
  fs::remove_all(plots);
  ASSERT_EQ(runWeft("sweep --quiet " + spec + " --out " + sweep).exitCode, 0);
  const std::string page = tempPath("sweep.html");
  const ProcessResult r = runWeft("report " + sweep + " --out " + page + " --plots " + plots);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("(4 plots)"), std::string::npos) << r.output;  // two Pareto views, a heat map, rooflines
  const std::string html = readFile(page);
  EXPECT_NE(html.find("Rows16-DataflowOS"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"\">OS</td>"), std::string::npos);  // a text column, not a numeric one
  std::string heatmap;
  for (const auto& e : fs::directory_iterator(plots)) {
    if (e.path().extension() == ".svg" && e.path().filename().string().find("heatmap") != std::string::npos) {
      heatmap = readFile(e.path().string());
    }
  }
  ASSERT_FALSE(heatmap.empty());
  const size_t ws = heatmap.find(">WS</text>"), os = heatmap.find(">OS</text>");
  ASSERT_NE(ws, std::string::npos);
  ASSERT_NE(os, std::string::npos);
  EXPECT_LT(ws, os);  // the axis runs WS, OS
}

// A cycle-level DRAM shows on the page: a run's and a layer table's DRAM line (device, row hits,
// activates, latencies, bank-level parallelism, energy), each layer's row-hit rate, and a sweep
// over the DRAM its points' row-hit rate; the simple pipe's pages have none of it.
TEST(WeftReport, ACycleLevelDramShowsItsFigures) {
  const std::string run = tempPath("run.json"), layers = tempPath("layers.json"), sweep = tempPath("sweep");
  ASSERT_EQ(runWeft("--backend approx --hw weft16-lpddr4 run --quiet " + testDir() + "/two_layer_net.json --json " +
                    run + " --csv " + tempPath("run.csv"))
                .exitCode,
            0);
  ASSERT_EQ(runWeft("--backend approx --hw weft16-lpddr4 layers --quiet " + tinyTable() + " --json " + layers).exitCode,
            0);
  const std::string spec = tempPath("spec.json");
  std::ofstream(spec) << R"({"base": "weft16", "grid": {"Dram": ["simple", "lpddr4"]}, "workloads": [")" +
                             tinyTable() + "\"]}";
  fs::remove_all(sweep);
  ASSERT_EQ(runWeft("sweep --quiet " + spec + " --out " + sweep).exitCode, 0);
  const std::string page = tempPath("dram.html");
  const ProcessResult r = runWeft("report " + run + " " + layers + " " + sweep + " --out " + page);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  const std::string html = readFile(page);
  const std::regex line("<p class=\"dram\">DRAM \\(lpddr4-3200\\): row hits [0-9.]+ %, [0-9,]+ activates, "
                        "[0-9,]+ refreshes; average latency [0-9.]+ DRAM cycles a read, [0-9.]+ a write \\(to its "
                        "command\\); bank-level parallelism [0-9.]+; energy [0-9.,]+ µJ \\([0-9]+ % of the total\\)</p>");
  const auto lines = std::distance(std::sregex_iterator(html.begin(), html.end(), line), std::sregex_iterator());
  EXPECT_EQ(lines, 2) << "the run's and the layer table's";
  size_t columns = 0;
  for (size_t at = html.find("<th>DRAM row hits %</th>"); at != std::string::npos;
       at = html.find("<th>DRAM row hits %</th>", at + 1)) {
    ++columns;
  }
  EXPECT_EQ(columns, 3u) << "the run's layers, the layer table's and the sweep's points";

  const std::string simpleRun = tempPath("simple.json"), simplePage = tempPath("simple.html");
  ASSERT_EQ(runWeft("--backend approx --hw weft16 run --quiet " + testDir() + "/two_layer_net.json --json " +
                    simpleRun + " --csv " + tempPath("simple.csv"))
                .exitCode,
            0);
  ASSERT_EQ(runWeft("report " + simpleRun + " --out " + simplePage).exitCode, 0);
  const std::string simple = readFile(simplePage);
  EXPECT_EQ(simple.find("class=\"dram\""), std::string::npos);
  EXPECT_EQ(simple.find("DRAM row hits"), std::string::npos);
}

// A page that breaks (here: its check script made to throw) is caught by the same check.
TEST(WeftReport, TheBrowserCheckSeesAScriptError) {
  if (!chromiumAvailable()) GTEST_SKIP() << "chromium is not installed";
  const std::string page = tempPath("broken.html");
  std::ofstream(page) << "<!DOCTYPE html><html><body><figure class=\"plot\"><svg width=\"10\" height=\"10\"></svg>"
                         "</figure><script>window.weftErrors = []; window.addEventListener('error', function (e) { "
                         "window.weftErrors.push(String(e.message)); }); window.addEventListener('load', function () { "
                         "document.body.dataset.scriptErrors = String(window.weftErrors.length); "
                         "document.body.dataset.checked = 'yes'; }); setTimeout(function () {}, 0); "
                         "undefinedFunction();</script></body></html>";
  const std::string dom = domInBrowser(page);
  EXPECT_EQ(bodyAttribute(dom, "data-checked"), "yes");
  EXPECT_EQ(bodyAttribute(dom, "data-script-errors"), "1");
}

TEST(WeftReport, BadInputsAreClearErrors) {
  const std::string notReport = tempPath("not_a_report.json");
  std::ofstream(notReport) << R"({"hello": 1})";
  const ProcessResult r = runWeft("report " + notReport + " --out " + tempPath("never.html"));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("not a weft run or weft layers report"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tempPath("never.html")));
  const ProcessResult missing = runWeft("report /nonexistent/sweep");
  EXPECT_NE(missing.exitCode, 0);
  EXPECT_NE(missing.output.find("/nonexistent/sweep"), std::string::npos) << missing.output;
  const ProcessResult two = runWeft("report " + notReport + " " + notReport);
  EXPECT_EQ(two.exitCode, 2);
  EXPECT_NE(two.output.find("--out"), std::string::npos) << two.output;
}

}  // namespace
