// The `approx` backend: the cycle-approximate device behind IDeviceBackend. Needs no
// Verilator build, so it accepts every configuration hw/ can describe. Calls may come from any
// thread: one lock serializes them, as the rtl backend's simulation thread does.
//
// The device is approx::Engine (engine.h). WEFT_APPROX_ENGINE=reference selects the reference
// agents it was derived from (approx_device.h: one action at a time in cycle order, slower),
// to compare the two on whole workloads; any other value is an error naming the accepted ones.
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "approx/approx_device.h"
#include "approx/capture.h"
#include "approx/engine.h"
#include "backends.h"

namespace weft::sim {
namespace {

template <typename Device>
class ApproxBackend final : public IDeviceBackend {
 public:
  ApproxBackend(const hw::HwConfig& config, bool computesData)
      : config_(config),
        kind_(computesData ? BackendKind::kApprox : BackendKind::kTiming),
        device_(config, computesData),
        capture_(approx::CaptureWriter::fromEnvironment(config)) {}

  BackendKind kind() const override { return kind_; }
  const hw::HwConfig& config() const override { return config_; }

  uint32_t readReg(uint32_t addr) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (capture_) capture_->record(approx::CaptureOp::kReadReg, addr, 0);
    StatsScope s(stats_, cycleFn());
    return device_.readReg(addr);
  }
  void writeReg(uint32_t addr, uint32_t value) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (capture_) capture_->record(approx::CaptureOp::kWriteReg, addr, value);
    StatsScope s(stats_, cycleFn());
    device_.writeReg(addr, value);
  }
  bool runUntilInterrupt(uint64_t maxCycles) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (capture_) capture_->record(approx::CaptureOp::kRun, maxCycles, 0);
    StatsScope s(stats_, cycleFn());
    const bool irq = device_.runUntilInterrupt(maxCycles);
    if (irq) device_.dramModel().endProgram(device_.cycle());  // as the rtl backend does
    return irq;
  }
  void hardReset() override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (capture_) capture_->record(approx::CaptureOp::kHardReset, 0, 0);
    device_.hardReset();
  }

  void writeDram(uint64_t addr, const void* src, size_t bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (capture_) capture_->record(approx::CaptureOp::kWriteDram, addr, bytes, src, bytes);
    device_.dram().write(addr, src, bytes);
  }
  void readDram(uint64_t addr, void* dst, size_t bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (capture_) capture_->record(approx::CaptureOp::kReadDram, addr, bytes);
    device_.dram().read(addr, dst, bytes);
  }
  uint64_t dramBytes() const override { return config_.dramBytes(); }

  uint64_t cycle() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return device_.cycle();
  }
  BackendStats stats() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }

  // Per-command timelines: the engine records them; the reference agents do not.
  void recordCommands(bool on) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if constexpr (std::is_same_v<Device, approx::Engine>) device_.commandLog().enable(on);
    if (CycleDram* d = device_.dramModel().cycleDram()) d->recordCommands(on);
  }
  std::vector<CommandEvent> takeCommandEvents() override {
    std::lock_guard<std::mutex> lock(mutex_);
    if constexpr (std::is_same_v<Device, approx::Engine>) return device_.commandLog().take();
    return {};
  }
  std::vector<DramEvent> takeDramEvents() override {
    std::lock_guard<std::mutex> lock(mutex_);
    if constexpr (std::is_same_v<Device, approx::Engine>) return device_.commandLog().takeDram();
    return {};
  }

  std::vector<DramCommandEvent> takeDramCommands() override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (CycleDram* d = device_.dramModel().cycleDram()) return d->takeCommands();
    return {};
  }

  bool dramActivity(DramActivity& out) override {
    std::lock_guard<std::mutex> lock(mutex_);
    return device_.dramModel().activity(out);
  }
  void watchDramSnapshots(uint64_t base, uint64_t bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (CycleDram* d = device_.dramModel().cycleDram()) d->watchSnapshots(base, bytes);
  }
  std::vector<DramCheckpoint> takeDramCheckpoints() override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (CycleDram* d = device_.dramModel().cycleDram()) return d->takeCheckpoints();
    return {};
  }
  void recordDramTrace(bool on) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (CycleDram* d = device_.dramModel().cycleDram()) d->recordTrace(on);
  }
  std::vector<CycleDram::TraceLine> takeDramTrace() override {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<CycleDram::TraceLine> out;
    if (CycleDram* d = device_.dramModel().cycleDram()) out.swap(d->trace());
    return out;
  }

 private:
  // Reads the cycle count for StatsScope (the lock is held).
  struct CycleFn {
    const Device* d;
    uint64_t operator()() const { return d->cycle(); }
  };
  CycleFn cycleFn() const { return {&device_}; }

  hw::HwConfig config_;
  BackendKind kind_;
  mutable std::mutex mutex_;
  Device device_;
  BackendStats stats_;
  std::unique_ptr<approx::CaptureWriter> capture_;
};

}  // namespace

std::unique_ptr<IDeviceBackend> makeApproxBackend(const hw::HwConfig& config, const BackendOptions& options,
                                                  bool computesData) {
  if (!options.tracePath.empty()) {
    throw std::invalid_argument(
        "waveform tracing (tracePath) needs the rtl backend; the approx backend has no signals to trace");
  }
  const char* engine = std::getenv("WEFT_APPROX_ENGINE");
  const std::string name = engine != nullptr ? engine : "";
  if (name.empty() || name == "flow") return std::make_unique<ApproxBackend<approx::Engine>>(config, computesData);
  if (name == "reference") return std::make_unique<ApproxBackend<approx::ApproxDevice>>(config, computesData);
  throw std::invalid_argument("WEFT_APPROX_ENGINE='" + name + "' is not one of flow (the default) or reference");
}

}  // namespace weft::sim
