// The `approx` backend: the cycle-approximate device behind IDeviceBackend. Needs no
// Verilator build, so it accepts every configuration hw/ can describe. Calls may come from any
// thread: one lock serializes them, as the rtl backend's simulation thread does.
#include <mutex>
#include <stdexcept>

#include "approx/approx_device.h"
#include "backends.h"

namespace weft::sim {
namespace {

class ApproxBackend final : public IDeviceBackend {
 public:
  explicit ApproxBackend(const hw::HwConfig& config) : config_(config), device_(config) {}

  BackendKind kind() const override { return BackendKind::kApprox; }
  const hw::HwConfig& config() const override { return config_; }

  uint32_t readReg(uint32_t addr) override {
    std::lock_guard<std::mutex> lock(mutex_);
    StatsScope s(stats_, cycleFn());
    return device_.readReg(addr);
  }
  void writeReg(uint32_t addr, uint32_t value) override {
    std::lock_guard<std::mutex> lock(mutex_);
    StatsScope s(stats_, cycleFn());
    device_.writeReg(addr, value);
  }
  bool runUntilInterrupt(uint64_t maxCycles) override {
    std::lock_guard<std::mutex> lock(mutex_);
    StatsScope s(stats_, cycleFn());
    return device_.runUntilInterrupt(maxCycles);
  }
  void hardReset() override {
    std::lock_guard<std::mutex> lock(mutex_);
    device_.hardReset();
  }

  void writeDram(uint64_t addr, const void* src, size_t bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    device_.dram().write(addr, src, bytes);
  }
  void readDram(uint64_t addr, void* dst, size_t bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
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

 private:
  // Reads the cycle count for StatsScope (the lock is held).
  struct CycleFn {
    const approx::ApproxDevice* d;
    uint64_t operator()() const { return d->cycle(); }
  };
  CycleFn cycleFn() const { return {&device_}; }

  hw::HwConfig config_;
  mutable std::mutex mutex_;
  approx::ApproxDevice device_;
  BackendStats stats_;
};

}  // namespace

std::unique_ptr<IDeviceBackend> makeApproxBackend(const hw::HwConfig& config, const BackendOptions& options) {
  if (!options.tracePath.empty()) {
    throw std::invalid_argument(
        "waveform tracing (tracePath) needs the rtl backend; the approx backend has no signals to trace");
  }
  return std::make_unique<ApproxBackend>(config);
}

}  // namespace weft::sim
