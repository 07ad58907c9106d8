// The `approx` backend: the cycle-approximate device behind IDeviceBackend. Needs no
// Verilator build, so it accepts every configuration hw/ can describe.
#include <stdexcept>

#include "approx/approx_device.h"
#include "backends.h"

namespace weft::sim {
namespace {

class ApproxBackend final : public IDeviceBackend {
 public:
  explicit ApproxBackend(const hw::HwConfig& config) : config_(config), device_(config) {}

  // Reads the cycle count for StatsScope.
  struct CycleFn {
    const approx::ApproxDevice* d;
    uint64_t operator()() const { return d->cycle(); }
  };
  CycleFn cycleFn() const { return {&device_}; }

  BackendKind kind() const override { return BackendKind::kApprox; }
  const hw::HwConfig& config() const override { return config_; }

  uint32_t readReg(uint32_t addr) override {
    StatsScope s(stats_, cycleFn());
    return device_.readReg(addr);
  }
  void writeReg(uint32_t addr, uint32_t value) override {
    StatsScope s(stats_, cycleFn());
    device_.writeReg(addr, value);
  }

  void writeDram(uint64_t addr, const void* src, size_t bytes) override { device_.dram().write(addr, src, bytes); }
  void readDram(uint64_t addr, void* dst, size_t bytes) override { device_.dram().read(addr, dst, bytes); }
  uint64_t dramBytes() const override { return config_.dramBytes(); }

  bool runUntilInterrupt(uint64_t maxCycles) override {
    StatsScope s(stats_, cycleFn());
    return device_.runUntilInterrupt(maxCycles);
  }

  uint64_t cycle() const override { return device_.cycle(); }
  void hardReset() override { device_.hardReset(); }
  BackendStats stats() const override { return stats_; }

 private:
  hw::HwConfig config_;
  approx::ApproxDevice device_;
  BackendStats stats_;
};

}  // namespace

std::unique_ptr<IDeviceBackend> makeApproxBackend(const hw::HwConfig& config, const BackendOptions& options) {
  if (!options.tracePath.empty()) {
    throw std::invalid_argument("waveform tracing (tracePath) needs the rtl backend; the approx backend has no signals to trace");
  }
  return std::make_unique<ApproxBackend>(config);
}

}  // namespace weft::sim
