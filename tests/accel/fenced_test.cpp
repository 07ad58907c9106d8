// Fenced executions on the accelerator (PreparedModel::executeFenced, FencedQueue): the device's
// own thread waits for every pending execution's fences at once and starts those whose fences
// have signalled, so no execution parks a thread of its own and none waits behind another's
// fences; results are bit-exact, a failed fence fails the execution without running it, and the
// timings follow NNAPI's FENCED_DURATION definitions (launched durations include the wait).
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "AccelTestUtil.h"
#include "Device.h"

namespace weft::accel::test {
namespace {

using State = hal::SyncFence::State;

OpModel fcModel(uint32_t seed) {
  std::mt19937 rng(seed);
  FcCase c;
  c.inputDims = {6, 40};
  c.units = 24;
  c.in = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.5f, 128};
  c.weights = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.25f, 120};
  c.out = {nn::OperandType::TENSOR_QUANT8_ASYMM, 16.0f, 100};
  return makeFcModel(c, rng);
}

// A fence the test signals by hand: an eventfd, as a client's ANeuralNetworksEvent_createFromSyncFenceFd.
struct ClientFence {
  int fd = eventfd(0, EFD_CLOEXEC);
  hal::SyncFence fence() const { return hal::SyncFence::fromOwnedFd(dup(fd)); }
  void signal() const {
    const uint64_t one = 1;
    ASSERT_EQ(write(fd, &one, sizeof one), static_cast<ssize_t>(sizeof one));
  }
  ~ClientFence() { close(fd); }
};

size_t threadsOfThisProcess() {
  size_t n = 0;
  DIR* dir = opendir("/proc/self/task");
  while (dirent* entry = readdir(dir)) n += entry->d_name[0] != '.' ? 1 : 0;
  closedir(dir);
  return n;
}

struct Fixture {
  hal::SharedDevice device = deviceOn(sim::createBackend(sim::BackendKind::kApprox, hw::HwConfig::load("weft8")));
  OpModel model = fcModel(3);
  std::vector<uint8_t> expected;
  hal::SharedPreparedModel prepared;
  FencedQueue& fenced() { return std::static_pointer_cast<const Device>(device)->queue()->fenced(); }
  Fixture(nn::Priority priority = nn::Priority::MEDIUM) {
    auto cpu = runOnCpu(model);
    if (cpu.ok()) expected = cpu.value().outputs[0];
    auto p = device->prepareModel(model.model, nn::ExecutionPreference::FAST_SINGLE_ANSWER, priority, {}, std::nullopt);
    if (p.ok()) prepared = p.value();
  }
};

// One fenced execution with its own output buffers.
struct Launched {
  std::vector<std::vector<uint8_t>> outputs;
  nn::Request request;
  nn::Result<hal::FencedExecution> execution = NN_ERROR(OP_FAILED) << "not launched";
  Launched(const hal::IPreparedModel& prepared, const OpModel& m, const std::vector<hal::SyncFence>& waitFor) {
    request = makeRequest(m, outputs);
    execution = prepared.executeFenced(request, waitFor, nn::MeasureTiming::YES, {}, {}, {});
  }
};

TEST(FencedExecution, StartsOnceItsFenceSignalsAndMatchesTheReference) {
  Fixture f;
  ASSERT_NE(f.prepared, nullptr);
  ClientFence dependency;
  Launched run(*f.prepared, f.model, {dependency.fence()});
  ASSERT_TRUE(run.execution.ok()) << run.execution.error().message;
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  EXPECT_EQ(run.execution->fence.poll(0), State::kActive) << "it ran before its dependency signalled";
  EXPECT_EQ(f.fenced().waiting(), 1u);
  dependency.signal();
  EXPECT_EQ(run.execution->fence.wait(), State::kSignaled);
  auto info = run.execution->info();
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(firstMismatch(run.outputs[0], f.expected), -1);
  // FENCED durations count from the signal; the launched in-driver duration also covers the wait.
  ASSERT_NE(info->timingFenced.timeInDriverNs, nn::kNoTiming);
  ASSERT_NE(info->timingFenced.timeOnDeviceNs, nn::kNoTiming);
  EXPECT_LE(info->timingFenced.timeOnDeviceNs, info->timingFenced.timeInDriverNs);
  EXPECT_GE(info->timingLaunched.timeInDriverNs, info->timingFenced.timeInDriverNs + 60'000'000);
  EXPECT_EQ(f.fenced().waiting(), 0u);
}

// Another execution's late fence never holds back one that is ready, whatever the order.
TEST(FencedExecution, AnExecutionWaitingForALateFenceHoldsNothingBack) {
  Fixture f;
  ASSERT_NE(f.prepared, nullptr);
  ClientFence late;
  Launched first(*f.prepared, f.model, {late.fence()});
  Launched second(*f.prepared, f.model, {});
  ASSERT_TRUE(first.execution.ok() && second.execution.ok());
  EXPECT_EQ(second.execution->fence.wait(), State::kSignaled);
  EXPECT_EQ(first.execution->fence.poll(0), State::kActive);
  EXPECT_EQ(firstMismatch(second.outputs[0], f.expected), -1);
  late.signal();
  EXPECT_EQ(first.execution->fence.wait(), State::kSignaled);
  EXPECT_EQ(firstMismatch(first.outputs[0], f.expected), -1);
}

// A chain: each execution waits for the one before, as the runtime chains a partition's steps.
TEST(FencedExecution, AChainRunsInOrder) {
  Fixture f;
  ASSERT_NE(f.prepared, nullptr);
  ClientFence start;
  std::vector<std::unique_ptr<Launched>> chain;
  hal::SyncFence previous = start.fence();
  for (int i = 0; i < 6; ++i) {
    chain.push_back(std::make_unique<Launched>(*f.prepared, f.model, std::vector<hal::SyncFence>{previous}));
    ASSERT_TRUE(chain.back()->execution.ok());
    previous = chain.back()->execution->fence;
  }
  EXPECT_EQ(f.fenced().waiting(), 6u);
  start.signal();
  for (const auto& run : chain) {
    EXPECT_EQ(run->execution->fence.wait(), State::kSignaled);
    EXPECT_EQ(firstMismatch(run->outputs[0], f.expected), -1);
  }
}

// Waiting executions cost the device one thread in all, not one each.
TEST(FencedExecution, ManyWaitingExecutionsShareTheDevicesThread) {
  Fixture f;
  ASSERT_NE(f.prepared, nullptr);
  ClientFence dependency;
  Launched warmUp(*f.prepared, f.model, {});  // starts the queue's thread
  ASSERT_EQ(warmUp.execution->fence.wait(), State::kSignaled);
  const size_t before = threadsOfThisProcess();
  std::vector<std::unique_ptr<Launched>> runs;
  for (int i = 0; i < 32; ++i) {
    runs.push_back(std::make_unique<Launched>(*f.prepared, f.model, std::vector<hal::SyncFence>{dependency.fence()}));
    ASSERT_TRUE(runs.back()->execution.ok());
  }
  EXPECT_EQ(threadsOfThisProcess(), before);
  EXPECT_EQ(f.fenced().waiting(), 32u);
  dependency.signal();
  for (const auto& run : runs) {
    EXPECT_EQ(run->execution->fence.wait(), State::kSignaled);
    EXPECT_EQ(firstMismatch(run->outputs[0], f.expected), -1);
  }
}

// A dependency that fails (its signaller went away without signalling) fails the execution,
// which does not run: its outputs stay untouched.
TEST(FencedExecution, AFailedFenceFailsTheExecutionWithoutRunningIt) {
  Fixture f;
  ASSERT_NE(f.prepared, nullptr);
  int ends[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends), 0);
  const hal::SyncFence failing = hal::SyncFence::fromOwnedFd(ends[0]);
  Launched run(*f.prepared, f.model, {failing});
  ASSERT_TRUE(run.execution.ok());
  close(ends[1]);  // hang-up without data: a failed fence
  EXPECT_EQ(run.execution->fence.wait(), State::kError);
  auto info = run.execution->info();
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.error().code, nn::ErrorStatus::OP_FAILED);
  EXPECT_EQ(run.outputs[0], std::vector<uint8_t>(run.outputs[0].size(), 0xEE));
  // The device goes on.
  Launched next(*f.prepared, f.model, {});
  EXPECT_EQ(next.execution->fence.wait(), State::kSignaled);
  EXPECT_EQ(firstMismatch(next.outputs[0], f.expected), -1);
}

// Executions whose fences signal together start in NNAPI priority order.
TEST(FencedExecution, ReadyExecutionsStartInPriorityOrder) {
  Fixture f;
  ASSERT_NE(f.prepared, nullptr);
  auto high = f.device->prepareModel(f.model.model, nn::ExecutionPreference::FAST_SINGLE_ANSWER, nn::Priority::HIGH,
                                     {}, std::nullopt);
  auto low = f.device->prepareModel(f.model.model, nn::ExecutionPreference::FAST_SINGLE_ANSWER, nn::Priority::LOW, {},
                                    std::nullopt);
  ASSERT_TRUE(high.ok() && low.ok());
  // Hold the queue's thread inside a first execution until both others are queued and ready:
  // it waits for the device, whose mutex the test holds.
  ClientFence gate;
  Launched blocker(*f.prepared, f.model, {});
  std::unique_lock<std::mutex> device(std::static_pointer_cast<const Device>(f.device)->queue()->mutex());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  Launched lowRun(*low.value(), f.model, {gate.fence()});
  Launched highRun(*high.value(), f.model, {gate.fence()});
  gate.signal();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  device.unlock();
  ASSERT_EQ(highRun.execution->fence.wait(), State::kSignaled);
  ASSERT_EQ(lowRun.execution->fence.wait(), State::kSignaled);
  auto highInfo = highRun.execution->info();
  auto lowInfo = lowRun.execution->info();
  ASSERT_TRUE(highInfo.ok() && lowInfo.ok());
  // Launched (the low one a moment earlier) and ready together: the one started second waited
  // for the other's whole run, so its launched in-driver time is the longer. Low second.
  EXPECT_GT(lowInfo->timingLaunched.timeInDriverNs, highInfo->timingLaunched.timeInDriverNs);
  EXPECT_EQ(firstMismatch(lowRun.outputs[0], f.expected), -1);
  EXPECT_EQ(firstMismatch(highRun.outputs[0], f.expected), -1);
}

}  // namespace
}  // namespace weft::accel::test
