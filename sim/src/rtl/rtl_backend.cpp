// The `rtl` backend: the verilated weft_top in the SystemC harness, driven through the host
// port. Every call runs on the process's simulation thread (SimulationThread), so callers may
// use any thread. SystemC elaborates one design per process: the first rtl backend elaborates
// it for its configuration's RTL build; later backends of the same build get a fresh model of
// it in that design (new verilated model, empty DRAM, their clock, DRAM timing and waveform),
// one at a time. Destroying a backend releases its model, which completes its waveform.
#include <fmt/format.h>

#include <atomic>
#include <mutex>
#include <cstdlib>
#include <stdexcept>

#include "backends.h"
#include "rtl/plugin_builder.h"
#include "rtl/rtl_system.h"
#include "rtl/simulation_thread.h"
#include "weft/sim/rtl_stepper.h"

namespace weft::sim {
namespace {

// The process's design. `system` is only touched on the simulation thread; the rest, which
// createBackend checks before going there, under `mutex`.
struct ProcessDesign {
  std::mutex mutex;
  std::string rtlKey;     // of the elaborated design; empty before
  bool attached = false;  // a backend exists
  std::unique_ptr<RtlSystem> system;  // never destroyed: SystemC cannot elaborate again
};

ProcessDesign& design() {
  static ProcessDesign* d = new ProcessDesign;
  return *d;
}

class RtlBackend final : public IDeviceBackend {
 public:
  RtlBackend(const hw::HwConfig& config, RtlSystem& system)
      : config_(config), system_(system), base_(system.device().cycle()) {}

  ~RtlBackend() override {
    try {
      SimulationThread::instance().run([this] { system_.detach(); });
    } catch (...) {
    }
    std::lock_guard<std::mutex> lock(design().mutex);
    design().attached = false;
  }

  BackendKind kind() const override { return BackendKind::kRtl; }
  const hw::HwConfig& config() const override { return config_; }

  uint32_t readReg(uint32_t addr) override {
    uint32_t v = 0;
    simulate([&] { v = system_.host().readReg(addr); });
    return v;
  }
  void writeReg(uint32_t addr, uint32_t value) override {
    simulate([&] { system_.host().writeReg(addr, value); });
  }
  bool runUntilInterrupt(uint64_t maxCycles) override {
    bool irq = false;
    simulate([&] {
      irq = system_.host().runUntilInterrupt(maxCycles);
      // The end of a program: a cycle-level DRAM writes its posted writes (as approx does).
      if (irq) system_.dramModel().endProgram(system_.device().cycle());
    });
    return irq;
  }
  void hardReset() override {
    simulate([&] { system_.host().hardReset(); });
  }

  void writeDram(uint64_t addr, const void* src, size_t bytes) override {
    checkDram(addr, bytes);
    SimulationThread::instance().run([&] { system_.dram().write(addr, src, bytes); });
  }
  void readDram(uint64_t addr, void* dst, size_t bytes) override {
    checkDram(addr, bytes);
    SimulationThread::instance().run([&] { system_.dram().read(addr, dst, bytes); });
  }
  uint64_t dramBytes() const override { return config_.dramBytes(); }

  uint64_t cycle() const override { return cycle_.load(); }
  BackendStats stats() const override {
    std::lock_guard<std::mutex> lock(statsMutex_);
    return stats_;
  }

  void recordCommands(bool on) override {
    SimulationThread::instance().run([&] {
      if (CommandLog* log = system_.device().commandLog()) log->enable(on);
      if (CycleDram* d = system_.dramModel().cycleDram()) d->recordCommands(on);
    });
  }
  std::vector<CommandEvent> takeCommandEvents() override {
    std::vector<CommandEvent> events;
    SimulationThread::instance().run([&] {
      if (CommandLog* log = system_.device().commandLog()) events = log->take();
    });
    // The device counts cycles since its model was created; the backend since it was.
    for (CommandEvent& e : events) {
      for (uint64_t* c : {&e.decode, &e.dispatch, &e.start, &e.complete}) {
        if (*c != kNoCycle) *c -= base_;
      }
    }
    return events;
  }
  bool dramActivity(DramActivity& out) override {
    bool have = false;
    SimulationThread::instance().run([&] { have = system_.dramModel().activity(out); });
    return have;
  }
  void watchDramSnapshots(uint64_t base, uint64_t bytes) override {
    SimulationThread::instance().run([&] {
      if (CycleDram* d = system_.dramModel().cycleDram()) d->watchSnapshots(base, bytes);
    });
  }
  std::vector<DramCheckpoint> takeDramCheckpoints() override {
    std::vector<DramCheckpoint> out;
    SimulationThread::instance().run([&] {
      if (CycleDram* d = system_.dramModel().cycleDram()) out = d->takeCheckpoints();
    });
    return out;
  }
  void recordDramTrace(bool on) override {
    SimulationThread::instance().run([&] {
      if (CycleDram* d = system_.dramModel().cycleDram()) d->recordTrace(on);
    });
  }
  std::vector<CycleDram::TraceLine> takeDramTrace() override {
    std::vector<CycleDram::TraceLine> out;
    SimulationThread::instance().run([&] {
      if (CycleDram* d = system_.dramModel().cycleDram()) out.swap(d->trace());
    });
    return out;
  }
  // DRAM cycle 0 is the backend's cycle 0 (RtlSystem sets the origin): no rebasing.
  std::vector<DramCommandEvent> takeDramCommands() override {
    std::vector<DramCommandEvent> out;
    SimulationThread::instance().run([&] {
      if (CycleDram* d = system_.dramModel().cycleDram()) out = d->takeCommands();
    });
    return out;
  }
  std::vector<DramEvent> takeDramEvents() override {
    std::vector<DramEvent> events;
    SimulationThread::instance().run([&] {
      if (CommandLog* log = system_.device().commandLog()) events = log->takeDram();
    });
    for (DramEvent& e : events) {
      e.issue -= base_;
      e.done -= base_;
    }
    return events;
  }

 private:
  // Bounds, checked on the caller's thread: the simulation thread never unwinds an exception
  // (SystemC's coroutines share it, and AddressSanitizer loses track of its stack).
  void checkDram(uint64_t addr, size_t bytes) const {
    const uint64_t size = config_.dramBytes();
    if (addr > size || bytes > size - addr) {
      throw std::out_of_range(fmt::format("DRAM access [{:#x}, +{}) outside the {} MiB device memory", addr, bytes,
                                          size >> 20));
    }
  }

  // Runs a host-port operation on the simulation thread, accounting its wall time and cycles.
  // Its error is thrown here, on the caller's thread: never inside the simulation.
  void simulate(const std::function<void()>& op) {
    BackendStats delta;
    std::exception_ptr error;
    {
      StatsScope scope(delta, [this] { return cycle_.load(); });
      SimulationThread::instance().run([&] {
        error = system_.host().call(op);
        cycle_.store(system_.device().cycle() - base_);
      });
    }
    {
      std::lock_guard<std::mutex> lock(statsMutex_);
      stats_.wallSeconds += delta.wallSeconds;
      stats_.cyclesSimulated += delta.cyclesSimulated;
    }
    if (error) std::rethrow_exception(error);
  }

  hw::HwConfig config_;
  RtlSystem& system_;
  uint64_t base_;
  std::atomic<uint64_t> cycle_{0};
  mutable std::mutex statsMutex_;
  BackendStats stats_;
};

}  // namespace

std::unique_ptr<IDeviceBackend> makeRtlBackend(const hw::HwConfig& config, const BackendOptions& options) {
  // Builds the configuration's model first when no build of it exists; fails with the paths
  // searched and the build log when that is impossible.
  loadOrBuildRtlPlugin(config, !options.tracePath.empty());
  ProcessDesign& d = design();
  std::lock_guard<std::mutex> lock(d.mutex);
  if (!d.rtlKey.empty() && d.rtlKey != config.rtlKey()) {
    throw std::runtime_error(fmt::format(
        "this process already simulates the RTL build {}; SystemC elaborates one design per "
        "process, so configuration '{}' ({}) needs a process of its own",
        d.rtlKey, config.name(), config.rtlKey()));
  }
  if (d.attached) {
    throw std::runtime_error(
        "an rtl backend already exists in this process (SystemC holds one device per "
        "process); destroy it before creating another");
  }
  std::unique_ptr<IDeviceBackend> backend;
  SimulationThread::instance().run([&] {
    if (!d.system) {
      setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 0);
      d.system = std::make_unique<RtlSystem>(config, options);
    } else {
      d.system->attach(config, options);
    }
    backend = std::make_unique<RtlBackend>(config, *d.system);
  });
  d.rtlKey = config.rtlKey();
  d.attached = true;
  return backend;
}

}  // namespace weft::sim
