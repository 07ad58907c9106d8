#include "approx/controller.h"

#include <algorithm>

namespace weft::sim::approx {

// ---- fetch ----

bool Fetcher::ringBad() const {
  const ControlState& c = m_.control;
  return c.ringSize == 0 || c.tail >= c.ringSize || reqIdx_ >= c.ringSize;
}

uint32_t Fetcher::requestSize(uint64_t t) const {
  const ControlState& c = m_.control;
  const uint32_t slots = m_.timing.fetchSlots;
  const uint32_t free = slots - static_cast<uint32_t>(std::min<size_t>(m_.fetched.occupancy(t), slots));
  const uint32_t avail = c.tail > reqIdx_ ? c.tail - reqIdx_ : c.ringSize - reqIdx_;
  if (free == 0 || (free < slots / 2 && avail > free)) return 0;
  return std::min(avail, free);
}

uint64_t Fetcher::nextCycle() const {
  const ControlState& c = m_.control;
  if (!c.enable || c.haltedFrom != kNever || c.tail == reqIdx_) return kNever;
  if (ringBad()) return m_.now;
  uint64_t t = m_.readPort.acceptableFrom(m_.now);
  if (requestSize(t) == 0) {
    // A slot the decoder popped in cycle t is free from t + 1; otherwise wait for a pop.
    if (requestSize(t + 1) == 0) return kNever;
    t = m_.readPort.acceptableFrom(t + 1);
  }
  return t;
}

void Fetcher::act(uint64_t now, uint64_t) {
  ControlState& c = m_.control;
  if (ringBad()) {
    c.halt(hw::Error::kBadRing, now);
    return;
  }
  const uint32_t n = requestSize(now);
  const uint32_t bytes = n * hw::kCommandBytes;
  const uint64_t addr = c.ringBase + uint64_t{reqIdx_} * hw::kCommandBytes;
  uint8_t words[hw::kCommandBytes * 64];
  m_.dram.read(addr, words, bytes);  // throws on a ring outside the memory, changing nothing
  const uint64_t lastBeat = m_.readPort.accept(addr, bytes, now);
  m_.events.rdBytes.add(now, bytes, now);
  m_.events.rdReqs.add(now, 1, now);
  // Beats carry the commands in order; a command is in the buffer after its last beat.
  const uint32_t bus = m_.readPort.busBytes();
  const uint64_t beats = (bytes + bus - 1) / bus;
  const uint64_t first = lastBeat + 1 - beats;
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t beat = bus <= hw::kCommandBytes ? first + (i + 1) * (hw::kCommandBytes / bus) - 1
                                                   : first + i * hw::kCommandBytes / bus;
    const auto word = hw::CommandWord::fromBytes(words + size_t{i} * hw::kCommandBytes);
    const hw::Error error = m_.functional.check(word);
    const hw::Unit unit = error == hw::Error::kNone
                              ? hw::unitOf(static_cast<hw::Opcode>(word.get(hw::field::kOpcode)))
                              : hw::Unit::kControl;
    m_.fetched.push({word, beat + 1, error, unit});
  }
  const uint64_t next = uint64_t{reqIdx_} + n;
  reqIdx_ = static_cast<uint32_t>(next >= c.ringSize ? next - c.ringSize : next);
}

uint32_t Fetcher::head(uint64_t t) const {
  uint32_t inFlight = 0;
  for (size_t i = 0; i < m_.fetched.size(); ++i) inFlight += m_.fetched.at(i).readyAt > t ? 1 : 0;
  const uint32_t size = std::max<uint32_t>(m_.control.ringSize, 1);
  return (reqIdx_ + size - inFlight % size) % size;
}

bool Fetcher::busy(uint64_t t) const {
  const ControlState& c = m_.control;
  bool inFlight = false;
  for (size_t i = 0; i < m_.fetched.size() && !inFlight; ++i) inFlight = m_.fetched.at(i).readyAt > t;
  // Commands left in the buffer of a halted controller will not run: they are not "busy".
  return inFlight || (!c.halted(t) && (!m_.fetched.empty() || (c.enable && c.tail != reqIdx_)));
}

void Fetcher::softReset(uint64_t) { reqIdx_ = 0; }
void Fetcher::hardReset() { reqIdx_ = 0; }

// ---- decode, dispatch, barriers ----

uint64_t Decoder::drainedFrom() const {
  if (!load_.idle() || !compute_.idle() || !store_.idle() || !vector_.idle() || flushBeat_ != kNever) return kNever;
  uint64_t t = flushAck_ + 1;
  for (const auto& f : m_.fifos) t = std::max(t, f.emptyFrom(0));
  if (t == kNever) return kNever;
  return std::max({t, load_.lastCompletion() + 1, compute_.lastCompletion() + 1, store_.lastCompletion() + 1,
                   vector_.lastCompletion() + 1});
}

uint64_t Decoder::nextCycle() const {
  uint64_t t = kNever;
  if (!hasDec_) {
    if (!m_.fetched.empty()) t = std::max(m_.fetched.frontVisibleAt(), lastLeave_);
  } else if (barrier_ == Barrier::kWrite || barrier_ == Barrier::kAck) {
    return barrierAt_;  // a snapshot in progress finishes whatever happens
  } else if (dec_.error != hw::Error::kNone || dec_.unit == hw::Unit::kControl) {
    const bool isBarrier = dec_.error == hw::Error::kNone &&
                           static_cast<hw::Opcode>(dec_.word.get(hw::field::kOpcode)) == hw::Opcode::kBarrier;
    t = isBarrier ? std::max(decVisible_, drainedFrom()) : decVisible_;
  } else {
    t = std::max(decVisible_, m_.fifo(dec_.unit).spaceFrom(decVisible_));
  }
  if (t != kNever && m_.control.halted(t)) t = kNever;
  return std::min(t, flushBeat_);
}

void Decoder::pop(uint64_t t) {
  dec_ = m_.fetched.front();
  m_.fetched.pop(t);
  hasDec_ = true;
  decVisible_ = t + 1;
}

void Decoder::leave(uint64_t t) {
  hasDec_ = false;
  lastLeave_ = t;
  // The next command enters the decode register in the same cycle.
  if (!m_.fetched.empty() && m_.fetched.frontVisibleAt() <= t && !m_.control.halted(t)) pop(t);
}

void Decoder::act(uint64_t now, uint64_t) {
  if (flushBeat_ <= now) {
    flushAck_ = m_.writePort.finish(flushAddr_, hw::kSnapshotBytes, now);
    flushBeat_ = kNever;
    return;
  }
  if (!hasDec_) {
    pop(now);
    return;
  }
  if (barrier_ == Barrier::kWrite) {
    const auto b = hw::BarrierCmd::decode(dec_.word);
    barrierAt_ = m_.writePort.finish(b.dramAddr, hw::kSnapshotBytes, now);
    barrier_ = Barrier::kAck;
    return;
  }
  if (barrier_ == Barrier::kAck) {
    finishBarrier(now);
    return;
  }
  if (dec_.error != hw::Error::kNone) {
    m_.control.halt(dec_.error, now);  // the command is not executed
    hasDec_ = false;
    lastLeave_ = now;
    return;
  }
  if (dec_.unit != hw::Unit::kControl) {
    m_.fifo(dec_.unit).push({dec_.word, now + 1});
    const hw::CommandWord word = dec_.word;
    leave(now);
    m_.functional.execute(word, m_.dram);
    return;
  }
  if (static_cast<hw::Opcode>(dec_.word.get(hw::field::kOpcode)) == hw::Opcode::kNop) {
    m_.functional.execute(dec_.word, m_.dram);
    m_.events.retired.add(now, 1, now);
    leave(now);
    return;
  }
  // A barrier finds the machine drained in cycle `now`.
  const auto b = hw::BarrierCmd::decode(dec_.word);
  if (!b.snapshot) {
    m_.functional.execute(dec_.word, m_.dram);
    finishBarrier(now);
    return;
  }
  // The record holds the counters as the barrier found them; its write follows.
  m_.functional.execute(dec_.word, m_.dram, m_.counterSource.counters(now));
  const auto slot = m_.writePort.plan(now + 1, hw::kSnapshotBytes);
  m_.events.wrBytes.add(slot.request, hw::kSnapshotBytes, now);
  m_.events.wrReqs.add(slot.request, 1, now);
  barrierAt_ = slot.lastBeat;
  snapRequest_ = slot.request;
  barrier_ = Barrier::kWrite;
}

void Decoder::finishBarrier(uint64_t t) {
  if (hw::BarrierCmd::decode(dec_.word).irq) m_.control.raise(hw::reg::kIrqStatusDoneMask, t);
  m_.events.retired.add(t, 1, t);
  barrier_ = Barrier::kNone;
  leave(t);
}

void Decoder::softReset(uint64_t t) {
  if (barrier_ == Barrier::kWrite) {
    if (snapRequest_ < t) {
      flushBeat_ = barrierAt_;  // DRAM accepted the request: its beats are owed
      flushAddr_ = hw::BarrierCmd::decode(dec_.word).dramAddr;
    } else {
      m_.writePort.rewind(kNever, t);  // the request is dropped (nothing else was writing)
    }
  }
  hasDec_ = false;
  barrier_ = Barrier::kNone;
  lastLeave_ = t;
}

void Decoder::hardReset() {
  flushBeat_ = kNever;
  flushAck_ = 0;
  hasDec_ = false;
  barrier_ = Barrier::kNone;
  lastLeave_ = 0;
}

}  // namespace weft::sim::approx
