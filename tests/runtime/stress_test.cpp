// Many threads sharing compilations, executions, bursts, events and memories, on the CPU device and
// on the accelerator (approx backend) beside it; every result is checked against a CPU-only run.
// Built and run under ThreadSanitizer in CI (the tsan preset): any data race fails it.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

#include "NnapiTestUtils.h"
#include "weft/runtime/Profile.h"

namespace weft::test {
namespace {

constexpr int kOk = ANEURALNETWORKS_NO_ERROR;
constexpr uint32_t kIn = 16, kOut = 8;

// quant8 FULLY_CONNECTED [1, 16] -> [1, 8] (the accelerator runs it), then HARD_SWISH (the
// accelerator has no such operation: the CPU runs it): a partitioned compilation has two steps
// on two devices.
std::unique_ptr<Model> makeModel() {
  auto model = std::make_unique<Model>();
  const uint32_t input = model->addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {1, kIn}, 0.5f, 128);
  const uint32_t weights = model->addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {kOut, kIn}, 0.25f, 120);
  const uint32_t bias = model->addOperand(ANEURALNETWORKS_TENSOR_INT32, {kOut}, 0.125f, 0);
  const uint32_t act = model->addInt32Constant(0);
  const uint32_t fc = model->addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {1, kOut}, 2.0f, 100);
  const uint32_t out = model->addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {1, kOut}, 2.0f, 100);
  static std::vector<uint8_t> w(kOut * kIn);
  static int32_t b[kOut];
  for (uint32_t i = 0; i < w.size(); ++i) w[i] = static_cast<uint8_t>(100 + (i * 37) % 50);
  for (uint32_t i = 0; i < kOut; ++i) b[i] = static_cast<int32_t>(i * 40) - 150;
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model->get(), weights, w.data(), w.size()), kOk);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model->get(), bias, b, sizeof(b)), kOk);
  EXPECT_EQ(model->addOperation(ANEURALNETWORKS_FULLY_CONNECTED, {input, weights, bias, act}, {fc}), kOk);
  EXPECT_EQ(model->addOperation(ANEURALNETWORKS_HARD_SWISH, {fc}, {out}), kOk);
  EXPECT_EQ(model->identify({input}, {out}), kOk);
  EXPECT_EQ(model->finish(), kOk);
  return model;
}

std::vector<uint8_t> inputNumber(int k) {
  std::vector<uint8_t> input(kIn);
  for (uint32_t i = 0; i < kIn; ++i) input[i] = static_cast<uint8_t>((k * 13 + i * 7) % 256);
  return input;
}

int setArguments(ANeuralNetworksExecution* execution, const std::vector<uint8_t>& input, std::vector<uint8_t>& out) {
  const int a = ANeuralNetworksExecution_setInput(execution, 0, nullptr, input.data(), input.size());
  const int b = ANeuralNetworksExecution_setOutput(execution, 0, nullptr, out.data(), out.size());
  return a != kOk ? a : b;
}

class Stress : public ::testing::Test {
 protected:
  static constexpr int kInputs = 8;
  static constexpr int kThreads = 6;
  static constexpr int kRounds = 40;

  void SetUp() override {
    model_ = makeModel();
    cpuOnly_ = std::make_unique<Compilation>(*model_, std::vector<const ANeuralNetworksDevice*>{cpuDevice()});
    ASSERT_EQ(cpuOnly_->finish(), kOk);
    partitioned_ = std::make_unique<Compilation>(*model_);
    ASSERT_EQ(partitioned_->finish(), kOk);
    // Run with WEFT_BACKEND=approx: the accelerator takes the FULLY_CONNECTED, the CPU the HARD_SWISH.
    ASSERT_EQ(runtime::getOperationDevices(partitioned_->get()), (std::vector<std::string>{"weft-accel", "weft-cpu"}));
    for (int k = 0; k < kInputs; ++k) {
      Execution execution(*cpuOnly_);
      std::vector<uint8_t> out(kOut);
      const std::vector<uint8_t> input = inputNumber(k);
      ASSERT_EQ(setArguments(execution.get(), input, out), kOk);
      ASSERT_EQ(execution.compute(), kOk);
      expected_.push_back(out);
    }
  }

  std::unique_ptr<Model> model_;
  std::unique_ptr<Compilation> cpuOnly_, partitioned_;
  std::vector<std::vector<uint8_t>> expected_;
};

TEST_F(Stress, ThreadsShareCompilationsExecutionsBurstsEventsAndMemories) {
  // A memory every thread reads input 0 from (input number 0).
  const int fd = memfd_create("weft-stress", 0);
  ASSERT_EQ(ftruncate(fd, 4096), 0);
  const std::vector<uint8_t> sharedInput = inputNumber(0);
  ASSERT_EQ(pwrite(fd, sharedInput.data(), sharedInput.size(), 0), static_cast<ssize_t>(sharedInput.size()));
  ANeuralNetworksMemory* memory = nullptr;
  ASSERT_EQ(ANeuralNetworksMemory_createFromFd(4096, PROT_READ, fd, 0, &memory), kOk);
  // A burst every thread tries to use (one execution at a time: the others get BAD_STATE).
  ANeuralNetworksBurst* sharedBurst = nullptr;
  ASSERT_EQ(ANeuralNetworksBurst_create(partitioned_->get(), &sharedBurst), kOk);
  // An execution every thread tries to compute (reusable; one computation at a time).
  ANeuralNetworksExecution* sharedExecution = nullptr;
  std::vector<uint8_t> sharedOut(kOut);
  ASSERT_EQ(ANeuralNetworksExecution_create(partitioned_->get(), &sharedExecution), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setReusable(sharedExecution, true), kOk);
  ASSERT_EQ(setArguments(sharedExecution, sharedInput, sharedOut), kOk);

  std::atomic<int> checked{0}, wrong{0}, unexpectedCodes{0};
  auto check = [&](int code, const std::vector<uint8_t>& out, int k) {
    if (code != kOk) {
      ++unexpectedCodes;
      return;
    }
    ++checked;
    if (out != expected_[k]) ++wrong;
  };
  auto worker = [&](int thread) {
    for (int round = 0; round < kRounds; ++round) {
      const int k = (thread + round) % kInputs;
      const std::vector<uint8_t> input = inputNumber(k);
      std::vector<uint8_t> out(kOut, 0);
      const Compilation& compilation = (round % 2 == 0) ? *partitioned_ : *cpuOnly_;
      ANeuralNetworksExecution* execution = nullptr;
      if (ANeuralNetworksExecution_create(compilation.get(), &execution) != kOk) {
        ++unexpectedCodes;
        continue;
      }
      switch ((thread + round) % 5) {
        case 0:  // synchronous
          check(setArguments(execution, input, out) == kOk ? ANeuralNetworksExecution_compute(execution) : -1, out, k);
          break;
        case 1: {  // asynchronous, the event waited for twice
          ANeuralNetworksEvent* event = nullptr;
          int code = setArguments(execution, input, out);
          if (code == kOk) code = ANeuralNetworksExecution_startCompute(execution, &event);
          if (code == kOk) code = ANeuralNetworksEvent_wait(event);
          if (code == kOk) code = ANeuralNetworksEvent_wait(event);
          ANeuralNetworksEvent_free(event);
          check(code, out, k);
          break;
        }
        case 2: {  // fenced, depending on an execution of the other compilation
          ANeuralNetworksExecution* first = nullptr;
          std::vector<uint8_t> firstOut(kOut);
          ANeuralNetworksEvent* firstDone = nullptr;
          ANeuralNetworksEvent* done = nullptr;
          int code = ANeuralNetworksExecution_create(cpuOnly_->get(), &first);
          if (code == kOk) code = setArguments(first, input, firstOut);
          if (code == kOk) code = ANeuralNetworksExecution_startComputeWithDependencies(first, nullptr, 0, 0, &firstDone);
          if (code == kOk) code = setArguments(execution, input, out);
          const ANeuralNetworksEvent* dependencies[] = {firstDone};
          if (code == kOk) code = ANeuralNetworksExecution_startComputeWithDependencies(execution, dependencies, 1, 0, &done);
          if (code == kOk) code = ANeuralNetworksEvent_wait(done);
          ANeuralNetworksEvent_free(done);
          ANeuralNetworksEvent_free(firstDone);
          ANeuralNetworksExecution_free(first);
          check(code, firstOut, k);
          check(code, out, k);
          break;
        }
        case 3: {  // the shared burst, when free
          int code = setArguments(execution, input, out);
          if (compilation.get() == partitioned_->get() && code == kOk) {
            code = ANeuralNetworksExecution_burstCompute(execution, sharedBurst);
            if (code == ANEURALNETWORKS_BAD_STATE) code = ANeuralNetworksExecution_compute(execution);  // in use
          } else if (code == kOk) {
            code = ANeuralNetworksExecution_compute(execution);
          }
          check(code, out, k);
          break;
        }
        default: {  // input from the shared memory, and a try at the shared execution
          int code = ANeuralNetworksExecution_setInputFromMemory(execution, 0, nullptr, memory, 0, kIn);
          if (code == kOk) code = ANeuralNetworksExecution_setOutput(execution, 0, nullptr, out.data(), kOut);
          if (code == kOk) code = ANeuralNetworksExecution_compute(execution);
          check(code, out, 0);
          const int shared = ANeuralNetworksExecution_compute(sharedExecution);
          if (shared != kOk && shared != ANEURALNETWORKS_BAD_STATE) ++unexpectedCodes;
          break;
        }
      }
      ANeuralNetworksExecution_free(execution);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
  for (std::thread& t : threads) t.join();

  EXPECT_EQ(unexpectedCodes.load(), 0);
  EXPECT_EQ(wrong.load(), 0) << "of " << checked.load() << " results";
  EXPECT_GE(checked.load(), kThreads * kRounds);
  EXPECT_EQ(sharedOut, expected_[0]);  // written by the shared execution's last computation
  ANeuralNetworksExecution_free(sharedExecution);
  ANeuralNetworksBurst_free(sharedBurst);
  ANeuralNetworksMemory_free(memory);
  close(fd);
}

}  // namespace
}  // namespace weft::test
