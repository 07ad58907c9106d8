// The AOSP conformance corpus (shared/conformance/aosp) on the accelerator through the HAL: every
// accelerator case (tests/support/AcceleratorCases.h) must be claimed by the device
// (getSupportedOperations true for all its operations; the reason is printed otherwise), prepared,
// executed on the approx backend (weft8, and weft8os: the output-stationary array) and checked
// with NNAPI's tolerances.
#include <gtest/gtest.h>

#include <map>

#include "../../driver/accel/ModelCompiler.h"
#include "AccelTestUtil.h"
#include "AcceleratorCases.h"
#include "Corpus.h"
#include "ResultChecker.h"
#include "TestModelLoader.h"
#include "TestModelToNn.h"

namespace weft::accel::test {
namespace {

class Conformance : public ::testing::TestWithParam<std::string> {};

TEST_P(Conformance, EveryAcceleratorCaseIsClaimedAndPasses) {
  const auto where = weft::test::findConformanceCorpus();
  if (!where.dir && weft::test::runningInCi()) FAIL() << where.describeMissing() << " (CI=true: the corpus is required)";
  if (!where.dir) GTEST_SKIP() << where.describeMissing();
  auto device = approxDevice(GetParam());
  int passed = 0, claimed = 0, cases = 0;
  std::map<std::string, std::string> unclaimed;
  for (const auto& c : weft::test::listCorpusCases(*where.dir)) {
    auto loaded = weft::test::loadTestModel(c.file, c.version);
    ASSERT_TRUE(loaded.ok()) << c.file << ": " << loaded.error().message;
    const auto& tm = loaded.value();
    if (!weft::test::isAcceleratorCase(tm)) continue;
    ++cases;
    const nn::Model model = weft::test::createModel(tm);
    std::map<uint32_t, std::string> reasons;
    const auto supported = supportedOperations(model, hw::HwConfig::load("weft16"), &reasons);
    auto answer = device->getSupportedOperations(model);
    ASSERT_TRUE(answer.ok());
    EXPECT_EQ(answer.value(), supported) << c.name;
    const bool all = std::all_of(supported.begin(), supported.end(), [](bool b) { return b; });
    if (!all) {
      unclaimed[c.version + "." + c.name] = reasons.empty() ? "?" : reasons.begin()->second;
      ADD_FAILURE() << c.version << "." << c.name << " is not claimed: " << unclaimed[c.version + "." + c.name];
      continue;
    }
    ++claimed;
    SCOPED_TRACE(c.version + "." + c.name);
    auto prepared = prepare(*device, model);
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    weft::test::TestRequest request(tm);
    auto e = prepared.value()->execute(request.request(), nn::MeasureTiming::YES, {}, {});
    ASSERT_TRUE(e.ok()) << e.error().message;
    std::vector<weft::test::TestBuffer> actual;
    std::vector<nn::Dimensions> dims;
    for (size_t i = 0; i < e.value().outputShapes.size(); ++i) {
      actual.push_back(request.output(i));
      dims.push_back(e.value().outputShapes[i].dimensions);
    }
    const auto report = weft::test::checkResults(tm, actual, &dims);
    EXPECT_TRUE(report.ok()) << report.summary();
    if (report.ok()) ++passed;
  }
  std::printf("[conformance] %s: %d accelerator cases, %d claimed, %d passed\n", GetParam().c_str(), cases, claimed,
              passed);
  for (const auto& [name, why] : unclaimed) std::printf("[conformance] not claimed: %s: %s\n", name.c_str(), why.c_str());
  EXPECT_GT(claimed, 0);
}

INSTANTIATE_TEST_SUITE_P(Approx, Conformance, ::testing::Values("weft8", "weft8os"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace weft::accel::test
