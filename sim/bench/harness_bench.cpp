// harness_bench: simulated cycles per second of the RTL in the SystemC harness against a bare
// loop over the same verilated model, and of the approx backend, on one long GEMM-streaming
// command program, at each configuration given (default weft16 and weft8).
//
//   harness_bench [--tiles N] [--rows N] [--repeats N] [config ...]
//
// "bare" is RtlStepper::run() alone with the DRAM model as its port (the configuration's DRAM,
// the cycle-level one too, on the same cycle origin): no SystemC. "harness" is
// the rtl backend: the SystemC harness (TLM register and DRAM sockets, quantum keeper) driven
// through IDeviceBackend. Both run the identical program and must take the identical number of
// cycles. SystemC elaborates one design per process, so each measurement runs in a child
// process; the median of the repeats is reported. Rates are per second of process CPU time
// (all threads: the rtl backend runs SystemC on its own thread), which a machine shared with
// other jobs distorts far less than wall time; the wall-time ratios are printed too.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "weft/common/process.h"
#include "weft/sim/backend.h"
#include "weft/sim/dram_model.h"
#include "weft/sim/rtl_stepper.h"
#include "weft/sim/testing/programs.h"
#include "weft/sim/testing/ring_driver.h"

namespace weft::sim {
namespace {

// The bare loop as an IDeviceBackend, so that the same ring driver feeds it the program.
class BareRtl final : public IDeviceBackend {
 public:
  explicit BareRtl(const hw::HwConfig& config)
      : config_(config), storage_(config.dramBytes()), dram_(storage_, DramTiming::fromConfig(config)),
        stepper_(config, dram_) {
    dram_.setCycleOrigin(stepper_.cycle());  // after the reset, as RtlSystem does
  }
  BackendKind kind() const override { return BackendKind::kRtl; }
  const hw::HwConfig& config() const override { return config_; }
  uint32_t readReg(uint32_t addr) override { return stepper_.readReg(addr); }
  void writeReg(uint32_t addr, uint32_t value) override { stepper_.writeReg(addr, value); }
  void writeDram(uint64_t addr, const void* src, size_t bytes) override { storage_.write(addr, src, bytes); }
  void readDram(uint64_t addr, void* dst, size_t bytes) override { storage_.read(addr, dst, bytes); }
  uint64_t dramBytes() const override { return storage_.size(); }
  bool runUntilInterrupt(uint64_t maxCycles) override {
    stepper_.run(maxCycles);
    // The end of a program: a cycle-level DRAM writes its posted writes (as the rtl backend does).
    if (stepper_.irq()) dram_.endProgram(stepper_.cycle());
    return stepper_.irq();
  }
  uint64_t cycle() const override { return stepper_.cycle(); }
  void hardReset() override { stepper_.reset(); }
  BackendStats stats() const override { return {}; }

 private:
  hw::HwConfig config_;
  DramStorage storage_;
  DramModel dram_;
  RtlStepper stepper_;
};

struct Measurement {
  uint64_t cycles = 0;
  double cpuSeconds = 0, wallSeconds = 0;
  double rate() const { return cpuSeconds > 0 ? cycles / cpuSeconds : 0; }
  double wallRate() const { return wallSeconds > 0 ? cycles / wallSeconds : 0; }
};

double processCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

enum class Mode { kBare, kHarness, kApprox };

// Runs the program to its interrupt; measures the run only (not setup or the program upload).
Measurement measure(Mode mode, const hw::HwConfig& config, const testing::Program& program) {
  std::unique_ptr<IDeviceBackend> device;
  switch (mode) {
    case Mode::kBare: device = std::make_unique<BareRtl>(config); break;
    case Mode::kHarness: device = createBackend(BackendKind::kRtl, config); break;
    case Mode::kApprox: device = createBackend(BackendKind::kApprox, config); break;
  }
  testing::ProgramLayout layout;
  testing::RingDriver ring(*device, layout.ringBase, layout.ringSize);
  ring.init();
  testing::writeInputs(*device, program);
  ring.submit(program.commands);
  const uint64_t c0 = device->cycle();
  const double cpu0 = processCpuSeconds();
  const auto t0 = std::chrono::steady_clock::now();
  const bool irq = device->runUntilInterrupt(uint64_t{1} << 40);
  const auto t1 = std::chrono::steady_clock::now();
  const double cpu1 = processCpuSeconds();
  if (!irq) throw std::runtime_error("the program did not finish");
  return {device->cycle() - c0, cpu1 - cpu0, std::chrono::duration<double>(t1 - t0).count()};
}

// Runs measure() in a child process (a fresh SystemC elaboration each time).
Measurement measureInChild(Mode mode, const hw::HwConfig& config, const testing::Program& program) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    close(fds[0]);
    int rc = 0;
    Measurement m;
    try {
      m = measure(mode, config, program);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "harness_bench: %s\n", e.what());
      rc = 1;
    }
    if (write(fds[1], &m, sizeof(m)) != static_cast<ssize_t>(sizeof(m))) rc = 1;
    std::fflush(nullptr);
    _exit(rc);  // no static destructors: the SystemC design lives until the process ends
  }
  close(fds[1]);
  Measurement m;
  const bool got = read(fds[0], &m, sizeof(m)) == static_cast<ssize_t>(sizeof(m));
  close(fds[0]);
  const common::ChildResult r = common::waitChild(pid, "the measurement");
  if (!got || r.exitCode != 0) throw std::runtime_error("measurement failed");
  return m;
}

Measurement median(std::vector<Measurement> v) {
  std::sort(v.begin(), v.end(), [](const Measurement& a, const Measurement& b) { return a.rate() < b.rate(); });
  return v[v.size() / 2];
}

int run(int argc, char** argv) {
  unsigned tiles = 200, rows = 256, repeats = 3;
  std::vector<std::string> configs;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return static_cast<unsigned>(std::stoul(argv[++i]));
    };
    if (a == "--tiles") tiles = value();
    else if (a == "--rows") rows = value();
    else if (a == "--repeats") repeats = std::max(1u, value());
    else if (a.rfind("--", 0) == 0) throw std::invalid_argument("unknown option " + a + "; accepted: --tiles, --rows, --repeats");
    else configs.push_back(a);
  }
  if (configs.empty()) configs = {"weft16", "weft8"};

  std::printf("harness_bench: GEMM stream of %u tiles x %u rows, median of %u runs each\n", tiles, rows, repeats);
  std::printf("%-8s %10s %12s %12s %9s %12s %10s\n", "config", "cycles", "bare c/s", "harness c/s",
              "h/bare", "approx c/s", "approx/h");
  for (const auto& name : configs) {
    const auto config = hw::HwConfig::load(name);
    const auto program = testing::gemmStreamProgram(config, tiles, rows);
    std::vector<Measurement> bare, harness, approx;
    for (unsigned r = 0; r < repeats; ++r) {
      bare.push_back(measureInChild(Mode::kBare, config, program));
      harness.push_back(measureInChild(Mode::kHarness, config, program));
      approx.push_back(measure(Mode::kApprox, config, program));
    }
    const Measurement b = median(bare), h = median(harness), a = median(approx);
    std::printf("%-8s %10llu %12.4g %12.4g %8.3fx %12.4g %9.0fx\n", name.c_str(),
                static_cast<unsigned long long>(h.cycles), b.rate(), h.rate(), h.rate() / b.rate(),
                a.rate(), a.rate() / h.rate());
    std::printf("  wall time: bare %.4g c/s, harness %.4g c/s (%.3fx), approx %.4g c/s (%.0fx)\n", b.wallRate(),
                h.wallRate(), h.wallRate() / b.wallRate(), a.wallRate(), a.wallRate() / h.wallRate());
    if (b.cycles != h.cycles) {
      std::printf("  warning: bare loop took %llu cycles, the harness %llu: they must agree\n",
                  static_cast<unsigned long long>(b.cycles), static_cast<unsigned long long>(h.cycles));
    }
    std::printf("  approx: %llu cycles (%+.2f %% against the RTL)\n", static_cast<unsigned long long>(a.cycles),
                100.0 * (static_cast<double>(a.cycles) - h.cycles) / h.cycles);
  }
  return 0;
}

}  // namespace
}  // namespace weft::sim

int main(int argc, char** argv) {
  try {
    return weft::sim::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "harness_bench: %s\n", e.what());
    return 1;
  }
}
