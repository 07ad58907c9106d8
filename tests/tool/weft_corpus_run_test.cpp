// `weft run <case.json>`: a case of the AOSP conformance corpus (read from ../shared, never copied
// here) run as an NNAPI application runs it, on the accelerator where it claims the operations and
// on the CPU elsewhere, checked against the case's expected outputs with NNAPI's tolerances.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
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

// The corpus's one trained network, float32 relaxed to float16, compiled for the accelerator
// alone: its 15 convolutions on the fp16 array, its 13 depthwise convolutions, average pool and
// logistic on the vector unit's binary16 lanes; within NNAPI's tolerance of the expected outputs,
// with NNAPI's durations; the RTL and the approx model agree on every layer's cycles and counters.
TEST(WeftRunCorpus, RelaxedMobileNetRunsEntirelyOnTheFp16Accelerator) {
  const std::string path = corpusCase("V1_1/mobilenet_224_gender_basic_fixed_relaxed.json");
  REQUIRE_CORPUS(path);
  std::map<std::string, nlohmann::json> reports;
  for (const char* backend : {"approx", "rtl"}) {
    SCOPED_TRACE(backend);
    const std::string json = tempPath(std::string("gender_") + backend + ".json"), csv = tempPath("gender.csv");
    const ProcessResult r = runWeft(std::string("--backend ") + backend + " --hw weft16fp run --quiet " + path +
                                    " --json " + json + " --csv " + csv);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("reference check: PASS (every output within NNAPI's tolerance"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("NNAPI durations: on hardware"), std::string::npos) << r.output;
    const auto report = nlohmann::json::parse(std::ifstream(json));
    EXPECT_EQ(report["network"], "mobilenet_224_gender_basic_fixed_relaxed");
    ASSERT_EQ(report["layers"].size(), 30u);
    EXPECT_EQ(acceleratedLayers(report), 30) << "every layer on the accelerator";
    size_t vector = 0;
    for (const auto& l : report["layers"]) {
      EXPECT_GT(l["cycles"].get<uint64_t>(), 0u) << l.dump();
      vector += l.value("unit", "") == "vector";
    }
    EXPECT_EQ(vector, 15u) << "13 depthwise convolutions, the average pool and the logistic";
    EXPECT_TRUE(report["referenceCheck"]["passed"].get<bool>());
    reports[backend] = report;
  }
  const auto& a = reports["approx"]["layers"];
  const auto& r = reports["rtl"]["layers"];
  for (size_t i = 0; i < a.size(); ++i) {
    for (const char* figure : {"cycles", "busy", "dramReadBytes", "dramWriteBytes", "maxError"}) {
      EXPECT_EQ(a[i].at(figure), r[i].at(figure)) << a[i].at("name") << " " << figure;
    }
  }
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
  // The report says why and what would run it there.
  EXPECT_NE(r.output.find("weft16 has no fp16 datapath (Fp16 0): --hw weft16fp runs float operations on the "
                          "accelerator"),
            std::string::npos)
      << r.output;
  // With it, the one operation runs on the accelerator alone, which reports NNAPI's durations.
  const ProcessResult fp =
      runWeft("--backend approx --hw weft16fp run --quiet " + path + " --json " + json + " --csv " + csv);
  ASSERT_EQ(fp.exitCode, 0) << fp.output;
  const auto accelerated = nlohmann::json::parse(std::ifstream(json));
  EXPECT_EQ(acceleratedLayers(accelerated), 1);
  EXPECT_NE(fp.output.find("NNAPI durations: on hardware"), std::string::npos) << fp.output;
  EXPECT_EQ(fp.output.find("no fp16 datapath"), std::string::npos) << fp.output;
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
