// The `weft` command as a user runs it: a process with arguments and environment, judged by its
// exit code, its output and the reports it writes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "RunWeft.h"
#include "ToolTestPaths.h"
#include "weft/common/files.h"

using weft::tool::test::sourceDir;
using weft::tool::test::testDir;

namespace {

using weft::tool::test::ProcessResult;
using weft::tool::test::runWeft;

std::string tempPath(const std::string& name) { return ::testing::TempDir() + "weft_tool_test_" + name; }
const std::string kNet = testDir() + "/small_net.json";

TEST(WeftRun, ApproxRunPassesTheReferenceCheckAndWritesReports) {
  const std::string json = tempPath("run.json"), csv = tempPath("run.csv");
  const ProcessResult r = runWeft("--backend approx --hw weft16 run " + kNet + " --json " + json + " --csv " + csv);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("reference check: PASS"), std::string::npos) << r.output;
  // Progress: the step starts, and device cycles of the big convolution while it runs.
  EXPECT_NE(r.output.find("[  1/6] conv_big on weft-accel"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("M cycles"), std::string::npos) << r.output;

  std::ifstream in(json);
  ASSERT_TRUE(in) << json;
  const auto report = nlohmann::json::parse(in);
  EXPECT_EQ(report["backend"], "approx");
  EXPECT_EQ(report["hw"]["config"], "weft16");
  ASSERT_EQ(report["layers"].size(), 6u);
  const auto& conv = report["layers"][0];
  EXPECT_EQ(conv["device"], "weft-accel");
  EXPECT_GT(conv["cycles"].get<uint64_t>(), 0u);
  // ON_HARDWARE is the device's cycles at 1 GHz; in-driver time includes it.
  EXPECT_EQ(conv["onHardwareNs"].get<uint64_t>(), conv["cycles"].get<uint64_t>());
  EXPECT_GE(conv["inDriverNs"].get<uint64_t>(), conv["onHardwareNs"].get<uint64_t>());
  EXPECT_EQ(conv["macs"].get<uint64_t>(), 56ull * 56 * 64 * 3 * 3 * 64);
  EXPECT_EQ(conv["unit"], "array");
  EXPECT_EQ(conv["peakOpsPerCycle"].get<uint64_t>(), 256u);
  EXPECT_GT(conv["utilization"].get<double>(), 0.5);
  EXPECT_GT(conv["dramReadBytes"].get<uint64_t>(), 56u * 56 * 64);
  // Where its cycles went: the array busy at least as much as its MACs need, every fraction in
  // [0, 1], and the unit that bounds it one of the four.
  EXPECT_GE(conv["busy"]["array"].get<double>(), conv["utilization"].get<double>());
  for (const char* unit : {"array", "vector", "load", "store", "dramStall"}) {
    EXPECT_GE(conv["busy"][unit].get<double>(), 0.0) << unit;
    EXPECT_LE(conv["busy"][unit].get<double>(), 1.0) << unit;
  }
  EXPECT_EQ(conv["busy"]["vector"].get<double>(), 0.0);
  EXPECT_NE(std::string("array load store").find(conv["boundBy"].get<std::string>()), std::string::npos);
  // The depthwise convolution ran on the vector unit, measured against its Cols lanes.
  bool vectorLayer = false;
  for (const auto& layer : report["layers"]) {
    if (layer["operation"] != "DEPTHWISE_CONV_2D") continue;
    vectorLayer = true;
    EXPECT_EQ(layer["unit"], "vector");
    EXPECT_EQ(layer["peakOpsPerCycle"].get<uint64_t>(), 16u);
    EXPECT_GT(layer["busy"]["vector"].get<double>(), 0.0);
    EXPECT_EQ(layer["busy"]["array"].get<double>(), 0.0);
  }
  EXPECT_TRUE(vectorLayer);
  EXPECT_NE(r.output.find("time by unit:"), std::string::npos) << r.output;
  // Every layer runs on the accelerator (the depthwise convolution, pool and softmax on its
  // vector unit), so the compilation is on one device and NNAPI reports its durations.
  for (const auto& layer : report["layers"]) EXPECT_EQ(layer["device"], "weft-accel") << layer["name"];
  EXPECT_GT(report["nnapiDurations"]["onHardwareNs"].get<uint64_t>(), 0u);
  EXPECT_GE(report["nnapiDurations"]["inDriverNs"].get<uint64_t>(),
            report["nnapiDurations"]["onHardwareNs"].get<uint64_t>());
  EXPECT_TRUE(report["referenceCheck"]["passed"].get<bool>());
  EXPECT_EQ(report["referenceCheck"]["worstError"].get<int>(), 0);

  std::ifstream c(csv);
  std::string line;
  int lines = 0;
  while (std::getline(c, line)) ++lines;
  EXPECT_EQ(lines, 7);  // header + one row per layer
}

// A format 2 graph: every layer's output is compared, branches and joins included, and the
// report says what each layer reads.
TEST(WeftRun, GraphNetworkPassesAndReportsEachLayersInputs) {
  const std::string json = tempPath("graph.json"), csv = tempPath("graph.csv");
  const ProcessResult r = runWeft("--backend approx run --quiet " + testDir() +
                                  "/small_graph_net.json --json " + json + " --csv " + csv);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("reference check: PASS"), std::string::npos) << r.output;
  std::ifstream in(json);
  const auto report = nlohmann::json::parse(in);
  ASSERT_EQ(report["layers"].size(), 11u);
  const auto& expand3x3 = report["layers"][4];
  EXPECT_EQ(expand3x3["name"], "expand3x3");
  EXPECT_EQ(expand3x3["inputs"], nlohmann::json({"squeeze"}));
  EXPECT_EQ(expand3x3["device"], "weft-accel");
  EXPECT_EQ(report["layers"][6]["inputs"], nlohmann::json({"concat", "pool"}));
  EXPECT_EQ(report["layers"][0]["inputs"], nlohmann::json({"input"}));
  for (const auto& layer : report["layers"]) EXPECT_LE(layer["maxError"].get<int>(), 3) << layer["name"];
}

// Zero-copy CONCATENATION: an input with the output's quantization, read by nothing else, is
// stored by its producer straight into the output, so the concatenation moves only the other
// input (requantized through a table); with both quantizations equal it moves no tensor at all.
TEST(WeftRun, ConcatenationInputsWithTheOutputsQuantizationAreWrittenInPlace) {
  std::string text = weft::common::readFile(testDir() + "/small_graph_net.json").value_or("");
  auto concatReads = [&](const std::string& net, const std::string& tag) {
    const std::string path = tempPath(tag + "-net.json"), json = tempPath(tag + ".json");
    std::ofstream(path) << net;
    const ProcessResult r = runWeft("--backend approx run --quiet " + path + " --json " + json + " --csv " +
                                    tempPath(tag + ".csv"));
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("reference check: PASS"), std::string::npos) << r.output;
    std::ifstream in(json);
    const auto report = nlohmann::json::parse(in);
    const auto& concat = report["layers"][5];
    EXPECT_EQ(concat["name"], "concat");
    EXPECT_EQ(concat["maxError"], 0);
    return concat["dramReadBytes"].get<uint64_t>();
  };
  const uint64_t image = 14 * 14 * 16;  // one input of the concatenation
  // expand1x1 in place, expand3x3 requantized: one image read, plus the parameter row and table.
  const uint64_t one = concatReads(text, "one-in-place");
  EXPECT_GE(one, image);
  EXPECT_LT(one, 2 * image);
  // expand3x3 given the output's quantization too: nothing but the parameter row.
  const std::string from = R"("output": {"scale": 0.013831110671162605, "zeroPoint": 0})";
  const size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, from.size(), R"("output": {"scale": 0.015237235464155674, "zeroPoint": 0})");
  EXPECT_LT(concatReads(text, "both-in-place"), image);
}

// The execution preference changes the compilation: low-power trades at most 15 % of the
// cycles for less DRAM traffic (ResNet-18's convolutions have tilings that differ in both).
TEST(WeftRun, LowPowerPreferenceMovesFewerDramBytesWithinItsSlack) {
  const std::string net = sourceDir() + "/traces/networks/resnet18_224_quant.json";
  auto run = [&](const std::string& preference) {
    const std::string json = tempPath("preference_" + preference + ".json");
    const ProcessResult r = runWeft("--backend approx run --quiet " + net + " --preference " + preference +
                                    " --json " + json + " --csv " + tempPath("preference.csv"));
    EXPECT_EQ(r.exitCode, 0) << r.output;
    std::ifstream in(json);
    return nlohmann::json::parse(in);
  };
  const auto fast = run("fast"), low = run("low-power");
  auto traffic = [](const nlohmann::json& report) {
    uint64_t bytes = 0;
    for (const auto& l : report["layers"]) bytes += l["dramReadBytes"].get<uint64_t>() + l["dramWriteBytes"].get<uint64_t>();
    return bytes;
  };
  const double fastCycles = fast["totals"]["weft-accel"]["cycles"].get<double>();
  const double lowCycles = low["totals"]["weft-accel"]["cycles"].get<double>();
  EXPECT_LT(traffic(low), traffic(fast));
  EXPECT_LT(low["acceleratorEnergy"]["totalPj"].get<double>(), fast["acceleratorEnergy"]["totalPj"].get<double>());
  EXPECT_GE(lowCycles, fastCycles);
  EXPECT_LE(lowCycles, 1.15 * fastCycles);
  EXPECT_TRUE(low["referenceCheck"]["passed"].get<bool>());
}

// The timing backend: every layer's cycles, counters and DRAM traffic as on approx, without
// outputs, so the reference check is not run (and said so) and the run succeeds.
TEST(WeftRun, TheTimingBackendReportsApproxTimingWithoutAReferenceCheck) {
  auto run = [&](const std::string& backend) {
    const std::string json = tempPath("timing-" + backend + ".json");
    const ProcessResult r = runWeft("--backend " + backend + " --hw weft8 run " + kNet + " --quiet --json " + json +
                                    " --csv " + tempPath("timing-" + backend + ".csv"));
    EXPECT_EQ(r.exitCode, 0) << r.output;
    std::ifstream in(json);
    return std::make_pair(r.output, nlohmann::json::parse(in));
  };
  const auto [approxText, approx] = run("approx");
  const auto [timingText, timing] = run("timing");
  EXPECT_EQ(timing["backend"], "timing");
  ASSERT_EQ(timing["layers"].size(), approx["layers"].size());
  for (size_t i = 0; i < approx["layers"].size(); ++i) {
    // minDramBytes and the bound: the timing run draws no weights, and still counts them.
    for (const char* field : {"cycles", "dramReadBytes", "dramWriteBytes", "busy", "minDramBytes", "cyclesOverBound"}) {
      EXPECT_EQ(timing["layers"][i][field], approx["layers"][i][field]) << approx["layers"][i]["name"] << " " << field;
    }
  }
  EXPECT_TRUE(approx["referenceCheck"]["run"].get<bool>());
  EXPECT_FALSE(timing["referenceCheck"]["run"].get<bool>());
  EXPECT_NE(timingText.find("reference check: not run (the timing backend computes no outputs)"), std::string::npos)
      << timingText;
}

// A layer the accelerator refuses runs on the CPU, and the report says why, in the driver's words:
// a layer norm over rows of 5000 needs more accumulator rows than weft8 has (it runs rows of up
// to 4088).
TEST(WeftRun, ALayerLeftToTheCpuCarriesTheDriversReason) {
  const std::string net = tempPath("refused_layer_norm.json");
  std::ofstream(net) << R"({"name": "refused", "format": 3,
    "input": {"shape": [2, 5000], "type": "TENSOR_QUANT8_ASYMM_SIGNED", "scale": 0.05, "zeroPoint": 0, "seed": 3},
    "layers": [
      {"name": "norm", "op": "LAYER_NORM", "output": {"scale": 0.03, "zeroPoint": 0}},
      {"name": "gelu", "op": "GELU", "output": {"scale": 0.03, "zeroPoint": -100}}]})";
  const std::string json = tempPath("refused_layer_norm_report.json");
  const ProcessResult r = runWeft("--backend approx --hw weft8 run " + net + " --quiet --json " + json + " --csv " +
                                  tempPath("refused_layer_norm_report.csv"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::ifstream in(json);
  const auto report = nlohmann::json::parse(in);
  ASSERT_EQ(report["layers"].size(), 2u);
  EXPECT_EQ(report["layers"][0]["device"], "weft-cpu");
  EXPECT_NE(report["layers"][0]["reason"].get<std::string>().find("a row of at most 4088 elements"), std::string::npos) << report;
  EXPECT_EQ(report["layers"][1]["device"], "weft-accel");
  EXPECT_FALSE(report["layers"][1].contains("reason"));
  EXPECT_TRUE(report["referenceCheck"]["passed"].get<bool>());
}

TEST(WeftLayers, TheTimingBackendRefusesToWriteOutputs) {
  const ProcessResult r = runWeft("--backend timing --hw weft8 layers " + testDir() +
                                  "/scalesim/tiny.csv --quiet --outputs " + tempPath("timing.bin"));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("the timing backend computes no outputs"), std::string::npos) << r.output;
}

TEST(WeftRun, AnUnknownPreferenceIsRefused) {
  const ProcessResult r = runWeft("--backend approx run " + kNet + " --preference fastest");
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("low-power"), std::string::npos) << r.output;
}

TEST(WeftRun, MissingNetworkIsAClearErrorExitCode2) {
  const ProcessResult r = runWeft("--backend approx run /nonexistent/net.json");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.output.find("cannot read network description '/nonexistent/net.json'"), std::string::npos) << r.output;
}

TEST(WeftRun, MalformedNetworkNamesTheLayerAndField) {
  const std::string bad = tempPath("bad.json");
  std::ofstream(bad) << R"({"name":"x","format":1,"input":{"shape":[1,4,4,3],"type":"TENSOR_QUANT8_ASYMM","scale":0.1,"zeroPoint":0,"seed":1},
    "layers":[{"name":"c","op":"CONV_3D","output":{"scale":0.1,"zeroPoint":0}}]})";
  const ProcessResult r = runWeft("--backend approx run " + bad);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.output.find("layer 0 (c)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("CONV_3D"), std::string::npos) << r.output;
}

TEST(WeftRun, UnknownHardwareConfigurationNamesTheAcceptedOnes) {
  const ProcessResult r = runWeft("--hw weft99 run " + kNet);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.output.find("weft16"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("weft8"), std::string::npos) << r.output;
}

TEST(WeftRun, BadBackendEnvironmentIsReportedNotIgnored) {
  const ProcessResult r = runWeft("run " + kNet, "WEFT_BACKEND=verilog");
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("verilog"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("approx"), std::string::npos) << r.output;
}

TEST(WeftConfigs, ListsTheNamedConfigurations) {
  const ProcessResult r = runWeft("configs");
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.output.find("weft16     16x16 array (Dataflow WS)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("weft8      8x8 array (Dataflow WS)"), std::string::npos) << r.output;
  // The output-stationary ones: the same arrays with the enumerated parameter by name.
  EXPECT_NE(r.output.find("weft16os   16x16 array (Dataflow OS)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("weft8os    8x8 array (Dataflow OS)"), std::string::npos) << r.output;
}

}  // namespace

namespace {

nlohmann::json runReport(const std::string& backend) {
  const std::string json = tempPath(backend + ".json"), csv = tempPath(backend + ".csv");
  const ProcessResult r =
      runWeft("--backend " + backend + " --hw weft8 run --quiet " + kNet + " --json " + json + " --csv " + csv);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  std::ifstream in(json);
  return nlohmann::json::parse(in);
}

// The main job on the RTL, and the fast model's agreement with it on the same layers.
TEST(WeftRun, RtlPassesAndTheApproxModelAgreesOnEveryLayer) {
  const auto rtl = runReport("rtl");
  const auto approx = runReport("approx");
  EXPECT_EQ(rtl["backend"], "rtl");
  EXPECT_TRUE(rtl["referenceCheck"]["passed"].get<bool>());
  ASSERT_EQ(rtl["layers"].size(), approx["layers"].size());
  for (size_t i = 0; i < rtl["layers"].size(); ++i) {
    const double r = rtl["layers"][i]["cycles"].get<double>();
    const double a = approx["layers"][i]["cycles"].get<double>();
    EXPECT_LE(std::abs(a - r), 0.02 * r) << rtl["layers"][i]["name"] << ": rtl " << r << ", approx " << a;
  }
  EXPECT_GT(rtl["simulator"]["cycles"].get<uint64_t>(), 0u);
}

}  // namespace
