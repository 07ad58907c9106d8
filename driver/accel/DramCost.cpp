// A cycle-level DRAM's pricing for the compiler's estimates (CostModel.h, DramCost), from the
// device the configuration names (weft/sim/dram_config.h).
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "CostModel.h"
#include "weft/sim/dram/address_mapping.h"
#include "weft/sim/dram_config.h"

namespace weft::accel {
namespace {

// DRAM cycles between the column commands of consecutive transactions of a sequential stream,
// averaged over a stretch of the address space: within a bank group tCCD_L, across bank groups
// tCCD_S (never under the burst, which holds the data bus), and a cycle where the next
// transaction is in another channel (its command queue is free; one transaction enters a cycle).
double streamGap(const sim::dram::DeviceSpec& d) {
  const sim::dram::AddressMapping mapping(d.controller.addressMapping, d.org);
  const auto& t = d.timing;
  const double burst = t.burstCycles;
  const double sameGroup = std::max<double>(burst, t.tCCD_L);
  const double otherGroup = std::max<double>(burst, t.tCCD_S);
  const uint64_t tx = d.org.requestBytes();
  constexpr uint64_t kStretch = 1 << 14;  // transactions: every mapping repeats within it
  double gaps = 0;
  sim::dram::Coordinates before = mapping.decode(0);
  for (uint64_t i = 1; i <= kStretch; ++i) {
    const sim::dram::Coordinates c = mapping.decode(i * tx);
    if (c.channel != before.channel) {
      gaps += 1;
    } else if (c.rank != before.rank || c.bankGroup != before.bankGroup) {
      gaps += otherGroup;
    } else {
      gaps += sameGroup;
    }
    before = c;
  }
  return gaps / static_cast<double>(kStretch);
}

DramCost derive(const sim::dram::DeviceSpec& d, double clockMHz) {
  const auto& t = d.timing;
  const double cycle = t.tCK() * clockMHz / 1000;  // accelerator cycles a DRAM cycle
  const double gap = streamGap(d);
  DramCost c;
  c.txBytes = d.org.requestBytes();
  c.readTxCycles = gap * cycle;
  // Posted writes wait in the write queue and are written in drains of a queue's worth, each
  // turning the bus around twice: read to write (RL + burst - WL + tRTRS) and back (WL + burst +
  // tWTR_L).
  const double turnaround = static_cast<double>(t.readLatency() + t.burstCycles - std::min(t.writeLatency(), t.readLatency() + t.burstCycles) + t.tRTRS) +
                            static_cast<double>(t.writeLatency() + t.burstCycles + t.tWTR_L);
  // They are drained while the channel has no read waiting (or when the queue is full), and reads
  // are served one channel at a time: a drain in another channel than the reads' takes none of
  // their time. Measured on the bundled networks at weft16-lpddr4, a write costs the reads about
  // its share of two channels in `channels` (1/4 of a channel's time left ResNet's 7x7 stem,
  // whose 0.8 MB of output is a third of its transactions, 24 % short of its run; a whole
  // channel's time overstated SqueezeNet's write-bound expand layers 2.7x).
  c.writeTxCycles = (gap + turnaround / static_cast<double>(d.controller.writeHigh())) * cycle *
                    std::min(1.0, 2.0 / static_cast<double>(d.org.channels));
  c.rowBytes = static_cast<double>(d.org.rowBytesPerRank());
  c.activateCycles = static_cast<double>(t.tRP + std::max(t.tRCDRD, t.tRCDWR)) * cycle;
  // Offered, entered and issued (two cycles), RL, the burst; the crossing back and the port.
  c.latency = (2 + t.readLatency() + t.burstCycles) * cycle + 2;
  return c;
}

}  // namespace

std::optional<DramCost> dramCostFor(const hw::HwConfig& config) {
  if (config.getEnum<hw::Param::kDram>() == hw::Dram::kSimple) return std::nullopt;
  // Keyed by what the device depends on; a configuration's estimates are made millions of times.
  using Key = std::tuple<int, int64_t, int, std::string, int64_t>;
  const Key key{static_cast<int>(config.getEnum<hw::Param::kDram>()), config.get(hw::Param::kDramChannels),
                static_cast<int>(config.getEnum<hw::Param::kDramMapping>()), config.dramIni(),
                static_cast<int64_t>(config.clockMHz())};
  static std::mutex mutex;
  static std::map<Key, DramCost> known;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = known.find(key); it != known.end()) return it->second;
  const auto device = sim::dramDeviceFor(config);
  const DramCost cost = derive(*device, static_cast<double>(config.clockMHz()));
  known.emplace(key, cost);
  return cost;
}

}  // namespace weft::accel
