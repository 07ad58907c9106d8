// `weft run <case.json>`: a case of the AOSP conformance corpus (read from ../shared, never copied
// here) run as an NNAPI application runs it, on the accelerator where it claims the operations and
// on the CPU elsewhere, checked against the case's expected outputs with NNAPI's tolerances.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "Corpus.h"
#include "RunWeft.h"

namespace {

using weft::tool::test::ProcessResult;
using weft::tool::test::runWeft;

std::string tempPath(const std::string& name) { return ::testing::TempDir() + "weft_corpus_run_test_" + name; }

// The case's path, or a skip (a failure in CI, where the corpus must be present).
std::string corpusCase(const std::string& relative) {
  const auto location = weft::test::findConformanceCorpus();
  if (!location.dir) return "";
  return (*location.dir / relative).string();
}

#define REQUIRE_CORPUS(path)                                                        \
  if ((path).empty()) {                                                             \
    if (weft::test::runningInCi()) FAIL() << "the conformance corpus is missing";   \
    GTEST_SKIP() << weft::test::findConformanceCorpus().describeMissing();          \
  }

// The layers of a report that ran on the accelerator (their unit is set).
int acceleratedLayers(const nlohmann::json& report) {
  int n = 0;
  for (const auto& l : report["layers"]) n += l.value("unit", "") == "array" || l.value("unit", "") == "vector";
  return n;
}

TEST(WeftRunCorpus, RelaxedMobileNetRunsItsConvolutionsOnTheFp16Array) {
  const std::string path = corpusCase("V1_1/mobilenet_224_gender_basic_fixed_relaxed.json");
  REQUIRE_CORPUS(path);
  const std::string json = tempPath("gender.json"), csv = tempPath("gender.csv");
  const ProcessResult r =
      runWeft("--backend approx --hw weft16fp run --quiet " + path + " --json " + json + " --csv " + csv);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("reference check: PASS (every output within NNAPI's tolerance"), std::string::npos)
      << r.output;
  const auto report = nlohmann::json::parse(std::ifstream(json));
  EXPECT_EQ(report["network"], "mobilenet_224_gender_basic_fixed_relaxed");
  ASSERT_EQ(report["layers"].size(), 30u);
  EXPECT_EQ(acceleratedLayers(report), 15) << "every CONV_2D on the array";
  for (const auto& l : report["layers"]) {
    if (l["operation"] == "CONV_2D") EXPECT_GT(l["cycles"].get<uint64_t>(), 0u) << l.dump();
  }
  EXPECT_TRUE(report["referenceCheck"]["passed"].get<bool>());
}

TEST(WeftRunCorpus, WithoutTheFp16DatapathTheCpuRunsTheFloatLayers) {
  const std::string path = corpusCase("V1_1/conv_float_relaxed.json");
  REQUIRE_CORPUS(path);
  const std::string json = tempPath("conv.json"), csv = tempPath("conv.csv");
  const ProcessResult r = runWeft("--backend approx --hw weft16 run --quiet " + path + " --json " + json + " --csv " + csv);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  const auto report = nlohmann::json::parse(std::ifstream(json));
  EXPECT_EQ(acceleratedLayers(report), 0);
  EXPECT_TRUE(report["referenceCheck"]["passed"].get<bool>());
  // With it, the one operation runs on the accelerator alone, which reports NNAPI's durations.
  const ProcessResult fp =
      runWeft("--backend approx --hw weft16fp run --quiet " + path + " --json " + json + " --csv " + csv);
  ASSERT_EQ(fp.exitCode, 0) << fp.output;
  const auto accelerated = nlohmann::json::parse(std::ifstream(json));
  EXPECT_EQ(acceleratedLayers(accelerated), 1);
  EXPECT_NE(fp.output.find("NNAPI durations: on hardware"), std::string::npos) << fp.output;
}

TEST(WeftRunCorpus, AMalformedCaseIsAClearErrorExitCode2) {
  const std::string bad = tempPath("bad_case.json");
  std::ofstream(bad) << R"({"name": "bad", "operands": [], "operations": [{"type": "CONV_9D", "inputs": [],
    "outputs": []}], "inputIndexes": [], "outputIndexes": [], "relaxed": false, "expectFailure": false})";
  const ProcessResult r = runWeft("--backend approx run " + bad);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find(bad), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("CONV_9D"), std::string::npos) << r.output;
}

}  // namespace
