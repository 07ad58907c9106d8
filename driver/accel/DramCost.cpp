// A cycle-level DRAM's pricing for the compiler's estimates (CostModel.h, DramCost), from the
// device the configuration names (weft/sim/dram_config.h).
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "CostModel.h"
#include "weft/sim/dram/address_mapping.h"
#include "weft/sim/dram/memory_system.h"
#include "weft/sim/dram_config.h"

namespace weft::accel {
namespace {

// The bytes one channel holds before the next takes the address: the lowest channel bit of the
// mapping (2 KB at LPDDR4's rorabachco; 0: one channel).
uint64_t channelChunk(const sim::dram::DeviceSpec& d) {
  const sim::dram::AddressMapping mapping(d.controller.addressMapping, d.org);
  for (uint64_t b = d.org.requestBytes(); d.org.channels > 1 && b <= (uint64_t{1} << 40); b <<= 1) {
    if (mapping.channelOf(b) != mapping.channelOf(0)) return b;
  }
  return 0;
}

// DRAM cycles a transaction of a sequential stream of reads takes within one channel, measured
// on the device model itself: requests of kMaxMergedBytes (or of a channel's chunk, if smaller)
// at consecutive addresses from address 0, so that each lies in one channel, each offered once
// the one before it is decided, as both backends offer them (sim/include/weft/sim/cycle_dram.h),
// over 2^14 transactions (several refresh intervals). It pays what a formula of tCCD leaves out:
// a row's activate wherever the stream enters a channel or bank (the next request reaches it
// only once the one before is decided, so its row cannot open ahead) and refresh: 9.08 DRAM
// cycles (5.68 accelerator cycles) a transaction at weft16-lpddr4, against tCCD's 8.
// Requests of `perRequest` transactions, the k-th transaction at k / perRequest * `stride` + its
// place in its request; the mean DRAM cycles between decided transactions.
double requestGap(const sim::dram::DeviceSpec& d, uint64_t perRequest, uint64_t stride) {
  const uint64_t tx = d.org.requestBytes();
  constexpr uint64_t kTransactions = 1 << 14;
  sim::dram::MemorySystem memory(d);
  std::vector<sim::dram::Completion> done;
  uint64_t first = 0, last = 0;
  for (uint64_t i = 0; i < kTransactions; i += perRequest) {
    for (uint64_t k = i; k < i + perRequest; ++k) {
      const uint64_t addr = (i / perRequest * stride + (k - i) * tx) % d.org.capacityBytes();
      memory.offer({k, addr, false}, memory.now());
    }
    done.clear();
    memory.decideReads(done);
    for (const auto& c : done) {
      if (c.id == 0) first = c.decidedCycle;
      last = std::max(last, c.decidedCycle);
    }
  }
  return static_cast<double>(last - first) / static_cast<double>(kTransactions - 1);
}

double streamGap(const sim::dram::DeviceSpec& d) {
  const uint64_t tx = d.org.requestBytes();
  const uint64_t chunk = channelChunk(d);
  const uint64_t requestBytes = chunk == 0 ? CostModel::kMaxMergedBytes : std::min(CostModel::kMaxMergedBytes, chunk);
  const uint64_t perRequest = std::max<uint64_t>(1, requestBytes / tx);
  return requestGap(d, perRequest, perRequest * tx);
}

// The DRAM cycles between single-transaction requests that stay in one bank group (a head
// split's 64 bytes of each token, 768 bytes apart, at DDR4's rorabachcobg): their column
// commands are tCCD_L apart, not a stream's tCCD_S, each request decided before the next is
// offered. Measured on the device as streamGap, the requests a column step of one bank apart
// (the smallest stride that keeps channel, rank, bank group and bank).
double sameGroupGap(const sim::dram::DeviceSpec& d) {
  const sim::dram::AddressMapping mapping(d.controller.addressMapping, d.org);
  const uint64_t tx = d.org.requestBytes();
  const sim::dram::Coordinates at0 = mapping.decode(0);
  uint64_t stride = tx;
  for (; stride < (uint64_t{1} << 30); stride += tx) {
    const sim::dram::Coordinates c = mapping.decode(stride);
    if (c.channel == at0.channel && c.rank == at0.rank && c.bankGroup == at0.bankGroup && c.bank == at0.bank) break;
  }
  return requestGap(d, 1, stride);
}

// DramCost::largestShare: for requests of 0 .. kMaxMergedBytes / tx + 2 transactions, the mean
// over where one starts (every transaction of the interleave's period) of the most any one
// channel holds. At LPDDR4 a 1 KB request spans two channels' chunks with probability 31/64, and
// then its two parts are read at once.
std::vector<double> largestShares(const sim::dram::DeviceSpec& d) {
  const sim::dram::AddressMapping mapping(d.controller.addressMapping, d.org);
  const uint64_t tx = d.org.requestBytes();
  const uint64_t most = CostModel::kMaxMergedBytes / tx + 2;
  const uint64_t chunk = channelChunk(d);
  std::vector<double> share(most + 1);
  const uint64_t period = chunk / tx * d.org.channels;  // transactions until the channels repeat
  for (uint64_t n = 0; n <= most; ++n) {
    if (chunk == 0 || period > (1u << 14)) {  // one channel, or a span across two all but never
      share[n] = static_cast<double>(n);
      continue;
    }
    double sum = 0;
    std::vector<uint64_t> held(d.org.channels);
    for (uint64_t start = 0; start < period; ++start) {
      std::fill(held.begin(), held.end(), 0);
      for (uint64_t k = start; k < start + n; ++k) ++held[mapping.channelOf(k * tx)];
      sum += static_cast<double>(*std::max_element(held.begin(), held.end()));
    }
    share[n] = sum / static_cast<double>(period);
  }
  return share;
}

DramCost derive(const sim::dram::DeviceSpec& d, double clockMHz) {
  const auto& t = d.timing;
  const double cycle = t.tCK() * clockMHz / 1000;  // accelerator cycles a DRAM cycle
  const double gap = streamGap(d);
  DramCost c;
  c.txBytes = d.org.requestBytes();
  c.alignedTxCycles = gap * cycle;
  c.sameGroupRequestCycles = sameGroupGap(d) * cycle;
  c.largestShare = largestShares(d);
  c.chunkBytes = channelChunk(d);
  c.channels = d.org.channels;
  c.mapping = std::make_shared<const sim::dram::AddressMapping>(d.controller.addressMapping, d.org);
  c.ranks = d.org.ranks;
  c.bankGroups = d.org.bankGroups;
  c.banksPerGroup = d.org.banksPerGroup;
  const double perRequest = std::max(1.0, static_cast<double>(CostModel::kMaxMergedBytes) / c.txBytes);
  const auto whole = static_cast<size_t>(perRequest);
  c.readTxCycles = c.largestShare.at(whole) / perRequest * c.alignedTxCycles;
  // Posted writes wait in the write queue and are written in drains of up to a queue's worth,
  // column command after column command to the rows the writes open (a stream's transaction, as
  // the reads', where it starts in the interleave not mattering to a queue), turning the bus
  // around twice a drain: read to write (RL + burst - WL + tRTRS) and back (WL + burst + tWTR_L).
  // That is a write's time in its channel.
  const double turnaround =
      static_cast<double>(t.readLatency() + t.burstCycles - std::min(t.writeLatency(), t.readLatency() + t.burstCycles) +
                          t.tRTRS) +
      static_cast<double>(t.writeLatency() + t.burstCycles + t.tWTR_L);
  const double write = c.readTxCycles + turnaround / static_cast<double>(d.controller.writeHigh()) * cycle;
  const auto channels = static_cast<double>(d.org.channels);
  // The reads wait for it only when it drains in the channel they are in: a channel is drained
  // while it has no read waiting (or its queue is full), and reads are served one channel at a
  // time. So a write costs the reads' timeline its channel's share: 1/channels (SqueezeNet's
  // concatenations, which read and write alike, ran 41,091 cycles at weft16-lpddr4 against 39,900
  // so; two channels' share, 49,333).
  c.writeCycles = write;
  c.burstTxCycles = static_cast<double>(t.burstCycles) * cycle;
  c.writeChannelCycles = write * std::min(1.0, 1.0 / channels);
  // The store unit's rate: posted writes enter as their channel's queue has room, and a stream of
  // them fills one channel's queue after another (a bank row of each), about two channels
  // draining at once (a stream of 64-byte rows enters at 2.5-2.9 cycles a transaction at
  // weft16-lpddr4; two channels' share: 3.06).
  c.writeTxCycles = write * std::min(1.0, 2.0 / channels);
  c.rowBytes = static_cast<double>(d.org.rowBytesPerRank());
  c.activateCycles = static_cast<double>(t.tRP + std::max(t.tRCDRD, t.tRCDWR)) * cycle;
  c.offerCycles = 2 * cycle;
  // Offered, entered and issued (two cycles), RL, the burst; the crossing back and the port.
  c.latency = (2 + t.readLatency() + t.burstCycles) * cycle + 2;
  // A write queue drains when it is full (its high watermark) or idle above its low watermark:
  // until then a store's writes enter one a port cycle.
  if (!d.controller.unifiedQueue) {
    c.writeQueueTransactions = channels * static_cast<double>(d.controller.writeHigh());
    c.writeQueueRefill = channels * static_cast<double>(d.controller.writeHigh() - d.controller.writeLowWatermark);
    c.writeRunTransactions = static_cast<double>(d.controller.writeHigh()) / 4;
  }
  return c;
}

}  // namespace

namespace {

// Calls f with the coordinates of each transaction a request of `bytes` at `at` touches, in
// address order.
template <typename F>
void visitRequest(const DramCost& dram, uint64_t at, uint64_t bytes, F&& f) {
  const uint64_t tx = static_cast<uint64_t>(dram.txBytes);
  const uint64_t last = (at + std::max<uint64_t>(bytes, 1) - 1) / tx;
  for (uint64_t t = at / tx; t <= last; ++t) f(dram.mapping->decode(t * tx));
}

// The bank group of `c` over its channel's ranks: rank * bankGroups + bankGroup.
size_t groupIndex(const DramCost& dram, const sim::dram::Coordinates& c) {
  return size_t{c.rank} * dram.bankGroups + c.bankGroup;
}

// One number for the transaction at `c` (channel, bank, row, column), to tell a repeat.
int64_t transactionKey(const DramCost& dram, const sim::dram::Coordinates& c) {
  const auto bank = static_cast<int64_t>((size_t{c.channel} * dram.ranks * dram.bankGroups + groupIndex(dram, c)) *
                                             dram.banksPerGroup + c.bank);
  return bank << 40 | int64_t{c.row} << 16 | c.column;
}

// visitRequest over the walk's first `sample` requests in the order the load unit issues them;
// returns how many it visited.
template <typename F>
uint64_t visitWalk(const DramCost& dram, const RequestWalk& walk, uint64_t sample, F&& f) {
  uint64_t visited = 0;
  sample = std::min(walk.requests(), sample);
  for (uint64_t i2 = 0; i2 < walk.count2 && visited < sample; ++i2) {
    for (uint64_t i1 = 0; i1 < walk.count1 && visited < sample; ++i1) {
      for (uint64_t i0 = 0; i0 < walk.count0 && visited < sample; ++i0, ++visited) {
        visitRequest(dram, walk.addr + i2 * walk.stride2 + i1 * walk.stride1 + i0 * walk.stride0, walk.bytes, f);
      }
    }
  }
  return visited;
}

// A figure counted over the walk's first `visited` requests, for all of them.
double scaledToWalk(double sampled, const RequestWalk& walk, uint64_t visited) {
  return visited == 0 ? 0 : sampled * static_cast<double>(walk.requests()) / static_cast<double>(visited);
}

}  // namespace

double walkRowOpens(const DramCost& dram, const RequestWalk& walk, OpenRows* rows) {
  const size_t banks = size_t{dram.channels} * dram.ranks * dram.bankGroups * dram.banksPerGroup;
  OpenRows fresh;
  std::vector<uint32_t>& open = (rows != nullptr ? *rows : fresh).rowPlusOne;  // row + 1
  if (open.size() != banks) open.assign(banks, 0);
  uint64_t opens = 0;
  const uint64_t visited = visitWalk(dram, walk, kWalkSample, [&](const sim::dram::Coordinates& c) {
    const size_t bank =
        ((size_t{c.channel} * dram.ranks + c.rank) * dram.bankGroups + c.bankGroup) * dram.banksPerGroup + c.bank;
    if (open[bank] != c.row + 1) {
      open[bank] = c.row + 1;
      ++opens;
    }
  });
  return scaledToWalk(static_cast<double>(opens), walk, visited);
}

double walkColumnCycles(const DramCost& dram, const RequestWalk& walk, ColumnGroups* groups) {
  std::vector<double> busy(dram.channels, 0);
  std::vector<int64_t> lastGroup(dram.channels, -1);  // rank * bankGroups + bankGroup
  if (groups != nullptr && groups->last.size() == dram.channels) lastGroup = groups->last;
  const auto groupOf = [&](const sim::dram::Coordinates& c) { return static_cast<int64_t>(groupIndex(dram, c)); };
  const uint64_t visited = visitWalk(dram, walk, kColumnSample, [&](const sim::dram::Coordinates& c) {
    busy[c.channel] += lastGroup[c.channel] == groupOf(c) ? dram.sameGroupRequestCycles : dram.alignedTxCycles;
    lastGroup[c.channel] = groupOf(c);
  });
  if (visited == 0) return 0;
  if (groups != nullptr) {
    if (visited < walk.requests()) {  // the groups the walk's last request leaves
      const uint64_t at = walk.addr + (walk.count2 - 1) * walk.stride2 + (walk.count1 - 1) * walk.stride1 +
                          (walk.count0 - 1) * walk.stride0;
      visitRequest(dram, at, walk.bytes, [&](const sim::dram::Coordinates& c) { lastGroup[c.channel] = groupOf(c); });
    }
    groups->last = lastGroup;
  }
  return scaledToWalk(*std::max_element(busy.begin(), busy.end()), walk, visited);
}

double walkWriteDrainCycles(const DramCost& dram, const RequestWalk& walk, WriteQueues& queues) {
  const size_t groups = size_t{dram.ranks} * dram.bankGroups;
  if (queues.unpaired.size() != dram.channels) {
    queues.unpaired.assign(dram.channels, std::vector<double>(groups, 0));
    queues.lastColumn.assign(dram.channels, -1);
  }
  const double high = dram.writeQueueTransactions / dram.channels;
  std::vector<double> busy(dram.channels, 0);
  const uint64_t visited = visitWalk(dram, walk, kWalkSample, [&](const sim::dram::Coordinates& c) {
    const int64_t key = transactionKey(dram, c);
    if (queues.lastColumn[c.channel] == key) return;  // merges into the write before
    queues.lastColumn[c.channel] = key;
    std::vector<double>& unpaired = queues.unpaired[c.channel];
    const size_t g = groupIndex(dram, c);
    busy[c.channel] += dram.alignedTxCycles;
    // A waiting write of another group drains beside it, tCCD_S apart.
    for (size_t other = 0; other < unpaired.size(); ++other) {
      if (other != g && unpaired[other] >= 1) {
        unpaired[other] -= 1;
        return;
      }
    }
    // None: past a queue's worth of them, the queue drains writes of one group, tCCD_L apart.
    if (unpaired[g] + 1 > high) {
      busy[c.channel] += dram.sameGroupRequestCycles - dram.alignedTxCycles;
    } else {
      unpaired[g] += 1;
    }
  });
  return scaledToWalk(*std::max_element(busy.begin(), busy.end()), walk, visited);
}

ChannelSpread walkChannelSpread(const DramCost& dram, const RequestWalk& walk, double transactions) {
  std::vector<uint64_t> count(dram.channels, 0);
  const auto window = static_cast<uint64_t>(std::max(1.0, transactions));
  uint64_t total = 0, runs = 0;
  // Requests of less than a transaction (16-byte rows) take two or more to a transaction, which
  // the write queue merges: counted once.
  const uint64_t perTx = std::max<uint64_t>(1, static_cast<uint64_t>(dram.txBytes) / std::max<uint64_t>(walk.bytes, 1));
  int64_t last = -1;
  uint32_t lastChannel = 0;
  visitWalk(dram, walk, window * perTx, [&](const sim::dram::Coordinates& c) {
    const int64_t key = transactionKey(dram, c);
    if (total == window || key == last) return;
    ++count[c.channel];
    ++total;
    if (last < 0 || lastChannel != c.channel) ++runs;
    last = key;
    lastChannel = c.channel;
  });
  if (total == 0) return {1.0 / dram.channels, 0};
  return {static_cast<double>(*std::max_element(count.begin(), count.end())) / static_cast<double>(total),
          static_cast<double>(total) / static_cast<double>(runs)};
}

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
