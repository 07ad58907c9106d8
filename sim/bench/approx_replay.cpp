// approx_replay: runs a WEFT_APPROX_CAPTURE log (a driver's calls to the approx backend: DRAM
// writes, register accesses, runs) against a backend, timing only the device calls, and prints
// the cycles, the time, the rate and a checksum of everything the driver read back (which two
// backends must agree on). A benchmark and a profiling harness for the model, not a test.
//
//   WEFT_APPROX_CAPTURE=layer.cap weft --backend approx layers set.json   # make a log
//   approx_replay layer.cap [--backend approx|rtl] [--repeat N]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "approx/capture.h"
#include "weft/sim/backend.h"

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
  uint64_t checksum = 1469598103934665603ull;  // FNV-1a of every byte read back
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
        for (uint8_t b : buffer) r.checksum = (r.checksum ^ b) * 1099511628211ull;
        continue;
      case approx::CaptureOp::kWriteReg: device->writeReg(static_cast<uint32_t>(rec.a), static_cast<uint32_t>(rec.b)); break;
      case approx::CaptureOp::kReadReg: {
        const uint32_t v = device->readReg(static_cast<uint32_t>(rec.a));
        r.checksum = (r.checksum ^ v) * 1099511628211ull;
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

int run(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: approx_replay <capture> [--backend approx|rtl] [--repeat N]\n");
    return 2;
  }
  BackendKind kind = BackendKind::kApprox;
  int repeat = 1;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--backend") == 0) kind = parseBackendKind(argv[i + 1]);
    if (std::strcmp(argv[i], "--repeat") == 0) repeat = std::max(1, std::atoi(argv[i + 1]));
  }
  if (kind == BackendKind::kRtl) repeat = 1;  // one RTL design per process
  const approx::Capture capture = approx::readCapture(argv[1]);
  std::vector<Result> results;
  for (int i = 0; i < repeat; ++i) results.push_back(replay(capture, kind));
  std::sort(results.begin(), results.end(), [](const Result& a, const Result& b) { return a.cpuSeconds < b.cpuSeconds; });
  const Result& m = results[results.size() / 2];
  const Result& best = results.front();
  fmt::print("{}: {} cycles in {:.3f} ms of device calls, {:.3f} ms CPU (median of {} by CPU) = {:.1f} M cycles/CPU-s; "
             "best {:.3f} ms CPU; read-back checksum {:016x}\n",
             std::string(toString(kind)), m.cycles, 1e3 * m.seconds, 1e3 * m.cpuSeconds, results.size(),
             m.cycles / m.cpuSeconds / 1e6, 1e3 * best.cpuSeconds, m.checksum);
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
