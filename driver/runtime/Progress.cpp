// Progress events of weft/runtime/Profile.h: step starts from the plan runner, periodic reports
// from the accelerator, delivered to one process-wide listener.
#include "Progress.h"

#include <mutex>

#include "AcceleratorLoader.h"
#include "DeviceManager.h"

namespace weft::runtime {
namespace {

std::mutex& progressMutex() {
  static std::mutex m;
  return m;
}
std::function<void(const ProgressEvent&)>& progressListener() {
  static std::function<void(const ProgressEvent&)> l;
  return l;
}
// The step the calling thread is running, for the accelerator's periodic reports.
thread_local ProgressEvent currentStep;

std::function<void(const ProgressEvent&)> listenerCopy() {
  std::lock_guard<std::mutex> lock(progressMutex());
  return progressListener();
}

}  // namespace

void setProgressListener(std::function<void(const ProgressEvent&)> listener) {
  const bool on = static_cast<bool>(listener);
  {
    std::lock_guard<std::mutex> lock(progressMutex());
    progressListener() = std::move(listener);
  }
  // The accelerator reports through its module, loaded with the devices.
  (void)DeviceManager::get();
  const accel::AcceleratorModule* module = loadedAcceleratorModule();
  if (module == nullptr) return;
  if (!on) {
    module->setProgressListener({});
    return;
  }
  module->setProgressListener([](const accel::DeviceProgress& p) {
    if (auto l = listenerCopy()) {
      ProgressEvent e = currentStep;
      e.deviceCycles = p.cycles;
      e.estimatedCycles = p.estimatedCycles;
      e.operationsDone = p.operationsDone;
      l(e);
    }
  });
}

void reportStepStart(const std::string& device, const std::vector<uint32_t>& operations) {
  currentStep = ProgressEvent{device, operations, 0, 0, 0};
  if (auto l = listenerCopy()) l(currentStep);
}

}  // namespace weft::runtime
