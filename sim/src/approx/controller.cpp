#include "approx/controller.h"

#include <algorithm>

namespace weft::sim::approx {

// ---- fetch ----

uint64_t Fetcher::nextCycle() const {
  const ControlState& c = m_.control;
  if (!c.enable || c.halted || c.head == c.tail) return kNever;
  if (m_.fetched.size() >= m_.timing.fetchBufferDepth) return kNever;
  return std::max(nextFetch_, m_.readPort.requestFree());
}

void Fetcher::act(uint64_t now) {
  ControlState& c = m_.control;
  if (c.ringSize == 0 || c.tail >= c.ringSize || c.head >= c.ringSize) {
    m_.halt(hw::Error::kBadRing);
    return;
  }
  // Contiguous slots up to the tail or the end of the ring, as many as fit the buffer.
  const uint32_t available = c.tail > c.head ? c.tail - c.head : c.ringSize - c.head;
  const uint32_t space = m_.timing.fetchBufferDepth - static_cast<uint32_t>(m_.fetched.size());
  const uint32_t n = std::min({available, space, m_.timing.fetchCommandsPerRequest});
  const uint64_t addr = c.ringBase + uint64_t{c.head} * hw::kCommandBytes;
  std::array<uint8_t, hw::kCommandBytes * 64> bytes;
  m_.dram.read(addr, bytes.data(), uint64_t{n} * hw::kCommandBytes);  // throws on a bad ring address
  const uint64_t lastBeat = m_.readPort.read(addr, n * hw::kCommandBytes, now);
  for (uint32_t i = 0; i < n; ++i) {
    const auto word = hw::CommandWord::fromBytes(&bytes[size_t{i} * hw::kCommandBytes]);
    const hw::Error error = m_.functional.check(word);
    const hw::Unit unit = error == hw::Error::kNone
                              ? hw::unitOf(static_cast<hw::Opcode>(word.get(hw::field::kOpcode)))
                              : hw::Unit::kControl;
    m_.fetched.push_back({word, lastBeat + 1 + m_.timing.fetchDecodeCycles, error, unit});
  }
  c.head = (c.head + n) % c.ringSize;
  nextFetch_ = now + 1;
}

// ---- dispatch and barriers ----

void Dispatcher::reset() {
  nextDispatch_ = 0;
  barrier_ = BarrierPhase::kNone;
  barrierReady_ = 0;
}

void Dispatcher::abort(uint64_t now) {
  reset();
  nextDispatch_ = now;
}

bool Dispatcher::drained() const {
  for (const auto& f : m_.fifos) {
    if (!f.empty()) return false;
  }
  for (const ExecUnit* u : units_) {
    if (!u->idle()) return false;
  }
  return true;
}

uint64_t Dispatcher::nextCycle() const {
  switch (barrier_) {
    case BarrierPhase::kDraining: {
      if (!drained()) return kNever;
      uint64_t t = barrierReady_;
      for (const ExecUnit* u : units_) t = std::max(t, u->freeAt());
      return t;
    }
    case BarrierPhase::kSnapshotAck:
      return barrierReady_;
    case BarrierPhase::kNone:
      break;
  }
  if (m_.control.halted || m_.fetched.empty()) return kNever;
  const FetchedCommand& f = m_.fetched.front();
  if (f.unit != hw::Unit::kControl && m_.fifo(f.unit).size() >= m_.fifoDepth()) return kNever;
  return std::max(f.readyAt, nextDispatch_);
}

void Dispatcher::act(uint64_t now) {
  switch (barrier_) {
    case BarrierPhase::kDraining: {
      const auto b = hw::BarrierCmd::decode(barrierWord_);
      if (!b.snapshot) {
        barrier_ = BarrierPhase::kSnapshotAck;
        barrierReady_ = now + m_.timing.barrierCycles;
        return;
      }
      // The record holds the counters as the barrier found the machine drained.
      m_.functional.execute(barrierWord_, m_.dram, m_.counterSource.counters(now));
      barrierReady_ = m_.writePort.write(b.dramAddr, hw::kSnapshotBytes, now) + 1;
      barrier_ = BarrierPhase::kSnapshotAck;
      return;
    }
    case BarrierPhase::kSnapshotAck:
      finishBarrier(now);
      return;
    case BarrierPhase::kNone:
      dispatch(now);
      return;
  }
}

void Dispatcher::dispatch(uint64_t now) {
  const FetchedCommand f = m_.fetched.front();
  m_.fetched.pop_front();
  nextDispatch_ = now + 1;
  if (f.error != hw::Error::kNone) {
    m_.halt(f.error);  // the command is not executed
    return;
  }
  if (f.unit != hw::Unit::kControl) {
    m_.fifo(f.unit).push_back({f.word, now + m_.timing.dispatchToUnitCycles});
    m_.functional.execute(f.word, m_.dram);
    return;
  }
  const auto op = static_cast<hw::Opcode>(f.word.get(hw::field::kOpcode));
  if (op == hw::Opcode::kBarrier) {
    barrier_ = BarrierPhase::kDraining;
    barrierWord_ = f.word;
    barrierReady_ = now + 1;
    if (!hw::BarrierCmd::decode(f.word).snapshot) m_.functional.execute(f.word, m_.dram);
    return;
  }
  m_.functional.execute(f.word, m_.dram);  // nop
  count(m_.events, hw::Counter::kCmdsRetired);
}

void Dispatcher::finishBarrier(uint64_t now) {
  if (hw::BarrierCmd::decode(barrierWord_).irq) m_.control.irqStatus |= hw::reg::kIrqStatusDoneMask;
  count(m_.events, hw::Counter::kCmdsRetired);
  barrier_ = BarrierPhase::kNone;
  nextDispatch_ = now + 1;
}

}  // namespace weft::sim::approx
