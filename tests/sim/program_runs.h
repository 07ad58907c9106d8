// Programs run back to back on one device through one ring, each to its interrupt: what the rtl
// tests compare the backends by (rtl_backend_test, rtl_cycle_dram_test, rtl_on_demand_test).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "weft/sim/backend.h"
#include "weft/sim/functional_model.h"
#include "weft/sim/testing/programs.h"
#include "weft/sim/testing/ring_driver.h"

namespace weft::sim {

struct ProgramRuns {
  std::vector<uint64_t> cycles;  // each program's, from its submission to its interrupt
  std::vector<std::vector<uint8_t>> outputs;
  std::vector<CounterValues> counters;  // each program's snapshot of the counters
  DramActivity dram;                    // a cycle-level DRAM's, after the last program
  bool haveDram = false;                // whether the device has a cycle-level DRAM
};

// Each program's inputs written, then the program submitted and run until its interrupt, which
// must say done within `budget` cycles.
inline ProgramRuns runPrograms(IDeviceBackend& device, const std::vector<testing::Program>& programs,
                               uint64_t budget) {
  testing::ProgramLayout layout;
  testing::RingDriver ring(device, layout.ringBase, layout.ringSize);
  ring.init();
  ProgramRuns r;
  for (const auto& p : programs) {
    testing::writeInputs(device, p);
    const uint64_t start = device.cycle();
    ring.submit(p.commands);
    EXPECT_EQ(ring.runToInterrupt(budget), hw::reg::kIrqStatusDoneMask) << "tag " << p.tag;
    r.cycles.push_back(device.cycle() - start);
    r.outputs.push_back(testing::deviceOutputs(device, p));
    CounterValues v;
    device.readDram(p.snapshotAddr + 8, v.data(), sizeof(v));
    r.counters.push_back(v);
  }
  r.haveDram = device.dramActivity(r.dram);
  return r;
}

}  // namespace weft::sim
