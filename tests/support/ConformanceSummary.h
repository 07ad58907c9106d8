// What the conformance suites (tests/kernels, tests/conformance_api) report after a run: each test
// records the operations of its case and why it skipped, a listener classifies every test's
// outcome as it ends, and the outcomes are tallied per suite (spec version, or device_version) and
// per operation for the suite's own summary tables.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "TestModel.h"

namespace weft::test {

enum class CaseOutcome { kPassed, kFailed, kNoKernel, kNotClaimed, kSkipped };

struct OutcomeCounts {
  size_t passed = 0, failed = 0, noKernel = 0, notClaimed = 0, skipped = 0;
  void add(CaseOutcome outcome);
};

// What a test learned about its case.
struct CaseRecord {
  std::vector<std::string> operations;             // the operation types the case uses
  std::set<std::string> missingKernels;            // those of them without a reference kernel
  CaseOutcome skipReason = CaseOutcome::kSkipped;  // why the test skipped, when it did
};

// The record of test "<suite>.<name>", created empty on first use.
CaseRecord& caseRecord(const std::string& key);

// Fills `record` with the operations of `model` and those `hasKernel` says have no kernel;
// returns the latter joined by ", " (empty when every operation has one).
std::string recordOperations(const TestModel& model, const std::function<bool(nn::OperationType)>& hasKernel,
                             CaseRecord* record);

// The outcomes of a run, grouped for the summary tables.
struct OutcomeTally {
  OutcomeCounts total;
  std::map<std::string, OutcomeCounts> bySuite;
  std::map<std::string, OutcomeCounts> byOperation;  // keyed by SummaryListener::operationKey
  std::map<std::string, size_t> missingKernelCases;  // operation -> cases that lacked its kernel
};

// Classifies each test as it ends (failed; skipped, for the reason its record gives; passed) and
// after the last one, when any ran, hands their tally to print().
class SummaryListener : public testing::EmptyTestEventListener {
 public:
  void OnTestEnd(const testing::TestInfo& info) override;
  void OnTestProgramEnd(const testing::UnitTest& unitTest) override;

 protected:
  // The byOperation key under which `operation`, used by a case of `suite`, is counted.
  virtual std::string operationKey(const std::string& suite, const std::string& operation) const;
  virtual void print(const OutcomeTally& tally) const = 0;

 private:
  std::vector<std::pair<std::string, CaseOutcome>> outcomes_;
};

// When the corpus is missing: one skipped test "<suite>.CorpusMissing" per suite saying so, so
// that every ctest entry reports why nothing ran.
void registerCorpusMissingTests(const std::vector<std::string>& suites, const std::string& message);

}  // namespace weft::test
