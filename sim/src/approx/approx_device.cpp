#include "approx/approx_device.h"

#include <algorithm>

namespace weft::sim::approx {

namespace reg = hw::reg;

ApproxDevice::ApproxDevice(const hw::HwConfig& config, const ApproxTiming& timing)
    : dram_(std::make_unique<DramStorage>(config.dramBytes())),
      dramModel_(*dram_, DramTiming::fromConfig(config)),
      machine_(config, timing, *dram_, dramModel_, *this),
      load_(machine_),
      compute_(machine_),
      store_(machine_),
      dispatcher_(machine_, {&load_, &compute_, &store_}),
      // Order breaks ties between agents acting in the same cycle.
      fetcher_(machine_),
      agents_{&fetcher_, &dispatcher_, &load_, &compute_, &store_} {}

// ---- time ----

bool ApproxDevice::runTo(uint64_t limit, bool stopAtIrq) {
  if (faulted_) {
    now_ = std::max(now_, limit);
    return false;
  }
  try {
    for (;;) {
      Agent* next = nullptr;
      uint64_t t = kNever;
      for (Agent* a : agents_) {
        const uint64_t c = a->nextCycle();
        if (c < t) {
          t = c;
          next = a;
        }
      }
      if (t >= limit) break;
      now_ = std::max(t, now_);  // work a register write made possible starts now
      next->act(now_);
      updateBusy(now_);
      if (stopAtIrq && irqLine()) {
        ++now_;  // the line is a flop: high from the next cycle on
        return true;
      }
    }
  } catch (...) {
    // A DRAM access outside the memory: the hardware would hang or fault the bus.
    fault_ = std::current_exception();
    faulted_ = true;
  }
  now_ = std::max(now_, limit);
  return false;
}

bool ApproxDevice::runUntilInterrupt(uint64_t maxCycles) {
  if (irqLine()) return true;
  const bool irq = runTo(now_ + maxCycles, true);
  if (fault_) {
    std::exception_ptr f = fault_;
    fault_ = nullptr;
    std::rethrow_exception(f);
  }
  return irq;
}

// ---- state ----

bool ApproxDevice::busy() const {
  const Machine& m = machine_;
  const ControlState& c = m.control;
  if (!m.fetched.empty() || dispatcher_.inBarrier()) return true;
  if (c.enable && !c.halted && c.head != c.tail) return true;
  for (const auto& f : m.fifos) {
    if (!f.empty()) return true;
  }
  return !load_.idle() || !compute_.idle() || !store_.idle();
}

void ApproxDevice::updateBusy(uint64_t t) {
  if (busy()) {
    busy_.open(t);
  } else {
    busy_.close(t);
  }
}

CounterValues ApproxDevice::counters(uint64_t t) const {
  using C = hw::Counter;
  CounterValues v = machine_.events;
  auto set = [&](C c, uint64_t value) { v[static_cast<size_t>(c)] = value; };
  set(C::kCycles, t - resetCycle_);
  set(C::kBusy, busy_.value(t));
  set(C::kLoadActive, load_.activeCycles(t));
  set(C::kComputeActive, compute_.activeCycles(t));
  set(C::kStoreActive, store_.activeCycles(t));
  set(C::kArrayRows, compute_.arrayRows(t));
  set(C::kStallLoadToken, load_.tokenStallCycles(t));
  set(C::kStallComputeToken, compute_.tokenStallCycles(t));
  set(C::kStallStoreToken, store_.tokenStallCycles(t));
  set(C::kStallDramRd, load_.dramStallCycles(t));
  set(C::kStallDramWr, store_.dramStallCycles(t));
  return v;
}

void ApproxDevice::softReset() {
  for (Agent* a : agents_) a->abort(now_);  // units first read the FIFOs they stop on
  Machine& m = machine_;
  m.fetched.clear();
  for (auto& f : m.fifos) f.clear();
  for (auto& t : m.tokens) t.readyAt.clear();
  m.functional.resetTokens();
  ControlState& c = m.control;
  c.head = c.tail = 0;
  c.halted = false;
  c.error = hw::Error::kNone;
  c.irqStatus = 0;
}

void ApproxDevice::hardReset() {
  for (Agent* a : agents_) a->reset();
  Machine& m = machine_;
  m.fetched.clear();
  for (auto& f : m.fifos) f.clear();
  for (auto& t : m.tokens) t.readyAt.clear();
  m.functional.reset();
  m.events = {};
  m.readPort.reset();
  m.writePort.reset();
  m.control = ControlState{};
  busy_.reset();
  latchedHi_ = 0;
  fault_ = nullptr;
  faulted_ = false;
  // The DRAM channel keeps its occupancy: requests in flight still finish in DRAM.
  resetCycle_ = now_;
}

// ---- registers ----

uint32_t ApproxDevice::registerValue(uint32_t addr) {
  const ControlState& c = machine_.control;
  const hw::HwConfig& cfg = machine_.config;
  if (addr >= hw::kCounterBase && addr < hw::kCounterBase + 8 * hw::kNumCounters) {
    if (addr % 8 == 4) return latchedHi_;
    if (addr % 8 != 0) return 0;
    const uint64_t v = counters(now_)[(addr - hw::kCounterBase) / 8];
    latchedHi_ = static_cast<uint32_t>(v >> 32);
    return static_cast<uint32_t>(v);
  }
  for (const auto& r : reg::kRegisters) {
    if (r.addr == addr && r.param >= 0) return static_cast<uint32_t>(cfg.get(static_cast<hw::Param>(r.param)));
  }
  switch (addr) {
    case reg::kId: return reg::kIdValue;
    case reg::kVersion: return reg::kVersionValue;
    case reg::kCtrl: return c.enable ? reg::kCtrlEnableMask : 0;
    case reg::kStatus:
      return (busy() ? reg::kStatusBusyMask : 0) | (c.halted ? reg::kStatusHaltedMask : 0) |
             (static_cast<uint32_t>(c.error) << reg::kStatusErrorLsb);
    case reg::kRingBaseLo: return static_cast<uint32_t>(c.ringBase);
    case reg::kRingBaseHi: return static_cast<uint32_t>(c.ringBase >> 32);
    case reg::kRingSize: return c.ringSize;
    case reg::kRingHead: return c.head;
    case reg::kRingTail: return c.tail;
    case reg::kIrqStatus: return c.irqStatus;
    case reg::kIrqMask: return c.irqMask;
    default: return 0;
  }
}

uint32_t ApproxDevice::readReg(uint32_t addr) {
  runTo(now_ + machine_.timing.regReadCycles - 1, false);  // the request cycle
  const uint32_t value = registerValue(addr);
  runTo(now_ + 1, false);  // the data cycle
  return value;
}

void ApproxDevice::writeReg(uint32_t addr, uint32_t value) {
  runTo(now_ + machine_.timing.regWriteCycles, false);
  ControlState& c = machine_.control;
  switch (addr) {
    case reg::kCtrl:
      if (value & reg::kCtrlSoftResetMask) softReset();
      c.enable = (value & reg::kCtrlEnableMask) != 0;
      break;
    case reg::kRingBaseLo: c.ringBase = (c.ringBase & ~uint64_t{0xffffffff}) | value; break;
    case reg::kRingBaseHi: c.ringBase = (c.ringBase & 0xffffffff) | (uint64_t{value & 0xff} << 32); break;
    case reg::kRingSize: c.ringSize = value; break;
    case reg::kRingTail: c.tail = value; break;
    case reg::kIrqStatus: c.irqStatus &= ~value; break;
    case reg::kIrqMask: c.irqMask = value & (reg::kIrqStatusDoneMask | reg::kIrqStatusErrorMask); break;
    default: break;  // read-only or undefined: ignored
  }
  updateBusy(now_);
}

}  // namespace weft::sim::approx
