#include "CommandScheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>

#include "CostModel.h"

namespace weft::accel {
namespace {

constexpr int kUnits = 3;  // load, compute, store (barriers are segment boundaries)
using Knowledge = std::array<int64_t, kUnits>;  // per unit: all its commands <= value are complete

// The four token queues.
enum Queue { kLoadToCompute, kComputeToLoad, kComputeToStore, kStoreToCompute, kQueues };

int unitIndex(hw::Unit u) { return static_cast<int>(u); }

// The queue carrying a token from unit `from` to unit `to`, or -1 when they are not adjacent.
int queueBetween(int from, int to) {
  if (from == 0 && to == 1) return kLoadToCompute;
  if (from == 1 && to == 0) return kComputeToLoad;
  if (from == 1 && to == 2) return kComputeToStore;
  if (from == 2 && to == 1) return kStoreToCompute;
  return -1;
}

void setWait(hw::CommandHeader& h, int queue) {
  if (queue == kLoadToCompute || queue == kComputeToStore) h.waitPrev = true;
  else h.waitNext = true;  // compute->load (load waits on next), store->compute (compute waits on next)
}
void setSignal(hw::CommandHeader& h, int queue) {
  if (queue == kLoadToCompute || queue == kComputeToStore) h.signalNext = true;
  else h.signalPrev = true;
}
int waitQueue(int unit, bool prev) {
  switch (unit) {
    case 0: return prev ? -1 : kComputeToLoad;
    case 1: return prev ? kLoadToCompute : kStoreToCompute;
    case 2: return prev ? kComputeToStore : -1;
  }
  return -1;
}
int signalQueue(int unit, bool prev) {
  switch (unit) {
    case 0: return prev ? -1 : kLoadToCompute;
    case 1: return prev ? kComputeToLoad : kComputeToStore;
    case 2: return prev ? kStoreToCompute : -1;
  }
  return -1;
}

struct Segment {
  std::vector<PlannedCommand> cmds;
  std::vector<int> unit;
  std::vector<std::array<int64_t, kUnits>> maxDep;  // latest command of each unit it depends on
};

void findDependencies(Segment& s) {
  struct BufferState {
    int64_t lastWriter = -1;
    std::vector<int64_t> readers;
  };
  std::map<uint32_t, BufferState> buffers;
  const size_t n = s.cmds.size();
  s.maxDep.assign(n, {-1, -1, -1});
  for (size_t i = 0; i < n; ++i) {
    auto depend = [&](int64_t d) {
      if (d < 0 || s.unit[d] == s.unit[i]) return;
      auto& m = s.maxDep[i][s.unit[d]];
      m = std::max(m, d);
    };
    for (const BufferUse& use : s.cmds[i].uses) {
      BufferState& b = buffers[use.buffer];
      depend(b.lastWriter);
      if (use.write) {
        for (int64_t r : b.readers) depend(r);
        b.readers.clear();
        b.lastWriter = static_cast<int64_t>(i);
      } else {
        b.readers.push_back(static_cast<int64_t>(i));
      }
    }
  }
}

// Turns dependencies into token waits and signals (step 2).
nn::Status assignTokens(Segment& s, unsigned tokenDepth) {
  const size_t n = s.cmds.size();
  std::vector<Knowledge> done(n);
  std::array<Knowledge, kUnits> known;
  for (auto& k : known) k = {-1, -1, -1};
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
      setWait(s.cmds[i].header(), q);
      setSignal(s.cmds[d].header(), q);
      popAt[q].push_back(static_cast<int64_t>(i));
      for (int w = 0; w < kUnits; ++w) k[w] = std::max(k[w], done[d][w]);
    }
    for (int v = 0; v < kUnits; ++v) {
      if (s.maxDep[i][v] > k[v]) {
        return NN_ERROR(OP_FAILED) << "internal error: command " << i << " depends on unit " << v
                                   << " command " << s.maxDep[i][v]
                                   << " without an ordering tokens can express";
      }
    }
    done[i] = k;
    done[i][u] = static_cast<int64_t>(i);  // units complete in order
    known[u] = k;
    ofUnit[u].push_back(static_cast<int64_t>(i));
  }
  return {};
}

// Estimated start and end of every command (step 3): each unit runs its commands in order,
// and a command starts when its unit is free and its dependencies are complete. The shared
// DRAM channel and the controller's command fetch bound the segment as a whole (their use is
// spread over it, so they are rates, not queues in loop-nest order).
double estimateTimeline(const Segment& s, const CostModel& cost, double t0, std::vector<double>& start) {
  const size_t n = s.cmds.size();
  std::vector<double> end(n);
  start.assign(n, 0);
  std::array<double, kUnits> unitFree{t0, t0, t0};
  double makespan = t0, channel = 0;
  for (size_t i = 0; i < n; ++i) {
    const int u = s.unit[i];
    double ready = unitFree[u];
    for (int v = 0; v < kUnits; ++v) {
      if (s.maxDep[i][v] >= 0) ready = std::max(ready, end[s.maxDep[i][v]]);
    }
    const PlannedCommand& c = s.cmds[i];
    start[i] = ready;
    end[i] = ready + c.doneCycles;
    unitFree[u] = ready + c.busyCycles;
    channel += c.channelCycles;
    makespan = std::max(makespan, end[i]);
  }
  return std::max({makespan, t0 + channel + cost.latency, t0 + static_cast<double>(n) * cost.fetchCycles()});
}

// Merges the unit streams by estimated start under the token constraints (step 4).
nn::Status mergeRing(Segment& s, const std::vector<double>& start, unsigned tokenDepth,
                     std::vector<PlannedCommand>& ring) {
  std::array<std::vector<size_t>, kUnits> stream;
  for (size_t i = 0; i < s.cmds.size(); ++i) stream[s.unit[i]].push_back(i);
  std::array<size_t, kUnits> head{};
  std::array<int64_t, kQueues> tokens{};
  for (size_t emitted = 0; emitted < s.cmds.size(); ++emitted) {
    int pick = -1;
    for (int u = 0; u < kUnits; ++u) {
      if (head[u] >= stream[u].size()) continue;
      const size_t i = stream[u][head[u]];
      const auto& h = s.cmds[i].header();
      const int wp = h.waitPrev ? waitQueue(u, true) : -1, wn = h.waitNext ? waitQueue(u, false) : -1;
      const int sp = h.signalPrev ? signalQueue(u, true) : -1, sn = h.signalNext ? signalQueue(u, false) : -1;
      bool ok = true;
      for (int q : {wp, wn}) ok = ok && (q < 0 || tokens[static_cast<size_t>(q)] > 0);
      for (int q : {sp, sn}) ok = ok && (q < 0 || tokens[static_cast<size_t>(q)] < static_cast<int64_t>(tokenDepth));
      if (!ok) continue;
      if (pick < 0 || start[i] < start[stream[pick][head[pick]]] ||
          (start[i] == start[stream[pick][head[pick]]] && i < stream[pick][head[pick]])) {
        pick = u;
      }
    }
    if (pick < 0) return NN_ERROR(OP_FAILED) << "internal error: the command streams deadlock on tokens";
    const size_t i = stream[pick][head[pick]++];
    const auto& h = s.cmds[i].header();
    auto adjust = [&](bool flag, int q, int delta) {
      if (flag && q >= 0) tokens[static_cast<size_t>(q)] += delta;
    };
    adjust(h.waitPrev, waitQueue(pick, true), -1);
    adjust(h.waitNext, waitQueue(pick, false), -1);
    adjust(h.signalPrev, signalQueue(pick, true), +1);
    adjust(h.signalNext, signalQueue(pick, false), +1);
    ring.push_back(std::move(s.cmds[i]));
  }
  for (int64_t t : tokens) {
    if (t != 0) return NN_ERROR(OP_FAILED) << "internal error: tokens left over at the end of a segment";
  }
  return {};
}

}  // namespace

nn::Result<ScheduleResult> scheduleCommands(std::vector<PlannedCommand> commands, const hw::HwConfig& config) {
  const CostModel cost(config);
  const auto tokenDepth = static_cast<unsigned>(config.get(hw::Param::kTokenDepth));
  ScheduleResult result;
  result.ring.reserve(commands.size());
  double t = 0;
  Segment seg;
  auto flush = [&]() -> nn::Status {
    if (seg.cmds.empty()) return {};
    findDependencies(seg);
    NN_TRY(assignTokens(seg, tokenDepth));
    std::vector<double> start;
    t = estimateTimeline(seg, cost, t, start);
    NN_TRY(mergeRing(seg, start, tokenDepth, result.ring));
    seg = Segment{};
    return {};
  };
  for (auto& c : commands) {
    if (c.isBarrier()) {
      NN_TRY(flush());
      result.ring.push_back(std::move(c));
      t += cost.latency;  // draining and the snapshot write
      continue;
    }
    for (auto& b : {&c.header().waitPrev, &c.header().waitNext, &c.header().signalPrev, &c.header().signalNext}) *b = false;
    seg.unit.push_back(unitIndex(c.unit()));
    seg.cmds.push_back(std::move(c));
  }
  NN_TRY(flush());
  result.estimatedCycles = t;
  return result;
}

}  // namespace weft::accel
