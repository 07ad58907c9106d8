// The AOSP conformance corpus (shared/conformance/aosp) on the accelerator through the HAL: every
// case made only of CONV_2D and FULLY_CONNECTED that the device claims (getSupportedOperations
// true for all its operations) is prepared, executed on the approx backend (weft8) and checked
// with NNAPI's tolerances. Quantized cases the device does not claim are listed with the reason,
// and must be variants the accelerator documents as unsupported (weights or parameters that are
// model inputs, float types).
#include <gtest/gtest.h>

#include <map>

#include "../../driver/accel/ModelCompiler.h"
#include "AccelTestUtil.h"
#include "Corpus.h"
#include "ResultChecker.h"
#include "TestModelLoader.h"
#include "TestModelToNn.h"

namespace weft::accel::test {
namespace {

bool onlyGemmOperations(const weft::test::TestModel& m) {
  if (m.main.operations.empty() || !m.referenced.empty()) return false;
  for (auto t : m.operationTypes()) {
    if (t != nn::OperationType::CONV_2D && t != nn::OperationType::FULLY_CONNECTED) return false;
  }
  return true;
}

bool quantized(const weft::test::TestModel& m) {
  return m.hasOperandOfType(nn::OperandType::TENSOR_QUANT8_ASYMM) ||
         m.hasOperandOfType(nn::OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
}

// Cases whose parameters or weights are model inputs, which the accelerator documents as
// unsupported (they go to the CPU).
bool nonConstantWeightsOrParameters(const nn::Model& model) {
  for (const auto& op : model.main.operations) {
    for (size_t i = 1; i < op.inputs.size(); ++i) {
      const auto& o = model.main.operands[op.inputs[i]];
      if (o.lifetime == nn::Operand::LifeTime::SUBGRAPH_INPUT) return true;
    }
  }
  return false;
}

TEST(Conformance, ClaimedConvAndFullyConnectedCasesPass) {
  const auto where = weft::test::findConformanceCorpus();
  if (!where.dir) GTEST_SKIP() << where.describeMissing();
  auto device = approxDevice("weft8");
  int passed = 0, claimed = 0, quant = 0;
  std::map<std::string, std::string> unclaimed;
  for (const auto& c : weft::test::listCorpusCases(*where.dir)) {
    auto loaded = weft::test::loadTestModel(c.file, c.version);
    ASSERT_TRUE(loaded.ok()) << c.file << ": " << loaded.error().message;
    const auto& tm = loaded.value();
    if (tm.expectFailure || !onlyGemmOperations(tm)) continue;
    const nn::Model model = weft::test::createModel(tm);
    std::map<uint32_t, std::string> reasons;
    const auto supported = supportedOperations(model, &reasons);
    auto answer = device->getSupportedOperations(model);
    ASSERT_TRUE(answer.ok());
    EXPECT_EQ(answer.value(), supported) << c.name;
    const bool all = std::all_of(supported.begin(), supported.end(), [](bool b) { return b; });
    if (quantized(tm)) ++quant;
    if (!all) {
      if (quantized(tm)) {
        unclaimed[c.version + "." + c.name] = reasons.empty() ? "?" : reasons.begin()->second;
        EXPECT_TRUE(nonConstantWeightsOrParameters(model) ||
                    tm.hasOperandOfType(nn::OperandType::TENSOR_FLOAT32) ||
                    tm.hasOperandOfType(nn::OperandType::TENSOR_FLOAT16))
            << c.version << "." << c.name << " is quantized and not claimed: " << reasons.begin()->second;
      }
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
  std::printf("[conformance] %d quantized CONV_2D/FULLY_CONNECTED-only cases, %d claimed by the accelerator "
              "(all types), %d passed\n", quant, claimed, passed);
  for (const auto& [name, why] : unclaimed) std::printf("[conformance] not claimed: %s: %s\n", name.c_str(), why.c_str());
  EXPECT_GT(claimed, 0);
}

}  // namespace
}  // namespace weft::accel::test
