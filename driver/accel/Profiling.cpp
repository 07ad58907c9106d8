#include "Profiling.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace weft::accel {
namespace {

uint64_t cyclesToNs(uint64_t cycles, const hw::HwConfig& config) {
  return static_cast<uint64_t>(std::llround(static_cast<double>(cycles) * config.cyclePeriodNs()));
}

}  // namespace

std::vector<SnapshotRecord> readSnapshots(sim::IDeviceBackend& backend, const CompiledModel& model) {
  const size_t n = model.operations.size() + 1;
  std::vector<uint8_t> bytes(n * hw::kSnapshotBytes);
  backend.readDram(model.snapshots->addr(), bytes.data(), bytes.size());
  std::vector<SnapshotRecord> records(n);
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* p = &bytes[i * hw::kSnapshotBytes];
    std::memcpy(&records[i].tag, p, 8);
    std::memcpy(records[i].counters.data(), p + 8, 8 * hw::kNumCounters);
  }
  for (sim::DramCheckpoint& c : backend.takeDramCheckpoints()) {
    if (c.record < n) records[c.record].dram = std::move(c.counters);
  }
  return records;
}

hal::ExecutionProfile makeProfile(const CompiledModel& model, const std::vector<SnapshotRecord>& snaps,
                                  const ExecutionMeasurements& m, const hw::HwConfig& config,
                                  const std::string& backendName) {
  hal::ExecutionProfile p;
  p.device = "weft-accel";
  p.backend = backendName;
  p.simulatorWallSeconds = m.statsAfter.wallSeconds - m.statsBefore.wallSeconds;
  p.simulatedCycles = m.statsAfter.cyclesSimulated - m.statsBefore.cyclesSimulated;
  uint64_t opCycles = 0;
  size_t since = 0;  // the snapshot before the operation (a run of overlapped ones: before the run)
  for (size_t i = 0; i < model.operations.size(); ++i) {
    const CompiledOperation& op = model.operations[i];
    // An operation overlapped with the next has no snapshot of its own: the run's figures all go
    // to its last operation (zeros here; the report sums an operation's layers).
    const SnapshotRecord& before = snaps[since];
    const SnapshotRecord& after = op.snapshotAfter ? snaps[i + 1] : snaps[since];
    if (op.snapshotAfter) since = i + 1;
    hal::OperationProfile o;
    o.operationIndex = op.operationIndex;
    o.type = op.type;
    o.cycles = after[hw::Counter::kBusy] - before[hw::Counter::kBusy];
    o.onHardwareNs = cyclesToNs(o.cycles, config);
    o.inDriverNs = o.onHardwareNs + static_cast<uint64_t>(m.copyTime[i].count());
    o.macs = op.macs;
    o.unit = op.unit == hw::Unit::kVector ? "vector" : "array";
    o.peakOpsPerCycle = op.peakOpsPerCycle;
    o.mapping = op.tiling;
    o.estimatedCycles = static_cast<uint64_t>(op.estimatedCycles + 0.5);
    o.dramReadBytes = after[hw::Counter::kDmaRdBytes] - before[hw::Counter::kDmaRdBytes];
    o.dramWriteBytes = after[hw::Counter::kDmaWrBytes] - before[hw::Counter::kDmaWrBytes];
    for (size_t c = 0; c < hw::kNumCounters; ++c) {
      o.counters.emplace_back(std::string(hw::kCounterNames[c]), after.counters[c] - before.counters[c]);
    }
    // A cycle-level DRAM's growth between the same two records (both have it, in one order).
    if (!before.dram.empty() && after.dram.size() == before.dram.size()) {
      for (size_t c = 0; c < after.dram.size(); ++c) {
        o.counters.emplace_back(after.dram[c].first,
                                after.dram[c].second - std::min(after.dram[c].second, before.dram[c].second));
      }
    }
    opCycles += o.cycles;
    p.operations.push_back(std::move(o));
  }
  const auto& s = m.submission;
  p.deviceCycles = s.busyCycles;
  p.overheadCycles = s.busyCycles > opCycles ? s.busyCycles - opCycles : 0;
  p.registerAccesses = s.registerAccesses;
  p.interrupts = s.interrupts;
  p.onHardwareNs = cyclesToNs(s.busyCycles, config);
  p.deviceInteractionNs = s.registerAccesses * static_cast<uint64_t>(config.get(hw::Param::kRegAccessNs)) +
                          s.interrupts * static_cast<uint64_t>(config.get(hw::Param::kIrqLatencyNs));
  const auto host = m.wallTime - s.backendTime - s.observerTime;
  p.driverHostNs = host.count() > 0 ? static_cast<uint64_t>(host.count()) : 0;
  p.inDriverNs = p.driverHostNs + p.deviceInteractionNs + p.onHardwareNs;
  return p;
}

nn::Timing makeTiming(const hal::ExecutionProfile& profile, nn::MeasureTiming measure) {
  nn::Timing t;
  if (measure == nn::MeasureTiming::YES) {
    t.timeOnDeviceNs = profile.onHardwareNs;
    t.timeInDriverNs = profile.inDriverNs;
  }
  return t;
}

}  // namespace weft::accel
