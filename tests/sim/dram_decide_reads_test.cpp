// MemorySystem::decideReads (the per-request path of the cycle-level DRAM behind both backends,
// weft/sim/cycle_dram.h) against what it replaced: drain(), then takeCompletions() (sorted,
// only what was decided before now()), taken again a cycle later when a read served from a
// pending write was decided at now(). Both models get the same requests at the same cycles; after
// every read the two must agree on now(), on each transaction's completion and on the
// statistics, on every preset and on the closed-page and per-rank-queue variants.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "weft/sim/dram/device.h"
#include "weft/sim/dram/memory_system.h"

namespace weft::sim::dram {
namespace {

struct Request {
  bool isWrite;
  uint64_t addr;
  uint32_t transactions;
  uint64_t cycle;
};

// Streams of a few rows, hot rows, random addresses and forwarding (a read of a pending write),
// with gaps and back-to-back requests, as the accelerator's DMA and its stores make them.
std::vector<Request> traffic(const DeviceSpec& spec, uint32_t seed, size_t count) {
  std::mt19937_64 rng(seed);
  const uint64_t bytes = spec.org.requestBytes();
  const uint64_t span = std::min<uint64_t>(spec.org.capacityBytes(), uint64_t{64} << 20) / bytes;
  std::vector<Request> out;
  std::vector<uint64_t> recentWrites;
  uint64_t cycle = 0, stream = 0;
  for (size_t i = 0; i < count; ++i) {
    Request r{};
    const unsigned kind = rng() % 10;
    r.isWrite = kind >= 7;
    r.transactions = 1 + static_cast<uint32_t>(rng() % 24);
    if (kind < 4) {  // a stream
      r.addr = stream * bytes;
      stream = (stream + r.transactions) % span;
    } else if (kind == 4 && !recentWrites.empty()) {  // a read of something just written
      r.addr = recentWrites[rng() % recentWrites.size()];
    } else if (kind == 5) {  // a hot row
      r.addr = (rng() % 64) * bytes;
    } else {
      r.addr = (rng() % span) * bytes;
    }
    if (r.addr / bytes + r.transactions > span) r.addr = 0;
    if (r.isWrite) recentWrites.push_back(r.addr);
    if (recentWrites.size() > 16) recentWrites.erase(recentWrites.begin());
    cycle += rng() % 4 == 0 ? rng() % 400 : rng() % 3;
    r.cycle = cycle;
    out.push_back(r);
  }
  return out;
}

// One side: the model, the ids of the last request, the completions it saw.
struct Side {
  explicit Side(const DeviceSpec& spec) : model(spec) {}
  MemorySystem model;
  uint64_t nextId = 0;
};

// Offers a request's transactions; returns the first id.
uint64_t offer(Side& s, const Request& r, uint64_t requestBytes) {
  const uint64_t base = s.nextId;
  for (uint32_t t = 0; t < r.transactions; ++t) {
    s.model.offer({s.nextId++, r.addr + t * requestBytes, r.isWrite}, r.cycle);
  }
  return base;
}

// The read's completions by id, the way the model was asked before decideReads.
std::map<uint64_t, Completion> decideTheOldWay(MemorySystem& m, uint64_t base, uint64_t n) {
  std::vector<Completion> taken;
  m.drain();
  m.takeCompletions(taken);
  uint64_t found = 0;
  for (const auto& c : taken) found += !c.isWrite && c.id >= base;
  if (found < n) {
    m.advanceTo(m.now() + 1);
    m.takeCompletions(taken);
  }
  std::map<uint64_t, Completion> out;
  for (const auto& c : taken) {
    if (!c.isWrite && c.id >= base) out[c.id] = c;
  }
  return out;
}

std::map<uint64_t, Completion> decideTheNewWay(MemorySystem& m, uint64_t base) {
  std::vector<Completion> taken;
  m.decideReads(taken);
  std::map<uint64_t, Completion> out;
  bool atNow = false;
  for (const auto& c : taken) {
    EXPECT_FALSE(c.isWrite) << "a write left a record";
    if (c.isWrite || c.id < base) continue;
    out[c.id] = c;
    atNow |= c.decidedCycle >= m.now();
  }
  if (atNow) m.advanceTo(m.now() + 1);
  return out;
}

void expectSameStats(const DramStats& a, const DramStats& b, const std::string& where) {
  EXPECT_EQ(a.reads, b.reads) << where;
  EXPECT_EQ(a.writes, b.writes) << where;
  EXPECT_EQ(a.readsForwarded, b.readsForwarded) << where;
  EXPECT_EQ(a.readsMerged, b.readsMerged) << where;
  EXPECT_EQ(a.writesMerged, b.writesMerged) << where;
  EXPECT_EQ(a.readCommands, b.readCommands) << where;
  EXPECT_EQ(a.writeCommands, b.writeCommands) << where;
  EXPECT_EQ(a.activates, b.activates) << where;
  EXPECT_EQ(a.precharges, b.precharges) << where;
  EXPECT_EQ(a.autoPrecharges, b.autoPrecharges) << where;
  EXPECT_EQ(a.refreshes + a.bankRefreshes, b.refreshes + b.bankRefreshes) << where;
  EXPECT_EQ(a.rowHits, b.rowHits) << where;
  EXPECT_EQ(a.rowMisses, b.rowMisses) << where;
  EXPECT_EQ(a.rowConflicts, b.rowConflicts) << where;
  EXPECT_EQ(a.readLatencySum, b.readLatencySum) << where;
  EXPECT_EQ(a.writeLatencySum, b.writeLatencySum) << where;
  EXPECT_EQ(a.lastDoneCycle, b.lastDoneCycle) << where;
  EXPECT_EQ(a.bankBusySum, b.bankBusySum) << where;
  EXPECT_EQ(a.busyCycles, b.busyCycles) << where;
  EXPECT_EQ(a.rankActiveCycles, b.rankActiveCycles) << where;
  EXPECT_EQ(a.rankPrechargedCycles, b.rankPrechargedCycles) << where;
}

void expectSameBehaviour(const DeviceSpec& spec, uint32_t seed) {
  Side before(spec), after(spec);
  after.model.recordWriteCompletions(false);  // as the cycle-level DRAM runs it
  const uint64_t bytes = spec.org.requestBytes();
  size_t forwardedOrAtNow = 0;
  for (const Request& r : traffic(spec, seed, 3000)) {
    const uint64_t base = offer(before, r, bytes);
    ASSERT_EQ(offer(after, r, bytes), base);
    if (r.isWrite) continue;
    const auto a = decideTheOldWay(before.model, base, r.transactions);
    const auto b = decideTheNewWay(after.model, base);
    const std::string where = spec.name + " seed " + std::to_string(seed) + " read at cycle " + std::to_string(r.cycle);
    ASSERT_EQ(before.model.now(), after.model.now()) << where;
    ASSERT_EQ(a.size(), r.transactions) << where;
    ASSERT_EQ(b.size(), r.transactions) << where;
    for (const auto& [id, c] : a) {
      const Completion& d = b.at(id);
      EXPECT_EQ(c.enterCycle, d.enterCycle) << where;
      EXPECT_EQ(c.decidedCycle, d.decidedCycle) << where;
      EXPECT_EQ(c.doneCycle, d.doneCycle) << where;
      forwardedOrAtNow += c.decidedCycle == c.enterCycle;
    }
  }
  expectSameStats(before.model.stats(), after.model.stats(), spec.name);
  EXPECT_GT(forwardedOrAtNow, 0u) << "the traffic never served a read from a pending write";
}

TEST(DramDecideReads, EqualsDrainAndTakeCompletionsOnEveryPreset) {
  for (const std::string& name : presetNames()) {
    for (uint32_t seed = 1; seed <= 2; ++seed) expectSameBehaviour(preset(name), seed);
  }
}

TEST(DramDecideReads, EqualsDrainAndTakeCompletionsOnPolicyVariants) {
  DeviceSpec closed = preset("lpddr4-3200");
  closed.controller.pagePolicy = PagePolicy::kClosed;
  closed.name += " closed page";
  expectSameBehaviour(closed, 3);
  DeviceSpec perRank = preset("ddr4-3200");
  perRank.controller.queueStructure = QueueStructure::kPerRank;
  perRank.name += " per-rank queues";
  expectSameBehaviour(perRank, 4);
}

// DramStats::writeLatencySum: over the WR commands, the cycles from each posted write's entry to
// its command, checked against the command log on every preset (writes at distinct addresses, so
// none replaces another; reads among them, some offered at once, some spread out).
TEST(DramStats, WriteLatencyIsEachWritesWaitForItsCommand) {
  for (const char* name : {"ddr4-3200", "lpddr4-3200", "lpddr4x-4266", "lpddr5-6400", "hbm2", "gddr6"}) {
    const DeviceSpec spec = preset(name);
    MemorySystem m(spec);
    m.recordCompletions(false);
    m.recordCommands(true);
    const uint64_t tx = spec.org.requestBytes();
    std::mt19937_64 rng(11);
    std::map<uint64_t, uint64_t> entered;  // write address -> cycle it entered
    uint64_t cycle = 0;
    for (uint64_t i = 0; i < 3000; ++i) {
      const uint64_t addr = (i * 7919 % 100003) * tx;
      const bool write = rng() % 3 == 0;
      cycle += rng() % 4 == 0 ? rng() % 40 : 0;
      const uint64_t at = m.offer({i, addr, write}, std::max(cycle, m.now()));
      if (write) entered[addr] = at;
    }
    m.drain();
    m.drainWrites();
    std::vector<CommandRecord> commands;
    m.takeCommands(commands);
    uint64_t sum = 0, writes = 0;
    for (const CommandRecord& c : commands) {
      if (c.kind != CommandRecord::kWrite && c.kind != CommandRecord::kWriteAutoPrecharge) continue;
      ASSERT_TRUE(entered.count(c.addr)) << name << ": a WR of an address never written";
      sum += c.cycle - entered[c.addr];
      ++writes;
    }
    const DramStats stats = m.stats();
    EXPECT_EQ(writes, entered.size()) << name;
    EXPECT_EQ(stats.writeCommands, writes) << name;
    EXPECT_EQ(stats.writeLatencySum, sum) << name;
    EXPECT_GT(stats.averageWriteLatency(), 0) << name;
  }
}

}  // namespace
}  // namespace weft::sim::dram
