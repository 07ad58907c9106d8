// Timing and profiling (DESIGN.md "Timing"):
//   ON_HARDWARE = BUSY cycles of the execution x clock period.
//   IN_DRIVER   = host time of the driver's code (time inside backend calls, i.e. the
//                 simulator, excluded) + RegAccessNs per register access + IrqLatencyNs per
//                 interrupt + ON_HARDWARE; never less than ON_HARDWARE.
// Per operation, the counter deltas between the snapshot barriers around it.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "DeviceQueue.h"
#include "ModelCompiler.h"
#include "weft/hal/IPreparedModel.h"

namespace weft::accel {

struct SnapshotRecord {
  uint64_t tag = 0;
  std::array<uint64_t, hw::kNumCounters> counters{};
  // A cycle-level DRAM's counters (cumulative, DRAM_*) when the record was written: the DRAM
  // lives beside the device, not in its counters (sim::DramCheckpoint). Empty for the simple pipe.
  std::vector<std::pair<std::string, uint64_t>> dram;
  uint64_t operator[](hw::Counter c) const { return counters[static_cast<size_t>(c)]; }
};

// The 1 + operations records a program wrote.
std::vector<SnapshotRecord> readSnapshots(sim::IDeviceBackend& backend, const CompiledModel& model);

struct ExecutionMeasurements {
  SubmissionReport submission;
  std::chrono::nanoseconds wallTime{0};  // of the whole execution in the driver
  std::vector<std::chrono::nanoseconds> copyTime;  // host copies attributed to each operation
  sim::BackendStats statsBefore, statsAfter;
};

// Builds the profile; the durations it holds are those of makeTiming.
hal::ExecutionProfile makeProfile(const CompiledModel& model, const std::vector<SnapshotRecord>& snapshots,
                                  const ExecutionMeasurements& m, const hw::HwConfig& config,
                                  const std::string& backendName);

// NNAPI's Timing from the profile's parts (kNoTiming for both when not measured).
nn::Timing makeTiming(const hal::ExecutionProfile& profile, nn::MeasureTiming measure);

}  // namespace weft::accel
