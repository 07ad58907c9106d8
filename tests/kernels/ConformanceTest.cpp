// The AOSP NNAPI conformance corpus on the CPU reference kernels (executeOnCpu): one gtest per
// case, named <spec version>.<case name>, e.g. V1_2.conv2d_nchw_quant8. Run a subset with
//   weft_kernels_conformance --gtest_filter='V1_2.conv2d*'
// A case using an operation without a kernel is skipped ("skipped: no kernel") and counted apart.
// At the end a summary gives passed / failed / skipped per spec version and per operation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include "ConformanceSummary.h"
#include "Corpus.h"
#include "KernelCoverage.h"
#include "ResultChecker.h"
#include "TestModelLoader.h"
#include "TestModelToNn.h"
#include "weft/kernels/CpuExecutor.h"

namespace weft::test {
namespace {

std::string describe(const nn::Error& e) { return std::string(nn::toString(e.code)) + ": " + e.message; }

class CorpusCaseTest : public testing::Test {
 public:
  explicit CorpusCaseTest(CorpusCase c) : case_(std::move(c)) {}

  void TestBody() override {
    auto loaded = loadTestModel(case_.file, case_.version);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    const TestModel& model = *loaded;
    CaseRecord& record = caseRecord(case_.version + "." + case_.name);
    const std::string missing = recordOperations(model, hasKernel, &record);
    if (!missing.empty()) {
      record.skipReason = CaseOutcome::kNoKernel;
      GTEST_SKIP() << "skipped: no kernel for " << missing;
    }

    const nn::Model nnModel = createModel(model);
    TestRequest request(model);
    const nn::Status validation = nn::validateModel(nnModel);
    if (model.expectFailure) {
      if (!validation.ok()) return;  // rejected at validation, as it must be
      auto result = nn::executeOnCpu(nnModel, request.request());
      EXPECT_FALSE(result.ok() && std::all_of(result->begin(), result->end(),
                                              [](const nn::OutputShape& s) { return s.isSufficient; }))
          << "an expectFailure case validated and executed successfully";
      return;
    }
    ASSERT_TRUE(validation.ok()) << "validation failed: " << describe(validation.error());
    auto result = nn::executeOnCpu(nnModel, request.request());
    ASSERT_TRUE(result.ok()) << "execution failed: " << describe(result.error());
    std::vector<TestBuffer> outputs;
    std::vector<nn::Dimensions> dims;
    for (size_t i = 0; i < result->size(); ++i) {
      ASSERT_TRUE((*result)[i].isSufficient) << "output " << i << " reported insufficient size";
      outputs.push_back(request.output(i));
      dims.push_back((*result)[i].dimensions);
    }
    CheckOptions options;
    options.testSuiteName = case_.version;
    const CheckReport report = checkResults(model, outputs, &dims, options);
    EXPECT_TRUE(report.ok()) << report.summary();
  }

 private:
  CorpusCase case_;
};

// Prints the per-version and per-operation tables after the run.
class SummaryPrinter : public SummaryListener {
 protected:
  void print(const OutcomeTally& tally) const override {
    auto row = [](const std::string& name, const OutcomeCounts& c) {
      std::printf("  %-32s %7zu %7zu %10zu %8zu\n", name.c_str(), c.passed, c.failed, c.noKernel, c.skipped);
    };
    std::printf("\nConformance on the CPU reference kernels\n");
    std::printf("  %-32s %7s %7s %10s %8s\n", "spec version", "passed", "failed", "no kernel", "skipped");
    for (const auto& [v, c] : tally.bySuite) row(v, c);
    row("total", tally.total);
    std::printf("\n  %-32s %7s %7s %10s %8s   (a case counts under every operation it uses)\n", "operation",
                "passed", "failed", "no kernel", "skipped");
    for (const auto& [op, c] : tally.byOperation) row(op, c);
    if (!tally.missingKernelCases.empty()) {
      std::printf("\nSkipped for lack of a kernel (operation: cases needing it):\n");
      for (const auto& [op, n] : tally.missingKernelCases) std::printf("  %s: %zu\n", op.c_str(), n);
      std::printf("  (the skipped cases are listed one by one above as \"skipped: no kernel for ...\")\n");
    }
    const OutcomeCounts& total = tally.total;
    std::printf("\nconformance: %zu passed, %zu failed, %zu skipped (%zu for lack of a kernel)\n", total.passed,
                total.failed, total.noKernel + total.skipped, total.noKernel);
  }
};

void registerTests() {
  const CorpusLocation location = findConformanceCorpus();
  if (!location.dir) {
    registerCorpusMissingTests({std::begin(kCorpusVersions), std::end(kCorpusVersions)}, location.describeMissing());
    return;
  }
  for (const CorpusCase& c : listCorpusCases(*location.dir)) {
    testing::RegisterTest(c.version.c_str(), c.name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                          [c]() -> testing::Test* { return new CorpusCaseTest(c); });
  }
}

}  // namespace
}  // namespace weft::test

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  weft::test::registerTests();
  testing::UnitTest::GetInstance()->listeners().Append(new weft::test::SummaryPrinter);
  return RUN_ALL_TESTS();
}
