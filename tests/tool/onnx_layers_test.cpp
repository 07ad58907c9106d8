// `weft layers MODEL.onnx` as a user runs it: each NNAPI operation of an imported model alone on
// the accelerator, named after its ONNX node, with the per-layer report of a layer table; an
// operation the accelerator does not claim is a row on the CPU device with the reason; bad files,
// unsupported nodes and options that are not for ONNX models exit with code 2 and write nothing.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "HostTensor.h"
#include "Npy.h"
#include "OnnxTestGraph.h"
#include "RunWeft.h"
#include "ToolTestPaths.h"

namespace weft::onnx {
namespace {

namespace fs = std::filesystem;
using graphs::Graph;
using tool::test::ProcessResult;
using tool::test::runWeft;

std::string tempPath(const std::string& name) { return ::testing::TempDir() + "onnx_layers_test_" + name; }

nlohmann::json readJson(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A 3x3 convolution of 3 channels into 8 with a bias, a ReLU and a Floor: quantized by --quantize
// int8, the convolution and its ReLU become one int8 CONV_2D for the accelerator; the Floor has no
// int8 form and stays float32 between a DEQUANTIZE and a QUANTIZE.
Graph convReluFloor() {
  Graph m;
  m.input("image", {"1", "3", "8", "8"});
  std::vector<float> w(8 * 3 * 3 * 3), b(8);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.05f * static_cast<float>(static_cast<int>(i % 11) - 5);
  for (size_t i = 0; i < b.size(); ++i) b[i] = 0.1f * static_cast<float>(i) - 0.3f;
  m.floats("w", {8, 3, 3, 3}, w);
  m.floats("b", {8}, b);
  auto* conv = m.node("Conv", {"image", "w", "b"}, {"c"}, "conv");
  m.ints(conv, "pads", {1, 1, 1, 1});
  m.node("Relu", {"c"}, {"r"}, "relu");
  m.node("Floor", {"r"}, {"y"}, "floor");
  m.output("y", 4);
  return m;
}

struct Outputs {
  std::string json, report, csv;
  std::string args() const { return " --json " + json + " --compute-report " + report + " --csv " + csv; }
  void remove() const {
    for (const std::string& p : {json, report, csv}) fs::remove(p);
  }
  bool anyWritten() const { return fs::exists(json) || fs::exists(report) || fs::exists(csv); }
};

Outputs outputs(const std::string& stem) {
  Outputs o{tempPath(stem + ".json"), tempPath(stem + "-COMPUTE_REPORT.csv"), tempPath(stem + ".csv")};
  o.remove();
  return o;
}

const nlohmann::json* layerNamed(const nlohmann::json& report, const std::string& name) {
  for (const auto& l : report["layers"]) {
    if (l["name"] == name) return &l;
  }
  return nullptr;
}

// Quantized, every layer is an NNAPI operation of the int8 model named after its node: the
// convolution (with the ReLU it fused) runs on the accelerator with device figures; the Floor is a
// CPU row saying why, listed under the table, in every report and never dropped.
TEST(WeftLayersOnnx, QuantizedModelRunsEachOperationAloneAndShowsTheCpuOnes) {
  const std::string model = tempPath("crx.onnx");
  convReluFloor().save(model);
  const Outputs o = outputs("crx");
  const ProcessResult r =
      runWeft("--backend approx --hw weft16 layers " + model + " --quantize int8 --quiet" + o.args(), "WEFT_YOSYS=none");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  // Named after the file, as `weft run` names its report.
  const std::string stem = fs::path(model).stem().string();
  EXPECT_NE(r.output.find(stem + " (ONNX model, quantized to int8, 4 layers)"), std::string::npos) << r.output;
  const auto report = readJson(o.json);
  EXPECT_EQ(report["table"], stem);
  const std::vector<std::string> expected = {"conv+relu", "floor.dequantize", "floor", "floor.quantize"};
  ASSERT_EQ(report["layers"].size(), expected.size()) << report["layers"].dump(1);
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(report["layers"][i]["name"], expected[i]) << i;

  const nlohmann::json* conv = layerNamed(report, "conv+relu");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ((*conv)["operation"], "CONV_2D");
  EXPECT_EQ((*conv)["device"], "weft-accel");
  EXPECT_FALSE(conv->contains("reason"));
  EXPECT_GT((*conv)["cycles"].get<uint64_t>(), 0u);
  // 8 output channels x 8x8 pixels x 27 products each.
  EXPECT_EQ((*conv)["macs"].get<uint64_t>(), 8u * 64 * 27);
  EXPECT_GT((*conv)["dramReadBytes"].get<uint64_t>(), 0u);
  EXPECT_EQ((*conv)["shape"], "1x3x8x8 -> 1x8x8x8");
  // Each layer the accelerator ran is checked against the CPU reference's output on its inputs.
  ASSERT_TRUE(conv->contains("referenceCheck")) << conv->dump(1);
  EXPECT_TRUE((*conv)["referenceCheck"]["passed"].get<bool>());
  EXPECT_LE((*conv)["referenceCheck"]["maxError"].get<double>(), 1.0);
  EXPECT_NE(r.output.find("reference check: PASS (each layer the accelerator ran within one step"), std::string::npos)
      << r.output;

  const nlohmann::json* floorLayer = layerNamed(report, "floor");
  ASSERT_NE(floorLayer, nullptr);
  EXPECT_EQ((*floorLayer)["operation"], "FLOOR");
  EXPECT_EQ((*floorLayer)["device"], "weft-cpu");
  EXPECT_EQ((*floorLayer)["cycles"].get<uint64_t>(), 0u);
  EXPECT_FALSE(floorLayer->contains("referenceCheck"));  // a CPU layer: nothing of the accelerator's to check
  ASSERT_TRUE(floorLayer->contains("reason"));
  EXPECT_NE((*floorLayer)["reason"].get<std::string>().find("float32"), std::string::npos) << (*floorLayer)["reason"];
  EXPECT_NE(r.output.find("#2 floor (FLOOR) on weft-cpu: float32"), std::string::npos) << r.output;

  // The CSV forms have a row per layer too, the CPU one with its device and reason.
  const std::string csv = readText(o.csv);
  EXPECT_NE(csv.find(",device,reason\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",weft-cpu,\"float32"), std::string::npos) << csv;
  // SCALE-Sim's form has the accelerator's layers only, under their table index, so that weft
  // reads it back with --compare-to (the CPU layers missing from it).
  const std::string compute = readText(o.report);
  EXPECT_NE(compute.find("\n0, "), std::string::npos) << compute;
  EXPECT_NE(compute.find(", conv+relu,"), std::string::npos) << compute;
  EXPECT_EQ(compute.find(", floor,"), std::string::npos) << compute;
  const Outputs again = outputs("crx-again");
  const ProcessResult compared = runWeft("--backend approx --hw weft16 layers " + model + " --quantize int8 --quiet" +
                                             again.args() + " --compare-to " + o.report + " --compare-csv " +
                                             tempPath("crx-vs.csv") + " --compare-json " + tempPath("crx-vs.json"),
                                         "WEFT_YOSYS=none");
  ASSERT_EQ(compared.exitCode, 0) << compared.output;
  const auto comparison = readJson(tempPath("crx-vs.json"));
  ASSERT_EQ(comparison["layers"].size(), 1u) << comparison.dump(1);
  EXPECT_EQ(comparison["layers"][0]["name"], "conv+relu");
  EXPECT_DOUBLE_EQ(comparison["layers"][0]["cyclesRatio"].get<double>(), 1.0);  // the same layer, the same cycles
  ASSERT_EQ(comparison["missing"].size(), 3u) << comparison.dump(1);
  EXPECT_EQ(comparison["missing"][1]["name"], "floor");
}

// In float on a configuration without the fp16 datapath nothing is the accelerator's: every
// operation is a CPU row with the float32 reason. With --relaxed on the fp16 configuration the
// convolution runs on the accelerator.
TEST(WeftLayersOnnx, FloatModelsRunWhereTheHardwareTakesFloat) {
  const std::string model = tempPath("crxf.onnx");
  convReluFloor().save(model);
  Outputs o = outputs("crxf");
  ProcessResult r = runWeft("--backend approx --hw weft16 layers " + model + " --quiet" + o.args(), "WEFT_YOSYS=none");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  auto report = readJson(o.json);
  ASSERT_EQ(report["layers"].size(), 3u) << report.dump(1);
  EXPECT_EQ(report["format"], "ONNX model");
  for (const auto& l : report["layers"]) {
    EXPECT_EQ(l["device"], "weft-cpu") << l["name"];
    EXPECT_NE(l["reason"].get<std::string>().find("weft16 lacks"), std::string::npos) << l["reason"];
  }
  EXPECT_EQ(report["layers"][0]["name"], "conv");

  o = outputs("crxr");
  r = runWeft("--backend approx --hw weft16fp layers " + model + " --relaxed --quiet" + o.args(), "WEFT_YOSYS=none");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  report = readJson(o.json);
  const nlohmann::json* conv = layerNamed(report, "conv");
  ASSERT_NE(conv, nullptr) << report.dump(1);
  EXPECT_EQ((*conv)["device"], "weft-accel") << report.dump(1);
  EXPECT_GT((*conv)["cycles"].get<uint64_t>(), 0u);
  EXPECT_TRUE((*conv)["referenceCheck"]["passed"].get<bool>()) << conv->dump(1);  // binary16 within 2e-2
}

// --input and --calibration as `weft run` takes them (the same code reads them): samples stacked
// in one .npy calibrate, and a file that is not a .npy is an error naming it that writes nothing.
TEST(WeftLayersOnnx, InputsAndCalibrationFilesAreReadAsWeftRunReadsThem) {
  const std::string model = tempPath("cal.onnx"), dir = tempPath("calibration"), input = tempPath("image.npy");
  convReluFloor().save(model);
  fs::remove_all(dir);
  fs::create_directories(dir);
  HostTensor sample(DType::kFloat, {2, 1, 3, 8, 8});
  for (int64_t i = 0; i < sample.size(); ++i) sample.setDouble(i, 0.01 * static_cast<double>(i % 97) - 0.4);
  writeNpy(dir + "/samples.npy", sample);
  HostTensor image(DType::kFloat, {1, 3, 8, 8});
  for (int64_t i = 0; i < image.size(); ++i) image.setDouble(i, 0.02 * static_cast<double>(i % 13) - 0.1);
  writeNpy(input, image);
  const Outputs o = outputs("cal");
  ProcessResult r = runWeft("--backend approx layers " + model + " --quantize int8 --calibration " + dir +
                                " --input image=" + input + " --quiet" + o.args(),
                            "WEFT_YOSYS=none");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("calibration on 2 samples"), std::string::npos) << r.output;

  // A calibration file that is not a .npy: the error names it; nothing is written.
  std::ofstream(dir + "/broken.npy") << "not numpy";
  const Outputs bad = outputs("cal-bad");
  r = runWeft("--backend approx layers " + model + " --quantize int8 --calibration " + dir + " --quiet" + bad.args(),
              "WEFT_YOSYS=none");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find(dir + "/broken.npy: not a .npy file"), std::string::npos) << r.output;
  EXPECT_FALSE(bad.anyWritten());
}

// Each layer's inputs are the values flowing through the model: the int8 max pool after the
// convolution pools what the convolution computes (on the CPU reference; the accelerator's own
// output may differ by a step), not values drawn at random.
TEST(WeftLayersOnnx, LayersTakeTheValuesFlowingThroughTheModel) {
  Graph m = convReluFloor();
  m.g->mutable_node()->RemoveLast();  // the Floor
  m.g->mutable_output()->Clear();
  auto* pool = m.node("MaxPool", {"r"}, {"y"}, "pool");
  m.ints(pool, "kernel_shape", {2, 2});
  m.ints(pool, "strides", {2, 2});
  m.output("y", 4);
  const std::string model = tempPath("pool.onnx"), bytes = tempPath("pool.bin");
  m.save(model);
  const Outputs o = outputs("pool");
  fs::remove(bytes);
  const ProcessResult r = runWeft("--backend approx layers " + model + " --quantize int8 --quiet --outputs " + bytes +
                                      o.args(),
                                  "WEFT_YOSYS=none");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  const auto report = readJson(o.json);
  ASSERT_EQ(report["layers"].size(), 2u) << report.dump(1);
  EXPECT_EQ(report["layers"][1]["name"], "pool");
  EXPECT_EQ(report["layers"][1]["device"], "weft-accel");
  const std::string out = readText(bytes);
  ASSERT_EQ(out.size(), 8u * 8 * 8 + 8u * 4 * 4);
  const auto conv = [&](int c, int y, int x) { return static_cast<int>(static_cast<int8_t>(out[(c * 8 + y) * 8 + x])); };
  int worst = 0, spread = 0;
  for (int c = 0; c < 8; ++c) {
    for (int y = 0; y < 4; ++y) {
      for (int x = 0; x < 4; ++x) {
        const int expected = std::max(std::max(conv(c, 2 * y, 2 * x), conv(c, 2 * y, 2 * x + 1)),
                                      std::max(conv(c, 2 * y + 1, 2 * x), conv(c, 2 * y + 1, 2 * x + 1)));
        const int pooled = static_cast<int8_t>(out[512 + (c * 4 + y) * 4 + x]);
        worst = std::max(worst, std::abs(pooled - expected));
        spread = std::max(spread, std::abs(expected - conv(0, 0, 0)));
      }
    }
  }
  EXPECT_LE(worst, 1);
  EXPECT_GT(spread, 8);  // the values vary: the check above says something
}

TEST(WeftLayersOnnx, BadFilesAndUnsupportedNodesAreClearErrorsThatWriteNothing) {
  const std::string text = tempPath("text.onnx");
  std::ofstream(text) << "this is not a protobuf\n";
  const Outputs o = outputs("bad");
  ProcessResult r = runWeft("--backend approx layers " + text + " --quiet" + o.args(), "WEFT_YOSYS=none");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("weft: error: " + text), std::string::npos) << r.output;
  EXPECT_FALSE(o.anyWritten());

  // An operator weft has no conversion for is refused naming the node, never dropped.
  Graph m;
  m.input("x", {"1", "4"});
  m.node("Relu", {"x"}, {"r"}, "fine");
  m.node("Hardmax", {"r"}, {"y"}, "the_hardmax");
  m.output("y", 2);
  const std::string unsupported = tempPath("hardmax.onnx");
  m.save(unsupported);
  r = runWeft("--backend approx layers " + unsupported + " --quiet" + o.args(), "WEFT_YOSYS=none");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("the_hardmax"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Hardmax"), std::string::npos) << r.output;
  EXPECT_FALSE(o.anyWritten());

  // ONNX options on a layer table, and --quantize other than int8.
  r = runWeft("--backend approx layers " + tool::test::sourceDir() + "/traces/validation/regression.json --quantize int8 "
              "--quiet" + o.args(),
              "WEFT_YOSYS=none");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("are for ONNX models"), std::string::npos) << r.output;
  const std::string model = tempPath("opts.onnx");
  convReluFloor().save(model);
  r = runWeft("--backend approx layers " + model + " --quantize int4 --quiet" + o.args(), "WEFT_YOSYS=none");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_FALSE(o.anyWritten());
}

}  // namespace
}  // namespace weft::onnx
