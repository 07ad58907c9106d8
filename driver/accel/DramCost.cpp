// A cycle-level DRAM's pricing for the compiler's estimates (CostModel.h, DramCost), from the
// device the configuration names (weft/sim/dram_config.h).
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "CostModel.h"
#include "weft/sim/dram/memory_system.h"
#include "weft/sim/dram_config.h"

namespace weft::accel {
namespace {

// DRAM cycles a transaction of a sequential stream of reads takes, measured on the device model
// itself: requests of kMaxMergedBytes at consecutive addresses, each offered once the one before
// it is decided, as both backends offer them (sim/include/weft/sim/cycle_dram.h). The stream
// pays what a formula of tCCD and channel switches leaves out: a row's activate wherever the
// stream enters a channel or bank (the next request reaches it only once the one before is
// decided, so its row cannot open ahead) and refresh. Where a tensor starts within the
// interleave decides how often a request spans two channels, whose transactions then overlap,
// so the figure is the mean over kStreams streams starting across a bank row: 4.88 accelerator
// cycles a transaction at weft16-lpddr4 (tCCD: 5.0; a stream whose requests never span two
// channels: 5.69, as ResNet-18's fully-connected layer ran).
double streamGap(const sim::dram::DeviceSpec& d) {
  const uint64_t tx = d.org.requestBytes();
  const uint64_t perRequest = std::max<uint64_t>(1, CostModel::kMaxMergedBytes / tx);
  const uint64_t window = std::max<uint64_t>(tx, d.org.rowBytesPerRank());
  constexpr uint64_t kStreams = 8, kTransactions = 1 << 11;  // a stream's: several refreshes
  double cycles = 0;
  std::vector<sim::dram::Completion> done;
  for (uint64_t s = 0; s < kStreams; ++s) {
    sim::dram::MemorySystem memory(d);
    const uint64_t base = s * (window / kStreams + kRegionAlignment) % window / tx * tx;
    uint64_t first = 0, last = 0;
    for (uint64_t i = 0; i < kTransactions; i += perRequest) {
      for (uint64_t k = i; k < i + perRequest; ++k) memory.offer({k, base + k * tx, false}, memory.now());
      done.clear();
      memory.decideReads(done);
      for (const auto& c : done) {
        if (c.id == 0) first = c.decidedCycle;
        last = std::max(last, c.decidedCycle);
      }
    }
    cycles += static_cast<double>(last - first) / static_cast<double>(kTransactions - 1);
  }
  return cycles / kStreams;
}

DramCost derive(const sim::dram::DeviceSpec& d, double clockMHz) {
  const auto& t = d.timing;
  const double cycle = t.tCK() * clockMHz / 1000;  // accelerator cycles a DRAM cycle
  const double gap = streamGap(d);
  DramCost c;
  c.txBytes = d.org.requestBytes();
  c.readTxCycles = gap * cycle;
  // Posted writes wait in the write queue and are written in drains, each turning the bus around
  // twice: read to write (RL + burst - WL + tRTRS) and back (WL + burst + tWTR_L), once a queue's
  // worth. That is a write's time in its channel.
  const double turnaround =
      static_cast<double>(t.readLatency() + t.burstCycles - std::min(t.writeLatency(), t.readLatency() + t.burstCycles) +
                          t.tRTRS) +
      static_cast<double>(t.writeLatency() + t.burstCycles + t.tWTR_L);
  const double write = (gap + turnaround / static_cast<double>(d.controller.writeHigh())) * cycle;
  const auto channels = static_cast<double>(d.org.channels);
  // The reads wait for it only when it drains in the channel they are in: a channel is drained
  // while it has no read waiting (or its queue is full), and reads are served one channel at a
  // time. So a write costs the reads' timeline its channel's share: 1/channels (SqueezeNet's
  // concatenations, which read and write alike, ran 41,091 cycles at weft16-lpddr4 against 39,900
  // so; two channels' share, 49,333).
  c.writeChannelCycles = write * std::min(1.0, 1.0 / channels);
  // The store unit's rate: posted writes enter as their channel's queue has room, and a stream of
  // them fills one channel's queue after another (a bank row of each), about two channels
  // draining at once (a stream of 64-byte rows enters at 2.5-2.9 cycles a transaction at
  // weft16-lpddr4; two channels' share: 3.06).
  c.writeTxCycles = write * std::min(1.0, 2.0 / channels);
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
