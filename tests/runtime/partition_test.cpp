// The partitioner and multi-step executions, with fake accelerators next to the real CPU device
// (installed through DeviceManager's test hook).
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "DeviceManager.h"
#include "FakeDevice.h"
#include "NnapiTestUtils.h"
#include "weft/cpu/CpuDevice.h"
#include "weft/runtime/Profile.h"

namespace weft::test {
namespace {

using nn::OperationType;

constexpr int kOk = ANEURALNETWORKS_NO_ERROR;

FakeDeviceBehaviour failingToPrepare(std::set<OperationType> supported, nn::ErrorStatus error) {
  FakeDeviceBehaviour behaviour{std::move(supported)};
  behaviour.preparationError = error;
  return behaviour;
}

class Partition : public ::testing::Test {
 protected:
  void install(FakeDeviceBehaviour behaviour) {
    fake_ = std::make_shared<FakeDevice>("fake-accel", std::move(behaviour));
    runtime::DeviceManager::get().replaceDevicesForTesting({fake_, cpu::createCpuDevice()});
  }
  void TearDown() override { runtime::DeviceManager::get().restoreDevicesForTesting(); }
  const ANeuralNetworksDevice* fakeHandle() { return findDevice("fake-accel"); }

  // Runs out = (a + b) * c with a = {1,2,3,4}, b = 10 a, c = {2,2,2,2}; returns the output.
  static std::vector<float> runAddMul(const Compilation& compilation, ANeuralNetworksExecution** kept = nullptr) {
    auto* execution = new Execution(compilation);
    std::vector<float> a{1, 2, 3, 4}, b{10, 20, 30, 40}, c(4, 2.0f), out(4, 0.0f);
    EXPECT_EQ(execution->setInput(0, a), kOk);
    EXPECT_EQ(execution->setInput(1, b), kOk);
    EXPECT_EQ(execution->setInput(2, c), kOk);
    EXPECT_EQ(execution->setOutput(0, out), kOk);
    EXPECT_EQ(execution->compute(), kOk);
    if (kept != nullptr) {
      *kept = execution->get();
      keptExecutions_.emplace_back(execution);
    } else {
      delete execution;
    }
    return out;
  }

  std::shared_ptr<FakeDevice> fake_;
  static inline std::vector<std::unique_ptr<Execution>> keptExecutions_;
};

TEST_F(Partition, AcceleratorWhereSupportedCpuOtherwise) {
  install({{OperationType::ADD}});
  std::unique_ptr<Model> model = makeAddMulModel(4);
  Compilation compilation(*model);
  ASSERT_EQ(compilation.finish(), kOk);

  const std::vector<runtime::CompilationStep> steps = runtime::getCompilationSteps(compilation.get());
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].device, "fake-accel");
  EXPECT_EQ(steps[0].operations, std::vector<uint32_t>{0});
  EXPECT_EQ(steps[1].device, "weft-cpu");
  EXPECT_EQ(steps[1].operations, std::vector<uint32_t>{1});
  EXPECT_EQ(runtime::getOperationDevices(compilation.get()), (std::vector<std::string>{"fake-accel", "weft-cpu"}));

  ANeuralNetworksExecution* execution = nullptr;
  EXPECT_EQ(runAddMul(compilation, &execution), (std::vector<float>{22, 44, 66, 88}));
  const std::vector<hal::ExecutionProfile>& profiles = runtime::getExecutionProfiles(execution);
  ASSERT_EQ(profiles.size(), 2u);
  EXPECT_EQ(profiles[0].device, "fake-accel");  // filled in by the runtime: the fake leaves it empty
  ASSERT_EQ(profiles[0].operations.size(), 1u);
  EXPECT_EQ(profiles[0].operations[0].operationIndex, 0u);
  EXPECT_EQ(profiles[0].operations[0].type, OperationType::ADD);
  EXPECT_EQ(profiles[1].device, "weft-cpu");
  ASSERT_EQ(profiles[1].operations.size(), 1u);
  EXPECT_EQ(profiles[1].operations[0].operationIndex, 1u);
  EXPECT_EQ(profiles[1].operations[0].type, OperationType::MUL);
  EXPECT_TRUE(runtime::getExecutionProfiles(nullptr).empty());
}

TEST_F(Partition, ConsecutiveOperationsOfOneDeviceFormOneStep) {
  install({{OperationType::ADD}});
  // t1 = a + b; t2 = t1 + a; t3 = t2 * b; out = t3 + a.
  Model model;
  const uint32_t a = model.addTensor({4});
  const uint32_t b = model.addTensor({4});
  const uint32_t act = model.addInt32Constant(0);
  const uint32_t t1 = model.addTensor({4}), t2 = model.addTensor({4}), t3 = model.addTensor({4});
  const uint32_t out = model.addTensor({4});
  ASSERT_EQ(model.addOperation(ANEURALNETWORKS_ADD, {a, b, act}, {t1}), kOk);
  ASSERT_EQ(model.addOperation(ANEURALNETWORKS_ADD, {t1, a, act}, {t2}), kOk);
  ASSERT_EQ(model.addOperation(ANEURALNETWORKS_MUL, {t2, b, act}, {t3}), kOk);
  ASSERT_EQ(model.addOperation(ANEURALNETWORKS_ADD, {t3, a, act}, {out}), kOk);
  ASSERT_EQ(model.identify({a, b}, {out}), kOk);
  ASSERT_EQ(model.finish(), kOk);
  Compilation compilation(model);
  ASSERT_EQ(compilation.finish(), kOk);

  const std::vector<runtime::CompilationStep> steps = runtime::getCompilationSteps(compilation.get());
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].operations, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(steps[1].operations, (std::vector<uint32_t>{2}));
  EXPECT_EQ(steps[2].operations, (std::vector<uint32_t>{3}));
  const std::vector<nn::Model> compiled = fake_->compiledModels();
  ASSERT_EQ(compiled.size(), 2u);
  EXPECT_EQ(compiled[0].main.operations.size(), 2u);
  EXPECT_EQ(compiled[0].main.inputIndexes.size(), 2u);   // a, b
  EXPECT_EQ(compiled[0].main.outputIndexes.size(), 1u);  // t2, for the CPU step
  EXPECT_EQ(compiled[1].main.operations.size(), 1u);

  Execution execution(compilation);
  std::vector<float> va{1, 2, 3, 4}, vb{1, 1, 2, 2}, result(4);
  ASSERT_EQ(execution.setInput(0, va), kOk);
  ASSERT_EQ(execution.setInput(1, vb), kOk);
  ASSERT_EQ(execution.setOutput(0, result), kOk);
  ASSERT_EQ(execution.compute(), kOk);
  // ((a + b) + a) * b + a
  EXPECT_EQ(result, (std::vector<float>{4, 7, 19, 24}));
}

TEST_F(Partition, StepsShareOneCopyOfALargeConstant) {
  install({{OperationType::ADD}});
  // t1 = a + w; t2 = t1 * a (CPU); out = t2 + w, with w a constant of 64 floats (256 bytes: set
  // by reference, copied at finish).
  constexpr uint32_t n = 64;
  std::vector<float> w(n);
  for (uint32_t i = 0; i < n; ++i) w[i] = static_cast<float>(i);
  Model model;
  const uint32_t a = model.addTensor({n});
  const uint32_t wi = model.addTensor({n});
  ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), wi, w.data(), n * sizeof(float)), kOk);
  const uint32_t act = model.addInt32Constant(0);
  const uint32_t t1 = model.addTensor({n}), t2 = model.addTensor({n}), out = model.addTensor({n});
  ASSERT_EQ(model.addOperation(ANEURALNETWORKS_ADD, {a, wi, act}, {t1}), kOk);
  ASSERT_EQ(model.addOperation(ANEURALNETWORKS_MUL, {t1, a, act}, {t2}), kOk);
  ASSERT_EQ(model.addOperation(ANEURALNETWORKS_ADD, {t2, wi, act}, {out}), kOk);
  ASSERT_EQ(model.identify({a}, {out}), kOk);
  ASSERT_EQ(model.finish(), kOk);
  std::fill(w.begin(), w.end(), -1.0f);  // the model has its own copy
  Compilation compilation(model);
  ASSERT_EQ(compilation.finish(), kOk);

  // Both accelerator steps see the constant in the same memory: the one copy finish() made.
  const std::vector<nn::Model> compiled = fake_->compiledModels();
  ASSERT_EQ(compiled.size(), 2u);
  std::vector<const uint8_t*> seen;
  for (const nn::Model& step : compiled) {
    for (const nn::Operand& o : step.main.operands) {
      if (o.location.length != n * sizeof(float)) continue;
      ASSERT_EQ(o.lifetime, nn::Operand::LifeTime::CONSTANT_REFERENCE);
      ASSERT_LT(o.location.poolIndex, step.pools.size());
      const uint8_t* bytes = step.pools[o.location.poolIndex]->data() + o.location.offset;
      EXPECT_EQ(reinterpret_cast<const float*>(bytes)[5], 5.0f);
      seen.push_back(bytes);
    }
  }
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], seen[1]);

  Execution execution(compilation);
  std::vector<float> va(n, 2.0f), result(n);
  ASSERT_EQ(execution.setInput(0, va), kOk);
  ASSERT_EQ(execution.setOutput(0, result), kOk);
  ASSERT_EQ(execution.compute(), kOk);
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(result[i], (2.0f + i) * 2.0f + i);
}

TEST_F(Partition, StepsReportTheClientsOperationIndexes) {
  install({{OperationType::ADD}});
  // MUL is added first but runs second.
  Model model;
  const uint32_t a = model.addTensor({2}), b = model.addTensor({2}), c = model.addTensor({2});
  const uint32_t act = model.addInt32Constant(0);
  const uint32_t sum = model.addTensor({2}), out = model.addTensor({2});
  ASSERT_EQ(model.addOperation(ANEURALNETWORKS_MUL, {sum, c, act}, {out}), kOk);
  ASSERT_EQ(model.addOperation(ANEURALNETWORKS_ADD, {a, b, act}, {sum}), kOk);
  ASSERT_EQ(model.identify({a, b, c}, {out}), kOk);
  ASSERT_EQ(model.finish(), kOk);
  Compilation compilation(model);
  ASSERT_EQ(compilation.finish(), kOk);
  const std::vector<runtime::CompilationStep> steps = runtime::getCompilationSteps(compilation.get());
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].device, "fake-accel");
  EXPECT_EQ(steps[0].operations, std::vector<uint32_t>{1});
  EXPECT_EQ(steps[1].operations, std::vector<uint32_t>{0});
  EXPECT_EQ(runtime::getOperationDevices(compilation.get()), (std::vector<std::string>{"weft-cpu", "fake-accel"}));
  const ANeuralNetworksDevice* fake = fakeHandle();
  bool supported[2] = {true, true};
  ASSERT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model.get(), &fake, 1, supported), kOk);
  EXPECT_FALSE(supported[0]);  // MUL
  EXPECT_TRUE(supported[1]);   // ADD
}

TEST_F(Partition, EachStepGetsACacheKeyFromTheTokenOnlyWhenCachingIsSet) {
  install({{OperationType::ADD}});
  std::unique_ptr<Model> model = makeAddMulModel(4);
  Compilation plain(*model);
  ASSERT_EQ(plain.finish(), kOk);
  Compilation cached(*model);
  uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN] = {};
  token[0] = 0xab;
  token[31] = 0x01;
  ASSERT_EQ(ANeuralNetworksCompilation_setCaching(cached.get(), "/tmp/weft-cache", token), kOk);
  ASSERT_EQ(cached.finish(), kOk);
  const auto requests = fake_->cacheRequests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_FALSE(requests[0].has_value());
  ASSERT_TRUE(requests[1].has_value());
  EXPECT_EQ(requests[1]->dir, "/tmp/weft-cache");
  // The ADD is the first of the two steps (the MUL runs on the CPU as the second).
  EXPECT_EQ(requests[1]->key, "ab" + std::string(60, '0') + "01-0");
  EXPECT_EQ(runAddMul(cached), (std::vector<float>{22, 44, 66, 88}));
}

TEST_F(Partition, OneExplicitDeviceMustSupportEveryOperation) {
  install({{OperationType::ADD}});
  std::unique_ptr<Model> model = makeAddMulModel(4);
  Compilation onlyFake(*model, {fakeHandle()});
  ASSERT_EQ(onlyFake.createResult(), kOk);
  EXPECT_EQ(onlyFake.finish(), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksExecution* execution = nullptr;
  EXPECT_EQ(ANeuralNetworksExecution_create(onlyFake.get(), &execution), ANEURALNETWORKS_BAD_STATE);
  EXPECT_TRUE(runtime::getCompilationSteps(onlyFake.get()).empty());

  Compilation both(*model, {fakeHandle(), cpuDevice()});
  ASSERT_EQ(both.finish(), kOk);
  EXPECT_EQ(runtime::getCompilationSteps(both.get()).size(), 2u);
  EXPECT_EQ(runAddMul(both), (std::vector<float>{22, 44, 66, 88}));

  Compilation onlyCpu(*model, {cpuDevice()});
  ASSERT_EQ(onlyCpu.finish(), kOk);
  EXPECT_EQ(runtime::getOperationDevices(onlyCpu.get()), (std::vector<std::string>{"weft-cpu", "weft-cpu"}));
  EXPECT_EQ(runAddMul(onlyCpu), (std::vector<float>{22, 44, 66, 88}));
}

// As Android's CompilationBuilder::finish: a device that fails to prepare its step (for a reason
// other than the model's) leaves it to the CPU device in a partitioned compilation.
TEST_F(Partition, AStepTheAcceleratorFailsToPrepareRunsOnTheCpu) {
  install(failingToPrepare({OperationType::ADD}, nn::ErrorStatus::OP_FAILED));
  std::unique_ptr<Model> model = makeAddMulModel(4);
  Compilation compilation(*model);
  ASSERT_EQ(compilation.finish(), kOk);
  EXPECT_EQ(fake_->failedPreparations(), 1);
  EXPECT_EQ(runtime::getOperationDevices(compilation.get()), (std::vector<std::string>{"weft-cpu", "weft-cpu"}));
  EXPECT_EQ(runAddMul(compilation), (std::vector<float>{22, 44, 66, 88}));
  EXPECT_EQ(fake_->executions(), 0);
}

TEST_F(Partition, NoCpuFallbackForExplicitDevicesOrTheModelsOwnErrors) {
  {
    // createForDevices: the client chose the devices, so the device's error is the result.
    install(failingToPrepare({OperationType::ADD, OperationType::MUL}, nn::ErrorStatus::OP_FAILED));
    std::unique_ptr<Model> model = makeAddMulModel(4);
    Compilation compilation(*model, {fakeHandle()});
    EXPECT_EQ(compilation.finish(), ANEURALNETWORKS_OP_FAILED);
    ANeuralNetworksExecution* execution = nullptr;
    EXPECT_EQ(ANeuralNetworksExecution_create(compilation.get(), &execution), ANEURALNETWORKS_BAD_STATE);
  }
  {
    // BAD_DATA says the model is wrong; the CPU would not make it right.
    install(failingToPrepare({OperationType::ADD}, nn::ErrorStatus::BAD_DATA));
    std::unique_ptr<Model> model = makeAddMulModel(4);
    Compilation compilation(*model);
    EXPECT_EQ(compilation.finish(), ANEURALNETWORKS_BAD_DATA);
  }
}

// startComputeWithDependencies chains the steps' fenced executions (each waits for the one before
// on its fence); startCompute runs them from the runtime.
TEST_F(Partition, ComputeWithDependenciesGoesThroughEachStepsFencedExecution) {
  install({{OperationType::ADD}});
  std::unique_ptr<Model> model = makeAddMulModel(4);
  Compilation compilation(*model);
  ASSERT_EQ(compilation.finish(), kOk);
  std::vector<float> a{1, 2, 3, 4}, b{10, 20, 30, 40}, c(4, 2.0f), out(4, 0.0f);
  for (bool withDependencies : {false, true}) {
    SCOPED_TRACE(withDependencies);
    Execution execution(compilation);
    ASSERT_EQ(execution.setInput(0, a), kOk);
    ASSERT_EQ(execution.setInput(1, b), kOk);
    ASSERT_EQ(execution.setInput(2, c), kOk);
    ASSERT_EQ(execution.setOutput(0, out), kOk);
    ANeuralNetworksEvent* event = nullptr;
    ASSERT_EQ(withDependencies
                  ? ANeuralNetworksExecution_startComputeWithDependencies(execution.get(), nullptr, 0, 0, &event)
                  : ANeuralNetworksExecution_startCompute(execution.get(), &event),
              kOk);
    EXPECT_EQ(ANeuralNetworksEvent_wait(event), kOk);
    ANeuralNetworksEvent_free(event);
    EXPECT_EQ(out, (std::vector<float>{22, 44, 66, 88}));
    EXPECT_EQ(fake_->fencedExecutions(), withDependencies ? 1 : 0);  // the fake runs the first of two steps
  }
}

TEST_F(Partition, ATemporaryOfUnknownSizeKeepsFencedComputationsOnTheRuntime) {
  install({{OperationType::ADD}});
  std::unique_ptr<Model> model = makeAddMulModel(4, /*unspecifiedTemporary=*/true);
  Compilation compilation(*model);
  ASSERT_EQ(compilation.finish(), kOk);
  std::vector<float> a{1, 2, 3, 4}, b{10, 20, 30, 40}, c(4, 2.0f), out(4, 0.0f);
  Execution execution(compilation);
  ASSERT_EQ(execution.setInput(0, a), kOk);
  ASSERT_EQ(execution.setInput(1, b), kOk);
  ASSERT_EQ(execution.setInput(2, c), kOk);
  ASSERT_EQ(execution.setOutput(0, out), kOk);
  ANeuralNetworksEvent* event = nullptr;
  ASSERT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(execution.get(), nullptr, 0, 0, &event), kOk);
  EXPECT_EQ(ANeuralNetworksEvent_wait(event), kOk);
  ANeuralNetworksEvent_free(event);
  EXPECT_EQ(out, (std::vector<float>{22, 44, 66, 88}));
  EXPECT_EQ(fake_->fencedExecutions(), 0);  // as Android: no fenced chain through a dynamic temporary
}

TEST_F(Partition, ControlFlowRunsOnTheCpu) {
  install({{OperationType::ADD, OperationType::MUL, OperationType::IF}});  // the fake even claims IF
  std::unique_ptr<Model> thenModel = makeAddModel(4);
  Model elseModel;
  {
    const uint32_t x = elseModel.addTensor({4}), y = elseModel.addTensor({4});
    const uint32_t act = elseModel.addInt32Constant(0);
    const uint32_t out = elseModel.addTensor({4});
    ASSERT_EQ(elseModel.addOperation(ANEURALNETWORKS_MUL, {x, y, act}, {out}), kOk);
    ASSERT_EQ(elseModel.identify({x, y}, {out}), kOk);
    ASSERT_EQ(elseModel.finish(), kOk);
  }
  // out = (cond ? x + y : x * y) + x
  Model model;
  const uint32_t cond = model.addOperand(ANEURALNETWORKS_TENSOR_BOOL8, {1});
  const uint32_t thenRef = model.addOperand(ANEURALNETWORKS_MODEL);
  const uint32_t elseRef = model.addOperand(ANEURALNETWORKS_MODEL);
  ASSERT_EQ(ANeuralNetworksModel_setOperandValueFromModel(model.get(), thenRef, thenModel->get()), kOk);
  ASSERT_EQ(ANeuralNetworksModel_setOperandValueFromModel(model.get(), elseRef, elseModel.get()), kOk);
  const uint32_t x = model.addTensor({4}), y = model.addTensor({4});
  const uint32_t branch = model.addTensor({4});
  const uint32_t act = model.addInt32Constant(0);
  const uint32_t out = model.addTensor({4});
  ASSERT_EQ(model.addOperation(ANEURALNETWORKS_IF, {cond, thenRef, elseRef, x, y}, {branch}), kOk);
  ASSERT_EQ(model.addOperation(ANEURALNETWORKS_ADD, {branch, x, act}, {out}), kOk);
  ASSERT_EQ(model.identify({cond, x, y}, {out}), kOk);
  ASSERT_EQ(model.finish(), kOk);
  Compilation compilation(model);
  ASSERT_EQ(compilation.finish(), kOk);
  EXPECT_EQ(runtime::getOperationDevices(compilation.get()), (std::vector<std::string>{"weft-cpu", "fake-accel"}));

  for (const bool condition : {true, false}) {
    Execution execution(compilation);
    const uint8_t c = condition ? 1 : 0;
    std::vector<float> vx{1, 2, 3, 4}, vy{10, 10, 10, 10}, result(4);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, &c, 1), kOk);
    ASSERT_EQ(execution.setInput(1, vx), kOk);
    ASSERT_EQ(execution.setInput(2, vy), kOk);
    ASSERT_EQ(execution.setOutput(0, result), kOk);
    ASSERT_EQ(execution.compute(), kOk);
    const std::vector<float> expected = condition ? std::vector<float>{12, 14, 16, 18} : std::vector<float>{11, 22, 33, 44};
    EXPECT_EQ(result, expected) << "condition " << condition;
  }
}

TEST_F(Partition, TemporaryOfUnknownSizeBetweenSteps) {
  install({{OperationType::ADD}});
  std::unique_ptr<Model> model = makeAddMulModel(4, /*unspecifiedTemporary=*/true);
  Compilation compilation(*model);
  ASSERT_EQ(compilation.finish(), kOk);
  ASSERT_EQ(runtime::getCompilationSteps(compilation.get()).size(), 2u);
  EXPECT_EQ(runAddMul(compilation), (std::vector<float>{22, 44, 66, 88}));
  // The first try of the ADD step found the temporary too small, the second ran with its size.
  EXPECT_EQ(fake_->executions(), 2);
}

TEST_F(Partition, DurationsNeedOneExplicitDevice) {
  install({{OperationType::ADD, OperationType::MUL}, nn::Timing{2000, 7000}});
  std::unique_ptr<Model> model = makeAddMulModel(4);
  {
    Compilation two(*model, {fakeHandle(), cpuDevice()});
    ASSERT_EQ(two.finish(), kOk);
    Execution execution(two);
    EXPECT_EQ(ANeuralNetworksExecution_setMeasureTiming(execution.get(), true), ANEURALNETWORKS_BAD_DATA);
  }
  Compilation one(*model, {fakeHandle()});
  ASSERT_EQ(one.finish(), kOk);
  Execution execution(one);
  ASSERT_EQ(ANeuralNetworksExecution_setMeasureTiming(execution.get(), true), kOk);
  std::vector<float> a(4, 1.0f), b(4, 1.0f), c(4, 3.0f), out(4);
  ASSERT_EQ(execution.setInput(0, a), kOk);
  ASSERT_EQ(execution.setInput(1, b), kOk);
  ASSERT_EQ(execution.setInput(2, c), kOk);
  ASSERT_EQ(execution.setOutput(0, out), kOk);
  ASSERT_EQ(execution.compute(), kOk);
  uint64_t onHardware = 0, inDriver = 0;
  ASSERT_EQ(ANeuralNetworksExecution_getDuration(execution.get(), ANEURALNETWORKS_DURATION_ON_HARDWARE, &onHardware),
            kOk);
  ASSERT_EQ(ANeuralNetworksExecution_getDuration(execution.get(), ANEURALNETWORKS_DURATION_IN_DRIVER, &inDriver), kOk);
  EXPECT_EQ(onHardware, 2000u);  // the device's own numbers, passed through
  EXPECT_EQ(inDriver, 7000u);
}

TEST_F(Partition, InDriverIsNeverLessThanOnHardware) {
  install({{OperationType::ADD}, nn::Timing{9000, 4000}});  // a device that gets it wrong
  std::unique_ptr<Model> model = makeAddModel(4);
  Compilation one(*model, {fakeHandle()});
  ASSERT_EQ(one.finish(), kOk);
  Execution execution(one);
  ASSERT_EQ(ANeuralNetworksExecution_setMeasureTiming(execution.get(), true), kOk);
  std::vector<float> a(4, 1.0f), b(4, 1.0f), out(4);
  ASSERT_EQ(execution.setInput(0, a), kOk);
  ASSERT_EQ(execution.setInput(1, b), kOk);
  ASSERT_EQ(execution.setOutput(0, out), kOk);
  ASSERT_EQ(execution.compute(), kOk);
  uint64_t onHardware = 0, inDriver = 0;
  ASSERT_EQ(ANeuralNetworksExecution_getDuration(execution.get(), ANEURALNETWORKS_DURATION_ON_HARDWARE, &onHardware),
            kOk);
  ASSERT_EQ(ANeuralNetworksExecution_getDuration(execution.get(), ANEURALNETWORKS_DURATION_IN_DRIVER, &inDriver), kOk);
  EXPECT_EQ(onHardware, 9000u);
  EXPECT_EQ(inDriver, 9000u);
}

TEST_F(Partition, DeviceFailureFailsTheExecutionWithoutFallback) {
  FakeDeviceBehaviour behaviour{{OperationType::ADD}};
  behaviour.executionError = nn::ErrorStatus::OP_FAILED;
  install(behaviour);
  std::unique_ptr<Model> model = makeAddModel(4);
  Compilation compilation(*model);
  ASSERT_EQ(compilation.finish(), kOk);
  Execution execution(compilation);
  std::vector<float> a(4, 1.0f), b(4, 1.0f), out(4, -1.0f);
  ASSERT_EQ(execution.setInput(0, a), kOk);
  ASSERT_EQ(execution.setInput(1, b), kOk);
  ASSERT_EQ(execution.setOutput(0, out), kOk);
  EXPECT_EQ(execution.compute(), ANEURALNETWORKS_OP_FAILED);
  EXPECT_EQ(out, std::vector<float>(4, -1.0f)) << "no silent CPU fallback";
  uint32_t rank = 0;
  EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution.get(), 0, &rank), ANEURALNETWORKS_BAD_STATE);
}

TEST_F(Partition, ExecutionTimeoutReachesTheDevice) {
  FakeDeviceBehaviour behaviour{{OperationType::ADD}};
  behaviour.delay = std::chrono::milliseconds(30);
  install(behaviour);
  std::unique_ptr<Model> model = makeAddModel(4);
  Compilation compilation(*model, {fakeHandle()});
  ASSERT_EQ(compilation.finish(), kOk);
  Execution execution(compilation);
  ASSERT_EQ(ANeuralNetworksExecution_setTimeout(execution.get(), 1'000'000), kOk);  // 1 ms
  std::vector<float> a(4, 1.0f), b(4, 1.0f), out(4);
  ASSERT_EQ(execution.setInput(0, a), kOk);
  ASSERT_EQ(execution.setInput(1, b), kOk);
  ASSERT_EQ(execution.setOutput(0, out), kOk);
  const int result = execution.compute();
  EXPECT_TRUE(result == ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT || result == ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT)
      << result;
}

TEST_F(Partition, ABurstRunsOneExecutionAtATime) {
  FakeDeviceBehaviour behaviour{{OperationType::ADD}};
  behaviour.blockUntilReleased = true;
  install(behaviour);
  std::unique_ptr<Model> model = makeAddModel(4);
  Compilation compilation(*model);
  ASSERT_EQ(compilation.finish(), kOk);
  ANeuralNetworksBurst* burst = nullptr;
  ASSERT_EQ(ANeuralNetworksBurst_create(compilation.get(), &burst), kOk);
  std::vector<float> a(4, 1.0f), b(4, 2.0f), out1(4), out2(4);
  Execution first(compilation), second(compilation);
  for (auto [execution, out] : {std::pair{&first, &out1}, std::pair{&second, &out2}}) {
    ASSERT_EQ(execution->setInput(0, a), kOk);
    ASSERT_EQ(execution->setInput(1, b), kOk);
    ASSERT_EQ(execution->setOutput(0, *out), kOk);
  }
  int firstResult = -1;
  std::thread worker([&] { firstResult = ANeuralNetworksExecution_burstCompute(first.get(), burst); });
  fake_->waitUntilBlocked();
  EXPECT_EQ(ANeuralNetworksExecution_burstCompute(second.get(), burst), ANEURALNETWORKS_BAD_STATE);
  fake_->release();
  worker.join();
  EXPECT_EQ(firstResult, kOk);
  EXPECT_EQ(out1, std::vector<float>(4, 3.0f));
  EXPECT_EQ(ANeuralNetworksExecution_burstCompute(second.get(), burst), kOk);  // unchanged by the rejection
  EXPECT_EQ(out2, std::vector<float>(4, 3.0f));
  ANeuralNetworksBurst_free(burst);
}

}  // namespace
}  // namespace weft::test
