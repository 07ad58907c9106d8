// The state the approximate model's agents share: the controller's registers, the command
// FIFOs, the token queues, the two DRAM ports and the event counters. Each FIFO entry and
// token carries the cycle from which its consumer may use it, so the agents can run on
// their own timelines and meet only where the hardware makes them meet.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <limits>

#include "approx/approx_timing.h"
#include "weft/hw/config.h"
#include "weft/hw/generated.h"
#include "weft/sim/dram_model.h"
#include "weft/sim/functional_model.h"

namespace weft::sim::approx {

inline constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

// Something that acts at cycles of its own choosing: the scheduler asks every agent for its
// next action's cycle (kNever while it waits for another agent) and runs the earliest.
class Agent {
 public:
  virtual ~Agent() = default;
  virtual uint64_t nextCycle() const = 0;
  virtual void act(uint64_t now) = 0;
  // CTRL.soft_reset at cycle `now`: drop all work, keep the performance counts.
  virtual void abort(uint64_t now) = 0;
  // Hardware reset: everything, counts included.
  virtual void reset() = 0;
};

// The controller-visible registers and state.
struct ControlState {
  bool enable = false;
  uint64_t ringBase = 0;
  uint32_t ringSize = 0;
  uint32_t head = 0;
  uint32_t tail = 0;
  bool halted = false;
  hw::Error error = hw::Error::kNone;
  uint32_t irqStatus = 0;
  uint32_t irqMask = 0;

  bool irqLine() const { return (irqStatus & irqMask) != 0; }
};

struct QueuedCommand {
  hw::CommandWord word;
  uint64_t readyAt;  // first cycle its consumer may take it
};

// A command in the fetch buffer, checked once when its data arrives (the check depends on
// the command and the configuration only).
struct FetchedCommand {
  hw::CommandWord word;
  uint64_t readyAt;
  hw::Error error;
  hw::Unit unit;
};

enum TokenQueueId { kLoadToCompute = 0, kComputeToLoad, kComputeToStore, kStoreToCompute };

struct TokenQueue {
  std::deque<uint64_t> readyAt;
  unsigned depth = 0;
  bool full() const { return readyAt.size() >= depth; }
};

// Event counts (the counters that do not count cycles), indexed by hw::Counter.
using EventCounts = std::array<uint64_t, hw::kNumCounters>;

inline void count(EventCounts& c, hw::Counter which, uint64_t n = 1) {
  c[static_cast<size_t>(which)] += n;
}

// The DRAM read port, shared by the fetcher and the load unit: one request a cycle on the
// request channel, data in request order, one beat of BusBytes a cycle on the return bus.
class ReadPort {
 public:
  ReadPort(DramModel& dram, unsigned busBytes, EventCounts& events)
      : dram_(dram), busBytes_(busBytes), events_(events) {}
  uint64_t requestFree() const { return requestFree_; }
  // Issues a read at cycle t (>= requestFree()); returns the cycle its last beat arrives.
  uint64_t read(uint64_t addr, uint32_t bytes, uint64_t t) {
    const uint64_t first = std::max(dram_.timeRead(addr, bytes, t), returnFree_);
    const uint64_t last = first + (bytes + busBytes_ - 1) / busBytes_ - 1;
    returnFree_ = last + 1;
    requestFree_ = t + 1;
    count(events_, hw::Counter::kDmaRdBytes, bytes);
    count(events_, hw::Counter::kDmaRdReqs);
    return last;
  }
  void reset() { requestFree_ = returnFree_ = 0; }

 private:
  DramModel& dram_;
  unsigned busBytes_;
  EventCounts& events_;
  uint64_t requestFree_ = 0, returnFree_ = 0;
};

// The DRAM write port, shared by the store unit and barrier snapshots: a request, then its
// data beats one a cycle, then DRAM's acknowledgement.
class WritePort {
 public:
  WritePort(DramModel& dram, unsigned busBytes, EventCounts& events)
      : dram_(dram), busBytes_(busBytes), events_(events) {}
  // The first cycle a new request's data may start.
  uint64_t dataFree() const { return dataFree_; }
  // Writes with the request at cycle t; returns the acknowledgement cycle.
  uint64_t write(uint64_t addr, uint32_t bytes, uint64_t t) {
    const uint64_t firstBeat = std::max(t, dataFree_);
    const uint64_t lastBeat = firstBeat + (bytes + busBytes_ - 1) / busBytes_ - 1;
    dataFree_ = lastBeat + 1;
    count(events_, hw::Counter::kDmaWrBytes, bytes);
    count(events_, hw::Counter::kDmaWrReqs);
    return dram_.timeWrite(addr, bytes, lastBeat);
  }
  void reset() { dataFree_ = 0; }

 private:
  DramModel& dram_;
  unsigned busBytes_;
  EventCounts& events_;
  uint64_t dataFree_ = 0;
};

// Reads every performance counter as of the start of cycle t (snapshot barriers need it).
class CounterSource {
 public:
  virtual ~CounterSource() = default;
  virtual CounterValues counters(uint64_t t) const = 0;
};

struct Machine {
  Machine(const hw::HwConfig& config, const ApproxTiming& timing, DramStorage& dram,
          DramModel& dramModel, const CounterSource& counterSource)
      : config(config),
        timing(timing),
        dram(dram),
        functional(config),
        readPort(dramModel, config.busBytes(), events),
        writePort(dramModel, config.busBytes(), events),
        counterSource(counterSource) {
    for (auto& t : tokens) t.depth = static_cast<unsigned>(config.get(hw::Param::kTokenDepth));
  }

  unsigned fifoDepth() const { return static_cast<unsigned>(config.get(hw::Param::kCmdQueueDepth)); }
  std::deque<QueuedCommand>& fifo(hw::Unit u) { return fifos[static_cast<size_t>(u)]; }
  const std::deque<QueuedCommand>& fifo(hw::Unit u) const { return fifos[static_cast<size_t>(u)]; }

  // The controller stops on an error: STATUS.halted, STATUS.error and IRQ_STATUS.error.
  void halt(hw::Error e) {
    control.halted = true;
    control.error = e;
    control.irqStatus |= hw::reg::kIrqStatusErrorMask;
    fetched.clear();
  }

  const hw::HwConfig config;
  const ApproxTiming timing;
  DramStorage& dram;
  FunctionalModel functional;
  EventCounts events{};
  ReadPort readPort;
  WritePort writePort;
  const CounterSource& counterSource;

  ControlState control;
  std::deque<FetchedCommand> fetched;  // fetch buffer: requested or arrived, not dispatched
  std::array<std::deque<QueuedCommand>, 3> fifos;  // load, compute, store
  std::array<TokenQueue, 4> tokens;
};

}  // namespace weft::sim::approx
