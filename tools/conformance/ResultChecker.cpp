#include "ResultChecker.h"

#include <cfloat>
#include <cmath>
#include <sstream>

namespace weft::test {

using nn::OperandType;

namespace {

// Element `i` of `buffer` as a double, in the stored (raw integer for quantized) domain.
double valueAt(OperandType type, const TestBuffer& buffer, size_t i) {
  switch (type) {
    case OperandType::TENSOR_FLOAT32:
      return buffer.at<float>(i);
    case OperandType::TENSOR_FLOAT16:
      return static_cast<double>(buffer.at<_Float16>(i));
    case OperandType::TENSOR_INT32:
    case OperandType::INT32:
      return buffer.at<int32_t>(i);
    case OperandType::TENSOR_QUANT8_ASYMM:
      return buffer.at<uint8_t>(i);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::TENSOR_QUANT8_SYMM:
      return buffer.at<int8_t>(i);
    case OperandType::TENSOR_QUANT16_ASYMM:
      return buffer.at<uint16_t>(i);
    case OperandType::TENSOR_QUANT16_SYMM:
      return buffer.at<int16_t>(i);
    case OperandType::TENSOR_BOOL8:
      return buffer.at<uint8_t>(i) != 0 ? 1.0 : 0.0;
    default:
      return 0.0;
  }
}

std::string dimsToString(const nn::Dimensions& d) {
  std::ostringstream s;
  s << "[";
  for (size_t i = 0; i < d.size(); ++i) s << (i ? "," : "") << d[i];
  s << "]";
  return s.str();
}

void checkMultinomial(const TestModel& model, const std::vector<TestBuffer>& actual, CheckReport& report) {
  // AOSP's expectMultinomialDistributionWithinTolerance, including its batch-1 assumptions.
  const TestSubgraph& main = model.main;
  if (main.operations.size() != 1 || main.operations[0].type != nn::OperationType::RANDOM_MULTINOMIAL ||
      main.inputIndexes.empty() || main.outputIndexes.size() != 1 || actual.size() != 1) {
    report.failures.push_back("multinomial check needs a single RANDOM_MULTINOMIAL operation with one output");
    return;
  }
  const TestOperand& input = main.operands[main.inputIndexes[0]];
  const TestOperand& output = main.operands[main.outputIndexes[0]];
  if (input.dimensions.size() != 2 || output.dimensions.size() != 2) {
    report.failures.push_back("multinomial input and output must be 2-D");
    return;
  }
  const size_t batchSize = input.dimensions[0];
  const size_t numClasses = input.dimensions[1];
  const size_t numSamples = output.dimensions[1];
  const size_t outputLength = std::min(actual[0].size() / sizeof(int32_t), nn::numberOfElements(output.dimensions));
  std::vector<size_t> classCounts(numClasses, 0);
  for (size_t i = 0; i < outputLength; ++i) {
    const int32_t c = actual[0].at<int32_t>(i);
    if (c < 0 || static_cast<size_t>(c) >= numClasses) {
      report.failures.push_back("multinomial sample " + std::to_string(i) + " is class " + std::to_string(c) +
                                ", outside [0, " + std::to_string(numClasses) + ")");
      return;
    }
    ++classCounts[c];
  }
  auto logit = [&](size_t i) -> float {
    return input.type == OperandType::TENSOR_FLOAT16 ? static_cast<float>(input.data.at<_Float16>(i))
                                                     : input.data.at<float>(i);
  };
  const float tolerance = model.expectedMultinomialDistributionTolerance;
  for (size_t b = 0; b < batchSize; ++b) {
    const size_t rowStart = batchSize * b;  // as AOSP reads it
    if (rowStart + numClasses > nn::numberOfElements(input.dimensions)) break;
    float sum = 0.0f;
    for (size_t i = 0; i < numClasses; ++i) sum += std::exp(logit(rowStart + i));
    for (size_t i = 0; i < numClasses; ++i) {
      const float probability = static_cast<float>(classCounts[i]) / static_cast<float>(numSamples);
      const float expected = std::exp(logit(rowStart + i)) / sum;
      if (!(std::fabs(probability - expected) <= tolerance)) {
        std::ostringstream s;
        s << "multinomial class " << i << ": frequency " << probability << ", expected " << expected << " +- "
          << tolerance;
        report.failures.push_back(s.str());
      }
    }
  }
}

}  // namespace

Tolerance toleranceFor(const TestModel& model, const TestOperand& operand, const CheckOptions& options) {
  constexpr double kFloat16Tolerance = 5.0 * 0.0009765625;  // 5 * 2^-10
  switch (operand.type) {
    case OperandType::TENSOR_FLOAT32:
      if (model.isRelaxed || model.hasOperandOfType(OperandType::TENSOR_FLOAT16)) {
        return {kFloat16Tolerance, kFloat16Tolerance};
      }
      return {1e-5, 5.0 * FLT_EPSILON};
    case OperandType::TENSOR_FLOAT16:
      return {kFloat16Tolerance, kFloat16Tolerance};
    case OperandType::TENSOR_INT32:
    case OperandType::INT32:
    case OperandType::TENSOR_QUANT16_ASYMM:
    case OperandType::TENSOR_QUANT16_SYMM:
      return {1.0, 0.0};
    case OperandType::TENSOR_QUANT8_ASYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::TENSOR_QUANT8_SYMM: {
      const bool caching = options.testSuiteName.find("CompilationCaching") != std::string::npos &&
                           model.name.find("TOCTOU") == std::string::npos;
      const bool mobilenet = model.name.find("mobilenet") != std::string::npos;
      return {(caching || mobilenet) ? 3.0 : 1.0, 0.0};
    }
    case OperandType::TENSOR_BOOL8: {
      Tolerance t;
      t.exact = true;
      return t;
    }
    default: {
      Tolerance t;
      t.supported = false;
      return t;
    }
  }
}

std::string CheckReport::summary() const {
  std::string s;
  for (const std::string& f : failures) s += f + "\n";
  return s;
}

CheckReport checkResults(const TestModel& model, const std::vector<TestBuffer>& actual,
                         const std::vector<nn::Dimensions>* actualDimensions, const CheckOptions& options) {
  CheckReport report;
  const TestSubgraph& main = model.main;
  if (actual.size() != main.outputIndexes.size()) {
    report.failures.push_back("expected " + std::to_string(main.outputIndexes.size()) + " outputs, got " +
                              std::to_string(actual.size()));
    return report;
  }
  if (actualDimensions != nullptr) {
    for (size_t i = 0; i < main.outputIndexes.size() && i < actualDimensions->size(); ++i) {
      const TestOperand& o = main.operands[main.outputIndexes[i]];
      if (o.isIgnored) continue;
      if ((*actualDimensions)[i] != o.dimensions) {
        report.failures.push_back("output " + std::to_string(i) + " has dimensions " +
                                  dimsToString((*actualDimensions)[i]) + ", expected " + dimsToString(o.dimensions));
      }
    }
  }
  if (model.expectedMultinomialDistributionTolerance > 0.0f) {
    checkMultinomial(model, actual, report);
    return report;
  }
  for (size_t i = 0; i < main.outputIndexes.size(); ++i) {
    const TestOperand& o = main.operands[main.outputIndexes[i]];
    if (o.isIgnored) continue;
    const Tolerance tol = toleranceFor(model, o, options);
    if (!tol.supported) {
      report.failures.push_back("output " + std::to_string(i) + ": Data type not supported (" +
                                nn::toString(o.type) + ")");
      continue;
    }
    const size_t count = nn::numberOfElements(o.dimensions);
    const size_t elementSize = testElementSize(o.type);
    if (o.data.size() < count * elementSize || actual[i].size() < count * elementSize) {
      report.failures.push_back("output " + std::to_string(i) + ": buffer holds fewer than " + std::to_string(count) +
                                " elements");
      continue;
    }
    size_t mismatches = 0;
    for (size_t e = 0; e < count; ++e) {
      const double expected = valueAt(o.type, o.data, e);
      const double got = valueAt(o.type, actual[i], e);
      bool pass;
      if (tol.exact) {
        pass = expected == got;
      } else {
        pass = !std::isnan(expected) && !std::isnan(got) &&
               std::fabs(got - expected) <= tol.atol + tol.rtol * std::fabs(expected);
      }
      if (pass) continue;
      if (mismatches++ < options.maxReportedMismatches) {
        std::ostringstream s;
        s.precision(9);
        s << "output " << i << " (" << nn::toString(o.type) << ") element " << e << ": got " << got << ", expected "
          << expected;
        if (!tol.exact) s << " (tolerance " << tol.atol + tol.rtol * std::fabs(expected) << ")";
        report.failures.push_back(s.str());
      }
    }
    if (mismatches > options.maxReportedMismatches) {
      report.failures.push_back("output " + std::to_string(i) + ": " + std::to_string(mismatches) + " of " +
                                std::to_string(count) + " elements mismatch");
    }
  }
  return report;
}

}  // namespace weft::test
