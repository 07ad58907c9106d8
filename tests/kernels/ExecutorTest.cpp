// executeOnCpu's own behaviour: execution order, dynamic shapes of temporaries, deadlines, and IF /
// WHILE over referenced subgraphs (values in and out, loop timeout).
#include <gtest/gtest.h>

#include <chrono>

#include "OpModelBuilder.h"
#include "weft/kernels/OperationResolver.h"

namespace weft::test {
namespace {

using nn::ErrorStatus;
using nn::OperandType;
using nn::OperationType;

const OpModelBuilder::Tensor kFloat2{OperandType::TENSOR_FLOAT32, {2}};

// out = (a + b) * b, with the operations listed consumer first and the temporary's shape unknown.
OpModelBuilder reversedChain() {
  OpModelBuilder m;
  const auto a = m.input(kFloat2, OpModelBuilder::bytesOf(std::vector<float>{1, 2}));
  const auto b = m.input(kFloat2, OpModelBuilder::bytesOf(std::vector<float>{3, 4}));
  const auto sum = m.temporary({OperandType::TENSOR_FLOAT32, {0}});
  const auto out = m.output({OperandType::TENSOR_FLOAT32, {0}}, 8);
  const auto none = m.int32Scalar(0);
  m.operation(OperationType::MUL, {sum, b, none}, {out});
  m.operation(OperationType::ADD, {a, b, none}, {sum});
  return m;
}

TEST(Executor, RunsOperationsInDependencyOrderAndInfersShapes) {
  auto run = reversedChain().run();
  ASSERT_TRUE(run.result.ok()) << run.result.error().message;
  EXPECT_EQ(run.result->at(0).dimensions, (nn::Dimensions{2}));
  EXPECT_EQ(OpModelBuilder::as<float>(run.outputs[0]), (std::vector<float>{12, 24}));
}

TEST(Executor, RejectsACycle) {
  OpModelBuilder m;
  const auto a = m.input(kFloat2, OpModelBuilder::bytesOf(std::vector<float>{1, 2}));
  const auto t1 = m.temporary(kFloat2);
  const auto t2 = m.temporary(kFloat2);
  const auto out = m.output(kFloat2);
  const auto none = m.int32Scalar(0);
  m.operation(OperationType::ADD, {a, t2, none}, {t1});
  m.operation(OperationType::ADD, {a, t1, none}, {t2});
  m.operation(OperationType::ADD, {t1, t2, none}, {out});
  auto run = m.run();
  ASSERT_FALSE(run.result.ok());
  EXPECT_EQ(run.result.error().code, ErrorStatus::BAD_DATA);
}

TEST(Executor, PassedDeadlineIsMissedDeadline) {
  nn::CpuExecutionOptions options;
  options.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  auto run = reversedChain().run(options);
  ASSERT_FALSE(run.result.ok());
  EXPECT_EQ(run.result.error().code, ErrorStatus::MISSED_DEADLINE_TRANSIENT);
}

// A referenced subgraph computing out = x <op> y on float [2].
nn::Subgraph binarySubgraph(nn::Model& model, OperationType op) {
  nn::Subgraph sg;
  auto operand = [](nn::Operand::LifeTime lifetime) {
    nn::Operand o;
    o.type = OperandType::TENSOR_FLOAT32;
    o.dimensions = {2};
    o.lifetime = lifetime;
    return o;
  };
  sg.operands = {operand(nn::Operand::LifeTime::SUBGRAPH_INPUT), operand(nn::Operand::LifeTime::SUBGRAPH_INPUT),
                 operand(nn::Operand::LifeTime::SUBGRAPH_OUTPUT)};
  nn::Operand act;
  act.type = OperandType::INT32;
  act.lifetime = nn::Operand::LifeTime::CONSTANT_COPY;
  const size_t offset = (model.operandValues.size() + 7) / 8 * 8;
  model.operandValues.resize(offset + 4, 0);
  act.location.offset = static_cast<uint32_t>(offset);
  act.location.length = 4;
  sg.operands.push_back(act);
  sg.operations = {{op, {0, 1, 3}, {2}}};
  sg.inputIndexes = {0, 1};
  sg.outputIndexes = {2};
  return sg;
}

uint32_t subgraphOperand(OpModelBuilder& m, uint32_t index) {
  nn::Operand o;
  o.type = OperandType::SUBGRAPH;
  o.lifetime = nn::Operand::LifeTime::SUBGRAPH;
  o.location.offset = index;
  m.model().main.operands.push_back(o);
  return static_cast<uint32_t>(m.model().main.operands.size() - 1);
}

TEST(Executor, IfRunsTheChosenBranch) {
  for (bool condition : {true, false}) {
    OpModelBuilder m;
    m.model().referenced.push_back(binarySubgraph(m.model(), OperationType::ADD));
    m.model().referenced.push_back(binarySubgraph(m.model(), OperationType::SUB));
    const auto c = m.input({OperandType::TENSOR_BOOL8, {1}}, {static_cast<uint8_t>(condition)});
    const auto thenBranch = subgraphOperand(m, 0);
    const auto elseBranch = subgraphOperand(m, 1);
    const auto x = m.input(kFloat2, OpModelBuilder::bytesOf(std::vector<float>{10, 20}));
    const auto y = m.input(kFloat2, OpModelBuilder::bytesOf(std::vector<float>{1, 2}));
    const auto out = m.output({OperandType::TENSOR_FLOAT32, {0}}, 8);
    m.operation(OperationType::IF, {c, thenBranch, elseBranch, x, y}, {out});
    ASSERT_TRUE(m.validate().ok()) << m.validate().error().message;
    auto run = m.run();
    ASSERT_TRUE(run.result.ok()) << run.result.error().message;
    EXPECT_EQ(run.result->at(0).dimensions, (nn::Dimensions{2}));
    EXPECT_EQ(OpModelBuilder::as<float>(run.outputs[0]),
              condition ? (std::vector<float>{11, 22}) : (std::vector<float>{9, 18}));
  }
}

TEST(Executor, IfRejectsAMissingSubgraph) {
  OpModelBuilder m;
  const auto c = m.input({OperandType::TENSOR_BOOL8, {1}}, {1});
  const auto thenBranch = subgraphOperand(m, 5);
  const auto elseBranch = subgraphOperand(m, 6);
  const auto x = m.input(kFloat2, std::vector<uint8_t>(8));
  const auto out = m.output(kFloat2);
  m.operation(OperationType::IF, {c, thenBranch, elseBranch, x}, {out});
  EXPECT_FALSE(m.validate().ok());
  EXPECT_FALSE(m.run().result.ok());
}

// WHILE (i < limit) { i = i + step }: cond and body as referenced subgraphs over float [1] values.
OpModelBuilder countingLoop(float limit, float step) {
  OpModelBuilder m;
  nn::Model& model = m.model();
  auto tensor = [](nn::Operand::LifeTime lifetime, OperandType type = OperandType::TENSOR_FLOAT32) {
    nn::Operand o;
    o.type = type;
    o.dimensions = {1};
    o.lifetime = lifetime;
    return o;
  };
  using L = nn::Operand::LifeTime;
  nn::Subgraph cond;  // inputs i, limit, step -> i < limit
  cond.operands = {tensor(L::SUBGRAPH_INPUT), tensor(L::SUBGRAPH_INPUT), tensor(L::SUBGRAPH_INPUT),
                   tensor(L::SUBGRAPH_OUTPUT, OperandType::TENSOR_BOOL8)};
  cond.operations = {{OperationType::LESS, {0, 1}, {3}}};
  cond.inputIndexes = {0, 1, 2};
  cond.outputIndexes = {3};
  nn::Subgraph body = binarySubgraph(model, OperationType::ADD);  // i + step
  for (auto& o : body.operands) {
    if (o.type == OperandType::TENSOR_FLOAT32) o.dimensions = {1};
  }
  body.operands.push_back(tensor(L::SUBGRAPH_INPUT));  // limit, unused by the body
  body.inputIndexes = {0, 4, 1};                        // i, limit, step
  model.referenced = {cond, body};
  const auto condOperand = subgraphOperand(m, 0);
  const auto bodyOperand = subgraphOperand(m, 1);
  const auto i = m.input({OperandType::TENSOR_FLOAT32, {1}}, OpModelBuilder::bytesOf(std::vector<float>{0}));
  const auto l = m.input({OperandType::TENSOR_FLOAT32, {1}}, OpModelBuilder::bytesOf(std::vector<float>{limit}));
  const auto s = m.input({OperandType::TENSOR_FLOAT32, {1}}, OpModelBuilder::bytesOf(std::vector<float>{step}));
  const auto out = m.output({OperandType::TENSOR_FLOAT32, {1}});
  m.operation(OperationType::WHILE, {condOperand, bodyOperand, i, l, s}, {out});
  return m;
}

TEST(Executor, WhileIteratesUntilTheConditionFails) {
  if (nn::OperationResolver::get().find(OperationType::LESS) == nullptr) GTEST_SKIP() << "needs LESS";
  OpModelBuilder m = countingLoop(10.0f, 3.0f);
  ASSERT_TRUE(m.validate().ok()) << m.validate().error().message;
  auto run = m.run();
  ASSERT_TRUE(run.result.ok()) << run.result.error().message;
  EXPECT_EQ(OpModelBuilder::as<float>(run.outputs[0]), (std::vector<float>{12}));
}

TEST(Executor, EndlessWhileHitsTheLoopTimeout) {
  if (nn::OperationResolver::get().find(OperationType::LESS) == nullptr) GTEST_SKIP() << "needs LESS";
  OpModelBuilder m = countingLoop(10.0f, 0.0f);  // never advances
  nn::CpuExecutionOptions options;
  options.loopTimeout = std::chrono::milliseconds(50);
  const auto start = std::chrono::steady_clock::now();
  auto run = m.run(options);
  ASSERT_FALSE(run.result.ok());
  EXPECT_EQ(run.result.error().code, ErrorStatus::MISSED_DEADLINE_TRANSIENT);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

}  // namespace
}  // namespace weft::test
