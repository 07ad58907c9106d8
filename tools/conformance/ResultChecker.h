// NNAPI's result check (AOSP TestHarness.cpp checkResults with the default AccuracyCriteria), as
// stated in shared/conformance/aosp/SCHEMA.md: per-type tolerances |actual - expected| <=
// atol + rtol * |expected| in double on stored values, float32 widened to the float16 tolerance
// when the model is relaxed or has any TENSOR_FLOAT16 operand, bool8 exact, ignored outputs
// skipped, RANDOM_MULTINOMIAL checked by its class distribution. Returns messages instead of
// asserting, so any test framework (or tool) can use it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "TestModel.h"

namespace weft::test {

struct CheckOptions {
  // The gtest suite name, for the quant8 atol of 3 in CompilationCaching suites (not TOCTOU).
  std::string testSuiteName;
  // Most mismatching elements reported per output.
  size_t maxReportedMismatches = 8;
};

struct Tolerance {
  double atol = 0.0;
  double rtol = 0.0;
  bool exact = false;      // bool8: compared as truth values
  bool supported = true;   // false: "Data type not supported"
};

// The tolerance NNAPI applies to main output `operand` of `model`.
Tolerance toleranceFor(const TestModel& model, const TestOperand& operand, const CheckOptions& options = {});

struct CheckReport {
  std::vector<std::string> failures;  // empty when everything matched
  bool ok() const { return failures.empty(); }
  std::string summary() const;        // the failures, one a line
};

// Compares `actual[i]` (the bytes of main output i, at least as long as the expected data) with
// the expected values. `actualDimensions`, when given, must equal each non-ignored output's
// declared dimensions (the CTS harness's shape check).
CheckReport checkResults(const TestModel& model, const std::vector<TestBuffer>& actual,
                         const std::vector<nn::Dimensions>* actualDimensions = nullptr,
                         const CheckOptions& options = {});

}  // namespace weft::test
