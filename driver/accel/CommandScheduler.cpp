#include "CommandScheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <vector>

#include "ChannelCalendar.h"
#include "CommandCost.h"
#include "weft/sim/dram_config.h"

namespace weft::accel {
namespace {

// How much slower than the estimate a cycle-level DRAM may legitimately be (1 for the simple
// pipe, which the estimate describes). The estimate assumes DramBytesPerCycle; such a DRAM serves
// traffic it handles badly far slower: every transaction a row conflict, one after the other
// (tRC + tRCD + RL + burst each), with refresh taking tRFC of every tREFI. The watchdog is there
// for hangs, not for slow programs, so its bound grows by that worst case's time for a byte over
// the estimate's. (The compiler's estimates price the DRAM from its device, CostModel.h DramCost;
// the slack here still compares the worst case with DramBytesPerCycle, a generous margin over them.)
double cycleLevelDramSlack(const hw::HwConfig& config) {
  const auto device = sim::dramDeviceFor(config);
  if (!device) return 1;
  const sim::dram::Timing& t = device->timing;
  const double conflict = static_cast<double>(t.tRC + std::max(t.tRCDRD, t.tRCDWR) + t.readDelay());
  const double refresh = static_cast<double>(t.tREFI) / static_cast<double>(t.tREFI - std::min(t.tRFC, t.tREFI - 1));
  const double acceleratorCyclesPerDramCycle = t.tCK() * config.clockMHz() / 1000;
  const double worstCyclesPerByte =
      conflict * refresh * acceleratorCyclesPerDramCycle / static_cast<double>(device->org.requestBytes());
  const double estimatedCyclesPerByte = 1 / static_cast<double>(config.get(hw::Param::kDramBytesPerCycle));
  return std::max(1.0, worstCyclesPerByte / estimatedCyclesPerByte);
}

// The units with a command FIFO and the token queues between them (hw/spec/isa.json); barriers
// are segment boundaries.
constexpr int kUnits = static_cast<int>(hw::kNumFifoUnits);
constexpr int kQueues = static_cast<int>(hw::kNumTokenQueues);
using Knowledge = std::array<int64_t, kUnits>;  // per unit: all its commands <= value are complete

constexpr Knowledge noKnowledge() {
  Knowledge k{};
  for (auto& v : k) v = -1;
  return k;
}

int unitIndex(hw::Unit u) { return static_cast<int>(u); }

// The queue carrying a token from unit `from` to unit `to`, or -1 when there is none.
int queueBetween(int from, int to) {
  return hw::tokenQueueBetween(static_cast<hw::Unit>(from), static_cast<hw::Unit>(to));
}

// The header bit of `unit`'s commands that waits on / signals `queue`.
bool& waitBit(hw::CommandHeader& h, int unit, int queue) {
  return hw::kUnitTokenPorts[static_cast<size_t>(unit)].waits[0] == queue ? h.wait0 : h.wait1;
}
bool& signalBit(hw::CommandHeader& h, int unit, int queue) {
  return hw::kUnitTokenPorts[static_cast<size_t>(unit)].signals[0] == queue ? h.signal0 : h.signal1;
}

// The queues a command of `unit` with header `h` waits on and signals (-1: none).
std::array<int, 2> waitQueues(const hw::CommandHeader& h, int unit) {
  const auto& p = hw::kUnitTokenPorts[static_cast<size_t>(unit)];
  return {h.wait0 ? p.waits[0] : -1, h.wait1 ? p.waits[1] : -1};
}
std::array<int, 2> signalQueues(const hw::CommandHeader& h, int unit) {
  const auto& p = hw::kUnitTokenPorts[static_cast<size_t>(unit)];
  return {h.signal0 ? p.signals[0] : -1, h.signal1 ? p.signals[1] : -1};
}

// What the scheduling steps derive from a run of n commands between barriers. The commands
// stay where they are in the program: scheduling edits their token bits in place.
struct Segment {
  size_t n = 0;
  std::vector<int> unit;
  std::vector<Knowledge> maxDep;  // latest command of each unit it depends on
};

// Step 1 in one pass: a command depends on the last writer of each buffer it uses and, when it
// writes, on the readers since. Only the latest command of each unit matters (units complete
// in order), so a buffer keeps its latest reader per unit, not the list of readers.
class DependencyTracker {
 public:
  Knowledge add(const PlannedCommand& c, int unit) {
    const int64_t i = next_++;
    Knowledge dep = noKnowledge();
    auto depend = [&](int v, int64_t d) {
      if (v != unit) dep[v] = std::max(dep[v], d);
    };
    for (const BufferUse& use : c.uses) {
      State& b = state(use.buffer);
      if (b.lastWriter >= 0) depend(b.writerUnit, b.lastWriter);
      if (use.write) {
        for (int v = 0; v < kUnits; ++v) depend(v, b.lastReader[v]);
        b.lastReader = noKnowledge();
        b.lastWriter = i;
        b.writerUnit = unit;
      } else {
        b.lastReader[unit] = i;
      }
    }
    return dep;
  }

 private:
  struct State {
    int64_t lastWriter = -1;
    int writerUnit = 0;
    Knowledge lastReader = noKnowledge();
  };
  // Buffer ids are a kind and a small index (PlannedCommand.h): a flat table, not a map.
  State& state(uint32_t id) {
    auto& states = byKind_[(id >> 24) & 7];
    const uint32_t index = id & 0xFFFFFF;
    if (index >= states.size()) states.resize(index + 1);
    return states[index];
  }
  std::array<std::vector<State>, 8> byKind_;
  int64_t next_ = 0;
};

Segment findDependencies(const PlannedCommand* cmds, size_t n) {
  Segment s;
  s.n = n;
  s.unit.resize(n);
  s.maxDep.resize(n);
  DependencyTracker tracker;
  for (size_t i = 0; i < n; ++i) {
    s.unit[i] = unitIndex(cmds[i].unit());
    s.maxDep[i] = tracker.add(cmds[i], s.unit[i]);
  }
  return s;
}

// Step 3, command by command: each unit runs its commands in order, and a command starts when
// its unit is free and its dependencies are complete. The shared DRAM channel and the
// controller's command fetch bound the segment as a whole (their use is spread over it, so
// they are rates, not queues in loop-nest order). Where the simple pipe's requests lie is known
// (a program's schedule, CostModel::placed), the channel is also a calendar that the LOADs and
// STOREs take their cycles from: a head's loads that run beside the last head's output STORE
// wait for its writes. Without it, BERT's 12 products of probs x V (each head's output stored
// while the next head's inputs load) had the load unit's stream estimated 768 cycles a head
// early once loads were priced where they lie: the next head's weight loads went ahead of this
// head's last GEMMs in the ring, the controller (dispatching in ring order) held the GEMMs
// behind them while the load queue was full, and the layer ran 55,401 cycles instead of 51,950.
// A cycle-level DRAM decides each read before the next request is offered and takes writes as
// they are offered (posted): the LOADs' reads are the calendar, and a STORE whose writes come
// during them waits for them, even when the LOAD comes after it in program order (the next
// tile's LOAD beside this tile's STOREs). Without it the transformers' element-wise layers, GELU
// and RESHAPE copies at weft16-hbm2 were estimated 12-23 % short of their run.
class Timeline {
 public:
  // `n`: the segment's commands, if known. `readsInFlight`: a STORE's writes wait for the reads
  // offered before them, at most MaxOutstanding requests of the LOAD in flight (estimateTimeline).
  Timeline(const CostModel& cost, double t0, size_t n = 0, bool readsInFlight = false)
      : cost_(&cost),
        t0_(t0),
        makespan_(t0),
        writeRoom_(cost.dram ? cost.dram->writeQueueTransactions : 0),
        readsInFlight_(readsInFlight),
        end_(n, t0) {
    unitFree_.fill(t0);
  }

  // The estimated start of the segment's command `index`, of `unit`, with dependencies `dep`
  // (added before it).
  double add(const CommandCost& c, int unit, const Knowledge& dep, size_t index) {
    if (index >= end_.size()) end_.resize(index + 1, t0_);
    ++added_;
    double ready = unitFree_[unit];
    for (int v = 0; v < kUnits; ++v) {
      if (dep[v] >= 0) ready = std::max(ready, end_[dep[v]]);
    }
    double busy = c.busyCycles;
    double channel = c.channelCycles;
    if (c.writeTransactions > 0 && cost_->dram && cost_->dram->writeQueueTransactions > 0) {  // write queues
      // The queues hold room for at least what a drain leaves (the writes before have drained
      // meanwhile, or this store's first ones start a drain), for all of them at the start.
      const DramCost& dram = *cost_->dram;
      const bool crowded = dram.crowded(c.writeShare);
      if (crowded) {
        // Crowded into one channel, the writes before drain only as fast as it writes: the room
        // is what its queue had left and what it drained since the crowded store before.
        crowdedRoom_ = std::min(dram.writeQueueRoom(c.writeShare),
                                crowdedRoom_ + std::max(0.0, ready - crowdedAt_) / dram.burstTxCycles);
      } else {
        writeRoom_ = std::max(writeRoom_, dram.writeQueueRefill);
      }
      double& room = crowded ? crowdedRoom_ : writeRoom_;
      // The share of its writes the write queues take enter at the port's rate.
      const double queued = std::min(room, c.writeTransactions);
      if (queued > 0) busy -= queued / c.writeTransactions * (c.busyCycles - c.queuedBusyCycles);
      room -= queued;
      if (crowded) crowdedAt_ = ready + busy;
      // The rest wait for room: the DRAM takes requests in the order they come (both backends
      // decide each read as it is offered, sim/dram/README.md), so while a write waits for its
      // queue no read behind it enters: it costs the reads' timeline the store's rate (two
      // channels draining), not its channel's share, as far as the reads keep the channels
      // streaming (while the loads open rows, their channels' data buses are idle and the
      // writes drain there). A transformer's RESHAPE, LAYER_NORM, GELU and residual ADD (16-byte
      // rows, 257 writes a tile, the loads streaming) ran 10-20 % over the share alone; its head
      // transposes (the loads opening a row every few requests) stayed within it.
      channel += (c.writeTransactions - queued) *
                 (cost_->dram->writeEntryCycles(c.writeShare) - cost_->dram->writeChannelCycles) * readStreaming_;
    }
    if (unit == unitIndex(hw::Unit::kLoad) && c.channelCycles > 0) {  // how much of a LOAD streams
      readStreaming_ = 1 - std::min(1.0, c.rowOpenCycles / c.channelCycles);
    }
    const int load = unitIndex(hw::Unit::kLoad), store = unitIndex(hw::Unit::kStore);
    if (cost_->placed && channel > 0 && !cost_->dram) {
      // The simple pipe serves the loads' and stores' requests one after the other: a LOAD that
      // starts while a STORE's writes hold the channel waits for them. The commands come in
      // program order, not in time, so the channel is a calendar of the cycles taken so far,
      // and each command takes the first free ones from its start.
      busy = std::max(busy, calendar_.take(ready, channel) - ready);
      calendar_.forgetBefore(std::min(unitFree_[load], unitFree_[store]));
    } else if (cost_->placed && channel > 0) {
      // A cycle-level DRAM decides each read before the next request is offered, and a write
      // enters when offered: a STORE whose writes come while a LOAD's reads are being decided
      // waits for them, but what it writes does not hold the reads after it. The LOADs' reads
      // are a calendar; a STORE added after a LOAD waits for the calendar, and a LOAD added
      // after a STORE that it runs beside (program order is not time order) delays it.
      // A later LOAD starts no earlier than the load unit is free: stores before that are settled.
      const auto settled = [&] {
        stores_.erase(std::remove_if(stores_.begin(), stores_.end(),
                                     [&](const PendingStore& p) { return p.start < unitFree_[load]; }),
                      stores_.end());
      };
      if (unit == store) {
        double wait = calendar_.freeFrom(ready) - ready;
        if (readsInFlight_ && ready >= loadFrom_ && ready < loadTo_) wait = std::min(wait, loadInFlight_);
        busy += wait;
        if (stores_.size() >= kPendingStores) settled();
        stores_.push_back({index, ready + wait, ready + busy});
      } else if (unit == load) {
        const double from = calendar_.freeFrom(ready), to = calendar_.take(ready, channel);
        busy = std::max(busy, to - ready);
        // The time its reads in flight take: a write offered while it streams waits that long.
        const double inFlight = readsInFlight_ && c.requests > 0 ? cost_->maxOutstanding * channel / c.requests : to - from;
        loadFrom_ = from;
        loadTo_ = to;
        loadInFlight_ = inFlight;
        // The store unit runs them in order: one delayed delays those after it in turn.
        double unitFrom = 0;
        for (PendingStore& p : stores_) {
          const double held = std::min(to, std::max(from, p.start) + inFlight);
          const double start = std::max(p.start >= from && p.start < to ? held : p.start, unitFrom);
          if (start > p.start) {
            const double delay = start - p.start;
            p.start = start;
            p.busyEnd += delay;
            end_[p.index] += delay;
            makespan_ = std::max(makespan_, end_[p.index]);
            unitFree_[store] = std::max(unitFree_[store], p.busyEnd);
          }
          unitFrom = p.busyEnd;
        }
        calendar_.forgetBefore(std::min(unitFree_[load], unitFree_[store]));
        settled();
      }
    }
    end_[index] = ready + busy + (c.doneCycles - c.busyCycles);
    unitFree_[unit] = ready + busy;
    channel_ += channel;
    port_ += c.portCycles;
    makespan_ = std::max(makespan_, end_[index]);
    return ready;
  }
  size_t size() const { return added_; }
  // The bounds on when the segment's last command completes: the units' timeline, the channel
  // (every command's bursts and its fetch), the controller's fetch rate, and the read port (the
  // loads' and the fetches' beats, one a cycle: at weft16-ddr4 a LOAD of 64-byte rows returns
  // faster than the port takes it with the commands beside it; GPT-2's probs x V over the cache
  // ran 4.9 cycles a row against the channel's 2.7).
  TimelineBounds bounds() const {
    const auto n = static_cast<double>(added_);
    return {makespan_, t0_ + channel_ + n * cost_->fetchChannelCycles() + cost_->latency,
            t0_ + n * cost_->fetchCycles(), t0_ + port_ + n * cost_->fetchPortCycles() + cost_->latency};
  }
  double finish() const {
    const TimelineBounds b = bounds();
    return *std::max_element(b.begin(), b.end());
  }

 private:
  const CostModel* cost_;
  double t0_, makespan_, channel_ = 0, port_ = 0;
  // Write transactions the write queues take before they drain, from the segment's start (a
  // cycle-level DRAM; the DRAM's state before it is not known here).
  double writeRoom_;
  // For a crowded STORE (CommandCost::writeShare): its channel's queue room as of crowdedAt_.
  double crowdedRoom_ = 1e30, crowdedAt_ = 0;
  double readStreaming_ = 1;  // of the last LOAD's channel time, the share not opening rows
  const bool readsInFlight_;
  double loadFrom_ = 0, loadTo_ = 0, loadInFlight_ = 0;  // the last LOAD's reads, and those in flight
  ChannelCalendar calendar_;  // the simple pipe's channel, or a cycle-level DRAM's reads; where placed
  struct PendingStore {
    size_t index;          // into end_
    double start, busyEnd;  // its writes' start, and when its unit is free
  };
  std::vector<PendingStore> stores_;  // a cycle-level DRAM's STOREs a later LOAD may delay
  static constexpr size_t kPendingStores = 256;  // settled when this many wait (many STOREs, no LOAD)
  std::array<double, kUnits> unitFree_;
  std::vector<double> end_;  // by command index
  size_t added_ = 0;
};

// Turns dependencies into token waits and signals (step 2).
nn::Status assignTokens(PlannedCommand* cmds, const Segment& s, unsigned tokenDepth) {
  const size_t n = s.n;
  std::vector<Knowledge> done(n);
  std::array<Knowledge, kUnits> known;
  for (auto& k : known) k = noKnowledge();
  // Per queue: the consumer positions of the arcs (waits) assigned so far, to bound how many
  // tokens are in flight in loop-nest order (which bounds the ring order, see mergeRing).
  std::array<std::vector<int64_t>, kQueues> popAt;
  // The commands of each unit in order, to find a later signaller.
  std::array<std::vector<int64_t>, kUnits> ofUnit;
  const size_t maxOpen = std::max<unsigned>(1, tokenDepth - 1);

  for (size_t i = 0; i < n; ++i) {
    const int u = s.unit[i];
    Knowledge k = known[u];
    for (int v = 0; v < kUnits; ++v) {
      const int q = queueBetween(v, u);
      if (q < 0) continue;
      int64_t d = s.maxDep[i][v];
      if (d <= k[v]) continue;
      // Arcs still open at d: waits placed after d. Keep fewer than TokenDepth.
      const auto& pops = popAt[q];
      const size_t open = pops.end() - std::upper_bound(pops.begin(), pops.end(), d);
      if (open >= maxOpen) {
        // Wait on a later signaller instead: the first command of v at or after the consumer
        // of the arc that must close, else the last one before i (always sufficient).
        const int64_t closeAt = pops[pops.size() - maxOpen];
        const auto& cands = ofUnit[v];
        auto it = std::lower_bound(cands.begin(), cands.end(), closeAt);
        d = it != cands.end() ? *it : cands.back();
        if (d <= k[v]) continue;
      }
      waitBit(cmds[i].header(), u, q) = true;
      signalBit(cmds[d].header(), v, q) = true;
      popAt[q].push_back(static_cast<int64_t>(i));
      for (int w = 0; w < kUnits; ++w) k[w] = std::max(k[w], done[d][w]);
    }
    for (int v = 0; v < kUnits; ++v) {
      if (s.maxDep[i][v] > k[v]) {
        return NN_ERROR(OP_FAILED) << "internal error: command " << i << " depends on unit " << v << " command "
                                   << s.maxDep[i][v] << " without an ordering tokens can express";
      }
    }
    done[i] = k;
    done[i][u] = static_cast<int64_t>(i);  // units complete in order
    known[u] = k;
    ofUnit[u].push_back(static_cast<int64_t>(i));
  }
  return {};
}

// The estimated start of every command of a segment, and when the segment completes.
//
// With a cycle-level DRAM and the tensors placed, the timeline is taken twice: once in program
// order, which gives the starts (and so the ring order), and again with the commands added in
// the order of those starts, which gives the estimate. Added in program order, a LOAD that comes
// after a STORE it runs beside delays the STORE after the commands that wait for the STORE were
// already placed: fire5/squeeze1x1 of SqueezeNet at weft16-lpddr4 loads each box while the last
// box's STOREs wait for its reads, the next box's GEMM waits for the STORE to free its
// accumulators and the LOAD after that for the GEMM to free its input buffer; the run paid that
// chain (42,765 cycles) and the program-order timeline did not (34,053). Added in time order, the
// STORE comes after the LOAD it waits for, and so does the chain. That pass also bounds a STORE's
// wait by the LOAD's reads in flight (MaxOutstanding requests), which is what the DRAM decides
// before a write offered beside a LOAD of many requests (MobileNet's depthwise bands); the first
// pass keeps the whole LOAD, so the ring, and the program, stay as they were.
double estimateTimeline(const CommandCost* costs, const Segment& s, const CostModel& cost, double t0,
                        std::vector<double>& start) {
  Timeline timeline(cost, t0, s.n);
  start.resize(s.n);
  for (size_t i = 0; i < s.n; ++i) start[i] = timeline.add(costs[i], s.unit[i], s.maxDep[i], i);
  if (!cost.dram || !cost.placed) return timeline.finish();
  // By start; a unit's commands and every command's dependencies keep their order (each starts
  // no earlier than what it follows, and ties keep the program's order).
  std::vector<size_t> order(s.n);
  for (size_t i = 0; i < s.n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return start[a] < start[b]; });
  Timeline inTimeOrder(cost, t0, s.n, /*readsInFlight=*/true);
  for (const size_t i : order) inTimeOrder.add(costs[i], s.unit[i], s.maxDep[i], i);
  return inTimeOrder.finish();
}

// Merges the unit streams by estimated start under the token constraints (step 4).
nn::Status mergeRing(const PlannedCommand* cmds, size_t first, const Segment& s, const std::vector<double>& start,
                     unsigned tokenDepth, std::vector<uint32_t>& ring) {
  std::array<std::vector<size_t>, kUnits> stream;
  for (size_t i = 0; i < s.n; ++i) stream[s.unit[i]].push_back(i);
  std::array<size_t, kUnits> head{};
  std::array<int64_t, kQueues> tokens{};
  for (size_t emitted = 0; emitted < s.n; ++emitted) {
    int pick = -1;
    for (int u = 0; u < kUnits; ++u) {
      if (head[u] >= stream[u].size()) continue;
      const size_t i = stream[u][head[u]];
      const auto& h = cmds[i].header();
      bool ok = true;
      for (int q : waitQueues(h, u)) ok = ok && (q < 0 || tokens[static_cast<size_t>(q)] > 0);
      for (int q : signalQueues(h, u))
        ok = ok && (q < 0 || tokens[static_cast<size_t>(q)] < static_cast<int64_t>(tokenDepth));
      if (!ok) continue;
      if (pick < 0 || start[i] < start[stream[pick][head[pick]]] ||
          (start[i] == start[stream[pick][head[pick]]] && i < stream[pick][head[pick]])) {
        pick = u;
      }
    }
    if (pick < 0) return NN_ERROR(OP_FAILED) << "internal error: the command streams deadlock on tokens";
    const size_t i = stream[pick][head[pick]++];
    const auto& h = cmds[i].header();
    for (int q : waitQueues(h, pick)) {
      if (q >= 0) --tokens[static_cast<size_t>(q)];
    }
    for (int q : signalQueues(h, pick)) {
      if (q >= 0) ++tokens[static_cast<size_t>(q)];
    }
    ring.push_back(static_cast<uint32_t>(first + i));
  }
  for (int64_t t : tokens) {
    if (t != 0) return NN_ERROR(OP_FAILED) << "internal error: tokens left over at the end of a segment";
  }
  return {};
}

// Steps 1-4 for the `n` commands of one segment (no barrier among them), costing `costs`, which
// start at `t`: their token bits set, their ring order appended to `ring` (indices from `first`),
// and `t` moved to when they complete.
nn::Status scheduleSegment(PlannedCommand* cmds, const CommandCost* costs, size_t n, size_t first,
                           const CostModel& cost, unsigned tokenDepth, double& t, std::vector<double>& start,
                           std::vector<uint32_t>& ring) {
  for (size_t i = 0; i < n; ++i) {
    auto& h = cmds[i].header();
    h.wait0 = h.wait1 = h.signal0 = h.signal1 = false;
  }
  const Segment seg = findDependencies(cmds, n);
  NN_TRY(assignTokens(cmds, seg, tokenDepth));
  t = estimateTimeline(costs, seg, cost, t, start);
  return mergeRing(cmds, first, seg, start, tokenDepth, ring);
}

}  // namespace

nn::Result<ScheduleResult> scheduleCommands(std::vector<PlannedCommand> commands, const hw::HwConfig& config) {
  CostModel cost(config);
  cost.placed = true;  // a program's commands, as ProgramBuilder prices them
  const auto tokenDepth = static_cast<unsigned>(config.get(hw::Param::kTokenDepth));
  if (commands.size() > UINT32_MAX) return NN_ERROR(OP_FAILED) << "a program of more than 2^32 commands";
  std::vector<CommandCost> costs;
  costs.reserve(commands.size());
  for (const PlannedCommand& c : commands) costs.push_back(estimate(cost, c));
  ScheduleResult result;
  result.ring.reserve(commands.size());
  double t = 0;
  std::vector<double> start;
  size_t first = 0;  // of the segment since the last barrier
  for (size_t i = 0; i <= commands.size(); ++i) {
    const bool barrier = i < commands.size() && commands[i].isBarrier();
    if (!barrier && i < commands.size()) continue;
    if (i > first) {
      NN_TRY(scheduleSegment(commands.data() + first, costs.data() + first, i - first, first, cost, tokenDepth, t,
                             start, result.ring));
    }
    if (barrier) {
      result.ring.push_back(static_cast<uint32_t>(i));
      t += cost.latency;  // draining and the snapshot write
    }
    first = i + 1;
  }
  result.estimatedCycles = t;
  result.commands = std::move(commands);
  return result;
}

ProgramBuilder::ProgramBuilder(const hw::HwConfig& config)
    : cost_(std::make_unique<CostModel>(config)),
      tokenDepth_(static_cast<unsigned>(config.get(hw::Param::kTokenDepth))),
      dramSlack_(cycleLevelDramSlack(config)) {
  cost_->placed = true;  // the program's commands address placed tensors
}
ProgramBuilder::~ProgramBuilder() = default;

std::string ProgramBuilder::takeNotes() {
  std::string joined;
  for (const std::string& n : notes_) joined += (joined.empty() ? "" : ", ") + n;
  notes_.clear();
  return joined;
}

void ProgramBuilder::expect(size_t commands) {
  // At most a segment: a huge layer's hint overstates one of its epochs, and its segments are
  // cut at kMaxSegmentCommands (22 MB of planned commands, which growing by doubling from half of
  // it held one and a half times).
  segment_.reserve(std::min(segment_.size() + commands, kMaxSegmentCommands));
  costs_.reserve(segment_.capacity());
  // The program's bytes for the whole layer: growing them by doubling held the old and the new
  // copy at once (a GNMT layer's 130 MB twice). Reserved pages are not touched until written.
  program_.reserve(program_.size() + commands * hw::kCommandBytes);
}

void ProgramBuilder::add(PlannedCommand&& command) {
  if (!command.isBarrier() && segment_.size() >= kMaxSegmentCommands) add(PlannedCommand{hw::BarrierCmd{}, {}});
  ++count_;
  const CommandCost cost = estimate(*cost_, command);
  // The configured latency, not a cycle-level DRAM's (CostModel::configuredLatency): the bound's
  // DRAM slack is relative to the configured pipe.
  serial_ += cost.doneCycles + cost_->configuredLatency + cost_->fetchCyclesAt(cost_->configuredLatency);
  if (!command.isBarrier()) {
    segment_.push_back(std::move(command));
    costs_.push_back(cost);
    return;
  }
  flush();
  append(command);
  t_ += cost_->latency;  // draining and the snapshot write
}

void ProgramBuilder::append(const PlannedCommand& command) {
  const size_t at = program_.size();
  program_.resize(at + hw::kCommandBytes);
  command.encode().toBytes(&program_[at]);
}

void ProgramBuilder::flush() {
  if (segment_.empty()) return;
  if (status_.ok()) {
    ring_.clear();
    status_ = scheduleSegment(segment_.data(), costs_.data(), segment_.size(), 0, *cost_, tokenDepth_, t_, start_,
                              ring_);
    if (status_.ok()) {
      for (uint32_t i : ring_) append(segment_[i]);
    }
  }
  segment_.clear();
  costs_.clear();
}

nn::Result<ScheduledProgram> ProgramBuilder::finish() {
  flush();
  NN_TRY(status_);
  if (count_ > UINT32_MAX) return NN_ERROR(OP_FAILED) << "a program of more than 2^32 commands";
  ScheduledProgram p;
  p.program = std::move(program_);
  p.commands = count_;
  p.estimatedCycles = t_;
  return p;
}

struct ScheduleEstimator::Segment {
  Segment(const CostModel& cost, double t0) : timeline(cost, t0) {}
  DependencyTracker dependencies;
  Timeline timeline;
};

ScheduleEstimator::ScheduleEstimator(const hw::HwConfig& config, uint64_t gemmBudget, bool placed)
    : cost_(std::make_unique<CostModel>(config)),
      segment_(std::make_unique<Segment>(*cost_, 0.0)),
      budget_(gemmBudget) {
  cost_->placed = placed;
}
ScheduleEstimator::~ScheduleEstimator() = default;

void ScheduleEstimator::add(PlannedCommand&& command) {
  // The barrier ProgramBuilder puts before a command that would overfill the segment.
  if (!command.isBarrier() && segmentCommands_ >= kMaxSegmentCommands) add(PlannedCommand{hw::BarrierCmd{}, {}});
  const CommandCost cost = estimate(*cost_, command);
  channel_ += cost.channelCycles + cost_->fetchChannelCycles();
  if (command.isBarrier()) {
    t_ = cycles() + cost_->latency;  // draining and the snapshot write
    segment_ = std::make_unique<Segment>(*cost_, t_);
    segmentCommands_ = 0;
    return;
  }
  ++segmentCommands_;
  const int unit = unitIndex(command.unit());
  const auto* gemm = std::get_if<hw::GemmCmd>(&command.cmd);
  const uint32_t steps = gemm != nullptr ? gemm->kSteps : 0;
  segment_->timeline.add(cost, unit, segment_->dependencies.add(command, unit), segmentCommands_ - 1);
  if (gemm == nullptr || budget_ == 0) return;
  gemmBusy_ += cost.busyCycles;
  // The budget is of GEMM steps (gemmWork()), so that a prefix is the same work however many
  // steps its commands hold.
  const uint64_t before = gemms_;
  gemms_ += steps;
  const uint64_t half = std::max<uint64_t>(1, budget_ / 2);
  if (before < half && gemms_ >= half) half_ = {gemmBusy_, bounds(), channel_};
  if (gemms_ >= budget_) {
    truncated_ = true;
    throw EstimateBudgetSpent{};
  }
}

// A figure at the end of the prefix, plus its rate over the prefix's second half times the GEMM
// work left (the first half holds the pipeline's fill).
double ScheduleEstimator::project(double now, double half, double totalGemmBusy) const {
  if (!truncated_) return now;
  const double span = gemmBusy_ - half_.gemmBusy;
  const double rate = span > 0 ? (now - half) / span : 0;
  return now + std::max(0.0, rate) * std::max(0.0, totalGemmBusy - gemmBusy_);
}

// Each bound projected on its own: which of them binds can change over a program (the channel
// and fetch bounds lead while the pipeline fills), and projecting their maximum from a prefix
// where the lead changed hands took the slope of neither.
double ScheduleEstimator::projectedCycles(double totalGemmBusy) const {
  const TimelineBounds now = bounds();
  double projected = 0;
  for (size_t i = 0; i < now.size(); ++i) {
    projected = std::max(projected, project(now[i], half_.bounds[i], totalGemmBusy));
  }
  return projected;
}
double ScheduleEstimator::projectedChannelCycles(double totalGemmBusy) const {
  return project(channel_, half_.channel, totalGemmBusy);
}

double ScheduleEstimator::cycles() const {
  const TimelineBounds b = bounds();
  return *std::max_element(b.begin(), b.end());
}

TimelineBounds ScheduleEstimator::bounds() const {
  if (segment_->timeline.size() == 0) return {t_, t_, t_, t_};
  return segment_->timeline.bounds();
}

}  // namespace weft::accel
