// The DRAM controller and its banks (weft/sim/dram/memory_system.h): every JEDEC constraint
// held on mixed traffic (checked by an independent reading of the rules), the tight cases to
// the cycle, FR-FCFS, refresh, write draining, and the event-driven model equal to a
// cycle-by-cycle one.
#include <gtest/gtest.h>

#include <random>

#include "dram_timing_checker.h"
#include "weft/sim/dram/address_mapping.h"
#include "weft/sim/dram/memory_system.h"

namespace weft::sim::dram {
namespace {

using testing::TimingChecker;

uint64_t addressOf(const MemorySystem& m, uint32_t rank, uint32_t group, uint32_t bank, uint32_t row,
                   uint32_t column = 0, uint32_t channel = 0) {
  Coordinates c;
  c.channel = channel, c.rank = rank, c.bankGroup = group, c.bank = bank, c.row = row, c.column = column;
  return m.mapping().encode(c);
}

std::vector<CommandRecord> commandsOf(MemorySystem& m, CommandRecord::Kind kind) {
  std::vector<CommandRecord> all, some;
  m.takeCommands(all);
  for (const auto& c : all) {
    if (c.kind == kind) some.push_back(c);
  }
  return some;
}

// Streams, strides and random addresses, reads and writes, bursts and gaps: hits, misses and
// conflicts on every bank, write drains, refreshes, both ranks.
std::vector<Transaction> mixedTraffic(const DeviceSpec& spec, size_t n, uint64_t seed, std::vector<uint64_t>& at) {
  std::mt19937_64 rng(seed);
  const uint64_t bytes = spec.org.requestBytes(), slots = spec.org.capacityBytes() / bytes;
  std::vector<Transaction> t;
  uint64_t cycle = 0, stream = 0;
  for (size_t i = 0; i < n; ++i) {
    Transaction x;
    x.id = i;
    switch (rng() % 4) {
      case 0: x.addr = (stream++ % slots) * bytes; break;                                     // a stream
      case 1: x.addr = ((rng() % 64) * 4099 % slots) * bytes; break;                            // a few hot rows
      case 2: x.addr = (rng() % slots) * bytes; break;                                          // anywhere
      default: x.addr = ((stream * 37 + (rng() % 8) * (slots / 8)) % slots) * bytes; break;     // far strides
    }
    x.isWrite = rng() % 3 == 0;
    cycle += rng() % 5 == 0 ? rng() % 200 : rng() % 3;  // bursts, gaps
    t.push_back(x);
    at.push_back(cycle);
  }
  return t;
}

DeviceSpec variant(const std::string& name, const std::string& how) {
  DeviceSpec s = preset(name);
  if (how == "closed-page") s.controller.pagePolicy = PagePolicy::kClosed;
  if (how == "per-rank") s.controller.queueStructure = QueueStructure::kPerRank;
  if (how == "unified") s.controller.unifiedQueue = true;
  if (how == "bank-refresh") s.controller.refreshPolicy = RefreshPolicy::kBankStaggered;
  if (how == "simultaneous") s.controller.refreshPolicy = RefreshPolicy::kRankSimultaneous;
  if (how == "small-queues") s.controller.transactionQueueSize = 4, s.controller.commandQueueSize = 2,
                             s.controller.writeLowWatermark = 1;
  if (how == "AL") s.timing.AL = 5;
  s.name += "/" + how;
  validateDevice(s, s.name);
  return s;
}

struct TrafficRun {
  std::vector<CommandRecord> commands;
  std::vector<Completion> completions;
  DramStats stats;
};

TrafficRun runTraffic(const DeviceSpec& spec, size_t n, uint64_t seed, ReferenceChecks checks = {}) {
  MemorySystem m(spec, checks);
  m.recordCommands(true);
  std::vector<uint64_t> at;
  const auto traffic = mixedTraffic(spec, n, seed, at);
  TrafficRun r;
  uint64_t last = 0;
  for (size_t i = 0; i < traffic.size(); ++i) last = m.offer(traffic[i], std::max(at[i], i == 0 ? 0 : last + 1));
  m.drain();
  m.advanceTo(m.now() + 4 * spec.timing.tREFI);  // refreshes go on
  m.takeCommands(r.commands);
  m.takeCompletions(r.completions);
  r.stats = m.stats();
  return r;
}

const char* kVariants[][2] = {
    {"ddr4-3200", ""},         {"ddr4-3200", "closed-page"}, {"ddr4-3200", "per-rank"},
    {"ddr4-3200", "unified"},  {"ddr4-3200", "simultaneous"}, {"ddr4-3200", "small-queues"},
    {"ddr4-3200", "AL"},       {"lpddr4-3200", ""},           {"lpddr4-3200", "bank-refresh"},
    {"lpddr4x-4266", ""},      {"lpddr5-6400", ""},           {"hbm2", ""},
    {"hbm2", "closed-page"},   {"gddr6", ""}};

TEST(DramTiming, EveryConstraintHoldsOnMixedTraffic) {
  for (const auto& v : kVariants) {
    const DeviceSpec spec = variant(v[0], v[1]);
    const TrafficRun r = runTraffic(spec, 6000, 7);
    EXPECT_EQ(TimingChecker(spec).check(r.commands), "") << spec.name;
    // Every transaction completed once; every column command is a hit, a miss or a conflict.
    EXPECT_EQ(r.completions.size(), 6000u) << spec.name;
    EXPECT_EQ(r.stats.readsDone + r.stats.writesDone, 6000u) << spec.name;
    EXPECT_EQ(r.stats.rowHits + r.stats.rowMisses + r.stats.rowConflicts, r.stats.columnCommands()) << spec.name;
    if (spec.controller.pagePolicy == PagePolicy::kOpen) {
      EXPECT_GT(r.stats.rowHits, 0u) << spec.name;
    }
    EXPECT_GT(r.stats.refreshes + r.stats.bankRefreshes, 0u) << spec.name;
  }
}

TEST(DramTiming, TheCheckerCatchesEachKindOfViolation) {
  const DeviceSpec s = preset("ddr4-3200");  // tRRD_S 9, tRRD_L 11, tFAW 48, tRCD 22, tWTR_L 12, CWL 16
  const TimingChecker check(s);
  const auto cmd = [](uint64_t cycle, CommandRecord::Kind k, uint32_t group, uint32_t bank, int64_t row) {
    CommandRecord c;
    c.cycle = cycle, c.kind = k, c.bankGroup = group, c.bank = bank, c.row = row;
    return c;
  };
  using K = CommandRecord;
  EXPECT_EQ(check.check({cmd(0, K::kActivate, 0, 0, 1), cmd(9, K::kActivate, 1, 0, 1)}), "");
  EXPECT_NE(check.check({cmd(0, K::kActivate, 0, 0, 1), cmd(8, K::kActivate, 1, 0, 1)}).find("tRRD_S"),
            std::string::npos);
  EXPECT_NE(check.check({cmd(0, K::kActivate, 0, 0, 1), cmd(10, K::kActivate, 0, 1, 1)}).find("tRRD_L"),
            std::string::npos);
  EXPECT_NE(check.check({cmd(0, K::kActivate, 0, 0, 1), cmd(9, K::kActivate, 1, 0, 1), cmd(20, K::kActivate, 0, 1, 1),
                         cmd(29, K::kActivate, 1, 1, 1), cmd(40, K::kActivate, 0, 2, 1)})
                .find("tFAW"),
            std::string::npos);
  EXPECT_NE(check.check({cmd(0, K::kActivate, 0, 0, 1), cmd(21, K::kRead, 0, 0, 1)}).find("tRCD"), std::string::npos);
  EXPECT_NE(check.check({cmd(0, K::kActivate, 0, 0, 1), cmd(22, K::kWrite, 0, 0, 1), cmd(53, K::kRead, 0, 0, 1)})
                .find("tWTR_L"),
            std::string::npos);
  EXPECT_EQ(check.check({cmd(0, K::kActivate, 0, 0, 1), cmd(22, K::kWrite, 0, 0, 1), cmd(54, K::kRead, 0, 0, 1)}), "");
  EXPECT_NE(check.check({cmd(0, K::kActivate, 0, 0, 1), cmd(22, K::kRead, 0, 0, 2)}).find("row 1 open"),
            std::string::npos);
  EXPECT_NE(check.check({cmd(0, K::kActivate, 0, 0, 1), cmd(51, K::kPrecharge, 0, 0, 1)}).find("tRAS"),
            std::string::npos);
}

TEST(DramTiming, ActivatesKeepTrrdAndTfawToTheCycle) {
  MemorySystem m(preset("ddr4-3200"));  // tRRD_S 9, tRRD_L 11, tFAW 48
  m.recordCommands(true);
  const uint32_t targets[][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}};  // (group, bank) in rank 0
  for (uint64_t i = 0; i < 5; ++i) m.enqueue({i, addressOf(m, 0, targets[i][0], targets[i][1], 7), false}, i);
  m.drain();
  const auto acts = commandsOf(m, CommandRecord::kActivate);
  ASSERT_EQ(acts.size(), 5u);
  // 1 (first command after entry at 0), +tRRD_S, then max(tRRD_L from the same group, tRRD_S),
  // and the fifth waits for the four-activate window: 1 + tFAW.
  EXPECT_EQ(acts[0].cycle, 1u);
  EXPECT_EQ(acts[1].cycle, 10u);
  EXPECT_EQ(acts[2].cycle, 19u);
  EXPECT_EQ(acts[3].cycle, 28u);
  EXPECT_EQ(acts[4].cycle, 49u);
}

TEST(DramTiming, AReadWaitsTwtrAfterAWriteAndAlatencyOfCasAfterItsActivate) {
  MemorySystem m(preset("ddr4-3200"));  // CWL 16, burst 4, tWTR_L 12, tCCD_L 8, tRCD 22, CL 22
  m.recordCommands(true);
  // Nine writes to one row: more than the low watermark with nothing else to do, so they drain.
  for (uint64_t i = 0; i < 9; ++i) m.enqueue({i, addressOf(m, 0, 0, 0, 3, static_cast<uint32_t>(i)), true}, i);
  m.enqueue({99, addressOf(m, 0, 0, 0, 3, 50), false}, 20);  // a read of the same row, another column
  std::vector<Completion> done;
  m.drain();
  m.takeCompletions(done);
  std::vector<CommandRecord> all;
  m.takeCommands(all);
  uint64_t lastWrite = 0, read = 0, act = 0;
  for (const auto& c : all) {
    if (c.kind == CommandRecord::kWrite) lastWrite = c.cycle;
    if (c.kind == CommandRecord::kRead) read = c.cycle;
    if (c.kind == CommandRecord::kActivate) act = c.cycle;
  }
  EXPECT_EQ(read, lastWrite + 16 + 4 + 12);  // WL + burst + tWTR_L: the same bank group
  for (const auto& c : done) {
    if (c.isWrite) {
      EXPECT_EQ(c.doneCycle, c.enterCycle + 1);  // posted
    } else {
      EXPECT_EQ(c.doneCycle, read + 22 + 4);  // CL + burst after its RD
    }
  }
  EXPECT_GE(all.front().cycle, act);
  EXPECT_EQ(TimingChecker(m.spec()).check(all), "");
}

TEST(DramTiming, ALoneReadTakesRcdClAndTheBurst) {
  MemorySystem m(preset("ddr4-3200"));
  m.enqueue({0, 0, false}, 100);
  m.drain();
  std::vector<Completion> done;
  m.takeCompletions(done);
  ASSERT_EQ(done.size(), 1u);
  // Enters at 100, ACT at 101, RD at 101 + tRCD 22, data done CL 22 + burst 4 later.
  EXPECT_EQ(done[0].decidedCycle, 123u);
  EXPECT_EQ(done[0].doneCycle, 149u);
  EXPECT_EQ(m.stats().averageReadLatency(), 49.0);
}

TEST(DramScheduler, RowHitsGoBeforeAnOlderMissUpToTheCap) {
  for (const uint32_t cap : {4u, 100u}) {
    DeviceSpec spec = preset("ddr4-3200");  // tCCD_L 8 between the hits, tRAS 52, tRP 22, tRCD 22
    spec.timing.tRTP = 1;  // so that the miss's precharge is ready between two hits once allowed
    spec.controller.rowHitCap = cap;
    MemorySystem m(spec);
    m.recordCommands(true);
    m.enqueue({0, addressOf(m, 0, 0, 0, 1, 0), false}, 0);  // opens row 1
    m.enqueue({1, addressOf(m, 0, 0, 0, 2, 0), false}, 1);  // a miss (row 2), older than ...
    for (uint32_t i = 0; i < 6; ++i) m.enqueue({2 + i, addressOf(m, 0, 0, 0, 1, 1 + i), false}, 2 + i);  // 6 hits
    m.drain();
    std::vector<CommandRecord> all;
    m.takeCommands(all);
    std::vector<int64_t> readRows;
    for (const auto& c : all) {
      if (c.kind == CommandRecord::kRead) readRows.push_back(c.row);
    }
    ASSERT_EQ(readRows.size(), 8u);
    EXPECT_EQ(readRows[1], 1) << "a hit went ahead of the older miss";
    const auto missAt = std::find(readRows.begin(), readRows.end(), 2) - readRows.begin();
    // With the cap the row yields after 4 column commands (the first read and 3 hits).
    EXPECT_EQ(missAt, cap == 4 ? 4 : 7);
  }
}

TEST(DramRefresh, EachRankIsRefreshedEveryTrefi) {
  const DeviceSpec spec = preset("ddr4-3200");  // 2 ranks, staggered: one refresh every tREFI / 2
  MemorySystem m(spec);
  m.recordCommands(true);
  const uint64_t tREFI = spec.timing.tREFI;
  m.advanceTo(10 * tREFI + 1);
  const auto refs = commandsOf(m, CommandRecord::kRefresh);
  ASSERT_EQ(refs.size(), 20u);
  for (size_t k = 0; k < refs.size(); ++k) {
    EXPECT_EQ(refs[k].cycle, (k + 1) * tREFI / 2) << k;  // idle banks: at once
    EXPECT_EQ(refs[k].rank, k % 2) << k;
  }
  EXPECT_EQ(m.stats().refreshes, 20u);
}

TEST(DramRefresh, ARanksCommandsWaitForItsRefresh) {
  const DeviceSpec spec = preset("ddr4-3200");
  MemorySystem m(spec);
  m.recordCommands(true);
  const uint64_t due = spec.timing.tREFI / 2;  // rank 0's first refresh
  m.enqueue({0, addressOf(m, 0, 0, 0, 5), false}, due - 30);  // its row opens just before
  m.enqueue({1, addressOf(m, 0, 1, 0, 5), false}, due + 1);    // arrives while the refresh waits
  m.drain();
  std::vector<CommandRecord> all;
  m.takeCommands(all);
  EXPECT_EQ(TimingChecker(spec).check(all), "");
  uint64_t ref = 0, pre = 0;
  std::vector<uint64_t> acts;
  for (const auto& c : all) {
    if (c.kind == CommandRecord::kRefresh) ref = c.cycle;
    if (c.kind == CommandRecord::kPrecharge) pre = c.cycle;
    if (c.kind == CommandRecord::kActivate) acts.push_back(c.cycle);
  }
  ASSERT_EQ(acts.size(), 2u);
  EXPECT_GE(pre, acts[0] + spec.timing.tRAS);   // the open row is closed for it ...
  EXPECT_EQ(ref, pre + spec.timing.tRP);        // ... and the refresh follows at once
  EXPECT_EQ(acts[1], ref + spec.timing.tRFC);   // the waiting activate goes tRFC later
}

TEST(DramWrites, PostedWritesDrainWhenTheQueueFillsOrTheChannelIdles) {
  const DeviceSpec spec = preset("ddr4-3200");
  MemorySystem few(spec), more(spec);
  few.recordCommands(true);
  more.recordCommands(true);
  for (uint64_t i = 0; i < 8; ++i) few.enqueue({i, i * 64, true}, i);  // at the low watermark: they wait
  for (uint64_t i = 0; i < 9; ++i) more.enqueue({i, i * 64, true}, i);  // above it, idle: drained
  few.advanceTo(5000);
  more.advanceTo(5000);
  EXPECT_EQ(commandsOf(few, CommandRecord::kWrite).size(), 0u);
  EXPECT_EQ(commandsOf(more, CommandRecord::kWrite).size(), 9u);
  EXPECT_EQ(few.stats().writesDone, 8u);  // acknowledged all the same
  // A read of a written address is served from the write queue.
  few.enqueue({50, 3 * 64, false}, 5000);
  few.advanceTo(5001);  // completions are handed over once their cycle has passed
  std::vector<Completion> done;
  few.takeCompletions(done);
  ASSERT_FALSE(done.empty());
  EXPECT_EQ(done.back().id, 50u);
  EXPECT_EQ(done.back().doneCycle, 5001u);
  EXPECT_EQ(few.stats().readsForwarded, 1u);
}

TEST(DramModel, EventDrivenEqualsCycleByCycle) {
  for (const auto& v : kVariants) {
    const DeviceSpec spec = variant(v[0], v[1]);
    const TrafficRun fast = runTraffic(spec, 1500, 11);
    const TrafficRun everyCycle = runTraffic(spec, 1500, 11, ReferenceChecks{true, false});
    const TrafficRun scanned = runTraffic(spec, 1500, 11, ReferenceChecks{false, true});
    for (const TrafficRun* other : {&everyCycle, &scanned}) {
      ASSERT_EQ(fast.commands.size(), other->commands.size()) << spec.name;
      for (size_t i = 0; i < fast.commands.size(); ++i) {
        const auto &a = fast.commands[i], &b = other->commands[i];
        ASSERT_TRUE(a.cycle == b.cycle && a.kind == b.kind && a.channel == b.channel && a.rank == b.rank &&
                    a.bankGroup == b.bankGroup && a.bank == b.bank && a.row == b.row && a.addr == b.addr)
            << spec.name << ": command " << i << " at " << a.cycle << " vs " << b.cycle;
      }
      ASSERT_EQ(fast.completions.size(), other->completions.size());
      for (size_t i = 0; i < fast.completions.size(); ++i) {
        ASSERT_EQ(fast.completions[i].id, other->completions[i].id) << spec.name << " " << i;
        ASSERT_EQ(fast.completions[i].doneCycle, other->completions[i].doneCycle) << spec.name << " " << i;
      }
      EXPECT_EQ(fast.stats.bankBusySum, other->stats.bankBusySum) << spec.name;
      EXPECT_EQ(fast.stats.rankActiveCycles, other->stats.rankActiveCycles) << spec.name;
    }
  }
}

TEST(DramModel, CompletionsComeInTheOrderTheyWereDecided) {
  MemorySystem m(preset("hbm2"));  // 8 channels, run lazily one by one
  std::vector<uint64_t> at;
  const auto traffic = mixedTraffic(m.spec(), 3000, 5, at);
  uint64_t last = 0;
  std::vector<Completion> done;
  for (size_t i = 0; i < traffic.size(); ++i) {
    last = m.offer(traffic[i], std::max(at[i], i == 0 ? 0 : last + 1));
    if (i % 97 == 0) m.takeCompletions(done);
  }
  m.drain();
  m.advanceTo(m.now() + 1);
  m.takeCompletions(done);
  ASSERT_EQ(done.size(), traffic.size());
  for (size_t i = 1; i < done.size(); ++i) {
    ASSERT_TRUE(done[i - 1].decidedCycle < done[i].decidedCycle ||
                (done[i - 1].decidedCycle == done[i].decidedCycle && done[i - 1].channel <= done[i].channel))
        << i;
  }
}

TEST(DramModel, EnqueueChecksItsArguments) {
  MemorySystem m(preset("lpddr4-3200"));
  EXPECT_THROW(m.enqueue({0, m.spec().org.capacityBytes(), false}, 0), std::out_of_range);
  m.enqueue({0, 0, false}, 10);
  EXPECT_THROW(m.enqueue({1, 64, false}, 9), std::logic_error);  // before now
  for (uint32_t i = 1; i < 32; ++i) m.enqueue({i, addressOf(m, 0, 0, i % 8, i), false}, 10);  // channel 0's 32
  EXPECT_FALSE(m.canAccept(0, false));
  EXPECT_TRUE(m.canAccept(addressOf(m, 0, 0, 0, 0, 0, 1), false));  // another channel has room
  EXPECT_THROW(m.enqueue({99, 0, false}, 10), std::logic_error);  // full
  EXPECT_GT(m.offer({99, 0, false}, 10), 10u);                    // offer waits for room instead
}

}  // namespace
}  // namespace weft::sim::dram
