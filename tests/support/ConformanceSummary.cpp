#include "ConformanceSummary.h"

#include "Corpus.h"

namespace weft::test {

void OutcomeCounts::add(CaseOutcome outcome) {
  switch (outcome) {
    case CaseOutcome::kPassed: ++passed; break;
    case CaseOutcome::kFailed: ++failed; break;
    case CaseOutcome::kNoKernel: ++noKernel; break;
    case CaseOutcome::kNotClaimed: ++notClaimed; break;
    case CaseOutcome::kSkipped: ++skipped; break;
  }
}

namespace {

std::map<std::string, CaseRecord>& records() {
  static std::map<std::string, CaseRecord> r;
  return r;
}

class MissingCorpusTest : public testing::Test {
 public:
  explicit MissingCorpusTest(std::string message) : message_(std::move(message)) {}
  // A developer without the corpus is told and skipped; CI (CI=true) must not turn a missing
  // corpus into green skips, so there it fails.
  void TestBody() override {
    if (runningInCi()) FAIL() << message_ << " (CI=true: the conformance corpus is required)";
    GTEST_SKIP() << message_;
  }

 private:
  std::string message_;
};

}  // namespace

CaseRecord& caseRecord(const std::string& key) { return records()[key]; }

std::string recordOperations(const TestModel& model, const std::function<bool(nn::OperationType)>& hasKernel,
                             CaseRecord* record) {
  for (nn::OperationType type : model.operationTypes()) {
    record->operations.push_back(nn::toString(type));
    if (!hasKernel(type)) record->missingKernels.insert(nn::toString(type));
  }
  std::string names;
  for (const std::string& n : record->missingKernels) names += (names.empty() ? "" : ", ") + n;
  return names;
}

void SummaryListener::OnTestEnd(const testing::TestInfo& info) {
  const std::string key = std::string(info.test_suite_name()) + "." + info.name();
  const testing::TestResult* result = info.result();
  CaseOutcome outcome = CaseOutcome::kPassed;
  if (result->Failed()) {
    outcome = CaseOutcome::kFailed;
  } else if (result->Skipped()) {
    auto it = records().find(key);
    outcome = it == records().end() ? CaseOutcome::kSkipped : it->second.skipReason;
  }
  outcomes_.emplace_back(key, outcome);
}

void SummaryListener::OnTestProgramEnd(const testing::UnitTest&) {
  if (outcomes_.empty()) return;
  OutcomeTally tally;
  for (const auto& [key, outcome] : outcomes_) {
    const std::string suite = key.substr(0, key.find('.'));
    tally.total.add(outcome);
    tally.bySuite[suite].add(outcome);
    auto it = records().find(key);
    if (it == records().end()) continue;
    for (const std::string& op : it->second.operations) tally.byOperation[operationKey(suite, op)].add(outcome);
    for (const std::string& op : it->second.missingKernels) ++tally.missingKernelCases[op];
  }
  print(tally);
}

std::string SummaryListener::operationKey(const std::string&, const std::string& operation) const {
  return operation;
}

void registerCorpusMissingTests(const std::vector<std::string>& suites, const std::string& message) {
  for (const std::string& suite : suites) {
    testing::RegisterTest(suite.c_str(), "CorpusMissing", nullptr, nullptr, __FILE__, __LINE__,
                          [message]() -> testing::Test* { return new MissingCorpusTest(message); });
  }
}

}  // namespace weft::test
