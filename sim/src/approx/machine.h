// The state the approximate model's agents share: the controller's registers, the fetch
// buffer, the unit command FIFOs, the token queues, the two DRAM ports and the counters.
//
// Time convention (the RTL's): "at cycle t" is the combinational decision of cycle t; its
// effects are registered at the edge that ends it and visible from t + 1. Agents act in cycle
// order; a queue entry made at t carries readyAt t + 1 so that no agent sees it earlier.
#pragma once

#include <array>
#include <cstdint>

#include "approx/approx_timing.h"
#include "approx/counters.h"
#include "approx/dram_ports.h"
#include "approx/queues.h"
#include "weft/hw/config.h"
#include "weft/hw/generated.h"
#include "weft/sim/dram_model.h"
#include "weft/sim/functional_model.h"

namespace weft::sim::approx {

// Something that acts at cycles of its own choosing. The scheduler asks every agent for the
// cycle of its next action (kNever while it waits for another agent) and runs the earliest;
// ties go to the agents in a fixed order (fetch before load: the read port's priority).
class Agent {
 public:
  virtual ~Agent() = default;
  virtual uint64_t nextCycle() const = 0;
  // `horizon` is the earliest cycle another agent acts at: an agent may take several of its own
  // private steps (ones no other agent can observe) before it in one call.
  virtual void act(uint64_t now, uint64_t horizon) = 0;
  // CTRL.soft_reset, taking effect at cycle t: drop all work, keep the counts.
  virtual void softReset(uint64_t t) = 0;
  // Hardware reset: everything, counts included.
  virtual void hardReset() = 0;
};

// Registers and controller state visible to several agents.
struct ControlState {
  bool enable = false;
  uint64_t ringBase = 0;
  uint32_t ringSize = 0;
  uint32_t tail = 0;
  uint64_t haltedFrom = kNever;  // the controller stopped on an error (STATUS.halted)
  hw::Error error = hw::Error::kNone;
  uint32_t irqStatus = 0;
  uint32_t irqMask = 0;

  uint64_t irqRaisedAt[2] = {kNever, kNever};  // cycle each IRQ_STATUS bit was last set

  bool halted(uint64_t t) const { return haltedFrom <= t; }
  bool irqLine() const { return (irqStatus & irqMask) != 0; }
  // Sets IRQ_STATUS bits at the end of cycle t.
  void raise(uint32_t mask, uint64_t t) {
    irqStatus |= mask;
    for (unsigned b = 0; b < 2; ++b) {
      if (mask & (1u << b)) irqRaisedAt[b] = t;
    }
  }
  // A W1C write in cycle t: an event of the same cycle wins over the clear (weft_csr).
  void clearIrq(uint32_t mask, uint64_t t) {
    for (unsigned b = 0; b < 2; ++b) {
      if ((mask & (1u << b)) && irqRaisedAt[b] != t) irqStatus &= ~(1u << b);
    }
  }
  // Halts at the end of cycle t with `e`; an invalid command outranks a bad ring in one cycle.
  void halt(hw::Error e, uint64_t t) {
    if (haltedFrom <= t) return;
    if (haltedFrom == t + 1 && e == hw::Error::kBadRing) return;
    haltedFrom = t + 1;
    error = e;
    raise(hw::reg::kIrqStatusErrorMask, t);
  }
};

// The read side of the register file (weft_csr), for both approx devices: reading a counter's
// low word latches its high word, the configuration registers read the parameters, the rest
// is control state. The callables (counters(t), busy(t), ringHead(t)) are asked only when the
// register read needs them.
template <typename Counters, typename Busy, typename RingHead>
uint32_t readRegisterFile(uint32_t addr, const hw::HwConfig& config, const ControlState& c, uint64_t now,
                          std::array<uint32_t, hw::kNumCounters>& latchedHi, Counters counters, Busy busy,
                          RingHead ringHead) {
  namespace reg = hw::reg;
  if (addr >= hw::kCounterBase && addr < hw::kCounterBase + 8 * hw::kNumCounters) {
    const size_t i = (addr - hw::kCounterBase) / 8;
    if (addr % 8 == 4) return latchedHi[i];
    if (addr % 8 != 0) return 0;
    const uint64_t v = counters(now)[i];
    latchedHi[i] = static_cast<uint32_t>(v >> 32);
    return static_cast<uint32_t>(v);
  }
  for (const auto& r : reg::kRegisters) {
    if (r.addr == addr && r.param >= 0) return static_cast<uint32_t>(config.get(static_cast<hw::Param>(r.param)));
  }
  switch (addr) {
    case reg::kId: return reg::kIdValue;
    case reg::kVersion: return reg::kVersionValue;
    case reg::kCtrl: return c.enable ? reg::kCtrlEnableMask : 0;
    case reg::kStatus:
      return (busy(now) ? reg::kStatusBusyMask : 0) | (c.halted(now) ? reg::kStatusHaltedMask : 0) |
             (static_cast<uint32_t>(c.halted(now) ? c.error : hw::Error::kNone) << reg::kStatusErrorLsb);
    case reg::kRingBaseLo: return static_cast<uint32_t>(c.ringBase);
    case reg::kRingBaseHi: return static_cast<uint32_t>(c.ringBase >> 32);
    case reg::kRingSize: return c.ringSize;
    case reg::kRingHead: return ringHead(now);
    case reg::kRingTail: return c.tail;
    case reg::kIrqStatus: return c.irqStatus;
    case reg::kIrqMask: return c.irqMask;
    default: return 0;
  }
}

// The write side: the write lands at the end of request cycle w. True when it asks for a
// soft reset (CTRL.soft_reset), which the device applies itself.
inline bool writeRegisterFile(ControlState& c, uint32_t addr, uint32_t value, uint64_t w) {
  namespace reg = hw::reg;
  switch (addr) {
    case reg::kCtrl:
      c.enable = (value & reg::kCtrlEnableMask) != 0;
      return (value & reg::kCtrlSoftResetMask) != 0;
    case reg::kRingBaseLo: c.ringBase = (c.ringBase & ~uint64_t{0xffffffff}) | value; break;
    case reg::kRingBaseHi: c.ringBase = (c.ringBase & 0xffffffff) | (uint64_t{value & 0xff} << 32); break;
    case reg::kRingSize: c.ringSize = value; break;
    case reg::kRingTail: c.tail = value; break;
    case reg::kIrqStatus: c.clearIrq(value, w); break;
    case reg::kIrqMask: c.irqMask = value & (reg::kIrqStatusDoneMask | reg::kIrqStatusErrorMask); break;
    default: break;  // read-only or undefined: ignored
  }
  return false;
}

struct FetchedCommand {
  hw::CommandWord word;
  uint64_t readyAt;  // cycle after its last beat
  hw::Error error;   // checked once: the check depends on the command and the configuration
  hw::Unit unit;     // kControl for nop, barrier and invalid commands
};

struct QueuedCommand {
  hw::CommandWord word;
  uint64_t readyAt;
};

// The counters that count events; the cycle counters live with the agents that own them.
struct EventCounters {
  EventCounter rdBytes, wrBytes, rdReqs, wrReqs, retired;
};

// Reads every performance counter as of the start of cycle t (snapshot barriers need it).
class CounterSource {
 public:
  virtual ~CounterSource() = default;
  virtual CounterValues counters(uint64_t t) const = 0;
};

struct Machine {
  Machine(const hw::HwConfig& cfg, const ApproxTiming& tm, DramStorage& storage, DramModel& dramModel,
          const CounterSource& source)
      : config(cfg),
        timing(tm),
        dram(storage),
        functional(cfg),
        readPort(dramModel, cfg.busBytes(), static_cast<unsigned>(cfg.get(hw::Param::kMaxOutstanding))),
        writePort(dramModel, cfg.busBytes()),
        counterSource(source),
        fetched(tm.fetchSlots) {
    const auto fifoDepth = static_cast<unsigned>(cfg.get(hw::Param::kCmdQueueDepth));
    for (auto& f : fifos) f = TimedQueue<QueuedCommand>(fifoDepth);
    for (auto& t : tokens) t = TokenQueue(static_cast<unsigned>(cfg.get(hw::Param::kTokenDepth)));
  }

  TimedQueue<QueuedCommand>& fifo(hw::Unit u) { return fifos[static_cast<size_t>(u)]; }
  const TimedQueue<QueuedCommand>& fifo(hw::Unit u) const { return fifos[static_cast<size_t>(u)]; }

  const hw::HwConfig config;
  const ApproxTiming timing;
  DramStorage& dram;
  FunctionalModel functional;
  ReadPort readPort;
  WritePort writePort;
  const CounterSource& counterSource;
  EventCounters events;
  uint64_t now = 0;  // the cycle being processed (EventCounter folding)

  ControlState control;
  TimedQueue<FetchedCommand> fetched;  // requested (readyAt in the future) or arrived
  std::array<TimedQueue<QueuedCommand>, hw::kNumFifoUnits> fifos;  // hw::Unit order
  std::array<TokenQueue, hw::kNumTokenQueues> tokens;                // hw::TokenQueue order
};

}  // namespace weft::sim::approx
