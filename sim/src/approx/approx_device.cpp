#include "approx/approx_device.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace weft::sim::approx {

ApproxDevice::ApproxDevice(const hw::HwConfig& config, const ApproxTiming& timing)
    : dram_(std::make_unique<DramStorage>(config.dramBytes())),
      dramModel_(*dram_, DramTiming::fromConfig(config)),
      machine_(config, timing, *dram_, dramModel_, *this),
      fetcher_(machine_),
      load_(machine_),
      compute_(machine_),
      store_(machine_),
      vector_(machine_),
      decoder_(machine_, load_, compute_, store_, vector_),
      // Ties within a cycle: fetch before load (the read port's priority), reads before the
      // store's writes (the order RtlStepper serves them in a cycle); the units in hw::Unit
      // order (the engine's token queues assume it).
      agents_{&fetcher_, &decoder_, &load_, &compute_, &store_, &vector_} {}

ApproxDevice::ApproxDevice(const hw::HwConfig& config, bool computesData) : ApproxDevice(config) {
  if (!computesData) {
    throw std::invalid_argument("the timing backend runs on the flow engine only (unset WEFT_APPROX_ENGINE=reference)");
  }
}

// ---- time ----

bool ApproxDevice::runTo(uint64_t limit, bool stopAtIrq) {
  if (faulted_) {
    now_ = std::max(now_, limit);
    return false;
  }
  uint64_t irqAt = kNever;
  uint64_t actsThisCycle = 0, lastActCycle = kNever;
  try {
    for (;;) {
      Agent* next = nullptr;
      uint64_t t = kNever, second = kNever;  // the earliest action and the one after it
      for (Agent* a : agents_) {
        const uint64_t c = a->nextCycle();
        if (c < t) {
          second = t;
          t = c;
          next = a;
        } else if (c < second) {
          second = c;
        }
      }
      if (softResetAt_ != kNever && std::min(t, limit) >= softResetAt_) {
        applySoftReset(softResetAt_);
        continue;
      }
      t = std::max(t, now_);
      if (t >= limit || t > irqAt) break;
      now_ = machine_.now = t;
      next->act(t, std::min(second, limit));
      // Every action changes its agent's state; one that did not would repeat forever.
      actsThisCycle = t == lastActCycle ? actsThisCycle + 1 : 0;
      lastActCycle = t;
      if (actsThisCycle > 100'000) {
        throw std::logic_error("approx model: an agent keeps acting without progress at cycle " + std::to_string(t));
      }
      updateBusy(t);
      if (stopAtIrq && irqAt == kNever && irqLine()) irqAt = t;  // finish this cycle first
    }
  } catch (...) {
    // A DRAM access outside the memory: the hardware would hang or fault the bus.
    fault_ = std::current_exception();
    faulted_ = true;
  }
  if (irqAt != kNever && !faulted_) {
    now_ = machine_.now = irqAt + 1;  // the line is a flop: high from the next cycle
    return true;
  }
  now_ = machine_.now = std::max(now_, limit);
  return false;
}

bool ApproxDevice::runUntilInterrupt(uint64_t maxCycles) {
  if (irqLine()) return true;
  const bool irq = runTo(now_ + std::min(maxCycles, kNever - 1 - now_), true);  // "forever" must not wrap
  if (fault_) {
    std::exception_ptr f = fault_;
    fault_ = nullptr;
    std::rethrow_exception(f);
  }
  return irq;
}

// ---- state ----

bool ApproxDevice::busy(uint64_t t) const {
  for (const auto& f : machine_.fifos) {
    if (!f.empty()) return true;
  }
  return fetcher_.busy(t) || decoder_.busy() || !load_.idle() || !compute_.idle() || store_.active() ||
         !vector_.idle();
}

// Called after the actions of cycle t: the state is the one of cycle t + 1.
void ApproxDevice::updateBusy(uint64_t t) {
  const bool b = busy(t + 1);
  if (b && !busy_.active()) busy_.begin(t + 1);
  if (!b && busy_.active()) busy_.end(t + 1);
}

CounterValues ApproxDevice::counters(uint64_t t) const {
  using C = hw::Counter;
  CounterValues v{};
  auto set = [&](C c, uint64_t value) { v[static_cast<size_t>(c)] = value; };
  const EventCounters& e = machine_.events;
  set(C::kCycles, t - resetCycle_);
  set(C::kBusy, busy_.value(t));
  set(C::kLoadActive, load_.front().activity().value(t));
  set(C::kComputeActive, compute_.front().activity().value(t));
  set(C::kStoreActive, store_.front().activity().value(t));
  set(C::kArrayRows, compute_.arrayRows(t));
  set(C::kFp16Rows, compute_.fp16Rows(t));
  set(C::kWspadRdRows, compute_.weightRows(t));
  set(C::kDmaRdBytes, e.rdBytes.value(t));
  const StoreUnit::Writes planned = store_.plannedWrites(t);
  set(C::kDmaWrBytes, e.wrBytes.value(t) + planned.bytes);
  set(C::kDmaRdReqs, e.rdReqs.value(t));
  set(C::kDmaWrReqs, e.wrReqs.value(t) + planned.requests);
  set(C::kStallLoadToken, load_.front().tokenStallCycles(t));
  set(C::kStallComputeToken, compute_.front().tokenStallCycles(t));
  set(C::kStallStoreToken, store_.front().tokenStallCycles(t));
  set(C::kStallDramRd, load_.dramStallCycles(t));
  // The harness's write port is always ready (RtlStepper): the store never waits on it.
  set(C::kStallDramWr, 0);
  set(C::kCmdsRetired, e.retired.value(t));
  set(C::kVectorActive, vector_.front().activity().value(t));
  set(C::kVectorSlots, vector_.slots(t));
  set(C::kStallVectorToken, vector_.front().tokenStallCycles(t));
  return v;
}

void ApproxDevice::applySoftReset(uint64_t t) {
  softResetAt_ = kNever;
  for (Agent* a : agents_) a->softReset(t);  // units read the FIFOs they stop on first
  Machine& m = machine_;
  m.fetched.clear();
  for (auto& f : m.fifos) f.clear();
  for (auto& q : m.tokens) q.clear();
  m.functional.resetTokens();
  ControlState& c = m.control;
  c.tail = 0;
  c.haltedFrom = kNever;
  c.error = hw::Error::kNone;
  c.irqStatus = 0;
  updateBusy(t - 1);
}

void ApproxDevice::hardReset() {
  now_ += machine_.timing.resetCycles;  // rst_ni held low
  machine_.now = now_;
  for (Agent* a : agents_) a->hardReset();
  Machine& m = machine_;
  m.fetched.clear();
  for (auto& f : m.fifos) f.clear();
  for (auto& q : m.tokens) q.clear();
  m.functional.reset();
  m.events = EventCounters{};
  m.readPort.reset(now_);
  m.writePort.reset(now_);
  m.control = ControlState{};
  busy_ = ActivityCounter{};
  latchedHi_ = {};
  softResetAt_ = kNever;
  fault_ = nullptr;
  faulted_ = false;
  resetCycle_ = now_;  // the DRAM channel keeps its occupancy: DRAM finishes what it began
}

// ---- registers ----

uint32_t ApproxDevice::registerValue(uint32_t addr) {
  return readRegisterFile(
      addr, machine_.config, machine_.control, now_, latchedHi_, [this](uint64_t t) { return counters(t); },
      [this](uint64_t t) { return busy(t); }, [this](uint64_t t) { return fetcher_.head(t); });
}

uint32_t ApproxDevice::readReg(uint32_t addr) {
  // The request cycle: the value is the one of this cycle, registered at its end.
  runTo(now_, false);
  const uint32_t value = registerValue(addr);
  runTo(now_ + machine_.timing.regAccessCycles, false);
  return value;
}

void ApproxDevice::writeReg(uint32_t addr, uint32_t value) {
  // The device acts through the request cycle with the old values; the write lands at its end.
  runTo(now_ + machine_.timing.regAccessCycles, false);
  const uint64_t w = now_ - 1;  // the request cycle
  if (writeRegisterFile(machine_.control, addr, value, w)) softResetAt_ = w + 2;  // soft_rst_q, then clr
  updateBusy(w);
}

}  // namespace weft::sim::approx
