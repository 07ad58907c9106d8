// Partitioning and timing with the real accelerator device (run with WEFT_BACKEND=approx, see
// CMakeLists.txt; skipped, saying so, when no accelerator is present). Whatever the accelerator
// claims must run there, the rest on the CPU, and the results must match a CPU-only compilation.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <vector>

#include "NnapiTestUtils.h"
#include "weft/runtime/Profile.h"

namespace weft::test {
namespace {

constexpr int kOk = ANEURALNETWORKS_NO_ERROR;

const ANeuralNetworksDevice* accelerator() {
  uint32_t count = 0;
  if (ANeuralNetworks_getDeviceCount(&count) != kOk) return nullptr;
  for (uint32_t i = 0; i < count; ++i) {
    ANeuralNetworksDevice* device = nullptr;
    int32_t type = 0;
    if (ANeuralNetworks_getDevice(i, &device) == kOk && ANeuralNetworksDevice_getType(device, &type) == kOk &&
        type == ANEURALNETWORKS_DEVICE_ACCELERATOR) {
      return device;
    }
  }
  return nullptr;
}

// conv1 (quant8 CONV_2D 1x1, 2 -> 3 channels) -> SOFTMAX -> conv2 (1x1, 3 -> 2 channels), on a
// 1x4x4x2 input. Finished.
std::unique_ptr<Model> makeConvSoftmaxConvModel() {
  auto model = std::make_unique<Model>();
  auto constant = [&](int32_t type, const std::vector<uint32_t>& dims, float scale, int32_t zp, const void* data,
                      size_t size) {
    const uint32_t index = model->addOperand(type, dims, scale, zp);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model->get(), static_cast<int32_t>(index), data, size), kOk);
    return index;
  };
  static const uint8_t filter1[] = {130, 126, 140, 128, 120, 136};  // [3,1,1,2]
  static const int32_t bias1[] = {4, -8, 2};
  static const uint8_t filter2[] = {129, 127, 135, 121, 128, 140};  // [2,1,1,3]
  static const int32_t bias2[] = {-3, 5};
  const uint32_t input = model->addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {1, 4, 4, 2}, 0.5f, 128);
  const uint32_t f1 = constant(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {3, 1, 1, 2}, 0.25f, 128, filter1, sizeof(filter1));
  const uint32_t b1 = constant(ANEURALNETWORKS_TENSOR_INT32, {3}, 0.125f, 0, bias1, sizeof(bias1));
  const uint32_t valid = model->addInt32Constant(ANEURALNETWORKS_PADDING_VALID);
  const uint32_t one = model->addInt32Constant(1);
  const uint32_t none = model->addInt32Constant(ANEURALNETWORKS_FUSED_NONE);
  const uint32_t conv1 = model->addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {1, 4, 4, 3}, 0.5f, 128);
  const float betaValue = 1.0f;
  const uint32_t beta = constant(ANEURALNETWORKS_FLOAT32, {}, 0.0f, 0, &betaValue, sizeof(betaValue));
  const uint32_t soft = model->addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {1, 4, 4, 3}, 1.0f / 256, 0);
  const uint32_t f2 = constant(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2, 1, 1, 3}, 0.5f, 128, filter2, sizeof(filter2));
  const uint32_t b2 = constant(ANEURALNETWORKS_TENSOR_INT32, {2}, 1.0f / 512, 0, bias2, sizeof(bias2));
  const uint32_t out = model->addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {1, 4, 4, 2}, 1.0f / 64, 100);
  EXPECT_EQ(model->addOperation(ANEURALNETWORKS_CONV_2D, {input, f1, b1, valid, one, one, none}, {conv1}), kOk);
  EXPECT_EQ(model->addOperation(ANEURALNETWORKS_SOFTMAX, {conv1, beta}, {soft}), kOk);
  EXPECT_EQ(model->addOperation(ANEURALNETWORKS_CONV_2D, {soft, f2, b2, valid, one, one, none}, {out}), kOk);
  EXPECT_EQ(model->identify({input}, {out}), kOk);
  EXPECT_EQ(model->finish(), kOk);
  return model;
}

std::vector<uint8_t> run(const Compilation& compilation, ANeuralNetworksExecution** kept,
                         std::vector<std::unique_ptr<Execution>>& executions) {
  executions.push_back(std::make_unique<Execution>(compilation));
  Execution& execution = *executions.back();
  std::vector<uint8_t> input(32), output(32, 0);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<uint8_t>(100 + 7 * i % 60);
  EXPECT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, input.data(), input.size()), kOk);
  EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, output.data(), output.size()), kOk);
  EXPECT_EQ(execution.compute(), kOk);
  if (kept != nullptr) *kept = execution.get();
  return output;
}

TEST(Accelerator, ClaimedOperationsRunThereAndTheRestOnTheCpu) {
  const ANeuralNetworksDevice* accel = accelerator();
  if (accel == nullptr) GTEST_SKIP() << "no accelerator device (WEFT_BACKEND=approx, or build the RTL)";
  std::unique_ptr<Model> model = makeConvSoftmaxConvModel();
  bool supported[3] = {false, false, false};
  ASSERT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model->get(), &accel, 1, supported), kOk);
  EXPECT_TRUE(supported[0]) << "the accelerator should claim a plain quant8 1x1 CONV_2D";

  Compilation partitioned(*model);
  ASSERT_EQ(partitioned.finish(), kOk);
  const std::vector<std::string> devices = runtime::getOperationDevices(partitioned.get());
  ASSERT_EQ(devices.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(devices[i], supported[i] ? "weft-accel" : "weft-cpu") << "operation " << i;

  Compilation cpuOnly(*model, {cpuDevice()});
  ASSERT_EQ(cpuOnly.finish(), kOk);
  std::vector<std::unique_ptr<Execution>> executions;
  ANeuralNetworksExecution* execution = nullptr;
  const std::vector<uint8_t> actual = run(partitioned, &execution, executions);
  const std::vector<uint8_t> expected = run(cpuOnly, nullptr, executions);
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_LE(std::abs(int{actual[i]} - int{expected[i]}), 1) << "element " << i;  // NNAPI's quant8 tolerance
  }
  const std::vector<hal::ExecutionProfile>& profiles = runtime::getExecutionProfiles(execution);
  const std::vector<runtime::CompilationStep> steps = runtime::getCompilationSteps(partitioned.get());
  if (supported[0] && !supported[1] && supported[2]) {
    EXPECT_EQ(steps.size(), 3u) << "accelerator, CPU, accelerator";
  }
  ASSERT_EQ(profiles.size(), steps.size());
  for (size_t s = 0; s < steps.size(); ++s) {
    EXPECT_EQ(profiles[s].device, steps[s].device);
    if (steps[s].device == "weft-accel") {
      EXPECT_EQ(profiles[s].backend, "approx");
    }
    for (const hal::OperationProfile& operation : profiles[s].operations) {
      EXPECT_NE(std::find(steps[s].operations.begin(), steps[s].operations.end(), operation.operationIndex),
                steps[s].operations.end())
          << "profile operation " << operation.operationIndex << " is not one of step " << s << "'s";
    }
  }
}

TEST(Accelerator, DurationsFromTheSimulatedDevice) {
  const ANeuralNetworksDevice* accel = accelerator();
  if (accel == nullptr) GTEST_SKIP() << "no accelerator device (WEFT_BACKEND=approx, or build the RTL)";
  // One CONV_2D: the accelerator alone can run it.
  Model model;
  const uint32_t input = model.addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {1, 8, 8, 16}, 0.5f, 128);
  std::vector<uint8_t> filter(16 * 3 * 3 * 16, 130);
  std::vector<int32_t> bias(16, 1);
  const uint32_t f = model.addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {16, 3, 3, 16}, 0.25f, 128);
  ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), f, filter.data(), filter.size()), kOk);
  const uint32_t b = model.addOperand(ANEURALNETWORKS_TENSOR_INT32, {16}, 0.125f, 0);
  ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), b, bias.data(), bias.size() * 4), kOk);
  const uint32_t same = model.addInt32Constant(ANEURALNETWORKS_PADDING_SAME);
  const uint32_t one = model.addInt32Constant(1);
  const uint32_t relu = model.addInt32Constant(ANEURALNETWORKS_FUSED_RELU);
  const uint32_t out = model.addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {1, 8, 8, 16}, 2.0f, 0);
  ASSERT_EQ(model.addOperation(ANEURALNETWORKS_CONV_2D, {input, f, b, same, one, one, relu}, {out}), kOk);
  ASSERT_EQ(model.identify({input}, {out}), kOk);
  ASSERT_EQ(model.finish(), kOk);
  Compilation compilation(model, {accel});
  ASSERT_EQ(compilation.finish(), kOk);
  Execution execution(compilation);
  ASSERT_EQ(ANeuralNetworksExecution_setMeasureTiming(execution.get(), true), kOk);
  std::vector<uint8_t> in(8 * 8 * 16, 140), result(8 * 8 * 16);
  ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, in.data(), in.size()), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, result.data(), result.size()), kOk);
  ASSERT_EQ(execution.compute(), kOk);
  uint64_t onHardware = 0, inDriver = 0;
  ASSERT_EQ(ANeuralNetworksExecution_getDuration(execution.get(), ANEURALNETWORKS_DURATION_ON_HARDWARE, &onHardware),
            kOk);
  ASSERT_EQ(ANeuralNetworksExecution_getDuration(execution.get(), ANEURALNETWORKS_DURATION_IN_DRIVER, &inDriver), kOk);
  EXPECT_NE(onHardware, UINT64_MAX);
  EXPECT_GT(onHardware, 0u);
  EXPECT_LE(onHardware, inDriver);
  const std::vector<hal::ExecutionProfile>& profiles = runtime::getExecutionProfiles(execution.get());
  ASSERT_EQ(profiles.size(), 1u);
  EXPECT_EQ(profiles[0].device, "weft-accel");
  EXPECT_GT(profiles[0].simulatedCycles, 0u);
}

}  // namespace
}  // namespace weft::test

namespace weft::test {
namespace {

// `layers` SAME kernel x kernel convolutions, `channels` -> `channels`, on a 1 x size x size image. Finished.
// The constants live as long as the test (NNAPI keeps references to large values).
std::unique_ptr<Model> makeConvChainModel(uint32_t layers, uint32_t size, uint32_t channels,
                                          std::vector<std::vector<uint8_t>>& keep, uint32_t kernel = 3) {
  auto model = std::make_unique<Model>();
  const std::vector<uint32_t> image{1, size, size, channels};
  uint32_t x = model->addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, image, 0.5f, 128);
  const uint32_t input = x;
  const uint32_t same = model->addInt32Constant(ANEURALNETWORKS_PADDING_SAME);
  const uint32_t one = model->addInt32Constant(1);
  const uint32_t none = model->addInt32Constant(ANEURALNETWORKS_FUSED_NONE);
  for (uint32_t l = 0; l < layers; ++l) {
    keep.emplace_back(size_t{channels} * kernel * kernel * channels);
    for (size_t i = 0; i < keep.back().size(); ++i) keep.back()[i] = static_cast<uint8_t>((i * 97 + l * 13) % 251);
    const uint32_t filter =
        model->addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {channels, kernel, kernel, channels}, 0.01f, 128);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model->get(), static_cast<int32_t>(filter), keep.back().data(),
                                                   keep.back().size()),
              kOk);
    keep.emplace_back(size_t{channels} * 4, 0);
    const uint32_t bias = model->addOperand(ANEURALNETWORKS_TENSOR_INT32, {channels}, 0.005f, 0);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model->get(), static_cast<int32_t>(bias), keep.back().data(),
                                                   keep.back().size()),
              kOk);
    const uint32_t y = model->addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, image, 0.5f, 128);
    EXPECT_EQ(model->addOperation(ANEURALNETWORKS_CONV_2D, {x, filter, bias, same, one, one, none}, {y}), kOk);
    x = y;
  }
  EXPECT_EQ(model->identify({input}, {x}), kOk);
  EXPECT_EQ(model->finish(), kOk);
  return model;
}

int computeWithTimeout(const Compilation& compilation, const std::vector<uint8_t>& input, std::vector<uint8_t>& output,
                       uint64_t timeoutNs) {
  Execution execution(compilation);
  EXPECT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, input.data(), input.size()), kOk);
  EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, output.data(), output.size()), kOk);
  if (timeoutNs > 0) {
    EXPECT_EQ(ANeuralNetworksExecution_setTimeout(execution.get(), timeoutNs), kOk);
  }
  return execution.compute();
}

// ANeuralNetworksExecution_setTimeout on the accelerator is enforced while the simulation runs:
// MISSED_DEADLINE_TRANSIENT soon after the timeout, and the next execution runs whole, exact.
TEST(Accelerator, AnExecutionTimeoutStopsTheDeviceAndTheNextExecutionWorks) {
  const ANeuralNetworksDevice* accel = accelerator();
  if (accel == nullptr) GTEST_SKIP() << "no accelerator device (WEFT_BACKEND=approx, or build the RTL)";
  std::vector<std::vector<uint8_t>> keep;
  auto model = makeConvChainModel(/*layers=*/6, /*size=*/56, /*channels=*/64, keep);  // some 10 M cycles
  Compilation onAccelerator(*model, {accel});
  ASSERT_EQ(onAccelerator.finish(), kOk);
  std::vector<uint8_t> input(56 * 56 * 64);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<uint8_t>((i * 31) % 256);
  std::vector<uint8_t> expected(input.size()), output(input.size());
  ASSERT_EQ(computeWithTimeout(onAccelerator, input, expected, 0), kOk);

  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(computeWithTimeout(onAccelerator, input, output, 2'000'000), ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 0.002 + 0.2);

  ASSERT_EQ(computeWithTimeout(onAccelerator, input, output, 60'000'000'000), kOk);
  EXPECT_EQ(output, expected);
  Compilation onCpu(*model, {cpuDevice()});
  ASSERT_EQ(onCpu.finish(), kOk);
  std::vector<uint8_t> reference(input.size());
  ASSERT_EQ(computeWithTimeout(onCpu, input, reference, 0), kOk);
  EXPECT_EQ(output, reference);
}

// A memory from a descriptor whose roles are on the accelerator lives in its DRAM: a tensor passed
// from one execution to the next is never copied through the host (the profiles' hostCopyBytes),
// and ANeuralNetworksMemory_copy still sees its bytes.
TEST(Accelerator, AMemoryFromADescriptorKeepsAChainedTensorOnTheDevice) {
  const ANeuralNetworksDevice* accel = accelerator();
  if (accel == nullptr) GTEST_SKIP() << "no accelerator device (WEFT_BACKEND=approx, or build the RTL)";
  std::vector<std::vector<uint8_t>> keep;
  auto first = makeConvChainModel(1, 10, 12, keep);
  auto second = makeConvChainModel(1, 10, 12, keep, /*kernel=*/1);  // reads the image as first writes it
  Compilation a(*first, {accel}), b(*second, {accel});
  ASSERT_EQ(a.finish(), kOk);
  ASSERT_EQ(b.finish(), kOk);
  ANeuralNetworksMemoryDesc* desc = nullptr;
  ASSERT_EQ(ANeuralNetworksMemoryDesc_create(&desc), kOk);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addOutputRole(desc, a.get(), 0, 1.0f), kOk);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc, b.get(), 0, 1.0f), kOk);
  ASSERT_EQ(ANeuralNetworksMemoryDesc_finish(desc), kOk);
  ANeuralNetworksMemory* memory = nullptr;
  ASSERT_EQ(ANeuralNetworksMemory_createFromDesc(desc, &memory), kOk);
  ANeuralNetworksMemoryDesc_free(desc);

  std::vector<uint8_t> input(10 * 10 * 12), output(input.size()), middle(input.size());
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<uint8_t>((i * 17) % 256);
  Execution ea(a);
  ASSERT_EQ(ANeuralNetworksExecution_setInput(ea.get(), 0, nullptr, input.data(), input.size()), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setOutputFromMemory(ea.get(), 0, nullptr, memory, 0, 0), kOk);
  ASSERT_EQ(ea.compute(), kOk);
  Execution eb(b);
  ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(eb.get(), 0, nullptr, memory, 0, 0), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setOutput(eb.get(), 0, nullptr, output.data(), output.size()), kOk);
  ASSERT_EQ(eb.compute(), kOk);
  const auto& pa = runtime::getExecutionProfiles(ea.get());
  const auto& pb = runtime::getExecutionProfiles(eb.get());
  ASSERT_EQ(pa.size(), 1u);
  ASSERT_EQ(pb.size(), 1u);
  EXPECT_EQ(pa[0].hostCopyBytes, input.size());   // its input in, its output stayed on the device
  EXPECT_EQ(pb[0].hostCopyBytes, output.size());  // its input was there, its output out

  // The same chain on the CPU, through host vectors.
  Compilation ca(*first, {cpuDevice()}), cb(*second, {cpuDevice()});
  ASSERT_EQ(ca.finish(), kOk);
  ASSERT_EQ(cb.finish(), kOk);
  std::vector<uint8_t> expectedMiddle(input.size()), expected(input.size());
  ASSERT_EQ(computeWithTimeout(ca, input, expectedMiddle, 0), kOk);
  ASSERT_EQ(computeWithTimeout(cb, expectedMiddle, expected, 0), kOk);
  EXPECT_EQ(output, expected);

  // ANeuralNetworksMemory_copy reads the device's bytes.
  const int fd = memfd_create("weft-accel-memory-test", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, static_cast<off_t>(middle.size())), 0);
  ANeuralNetworksMemory* host = nullptr;
  ASSERT_EQ(ANeuralNetworksMemory_createFromFd(middle.size(), PROT_READ | PROT_WRITE, fd, 0, &host), kOk);
  ASSERT_EQ(ANeuralNetworksMemory_copy(memory, host), kOk);
  ASSERT_EQ(pread(fd, middle.data(), middle.size(), 0), static_cast<ssize_t>(middle.size()));
  EXPECT_EQ(middle, expectedMiddle);

  // And writes them: other bytes copied in from the file feed the second model on the device.
  // The copy lands on the buffer's host side; the next execution that reads the buffer moves
  // it to DRAM once (counted there), then its output crosses back.
  for (size_t i = 0; i < middle.size(); ++i) middle[i] = static_cast<uint8_t>((i * 29 + 5) % 256);
  ASSERT_EQ(pwrite(fd, middle.data(), middle.size(), 0), static_cast<ssize_t>(middle.size()));
  ASSERT_EQ(ANeuralNetworksMemory_copy(host, memory), kOk);
  Execution again(b);
  ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(again.get(), 0, nullptr, memory, 0, 0), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setOutput(again.get(), 0, nullptr, output.data(), output.size()), kOk);
  ASSERT_EQ(again.compute(), kOk);
  ASSERT_EQ(runtime::getExecutionProfiles(again.get()).size(), 1u);
  EXPECT_EQ(runtime::getExecutionProfiles(again.get())[0].hostCopyBytes, middle.size() + output.size());
  ASSERT_EQ(computeWithTimeout(cb, middle, expected, 0), kOk);
  EXPECT_EQ(output, expected);
  ANeuralNetworksMemory_free(host);
  close(fd);
  ANeuralNetworksMemory_free(memory);
}

}  // namespace
}  // namespace weft::test
