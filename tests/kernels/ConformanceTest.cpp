// The AOSP NNAPI conformance corpus on the CPU reference kernels (executeOnCpu): one gtest per
// case, named <spec version>.<case name>, e.g. V1_2.conv2d_nchw_quant8. Run a subset with
//   weft_kernels_conformance --gtest_filter='V1_2.conv2d*'
// A case using an operation without a kernel is skipped ("skipped: no kernel") and counted apart.
// At the end a summary gives passed / failed / skipped per spec version and per operation.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "Corpus.h"
#include "ResultChecker.h"
#include "TestModelLoader.h"
#include "TestModelToNn.h"
#include "weft/kernels/CpuExecutor.h"
#include "weft/kernels/OperationResolver.h"

namespace weft::test {
namespace {

// The spec directories of the corpus; each is one ctest entry (see CMakeLists.txt).
const char* const kVersions[] = {"V1_0", "V1_1", "V1_2", "V1_3", "V1_3_cts_only", "AIDL_V2", "AIDL_V3"};

enum class Outcome { kPassed, kFailed, kSkippedNoKernel, kSkippedOther };

struct CaseRecord {
  std::string version;
  std::vector<std::string> operations;  // operation types the case uses
  std::set<std::string> missingKernels;
};

// What each test learned about its case, read by the summary printer at the end.
std::map<std::string, CaseRecord>& records() {
  static std::map<std::string, CaseRecord> r;
  return r;
}

bool hasKernel(nn::OperationType type) {
  const nn::OperationRegistration* reg = nn::OperationResolver::get().find(type);
  if (reg == nullptr) return false;
  // IF and WHILE are run by the executor itself; everything else needs prepare and execute.
  if (type == nn::OperationType::IF || type == nn::OperationType::WHILE) return reg->validate != nullptr;
  return reg->prepare != nullptr && reg->execute != nullptr;
}

nn::Status validateModel(const nn::Model& model) {
  for (const nn::Operation& op : model.main.operations) NN_TRY(nn::validateOperation(model, model.main, op));
  for (const nn::Subgraph& sg : model.referenced) {
    for (const nn::Operation& op : sg.operations) NN_TRY(nn::validateOperation(model, sg, op));
  }
  return {};
}

std::string describe(const nn::Error& e) { return std::string(nn::toString(e.code)) + ": " + e.message; }

class CorpusCaseTest : public testing::Test {
 public:
  explicit CorpusCaseTest(CorpusCase c) : case_(std::move(c)) {}

  void TestBody() override {
    auto loaded = loadTestModel(case_.file, case_.version);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    const TestModel& model = *loaded;
    CaseRecord& record = records()[case_.version + "." + case_.name];
    record.version = case_.version;
    for (nn::OperationType type : model.operationTypes()) {
      record.operations.push_back(nn::toString(type));
      if (!hasKernel(type)) record.missingKernels.insert(nn::toString(type));
    }
    if (!record.missingKernels.empty()) {
      std::string names;
      for (const std::string& n : record.missingKernels) names += (names.empty() ? "" : ", ") + n;
      GTEST_SKIP() << "skipped: no kernel for " << names;
    }

    const nn::Model nnModel = createModel(model);
    TestRequest request(model);
    const nn::Status validation = validateModel(nnModel);
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

class MissingCorpusTest : public testing::Test {
 public:
  explicit MissingCorpusTest(std::string message) : message_(std::move(message)) {}
  void TestBody() override { GTEST_SKIP() << message_; }

 private:
  std::string message_;
};

struct Counts {
  size_t passed = 0, failed = 0, noKernel = 0, skipped = 0;
  void add(Outcome o) {
    switch (o) {
      case Outcome::kPassed: ++passed; break;
      case Outcome::kFailed: ++failed; break;
      case Outcome::kSkippedNoKernel: ++noKernel; break;
      case Outcome::kSkippedOther: ++skipped; break;
    }
  }
};

// Prints the per-version and per-operation tables after the run.
class SummaryPrinter : public testing::EmptyTestEventListener {
 public:
  void OnTestEnd(const testing::TestInfo& info) override {
    const std::string key = std::string(info.test_suite_name()) + "." + info.name();
    const testing::TestResult* r = info.result();
    Outcome outcome = r->Failed() ? Outcome::kFailed : r->Skipped() ? Outcome::kSkippedOther : Outcome::kPassed;
    auto it = records().find(key);
    if (it != records().end() && !it->second.missingKernels.empty() && !r->Failed()) {
      outcome = Outcome::kSkippedNoKernel;
    }
    outcomes_.emplace_back(key, outcome);
  }

  void OnTestProgramEnd(const testing::UnitTest&) override {
    if (outcomes_.empty()) return;
    std::map<std::string, Counts> byVersion, byOperation;
    std::map<std::string, size_t> missingKernelCases;
    Counts total;
    for (const auto& [key, outcome] : outcomes_) {
      total.add(outcome);
      auto it = records().find(key);
      const std::string version = key.substr(0, key.find('.'));
      byVersion[version].add(outcome);
      if (it == records().end()) continue;
      for (const std::string& op : it->second.operations) byOperation[op].add(outcome);
      for (const std::string& op : it->second.missingKernels) ++missingKernelCases[op];
    }
    auto row = [](const std::string& name, const Counts& c) {
      std::printf("  %-32s %7zu %7zu %10zu %8zu\n", name.c_str(), c.passed, c.failed, c.noKernel, c.skipped);
    };
    std::printf("\nConformance on the CPU reference kernels\n");
    std::printf("  %-32s %7s %7s %10s %8s\n", "spec version", "passed", "failed", "no kernel", "skipped");
    for (const auto& [v, c] : byVersion) row(v, c);
    row("total", total);
    std::printf("\n  %-32s %7s %7s %10s %8s   (a case counts under every operation it uses)\n", "operation",
                "passed", "failed", "no kernel", "skipped");
    for (const auto& [op, c] : byOperation) row(op, c);
    if (!missingKernelCases.empty()) {
      std::printf("\nSkipped for lack of a kernel (operation: cases needing it):\n");
      for (const auto& [op, n] : missingKernelCases) std::printf("  %s: %zu\n", op.c_str(), n);
      std::printf("  (the skipped cases are listed one by one above as \"skipped: no kernel for ...\")\n");
    }
    std::printf("\nconformance: %zu passed, %zu failed, %zu skipped (%zu for lack of a kernel)\n", total.passed,
                total.failed, total.noKernel + total.skipped, total.noKernel);
  }

 private:
  std::vector<std::pair<std::string, Outcome>> outcomes_;
};

void registerTests() {
  const CorpusLocation location = findConformanceCorpus();
  if (!location.dir) {
    // One skipped test per version so that every ctest entry says plainly why nothing ran.
    for (const char* version : kVersions) {
      const std::string message = location.describeMissing();
      testing::RegisterTest(version, "CorpusMissing", nullptr, nullptr, __FILE__, __LINE__,
                            [message]() -> testing::Test* { return new MissingCorpusTest(message); });
    }
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
