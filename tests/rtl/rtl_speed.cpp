// Simulation speed of the RTL through the stepper (not a test): cycles per second while the
// array streams back-to-back GEMMs, and while the device is idle.
//   rtl_speed [config] [gemms]
#include <chrono>
#include <ctime>
#include <cstdio>
#include <string>

#include "rtl_device.h"
#include "session.h"

using namespace weft;
using namespace weft::rtltest;

int main(int argc, char** argv) {
  const std::string config = argc > 1 ? argv[1] : "weft16";
  const int gemms = argc > 2 ? std::stoi(argv[2]) : 400;
  RtlDevice dev(config);
  const unsigned R = dev.rows(), C = dev.cols();
  const uint32_t m = 1024 < dev.config().accRows() / 2 ? 1024 : dev.config().accRows() / 2;
  dev.initRing();
  std::vector<hw::CommandWord> cmds;
  cmds.push_back(Session::load(hw::Mem::kIn, 0, 0x100000, R, m).encode());
  cmds.push_back(Session::load(hw::Mem::kW, 0, 0x200000, C, 2 * R, tokens(false, false, false, true)).encode());
  for (int i = 0; i < 8; ++i) dev.dram().at(0x100000)[i * 37] = static_cast<uint8_t>(i + 1);
  if (dev.run(cmds) != 0) {
  }
  // GEMMs alternating two weight tiles (so every one preloads) into two accumulator halves.
  int left = gemms;
  uint64_t cycles = 0;
  double seconds = 0, cpu = 0;  // wall and process CPU time (the machine may be shared)
  uint64_t rowsBefore = dev.stepper().readCounter(hw::Counter::kArrayRows);
  bool first = true;
  while (left > 0) {
    cmds.clear();
    const int batch = std::min(left, 40);
    for (int i = 0; i < batch; ++i) {
      hw::GemmCmd g;
      g.header = tokens(first && i == 0, false, false, false);
      g.kRows = R;
      g.wAddr = (i % 2) * R;
      g.mRows = m;
      g.accAddr = (i % 2) * m;
      g.inAddr = 0;
      cmds.push_back(g.encode());
    }
    first = false;
    cmds.push_back(barrier(true));
    dev.place(cmds);
    dev.ring();
    const uint64_t c0 = dev.stepper().cycle();
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t k0 = std::clock();
    dev.stepper().run(100'000'000);
    cpu += static_cast<double>(std::clock() - k0) / CLOCKS_PER_SEC;
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    cycles += dev.stepper().cycle() - c0;
    dev.waitIrq(1);
    left -= batch;
  }
  const uint64_t rows = dev.stepper().readCounter(hw::Counter::kArrayRows) - rowsBefore;
  std::printf("%s: %d GEMMs of %u rows: %llu cycles (%.4f cycles per row): %.0f cycles/s wall, "
              "%.0f cycles/s CPU\n",
              config.c_str(), gemms, m, static_cast<unsigned long long>(cycles),
              static_cast<double>(cycles) / static_cast<double>(rows), cycles / seconds, cycles / cpu);
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t k0 = std::clock();
  dev.stepper().step(2'000'000);
  const double idleCpu = static_cast<double>(std::clock() - k0) / CLOCKS_PER_SEC;
  const double idle = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s: idle: %.0f cycles/s wall, %.0f cycles/s CPU\n", config.c_str(), 2e6 / idle, 2e6 / idleCpu);
  return 0;
}
