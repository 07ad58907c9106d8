#include "Progress.h"

#include <mutex>
#include <vector>

namespace weft::accel {
namespace {

std::mutex& listenerMutex() {
  static std::mutex m;
  return m;
}
std::function<void(const DeviceProgress&)>& listener() {
  static std::function<void(const DeviceProgress&)> l;
  return l;
}

}  // namespace

void setProgressListener(std::function<void(const DeviceProgress&)> l) {
  std::lock_guard<std::mutex> lock(listenerMutex());
  listener() = std::move(l);
}

std::function<void(const DeviceProgress&)> progressListener() {
  std::lock_guard<std::mutex> lock(listenerMutex());
  return listener();
}

void clearSnapshotTags(sim::IDeviceBackend& backend, const CompiledModel& model) {
  const uint64_t zero = 0;
  for (size_t i = 0; i <= model.operations.size(); ++i) {
    backend.writeDram(model.snapshots->addr() + i * hw::kSnapshotBytes, &zero, sizeof(zero));
  }
}

size_t operationsDone(sim::IDeviceBackend& backend, const CompiledModel& model) {
  // Operation l's closing barrier writes tag l + 1 into record l + 1; barriers complete in order.
  // An operation that overlaps the next has no barrier of its own: the next one's closes both.
  size_t done = 0;
  for (size_t l = 0; l < model.operations.size(); ++l) {
    if (!model.operations[l].snapshotAfter) continue;
    uint64_t tag = 0;
    backend.readDram(model.snapshots->addr() + (l + 1) * hw::kSnapshotBytes, &tag, sizeof(tag));
    if (tag != l + 1) break;
    done = l + 1;
  }
  return done;
}

}  // namespace weft::accel
