// The conformance harness itself: literal rounding, model/request construction, and that
// checkResults fails exactly where NNAPI's rules say it must.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <cmath>

#include "Corpus.h"
#include "ResultChecker.h"
#include "TestModelLoader.h"
#include "TestModelToNn.h"

namespace weft::test {
namespace {

using nn::OperandType;

// One ADD case over [2] tensors of `type` with expected output values `expected` (JSON text).
std::string addCase(const std::string& type, const std::string& inputs, const std::string& expected,
                    bool relaxed = false, const std::string& scale = "0.0") {
  return R"({"name":"t","source":"s","operands":[
    {"name":"a","type":")" + type + R"(","dimensions":[2],"scale":)" + scale + R"(,"zeroPoint":0,"lifetime":"SUBGRAPH_INPUT","data":)" + inputs + R"(,"isIgnored":false},
    {"name":"b","type":")" + type + R"(","dimensions":[2],"scale":)" + scale + R"(,"zeroPoint":0,"lifetime":"CONSTANT_REFERENCE","data":)" + inputs + R"(,"isIgnored":false},
    {"name":"act","type":"INT32","dimensions":[],"scale":0.0,"zeroPoint":0,"lifetime":"CONSTANT_COPY","data":[0],"isIgnored":false},
    {"name":"out","type":")" + type + R"(","dimensions":[2],"scale":)" + scale + R"(,"zeroPoint":0,"lifetime":"SUBGRAPH_OUTPUT","data":)" + expected + R"(,"isIgnored":false}],
    "operations":[{"type":"ADD","inputs":[0,1,2],"outputs":[3]}],
    "inputIndexes":[0],"outputIndexes":[3],"relaxed":)" + (relaxed ? "true" : "false") + R"(,"expectFailure":false})";
}

TestModel parse(const std::string& json) {
  auto m = parseTestModel(json);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  return m.ok() ? *m : TestModel{};
}

TEST(Harness, FloatLiteralsRoundToFloat32AndFloat16ThroughFloat32) {
  const TestModel f32 = parse(addCase("TENSOR_FLOAT32", "[0.1,1e-8]", "[0.2,2e-8]"));
  EXPECT_EQ(f32.main.operands[0].data.at<float>(0), 0.1f);
  EXPECT_EQ(f32.main.operands[0].data.at<float>(1), 1e-8f);
  const TestModel f16 = parse(addCase("TENSOR_FLOAT16", "[0.1,65504.0]", "[0.2,1.0]"));
  EXPECT_EQ(f16.main.operands[0].data.at<_Float16>(0), static_cast<_Float16>(0.1f));
  EXPECT_EQ(static_cast<float>(f16.main.operands[0].data.at<_Float16>(1)), 65504.0f);
}

TEST(Harness, RejectsMalformedCases) {
  EXPECT_FALSE(parseTestModel("{").ok());
  EXPECT_FALSE(parseTestModel(addCase("TENSOR_FLOAT32", "[0.1]", "[0.2,0.3]")).ok());  // 1 value for [2]
  EXPECT_FALSE(parseTestModel(addCase("TENSOR_QUANT8_ASYMM", "[1,300]", "[1,2]")).ok());  // out of range
  EXPECT_FALSE(parseTestModel(addCase("TENSOR_FLOAT99", "[1,2]", "[1,2]")).ok());
}

TEST(Harness, ModelAndRequestFollowTheLifetimes) {
  const TestModel m = parse(addCase("TENSOR_FLOAT32", "[1.0,2.0]", "[2.0,4.0]"));
  const nn::Model model = createModel(m);
  ASSERT_EQ(model.pools.size(), 1u);  // the CONSTANT_REFERENCE pool
  const nn::Operand& b = model.main.operands[1];
  EXPECT_EQ(b.lifetime, nn::Operand::LifeTime::CONSTANT_REFERENCE);
  EXPECT_EQ(b.location.offset % 4, 0u);
  float values[2];
  std::memcpy(values, model.pools[0]->data() + b.location.offset, 8);
  EXPECT_EQ(values[1], 2.0f);
  const nn::Operand& act = model.main.operands[2];
  EXPECT_EQ(act.lifetime, nn::Operand::LifeTime::CONSTANT_COPY);
  EXPECT_EQ(act.location.length, 4u);
  TestRequest request(m);
  EXPECT_EQ(request.request().inputs.size(), 1u);
  EXPECT_EQ(request.outputLength(0), 8u);
}

TEST(Harness, EmptyInputIsAnOmittedArgument) {
  const TestModel m = parse(addCase("TENSOR_FLOAT32", "[]", "[2.0,4.0]"));
  TestRequest request(m);
  EXPECT_EQ(request.request().inputs[0].lifetime, nn::RequestArgument::LifeTime::NO_VALUE);
}

std::vector<TestBuffer> floats(std::vector<float> v) { return {TestBuffer::fromVector(v)}; }

TEST(Harness, Float32ToleranceIsOneE5PlusFiveUlp) {
  const TestModel m = parse(addCase("TENSOR_FLOAT32", "[0,0]", "[1.0,0.0]"));
  const double tol = 1e-5 + 5 * 1.1920928955078125e-7;
  EXPECT_TRUE(checkResults(m, floats({static_cast<float>(1.0 + 0.9 * tol), 0.0f})).ok());
  EXPECT_FALSE(checkResults(m, floats({static_cast<float>(1.0 + 1.2 * tol), 0.0f})).ok());
  EXPECT_FALSE(checkResults(m, floats({1.0f, std::nanf("")})).ok());
}

TEST(Harness, RelaxedWidensFloat32ToTheFloat16Tolerance) {
  const TestModel strict = parse(addCase("TENSOR_FLOAT32", "[0,0]", "[1.0,0.0]"));
  const TestModel relaxed = parse(addCase("TENSOR_FLOAT32", "[0,0]", "[1.0,0.0]", true));
  const auto actual = floats({1.009f, 0.0f});  // within 5*2^-10 * (1 + 1) = 0.00977
  EXPECT_FALSE(checkResults(strict, actual).ok());
  EXPECT_TRUE(checkResults(relaxed, actual).ok());
  EXPECT_FALSE(checkResults(relaxed, floats({1.011f, 0.0f})).ok());
}

TEST(Harness, Quant8AllowsOneStep) {
  const TestModel m = parse(addCase("TENSOR_QUANT8_ASYMM", "[1,2]", "[10,20]", false, "0.5"));
  EXPECT_TRUE(checkResults(m, {TestBuffer::fromVector(std::vector<uint8_t>{11, 19})}).ok());
  EXPECT_FALSE(checkResults(m, {TestBuffer::fromVector(std::vector<uint8_t>{12, 20})}).ok());
}

TEST(Harness, Bool8IsExactOnTruthValues) {
  const TestModel m = parse(addCase("TENSOR_BOOL8", "[true,false]", "[true,false]"));
  EXPECT_TRUE(checkResults(m, {TestBuffer::fromVector(std::vector<uint8_t>{7, 0})}).ok());
  EXPECT_FALSE(checkResults(m, {TestBuffer::fromVector(std::vector<uint8_t>{1, 1})}).ok());
}

TEST(Harness, DimensionsMustMatchAndIgnoredOutputsAreSkipped) {
  TestModel m = parse(addCase("TENSOR_FLOAT32", "[0,0]", "[1.0,2.0]"));
  const auto actual = floats({5.0f, 5.0f});
  std::vector<nn::Dimensions> dims = {{1, 2}};
  EXPECT_FALSE(checkResults(m, floats({1.0f, 2.0f}), &dims).ok());
  m.main.operands[3].isIgnored = true;
  EXPECT_TRUE(checkResults(m, actual, &dims).ok());
}

TEST(Harness, MissingCorpusIsReportedWithThePathTried) {
  ::setenv("WEFT_CONFORMANCE_DIR", "/nonexistent/corpus", 1);
  const CorpusLocation location = findConformanceCorpus();
  ::unsetenv("WEFT_CONFORMANCE_DIR");
  EXPECT_FALSE(location.dir.has_value());
  EXPECT_NE(location.describeMissing().find("/nonexistent/corpus"), std::string::npos);
}

}  // namespace
}  // namespace weft::test
