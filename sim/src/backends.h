// The factories createBackend() chooses between, and what both backends share.
#pragma once

#include <chrono>
#include <memory>

#include "weft/sim/backend.h"

namespace weft::sim {

// computesData false: the `timing` backend (the data path off, BackendKind::kTiming).
std::unique_ptr<IDeviceBackend> makeApproxBackend(const hw::HwConfig& config, const BackendOptions& options,
                                                  bool computesData);
std::unique_ptr<IDeviceBackend> makeRtlBackend(const hw::HwConfig& config, const BackendOptions& options);

// Adds the wall time and the device cycles of one simulating call to BackendStats, also when
// the call throws. `cycle` reads the device's cycle count.
template <typename CycleFn>
class StatsScope {
 public:
  StatsScope(BackendStats& stats, CycleFn cycle)
      : stats_(stats), cycle_(cycle), startCycle_(cycle()), start_(std::chrono::steady_clock::now()) {}
  StatsScope(const StatsScope&) = delete;
  StatsScope& operator=(const StatsScope&) = delete;
  ~StatsScope() {
    stats_.cyclesSimulated += cycle_() - startCycle_;
    stats_.wallSeconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  BackendStats& stats_;
  CycleFn cycle_;
  uint64_t startCycle_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace weft::sim
