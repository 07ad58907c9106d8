#include "weft/sim/dram/stats.h"

#include <algorithm>

#include "weft/sim/dram/device.h"

namespace weft::sim::dram {

void DramStats::add(const DramStats& o) {
  reads += o.reads;
  writes += o.writes;
  readsForwarded += o.readsForwarded;
  readsMerged += o.readsMerged;
  writesMerged += o.writesMerged;
  readCommands += o.readCommands;
  writeCommands += o.writeCommands;
  activates += o.activates;
  precharges += o.precharges;
  autoPrecharges += o.autoPrecharges;
  refreshes += o.refreshes;
  bankRefreshes += o.bankRefreshes;
  rowHits += o.rowHits;
  rowMisses += o.rowMisses;
  rowConflicts += o.rowConflicts;
  readsDone += o.readsDone;
  writesDone += o.writesDone;
  readLatencySum += o.readLatencySum;
  writeLatencySum += o.writeLatencySum;
  lastDoneCycle = std::max(lastDoneCycle, o.lastDoneCycle);
  bankBusySum += o.bankBusySum;
  busyCycles += o.busyCycles;
  rankActiveCycles.insert(rankActiveCycles.end(), o.rankActiveCycles.begin(), o.rankActiveCycles.end());
  rankPrechargedCycles.insert(rankPrechargedCycles.end(), o.rankPrechargedCycles.begin(), o.rankPrechargedCycles.end());
}

DramEnergy computeEnergy(const DeviceSpec& spec, const DramStats& s) {
  const Timing& t = spec.timing;
  const double tCK = t.tCK();
  const double devices = spec.org.devicesPerRank();
  uint64_t active = 0, precharged = 0;
  for (const uint64_t c : s.rankActiveCycles) active += c;
  for (const uint64_t c : s.rankPrechargedCycles) precharged += c;
  DramEnergy e;
  for (const PowerRail& r : spec.power) {
    const double k = r.vdd * tCK * devices;  // mA * cycles -> pJ for a rank's devices
    e.activate += k * (r.idd0 - r.idd3n) * t.tRAS * double(s.activates);
    e.precharge += k * (r.idd0 - r.idd2n) * t.tRP * double(s.precharges + s.autoPrecharges);
    e.read += k * (r.idd4r - r.idd3n) * t.burstCycles * double(s.readCommands);
    e.write += k * (r.idd4w - r.idd3n) * t.burstCycles * double(s.writeCommands);
    e.refresh += k * ((r.idd5ab - r.idd3n) * t.tRFC * double(s.refreshes) +
                      (r.idd5pb - r.idd3n) * t.tRFCb * double(s.bankRefreshes));
    e.background += k * (r.idd3n * double(active) + r.idd2n * double(precharged));
  }
  return e;
}

}  // namespace weft::sim::dram
