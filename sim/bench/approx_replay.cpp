// approx_replay: runs a WEFT_APPROX_CAPTURE log (a driver's calls to the approx backend: DRAM
// writes, register accesses, runs) against a backend, timing only the device calls, and prints
// the cycles, the time, the rate and a checksum of everything the driver read back (which two
// backends must agree on). A benchmark and a profiling harness for the model, not a test.
// With --lockstep STEP it replays the log on the RTL and the model side by side instead,
// comparing STATUS and every counter every STEP cycles, and names the first that differs.
//
//   WEFT_APPROX_CAPTURE=layer.cap weft --backend approx layers set.json   # make a log
//   approx_replay layer.cap [--backend approx|rtl] [--repeat N]
//   approx_replay layer.cap --lockstep 1
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <ctime>
#include <string>
#include <vector>

#include "approx/capture.h"
#include "weft/common/fnv1a.h"
#include "weft/sim/backend.h"
#include "weft/sim/testing/lockstep.h"

namespace weft::sim {
namespace {

double threadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Result {
  uint64_t cycles = 0;
  double seconds = 0, cpuSeconds = 0;  // wall and this thread's CPU time in device calls
  common::Fnv1a checksum{common::kFnv1aTruncatedBasis};  // of every byte and register read back
};

Result replay(const approx::Capture& c, BackendKind kind) {
  const auto config = hw::HwConfig::fromJson(c.configJson, "capture");
  auto device = createBackend(kind, config);
  Result r;
  std::vector<uint8_t> buffer;
  const uint64_t c0 = device->cycle();
  for (const auto& rec : c.records) {
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = threadCpuSeconds();
    switch (rec.op) {
      case approx::CaptureOp::kWriteDram: device->writeDram(rec.a, rec.data.data(), rec.data.size()); continue;
      case approx::CaptureOp::kReadDram:
        buffer.resize(rec.b);
        device->readDram(rec.a, buffer.data(), rec.b);
        for (uint8_t b : buffer) r.checksum.byte(b);
        continue;
      case approx::CaptureOp::kWriteReg: device->writeReg(static_cast<uint32_t>(rec.a), static_cast<uint32_t>(rec.b)); break;
      case approx::CaptureOp::kReadReg: {
        const uint32_t v = device->readReg(static_cast<uint32_t>(rec.a));
        r.checksum.word(v);
        break;
      }
      case approx::CaptureOp::kRun: device->runUntilInterrupt(rec.a); break;
      case approx::CaptureOp::kHardReset: device->hardReset(); break;
    }
    r.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.cpuSeconds += threadCpuSeconds() - cpu0;
  }
  r.cycles = device->cycle() - c0;
  return r;
}

// The log on the RTL and the model side by side; 0 when they agree after every step.
int lockstep(const approx::Capture& c, uint64_t step) {
  const auto config = hw::HwConfig::fromJson(c.configJson, "capture");
  auto rtl = createBackend(BackendKind::kRtl, config);
  auto model = createBackend(BackendKind::kApprox, config);
  std::vector<uint8_t> a, b;
  uint64_t steps = 0;
  for (const auto& rec : c.records) {
    switch (rec.op) {
      case approx::CaptureOp::kWriteDram:
        rtl->writeDram(rec.a, rec.data.data(), rec.data.size());
        model->writeDram(rec.a, rec.data.data(), rec.data.size());
        break;
      case approx::CaptureOp::kReadDram:
        a.resize(rec.b);
        b.resize(rec.b);
        rtl->readDram(rec.a, a.data(), rec.b);
        model->readDram(rec.a, b.data(), rec.b);
        if (a != b) {
          fmt::print("cycle {}: DRAM [{:#x}, +{}) differs\n", rtl->cycle(), rec.a, rec.b);
          return 1;
        }
        break;
      case approx::CaptureOp::kWriteReg:
        rtl->writeReg(static_cast<uint32_t>(rec.a), static_cast<uint32_t>(rec.b));
        model->writeReg(static_cast<uint32_t>(rec.a), static_cast<uint32_t>(rec.b));
        break;
      case approx::CaptureOp::kReadReg: {
        const uint32_t x = rtl->readReg(static_cast<uint32_t>(rec.a)), y = model->readReg(static_cast<uint32_t>(rec.a));
        if (x != y) {
          fmt::print("cycle {}: register {:#x} reads {} vs {}\n", rtl->cycle(), rec.a, x, y);
          return 1;
        }
        break;
      }
      case approx::CaptureOp::kRun: {
        const testing::LockstepResult r = testing::runInLockstep(*rtl, *model, step, rec.a);
        steps += r.steps;
        if (r.divergence) {
          fmt::print("rtl vs approx: {}\n", r.divergence->describe());
          return 1;
        }
        break;
      }
      case approx::CaptureOp::kHardReset:
        rtl->hardReset();
        model->hardReset();
        break;
    }
  }
  fmt::print("rtl and approx agree: {} cycles, STATUS and every counter compared after each of {} steps\n",
             rtl->cycle(), steps);
  return 0;
}

int run(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: approx_replay <capture> [--backend approx|rtl] [--repeat N] [--lockstep STEP]\n");
    return 2;
  }
  BackendKind kind = BackendKind::kApprox;
  int repeat = 1;
  uint64_t lockstepCycles = 0;
  for (int i = 2; i < argc; i += 2) {
    if (i + 1 >= argc) throw std::invalid_argument(fmt::format("{} needs a value", argv[i]));
    if (std::strcmp(argv[i], "--backend") == 0) {
      kind = parseBackendKind(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--repeat") == 0) {
      repeat = std::max(1, std::atoi(argv[i + 1]));
    } else if (std::strcmp(argv[i], "--lockstep") == 0) {
      lockstepCycles = std::strtoull(argv[i + 1], nullptr, 10);
      if (lockstepCycles == 0) throw std::invalid_argument("--lockstep needs a step of at least one cycle");
    } else {
      throw std::invalid_argument(fmt::format("unknown option '{}'", argv[i]));
    }
  }
  if (kind == BackendKind::kRtl) repeat = 1;  // one RTL design per process
  const approx::Capture capture = approx::readCapture(argv[1]);
  if (lockstepCycles > 0) return lockstep(capture, lockstepCycles);
  std::vector<Result> results;
  for (int i = 0; i < repeat; ++i) results.push_back(replay(capture, kind));
  std::sort(results.begin(), results.end(), [](const Result& a, const Result& b) { return a.cpuSeconds < b.cpuSeconds; });
  const Result& m = results[results.size() / 2];
  const Result& best = results.front();
  fmt::print("{}: {} cycles in {:.3f} ms of device calls, {:.3f} ms CPU (median of {} by CPU) = {:.1f} M cycles/CPU-s; "
             "best {:.3f} ms CPU; read-back checksum {:016x}\n",
             std::string(toString(kind)), m.cycles, 1e3 * m.seconds, 1e3 * m.cpuSeconds, results.size(),
             m.cycles / m.cpuSeconds / 1e6, 1e3 * best.cpuSeconds, m.checksum.value());
  return 0;
}

}  // namespace
}  // namespace weft::sim

int main(int argc, char** argv) {
  try {
    return weft::sim::run(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "approx_replay: {}\n", e.what());
    return 1;
  }
}
