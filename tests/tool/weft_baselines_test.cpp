// weft baselines: the bundled baselines hold (approx on every workload, the RTL on the regression
// layer set), and a moved layer, a missing baseline or a bad file fails with a message that says
// what and where.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "RunWeft.h"
#include "ToolTestPaths.h"
#include "weft/common/files.h"

using weft::tool::test::sourceDir;

namespace fs = std::filesystem;
using weft::tool::test::runWeft;

namespace {

const std::string kBaselines = sourceDir() + "/traces/baselines";

fs::path scratchDir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("weft-baselines-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) { return weft::common::readFile(p.string()).value_or(""); }

void replaceOnce(const fs::path& p, const std::string& from, const std::string& to) {
  std::string text = slurp(p);
  const size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from << " not in " << p;
  text.replace(at, from.size(), to);
  std::ofstream(p) << text;
}

}  // namespace

TEST(Baselines, EveryWorkloadHoldsOnTheApproxBackend) {
  const auto r = runWeft("baselines --quiet --work-dir " + scratchDir("approx").string());
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("every layer's cycles as in the baselines"), std::string::npos) << r.output;
}

TEST(Baselines, TheRegressionLayersHoldOnTheRtl) {
  const auto r = runWeft("baselines --sim rtl --workload regression --quiet --work-dir " + scratchDir("rtl").string());
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("4 workload x configuration pairs"), std::string::npos) << r.output;
}

TEST(Baselines, AMovedLayerFailsWithATableOfWhatMovedAndUpdateRewritesIt) {
  const fs::path dir = scratchDir("moved");
  fs::copy_file(kBaselines + "/regression.json", dir / "regression.json");
  // The first layer of the regression set at weft8, one cycle off.
  const std::string text = slurp(dir / "regression.json");
  const size_t weft8 = text.find("\"weft8\"");
  ASSERT_NE(weft8, std::string::npos);
  const size_t cycles = text.find("\"cycles\": ", weft8) + 10;
  const size_t end = text.find('}', cycles);
  const std::string value = text.substr(cycles, end - cycles);
  const std::string off = std::to_string(std::stoull(value) + 1);
  std::string changed = text;
  changed.replace(cycles, end - cycles, off);
  std::ofstream(dir / "regression.json") << changed;

  const std::string common = " --dir " + dir.string() + " --quiet --work-dir " + (dir / "work").string();
  auto r = runWeft("baselines" + common);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("1 moved"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(off), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(value), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("weft baselines --update"), std::string::npos) << r.output;

  r = runWeft("baselines --update --workload regression" + common);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(slurp(dir / "regression.json"), text);
  r = runWeft("baselines" + common);
  EXPECT_EQ(r.exitCode, 0) << r.output;
}

TEST(Baselines, BadInputIsAClearErrorAndWritesNothing) {
  const fs::path dir = scratchDir("bad");
  const std::string common = " --dir " + dir.string() + " --quiet --work-dir " + (dir / "work").string();
  fs::copy_file(kBaselines + "/regression.json", dir / "regression.json");

  auto r = runWeft("baselines --workload nosuch" + common);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("no workload named 'nosuch'"), std::string::npos) << r.output;

  r = runWeft("baselines --config weft99" + common);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("weft99"), std::string::npos) << r.output;

  r = runWeft("baselines --config weft8 --config weft16 --workload regression --sim approx" + common);
  EXPECT_EQ(r.exitCode, 0) << r.output;

  // A configuration the file has no baseline for.
  fs::create_directories(dir / "cfg");
  std::ofstream(dir / "cfg" / "wide.json") << R"({"name": "wide", "base": "weft8", "params": {"DramBytesPerCycle": 32}})";
  r = runWeft("baselines --config " + (dir / "cfg" / "wide.json").string() + common);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("has no baseline for"), std::string::npos) << r.output;

  // A file that is not a baseline, and one filed under the wrong name.
  const std::string before = slurp(dir / "regression.json");
  replaceOnce(dir / "regression.json", "\"format\": 1", "\"format\": 7");
  r = runWeft("baselines" + common);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("not a baseline file"), std::string::npos) << r.output;
  std::ofstream(dir / "regression.json") << before;
  fs::rename(dir / "regression.json", dir / "other.json");
  r = runWeft("baselines" + common);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("belongs in regression.json"), std::string::npos) << r.output;

  r = runWeft("baselines --dir " + (dir / "none").string() + " --quiet");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("no baseline directory"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "none"));
}
