// The bundled networks (traces/networks/) end to end as `weft run` runs them on the approx
// backend: every layer's output within DESIGN's whole-network tolerance of the CPU reference,
// and every layer on the accelerator (the array and the vector unit), so NNAPI reports durations.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "RunWeft.h"
#include "ToolTestPaths.h"

using weft::tool::test::sourceDir;

namespace {

using weft::tool::test::ProcessResult;
using weft::tool::test::runWeft;

class BundledNetwork : public ::testing::TestWithParam<std::string> {};

TEST_P(BundledNetwork, PassesTheReferenceCheckOnApprox) {
  const std::string network = sourceDir() + "/traces/networks/" + GetParam() + ".json";
  const std::string json = ::testing::TempDir() + "bundled_" + GetParam() + ".json";
  const ProcessResult r = runWeft("--backend approx run --quiet " + network + " --json " + json + " --csv " +
                                  ::testing::TempDir() + "bundled_" + GetParam() + ".csv");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("reference check: PASS"), std::string::npos) << r.output;

  std::ifstream in(json);
  ASSERT_TRUE(in) << json;
  const auto report = nlohmann::json::parse(in);
  EXPECT_TRUE(report["referenceCheck"]["passed"].get<bool>());
  // Each layer within NNAPI's quant8 tolerance of the reference kernel on its own inputs (a deep
  // transformer's outputs drift from the CPU-only run's further: reported, not checked).
  EXPECT_LE(report["referenceCheck"]["worstError"].get<int>(), 3);
  // The whole network on the accelerator: one compilation, NNAPI durations for the model.
  for (const auto& layer : report["layers"]) {
    EXPECT_EQ(layer["device"], "weft-accel") << layer["name"];
    EXPECT_GT(layer["cycles"].get<uint64_t>(), 0u) << layer["name"];
  }
  EXPECT_GT(report["nnapiDurations"]["onHardwareNs"].get<uint64_t>(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Networks, BundledNetwork,
                         ::testing::Values("mobilenet_v1_224_quant", "resnet18_224_quant", "squeezenet1_1_224_quant",
                                           "bert_base_seq128_quant", "vit_b16_224_quant",
                                           "gpt2_small_decode_past512_quant"));

}  // namespace
