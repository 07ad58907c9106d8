// Asynchronous computations and events: startCompute, startComputeWithDependencies (on other
// executions and on sync-fence descriptors), and the FENCED durations.
#include <gtest/gtest.h>

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

#include "NnapiTestUtils.h"

namespace weft::test {
namespace {

constexpr int kOk = ANEURALNETWORKS_NO_ERROR;
constexpr int kNull = ANEURALNETWORKS_UNEXPECTED_NULL;
constexpr int kBadData = ANEURALNETWORKS_BAD_DATA;

class Event {
 public:
  ~Event() { ANeuralNetworksEvent_free(event_); }
  ANeuralNetworksEvent** out() { return &event_; }
  ANeuralNetworksEvent* get() const { return event_; }

 private:
  ANeuralNetworksEvent* event_ = nullptr;
};

class Async : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = makeAddModel(4);
    compilation_ = std::make_unique<Compilation>(*model_);
    ASSERT_EQ(compilation_->finish(), kOk);
  }
  // An execution of out = a + b with its arguments set.
  std::unique_ptr<Execution> prepared(const Compilation& compilation, std::vector<float>& a, std::vector<float>& b,
                                      std::vector<float>& out) {
    auto execution = std::make_unique<Execution>(compilation);
    EXPECT_EQ(execution->setInput(0, a), kOk);
    EXPECT_EQ(execution->setInput(1, b), kOk);
    EXPECT_EQ(execution->setOutput(0, out), kOk);
    return execution;
  }

  std::unique_ptr<Model> model_;
  std::unique_ptr<Compilation> compilation_;
  std::vector<float> a_{1, 2, 3, 4}, b_{10, 20, 30, 40}, out_ = std::vector<float>(4, 0.0f);
};

TEST_F(Async, StartComputeAndWait) {
  std::unique_ptr<Execution> execution = prepared(*compilation_, a_, b_, out_);
  Event event;
  EXPECT_EQ(ANeuralNetworksExecution_startCompute(nullptr, event.out()), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_startCompute(execution->get(), nullptr), kNull);
  ASSERT_EQ(ANeuralNetworksExecution_startCompute(execution->get(), event.out()), kOk);
  ASSERT_NE(event.get(), nullptr);
  EXPECT_EQ(ANeuralNetworksEvent_wait(event.get()), kOk);
  EXPECT_EQ(ANeuralNetworksEvent_wait(event.get()), kOk) << "waiting again returns the same result";
  EXPECT_EQ(out_, (std::vector<float>{11, 22, 33, 44}));
  EXPECT_EQ(ANeuralNetworksEvent_wait(nullptr), kNull);
  ANeuralNetworksEvent_free(nullptr);
}

TEST_F(Async, FreeingWithoutWaitingIsSafe) {
  for (int i = 0; i < 8; ++i) {
    std::unique_ptr<Execution> execution = prepared(*compilation_, a_, b_, out_);
    ANeuralNetworksEvent* event = nullptr;
    ASSERT_EQ(ANeuralNetworksExecution_startCompute(execution->get(), &event), kOk);
    if (i % 2 == 0) {
      execution.reset();  // the execution waits for its computation
      ANeuralNetworksEvent_free(event);
    } else {
      ANeuralNetworksEvent_free(event);  // the event waits for the computation
    }
  }
}

// As in Android (CTS EventGetSyncFenceFdFromStartCompute): startCompute's events show no fence.
TEST_F(Async, StartComputesEventsShowNoSyncFence) {
  std::unique_ptr<Execution> execution = prepared(*compilation_, a_, b_, out_);
  Event event;
  ASSERT_EQ(ANeuralNetworksExecution_startCompute(execution->get(), event.out()), kOk);
  int fd = 42;
  EXPECT_EQ(ANeuralNetworksEvent_getSyncFenceFd(event.get(), &fd), kBadData);
  EXPECT_EQ(fd, -1);
  EXPECT_EQ(ANeuralNetworksEvent_getSyncFenceFd(nullptr, &fd), kNull);
  EXPECT_EQ(ANeuralNetworksEvent_getSyncFenceFd(event.get(), nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksEvent_wait(event.get()), kOk);
}

TEST_F(Async, EventFromSyncFenceFd) {
  Event event;
  EXPECT_EQ(ANeuralNetworksEvent_createFromSyncFenceFd(-1, event.out()), kBadData);
  const int fence = eventfd(0, EFD_CLOEXEC);
  ASSERT_GE(fence, 0);
  EXPECT_EQ(ANeuralNetworksEvent_createFromSyncFenceFd(fence, nullptr), kNull);
  ASSERT_EQ(ANeuralNetworksEvent_createFromSyncFenceFd(fence, event.out()), kOk);
  int duplicate = -1;
  ASSERT_EQ(ANeuralNetworksEvent_getSyncFenceFd(event.get(), &duplicate), kOk);
  EXPECT_GE(duplicate, 0);
  EXPECT_NE(duplicate, fence);
  close(duplicate);
  const uint64_t one = 1;
  ASSERT_EQ(write(fence, &one, sizeof(one)), static_cast<ssize_t>(sizeof(one)));
  EXPECT_EQ(ANeuralNetworksEvent_wait(event.get()), kOk);
  close(fence);
}

TEST_F(Async, DependencyOnASyncFenceDelaysTheComputation) {
  Compilation onCpu(*model_, {cpuDevice()});
  ASSERT_EQ(onCpu.finish(), kOk);
  std::unique_ptr<Execution> execution = prepared(onCpu, a_, b_, out_);
  ASSERT_EQ(ANeuralNetworksExecution_setMeasureTiming(execution->get(), true), kOk);
  const int fence = eventfd(0, EFD_CLOEXEC);
  ASSERT_GE(fence, 0);
  Event dependency, done;
  ASSERT_EQ(ANeuralNetworksEvent_createFromSyncFenceFd(fence, dependency.out()), kOk);
  const ANeuralNetworksEvent* dependencies[] = {dependency.get()};
  ASSERT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(execution->get(), dependencies, 1, 0, done.out()),
            kOk);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  // Not done before the fence signals: the done event's own fence is not readable yet. (Reading
  // out_ here would race with the computation in ThreadSanitizer's eyes: the eventfd that orders
  // them is a system call it does not see.)
  int doneFd = -1;
  ASSERT_EQ(ANeuralNetworksEvent_getSyncFenceFd(done.get(), &doneFd), kOk);
  pollfd pending{doneFd, POLLIN, 0};
  EXPECT_EQ(poll(&pending, 1, 0), 0) << "must not run before the fence signals";
  close(doneFd);
  const uint64_t one = 1;
  ASSERT_EQ(write(fence, &one, sizeof(one)), static_cast<ssize_t>(sizeof(one)));
  ASSERT_EQ(ANeuralNetworksEvent_wait(done.get()), kOk);
  EXPECT_EQ(out_, (std::vector<float>{11, 22, 33, 44}));
  close(fence);

  uint64_t onHardware = 0, inDriver = 0, fencedOnHardware = 0, fencedInDriver = 0;
  ASSERT_EQ(ANeuralNetworksExecution_getDuration(execution->get(), ANEURALNETWORKS_DURATION_ON_HARDWARE, &onHardware),
            kOk);
  ASSERT_EQ(ANeuralNetworksExecution_getDuration(execution->get(), ANEURALNETWORKS_DURATION_IN_DRIVER, &inDriver), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_getDuration(execution->get(), ANEURALNETWORKS_FENCED_DURATION_ON_HARDWARE,
                                                 &fencedOnHardware),
            kOk);
  ASSERT_EQ(ANeuralNetworksExecution_getDuration(execution->get(), ANEURALNETWORKS_FENCED_DURATION_IN_DRIVER,
                                                 &fencedInDriver),
            kOk);
  EXPECT_EQ(onHardware, fencedOnHardware);
  EXPECT_LE(onHardware, fencedInDriver);
  // The plain in-driver duration counts from the call, the fenced one from the signal.
  EXPECT_GE(inDriver, fencedInDriver + 40'000'000ULL);
}

TEST_F(Async, FailedSyncFenceFailsTheDependentComputation) {
  int pipeFds[2];
  ASSERT_EQ(pipe(pipeFds), 0);
  std::unique_ptr<Execution> execution = prepared(*compilation_, a_, b_, out_);
  Event dependency, done;
  ASSERT_EQ(ANeuralNetworksEvent_createFromSyncFenceFd(pipeFds[0], dependency.out()), kOk);
  const ANeuralNetworksEvent* dependencies[] = {dependency.get()};
  ASSERT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(execution->get(), dependencies, 1, 0, done.out()),
            kOk);
  close(pipeFds[1]);  // hang-up without data: the fence errs
  EXPECT_EQ(ANeuralNetworksEvent_wait(done.get()), ANEURALNETWORKS_OP_FAILED);
  EXPECT_EQ(out_, std::vector<float>(4, 0.0f));
  close(pipeFds[0]);
}

// The event of startComputeWithDependencies is a sync fence: a descriptor the client can poll,
// readable once the computation completed, and usable as another computation's dependency.
TEST_F(Async, ComputeWithDependenciesGivesAPollableSyncFence) {
  const int gate = eventfd(0, EFD_CLOEXEC);
  ASSERT_GE(gate, 0);
  Event dependency, done;
  ASSERT_EQ(ANeuralNetworksEvent_createFromSyncFenceFd(gate, dependency.out()), kOk);
  std::unique_ptr<Execution> execution = prepared(*compilation_, a_, b_, out_);
  const ANeuralNetworksEvent* dependencies[] = {dependency.get()};
  ASSERT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(execution->get(), dependencies, 1, 0, done.out()),
            kOk);
  int fd = -1;
  ASSERT_EQ(ANeuralNetworksEvent_getSyncFenceFd(done.get(), &fd), kOk);
  ASSERT_GE(fd, 0);
  pollfd request{fd, POLLIN, 0};
  EXPECT_EQ(poll(&request, 1, 30), 0) << "readable before the computation could run";
  const uint64_t one = 1;
  ASSERT_EQ(write(gate, &one, sizeof(one)), static_cast<ssize_t>(sizeof(one)));
  ASSERT_EQ(poll(&request, 1, 5000), 1);
  EXPECT_NE(request.revents & POLLIN, 0);
  // Readable means completed: the event says so at once, and the results are there. (The wait
  // also shows ThreadSanitizer the ordering the descriptor gives, which it cannot see.)
  EXPECT_EQ(ANeuralNetworksEvent_wait(done.get()), kOk);
  EXPECT_EQ(out_, (std::vector<float>{11, 22, 33, 44}));
  uint32_t rank = 0;
  EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution->get(), 0, &rank), kOk);
  EXPECT_EQ(poll(&request, 1, 0), 1) << "a signalled fence stays signalled";

  // The descriptor is a fence like any: a second computation may depend on it.
  std::vector<float> finalOut(4, 0.0f);
  std::unique_ptr<Execution> second = prepared(*compilation_, out_, b_, finalOut);
  Event fromFd, secondDone;
  ASSERT_EQ(ANeuralNetworksEvent_createFromSyncFenceFd(fd, fromFd.out()), kOk);
  const ANeuralNetworksEvent* onFd[] = {fromFd.get()};
  ASSERT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(second->get(), onFd, 1, 0, secondDone.out()), kOk);
  EXPECT_EQ(ANeuralNetworksEvent_wait(secondDone.get()), kOk);
  EXPECT_EQ(finalOut, (std::vector<float>{21, 42, 63, 84}));
  close(fd);
  close(gate);
}

TEST_F(Async, AFailedComputationsFenceFailsWhatDependsOnIt) {
  // The first computation misses its deadline (1 ns after its dependency signalled).
  Compilation onCpu(*model_, {cpuDevice()});
  ASSERT_EQ(onCpu.finish(), kOk);
  std::unique_ptr<Execution> first = prepared(onCpu, a_, b_, out_);
  const int gate = eventfd(0, EFD_CLOEXEC);
  Event dependency, firstDone;
  ASSERT_EQ(ANeuralNetworksEvent_createFromSyncFenceFd(gate, dependency.out()), kOk);
  const ANeuralNetworksEvent* dependencies[] = {dependency.get()};
  ASSERT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(first->get(), dependencies, 1, 1, firstDone.out()),
            kOk);
  int fd = -1;
  ASSERT_EQ(ANeuralNetworksEvent_getSyncFenceFd(firstDone.get(), &fd), kOk);
  std::vector<float> finalOut(4, 0.0f);
  std::unique_ptr<Execution> second = prepared(*compilation_, out_, b_, finalOut);
  Event fromFd, secondDone;
  ASSERT_EQ(ANeuralNetworksEvent_createFromSyncFenceFd(fd, fromFd.out()), kOk);
  const ANeuralNetworksEvent* onFd[] = {fromFd.get()};
  ASSERT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(second->get(), onFd, 1, 0, secondDone.out()), kOk);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const uint64_t one = 1;
  ASSERT_EQ(write(gate, &one, sizeof(one)), static_cast<ssize_t>(sizeof(one)));
  const int firstResult = ANeuralNetworksEvent_wait(firstDone.get());
  EXPECT_TRUE(firstResult == ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT ||
              firstResult == ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT)
      << firstResult;
  pollfd request{fd, POLLIN, 0};
  EXPECT_EQ(poll(&request, 1, 0), 1) << "a failed computation's fence is signalled too (with its error)";
  EXPECT_EQ(ANeuralNetworksEvent_wait(secondDone.get()), ANEURALNETWORKS_OP_FAILED);
  EXPECT_EQ(finalOut, std::vector<float>(4, 0.0f));
  close(fd);
  close(gate);
}

TEST_F(Async, ChainedExecutions) {
  // second computes (first's output) + b once first has completed.
  std::vector<float> mid(4, 0.0f), finalOut(4, 0.0f);
  std::unique_ptr<Execution> first = prepared(*compilation_, a_, b_, mid);
  std::unique_ptr<Execution> second = prepared(*compilation_, mid, b_, finalOut);
  Event firstDone, secondDone;
  ASSERT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(first->get(), nullptr, 0, 0, firstDone.out()), kOk);
  const ANeuralNetworksEvent* dependencies[] = {firstDone.get()};
  ASSERT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(second->get(), dependencies, 1, 0, secondDone.out()),
            kOk);
  ASSERT_EQ(ANeuralNetworksEvent_wait(secondDone.get()), kOk);
  EXPECT_EQ(finalOut, (std::vector<float>{21, 42, 63, 84}));
}

TEST_F(Async, StartComputeWithDependenciesChecksItsArguments) {
  std::unique_ptr<Execution> execution = prepared(*compilation_, a_, b_, out_);
  Event event;
  const ANeuralNetworksEvent* nullEntry[] = {nullptr};
  EXPECT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(nullptr, nullptr, 0, 0, event.out()), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(execution->get(), nullptr, 0, 0, nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(execution->get(), nullptr, 1, 0, event.out()), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(execution->get(), nullEntry, 1, 0, event.out()),
            kNull);
  // A timeout needs createForDevices with one device.
  EXPECT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(execution->get(), nullptr, 0, 1000, event.out()),
            kBadData);
  // A dependency that has already failed.
  std::vector<float> empty;
  Execution failing(*compilation_);
  ASSERT_EQ(ANeuralNetworksExecution_setInput(failing.get(), 0, nullptr, nullptr, 0), kOk);  // ADD needs it
  ASSERT_EQ(failing.setInput(1, b_), kOk);
  ASSERT_EQ(failing.setOutput(0, out_), kOk);
  Event failed;
  ASSERT_EQ(ANeuralNetworksExecution_startCompute(failing.get(), failed.out()), kOk);
  EXPECT_NE(ANeuralNetworksEvent_wait(failed.get()), kOk);
  const ANeuralNetworksEvent* dependencies[] = {failed.get()};
  EXPECT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(execution->get(), dependencies, 1, 0, event.out()),
            kBadData);
  EXPECT_EQ(event.get(), nullptr);
  // None of that started the execution.
  ASSERT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(execution->get(), nullptr, 0, 0, event.out()), kOk);
  EXPECT_EQ(ANeuralNetworksEvent_wait(event.get()), kOk);
  EXPECT_EQ(out_, (std::vector<float>{11, 22, 33, 44}));
}

}  // namespace
}  // namespace weft::test
