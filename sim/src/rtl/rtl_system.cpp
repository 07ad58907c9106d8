#include "rtl/rtl_system.h"

#include "weft/sim/rtl_stepper.h"

namespace weft::sim {
namespace {

// RtlStepper already has the harness's shape; this only names it ClockedDevice.
class StepperDevice final : public ClockedDevice {
 public:
  StepperDevice(const hw::HwConfig& config, IDramPort& dram, const RtlStepperOptions& options)
      : stepper_(config, dram, options) {}
  uint64_t cycle() const override { return stepper_.cycle(); }
  uint64_t run(uint64_t maxCycles) override { return stepper_.run(maxCycles); }
  void step(uint64_t cycles) override { stepper_.step(cycles); }
  bool irq() const override { return stepper_.irq(); }
  uint32_t readReg(uint32_t addr) override { return stepper_.readReg(addr); }
  void writeReg(uint32_t addr, uint32_t value) override { stepper_.writeReg(addr, value); }
  void reset() override { stepper_.reset(); }
  CommandLog* commandLog() override { return &stepper_.commandLog(); }

 private:
  RtlStepper stepper_;
};

ClockedDeviceFactory stepperFactory(const hw::HwConfig& config, const BackendOptions& options) {
  RtlStepperOptions o;
  o.tracePath = options.tracePath;
  o.traceDepth = options.traceDepth;
  return [config, o](IDramPort& dram) { return std::make_unique<StepperDevice>(config, dram, o); };
}

}  // namespace

RtlSystem::RtlSystem(const hw::HwConfig& config, const BackendOptions& options)
    : rtlKey_(config.rtlKey()),
      dram_(std::make_unique<DramStorage>(config.dramBytes())),
      dramModel_(*dram_, DramTiming::fromConfig(config)),
      irq_("irq"),
      dramTarget_("dram", dramModel_, clock_),
      harness_("weft", stepperFactory(config, options), clock_, kQuantumCycles),
      host_("host", harness_) {
  clock_.rebase(sc_core::SC_ZERO_TIME, harness_.device().cycle(), ClockMap::periodOf(config.clockMHz()));
  dramModel_.setCycleOrigin(harness_.device().cycle());  // the backend's cycle 0
  harness_.dramSocket.bind(dramTarget_.socket);
  host_.socket.bind(harness_.regSocket);
  harness_.irq_o(irq_);
  host_.irq_i(irq_);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // end of elaboration
}

void RtlSystem::detach() { harness_.detach(); }

void RtlSystem::attach(const hw::HwConfig& config, const BackendOptions& options) {
  dram_ = std::make_unique<DramStorage>(config.dramBytes());
  dramModel_.setStorage(*dram_);
  dramModel_.setTiming(DramTiming::fromConfig(config));
  dramModel_.reset();
  harness_.attach(stepperFactory(config, options));
  // The new model's cycle 0 starts now in simulated time.
  clock_.rebase(sc_core::sc_time_stamp(), device().cycle(), ClockMap::periodOf(config.clockMHz()));
  dramModel_.setCycleOrigin(device().cycle());  // the backend's cycle 0
}

}  // namespace weft::sim
