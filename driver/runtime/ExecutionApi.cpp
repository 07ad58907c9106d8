// The ANeuralNetworksExecution_*, ANeuralNetworksBurst_* and ANeuralNetworksEvent_* entry points.
#include <fcntl.h>
#include <unistd.h>

#include "BurstBuilder.h"
#include "Errors.h"
#include "Event.h"
#include "ExecutionBuilder.h"
#include "Handles.h"

using namespace weft::runtime;
using weft::nn::Status;

extern "C" {

int ANeuralNetworksExecution_create(ANeuralNetworksCompilation* compilation, ANeuralNetworksExecution** execution) {
  if (execution != nullptr) *execution = nullptr;
  if (compilation == nullptr) return reportNull(__func__, "compilation");
  if (execution == nullptr) return reportNull(__func__, "execution");
  return guarded(__func__, [&, function = __func__]() -> int {
    const CompilationBuilder* c = fromHandle(compilation);
    if (Status usable = c->checkUsable("an execution"); !usable.ok()) return reportError(function, usable.error());
    *execution = toHandle(new ExecutionBuilder(c));
    return ANEURALNETWORKS_NO_ERROR;
  });
}

void ANeuralNetworksExecution_free(ANeuralNetworksExecution* execution) { delete fromHandle(execution); }

int ANeuralNetworksExecution_setInput(ANeuralNetworksExecution* execution, int32_t index,
                                      const ANeuralNetworksOperandType* type, const void* buffer, size_t length) {
  if (execution == nullptr) return reportNull(__func__, "execution");
  if (buffer == nullptr && length != 0) return reportNull(__func__, "buffer (with a non-zero length)");
  return guarded(__func__, [&, function = __func__]() -> int {
    return toResultCode(function,
                        fromHandle(execution)->setInput(static_cast<uint32_t>(index), type, buffer, length));
  });
}

int ANeuralNetworksExecution_setInputFromMemory(ANeuralNetworksExecution* execution, int32_t index,
                                                const ANeuralNetworksOperandType* type,
                                                const ANeuralNetworksMemory* memory, size_t offset, size_t length) {
  if (execution == nullptr) return reportNull(__func__, "execution");
  if (memory == nullptr) return reportNull(__func__, "memory");
  return guarded(__func__, [&, function = __func__]() -> int {
    return toResultCode(function, fromHandle(execution)->setInputFromMemory(static_cast<uint32_t>(index), type,
                                                                           *fromHandle(memory), offset, length));
  });
}

int ANeuralNetworksExecution_setOutput(ANeuralNetworksExecution* execution, int32_t index,
                                       const ANeuralNetworksOperandType* type, void* buffer, size_t length) {
  if (execution == nullptr) return reportNull(__func__, "execution");
  if (buffer == nullptr && length != 0) return reportNull(__func__, "buffer (with a non-zero length)");
  return guarded(__func__, [&, function = __func__]() -> int {
    return toResultCode(function,
                        fromHandle(execution)->setOutput(static_cast<uint32_t>(index), type, buffer, length));
  });
}

int ANeuralNetworksExecution_setOutputFromMemory(ANeuralNetworksExecution* execution, int32_t index,
                                                 const ANeuralNetworksOperandType* type,
                                                 const ANeuralNetworksMemory* memory, size_t offset, size_t length) {
  if (execution == nullptr) return reportNull(__func__, "execution");
  if (memory == nullptr) return reportNull(__func__, "memory");
  return guarded(__func__, [&, function = __func__]() -> int {
    return toResultCode(function, fromHandle(execution)->setOutputFromMemory(static_cast<uint32_t>(index), type,
                                                                            *fromHandle(memory), offset, length));
  });
}

int ANeuralNetworksExecution_setMeasureTiming(ANeuralNetworksExecution* execution, bool measure) {
  if (execution == nullptr) return reportNull(__func__, "execution");
  return toResultCode(__func__, fromHandle(execution)->setMeasureTiming(measure));
}

int ANeuralNetworksExecution_setTimeout(ANeuralNetworksExecution* execution, uint64_t duration) {
  if (execution == nullptr) return reportNull(__func__, "execution");
  return toResultCode(__func__, fromHandle(execution)->setTimeout(duration));
}

int ANeuralNetworksExecution_setLoopTimeout(ANeuralNetworksExecution* execution, uint64_t duration) {
  if (execution == nullptr) return reportNull(__func__, "execution");
  return toResultCode(__func__, fromHandle(execution)->setLoopTimeout(duration));
}

int ANeuralNetworksExecution_enableInputAndOutputPadding(ANeuralNetworksExecution* execution, bool enable) {
  if (execution == nullptr) return reportNull(__func__, "execution");
  return toResultCode(__func__, fromHandle(execution)->enableInputAndOutputPadding(enable));
}

int ANeuralNetworksExecution_setReusable(ANeuralNetworksExecution* execution, bool reusable) {
  if (execution == nullptr) return reportNull(__func__, "execution");
  return toResultCode(__func__, fromHandle(execution)->setReusable(reusable));
}

int ANeuralNetworksExecution_compute(ANeuralNetworksExecution* execution) {
  if (execution == nullptr) return reportNull(__func__, "execution");
  return guarded(__func__, [&, function = __func__]() -> int { return toResultCode(function, fromHandle(execution)->compute()); });
}

int ANeuralNetworksExecution_burstCompute(ANeuralNetworksExecution* execution, ANeuralNetworksBurst* burst) {
  if (execution == nullptr) return reportNull(__func__, "execution");
  if (burst == nullptr) return reportNull(__func__, "burst");
  return guarded(__func__, [&, function = __func__]() -> int {
    BurstBuilder* b = fromHandle(burst);
    if (b->compilation() != fromHandle(execution)->compilation()) {
      return reportError(function, NN_ERROR(BAD_DATA) << "the burst and the execution come from different compilations");
    }
    if (!b->tryAcquire()) {
      return reportError(function, NN_ERROR(BAD_STATE) << "the burst is in use by another execution");
    }
    const Status status = fromHandle(execution)->compute(b);
    b->release();
    return toResultCode(function, status);
  });
}

static int startCompute(const char* function, ANeuralNetworksExecution* execution,
                        const std::vector<const Event*>& dependencies, uint64_t duration, bool withDependencies,
                        ANeuralNetworksEvent** event) {
  return guarded(function, [&]() -> int {
    weft::nn::Result<std::unique_ptr<Event>> started =
        fromHandle(execution)->startCompute(dependencies, duration, withDependencies);
    if (!started.ok()) return reportError(function, started.error());
    *event = toHandle(std::move(started).value().release());
    return ANEURALNETWORKS_NO_ERROR;
  });
}

int ANeuralNetworksExecution_startCompute(ANeuralNetworksExecution* execution, ANeuralNetworksEvent** event) {
  if (event != nullptr) *event = nullptr;
  if (execution == nullptr) return reportNull(__func__, "execution");
  if (event == nullptr) return reportNull(__func__, "event");
  return startCompute(__func__, execution, {}, 0, false, event);
}

int ANeuralNetworksExecution_startComputeWithDependencies(ANeuralNetworksExecution* execution,
                                                          const ANeuralNetworksEvent* const* dependencies,
                                                          uint32_t num_dependencies, uint64_t duration,
                                                          ANeuralNetworksEvent** event) {
  if (event != nullptr) *event = nullptr;
  if (execution == nullptr) return reportNull(__func__, "execution");
  if (event == nullptr) return reportNull(__func__, "event");
  if (dependencies == nullptr && num_dependencies != 0) return reportNull(__func__, "dependencies");
  std::vector<const Event*> list;
  for (uint32_t i = 0; i < num_dependencies; ++i) {
    if (dependencies[i] == nullptr) return reportNull(__func__, "dependencies[i]");
    list.push_back(fromHandle(dependencies[i]));
  }
  return startCompute(__func__, execution, list, duration, true, event);
}

int ANeuralNetworksExecution_getDuration(const ANeuralNetworksExecution* execution, int32_t durationCode,
                                         uint64_t* duration) {
  if (execution == nullptr) return reportNull(__func__, "execution");
  if (duration == nullptr) return reportNull(__func__, "duration");
  return toResultCode(__func__, fromHandle(execution)->getDuration(durationCode, duration));
}

int ANeuralNetworksExecution_getOutputOperandRank(ANeuralNetworksExecution* execution, int32_t index, uint32_t* rank) {
  if (execution == nullptr) return reportNull(__func__, "execution");
  if (rank == nullptr) return reportNull(__func__, "rank");
  return toResultCode(__func__, fromHandle(execution)->getOutputOperandRank(static_cast<uint32_t>(index), rank));
}

int ANeuralNetworksExecution_getOutputOperandDimensions(ANeuralNetworksExecution* execution, int32_t index,
                                                        uint32_t* dimensions) {
  if (execution == nullptr) return reportNull(__func__, "execution");
  if (dimensions == nullptr) return reportNull(__func__, "dimensions");
  return toResultCode(__func__,
                      fromHandle(execution)->getOutputOperandDimensions(static_cast<uint32_t>(index), dimensions));
}

uint64_t ANeuralNetworks_getDefaultLoopTimeout(void) { return defaultLoopTimeoutNs(); }

uint64_t ANeuralNetworks_getMaximumLoopTimeout(void) { return maximumLoopTimeoutNs(); }

// ---- Bursts ----

int ANeuralNetworksBurst_create(ANeuralNetworksCompilation* compilation, ANeuralNetworksBurst** burst) {
  if (burst != nullptr) *burst = nullptr;
  if (compilation == nullptr) return reportNull(__func__, "compilation");
  if (burst == nullptr) return reportNull(__func__, "burst");
  return guarded(__func__, [&, function = __func__]() -> int {
    const CompilationBuilder* c = fromHandle(compilation);
    if (Status usable = c->checkUsable("a burst"); !usable.ok()) return reportError(function, usable.error());
    *burst = toHandle(new BurstBuilder(c));
    return ANEURALNETWORKS_NO_ERROR;
  });
}

void ANeuralNetworksBurst_free(ANeuralNetworksBurst* burst) { delete fromHandle(burst); }

// ---- Events ----

int ANeuralNetworksEvent_wait(ANeuralNetworksEvent* event) {
  if (event == nullptr) return reportNull(__func__, "event");
  return fromHandle(event)->wait();
}

void ANeuralNetworksEvent_free(ANeuralNetworksEvent* event) {
  if (event == nullptr) return;
  // As in NNAPI, freeing an event first waits for what it signals.
  fromHandle(event)->wait();
  delete fromHandle(event);
}

int ANeuralNetworksEvent_createFromSyncFenceFd(int sync_fence_fd, ANeuralNetworksEvent** event) {
  if (event != nullptr) *event = nullptr;
  if (event == nullptr) return reportNull(__func__, "event");
  // 0 is refused too, as in Android (a sync fence is never standard input).
  if (sync_fence_fd <= 0) return reportError(__func__, NN_ERROR(BAD_DATA) << "invalid fd " << sync_fence_fd);
  return guarded(__func__, [&, function = __func__]() -> int {
    const int owned = fcntl(sync_fence_fd, F_DUPFD_CLOEXEC, 0);
    if (owned < 0) return reportError(function, NN_ERROR(BAD_DATA) << "cannot duplicate fd " << sync_fence_fd);
    *event = toHandle(new SyncFenceEvent(weft::hal::SyncFence::fromOwnedFd(owned)));
    return ANEURALNETWORKS_NO_ERROR;
  });
}

int ANeuralNetworksEvent_getSyncFenceFd(const ANeuralNetworksEvent* event, int* sync_fence_fd) {
  if (sync_fence_fd != nullptr) *sync_fence_fd = -1;
  if (event == nullptr) return reportNull(__func__, "event");
  if (sync_fence_fd == nullptr) return reportNull(__func__, "sync_fence_fd");
  const Event* e = fromHandle(event);
  // As in Android, startCompute's events have no fence for the client; those of
  // startComputeWithDependencies and createFromSyncFenceFd do.
  const int fd = e->showsFence() ? e->fence().duplicate() : -1;
  if (fd < 0) return reportError(__func__, NN_ERROR(BAD_DATA) << "the event is not backed by a sync fence");
  *sync_fence_fd = fd;
  return ANEURALNETWORKS_NO_ERROR;
}

}  // extern "C"
