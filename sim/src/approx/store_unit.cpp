#include "approx/store_unit.h"

#include <algorithm>

namespace weft::sim::approx {

StoreUnit::StoreUnit(Machine& m) : m_(m), front_(m, hw::Unit::kStore) {}

uint64_t StoreUnit::startFrom() const {
  if (!front_.hasHead()) return kNever;
  // While issuing, the next command starts in the cycle of the current one's last row. At most
  // storeCmdsInFlight commands await acknowledgements, and a completion frees its slot from the
  // next cycle: the command storeCmdsInFlight back is in flight, or the latest to complete.
  uint64_t t = anyStarted_ ? lastIssue_ : 0;
  const size_t depth = m_.timing.storeCmdsInFlight;
  if (inFlight_.size() >= depth) {
    const uint64_t done = inFlight_[inFlight_.size() - depth].doneAt;
    if (done == kNever) return kNever;
    t = std::max(t, done + 1);
  } else if (inFlight_.size() == depth - 1) {
    t = std::max(t, slotFreedFrom_);
  }
  return front_.readyFrom(t);
}

uint64_t StoreUnit::nextCycle() const {
  uint64_t t = rows_.empty() ? kNever : rows_.front().lastBeat;
  if (!inFlight_.empty()) t = std::min(t, inFlight_.front().doneAt);
  return std::min(t, startFrom());
}

void StoreUnit::act(uint64_t now, uint64_t horizon) {
  if (!rows_.empty() && rows_.front().lastBeat <= now) {
    // A row's write reaches only the DRAM model, which no other agent polls: finish every row
    // due before another agent's next action and before this unit's next other action.
    auto ownNext = [this] { return std::min(inFlight_.empty() ? kNever : inFlight_.front().doneAt, startFrom()); };
    uint64_t own = ownNext();
    do {
      const bool completes = rows_.front().seq != kNever &&
                             inFlight_[rows_.front().seq - inFlight_.front().seq].rowsLeft == 1;
      m_.now = rows_.front().lastBeat;  // the unit's clock runs ahead through its private steps
      finishRow(m_.now);
      if (completes) own = ownNext();
    } while (!rows_.empty() && rows_.front().lastBeat < std::min(horizon, own));
  } else if (!inFlight_.empty() && inFlight_.front().doneAt <= now) {
    front_.complete(inFlight_.front().cmd, now);
    lastCompletion_ = now;
    slotFreedFrom_ = now + 1;
    inFlight_.pop_front();
  } else if (startFrom() <= now) {
    start(now);
  }
}

void StoreUnit::start(uint64_t t) {
  const hw::CommandWord word = front_.start(t);
  const auto s = hw::StoreCmd::decode(word);
  const uint64_t n = uint64_t{s.count0} * s.count1;
  const uint32_t e = hw::columnBytes(s.mode);
  const uint32_t tileBytes = m_.config.cols() * e;
  const uint32_t bytes = (s.tiles - 1) * tileBytes + s.rowBytes * e;
  const size_t window = m_.timing.storeFifoDepth;
  const uint64_t seq = nextSeq_++;
  inFlight_.push_back({word, seq, n, kNever});
  uint64_t issue = anyStarted_ ? std::max(t, lastIssue_) : t;
  auto beats = [&](uint64_t b) { return (b + m_.config.busBytes() - 1) / m_.config.busBytes(); };
  for (uint64_t j = 0; j < n; ++j) {
    // One tile a cycle from the cycle after the start, while the row buffer has room (the
    // tile `window` entries back has left it); the row's request once its last tile is in.
    for (uint32_t k = 0; k < s.tiles; ++k) {
      issue += 1;
      if (window_.size() + k >= window) issue = std::max(issue, window_[window_.size() + k - window] + 1);
    }
    const auto slot = m_.writePort.plan(issue + m_.timing.storeIssueToRequest, bytes);
    const uint64_t i0 = j % s.count0, i1 = j / s.count0;
    rows_.push_back({s.dramAddr + i1 * s.stride1 + i0 * s.stride0, bytes, slot.request, slot.lastBeat, seq, s.tiles,
                     static_cast<uint32_t>(beats(tileBytes))});
    for (uint32_t k = 0; k < s.tiles; ++k) {
      window_.push_back(rows_.back().tileLeaves(k, beats(bytes)));
      if (window_.size() > window) window_.pop_front();
    }
  }
  lastIssue_ = issue;
  anyStarted_ = true;
}

void StoreUnit::finishRow(uint64_t t) {
  const Row r = rows_.front();
  rows_.pop_front();
  const uint64_t ack = m_.writePort.finish(r.addr, r.bytes, t);
  m_.events.wrBytes.add(r.request, r.bytes, m_.now);
  m_.events.wrReqs.add(r.request, 1, m_.now);
  if (r.seq == kNever) {  // its acknowledgement is dropped, but a barrier waits for it
    lastOrphanAck_ = ack;
    return;
  }
  InFlight& owner = inFlight_[r.seq - inFlight_.front().seq];
  if (--owner.rowsLeft == 0) owner.doneAt = ack;
}

void StoreUnit::softReset(uint64_t t) {
  front_.softReset(t);
  inFlight_.clear();
  slotFreedFrom_ = 0;  // the soft reset empties the completion FIFO
  // Rows whose requests DRAM accepted still send their beats; the others are dropped.
  while (!rows_.empty() && rows_.back().request >= t) rows_.pop_back();
  for (Row& r : rows_) r.seq = kNever;
  window_.clear();
  const uint32_t bus = m_.config.busBytes();
  for (const Row& r : rows_) {
    for (uint32_t k = 0; k < r.tiles; ++k) window_.push_back(r.tileLeaves(k, (r.bytes + bus - 1) / bus));
  }
  while (window_.size() > m_.timing.storeFifoDepth) window_.pop_front();
  lastIssue_ = t;
  m_.writePort.rewind(rows_.empty() ? kNever : rows_.back().request,
                      rows_.empty() ? t : rows_.back().lastBeat);
}

void StoreUnit::hardReset() {
  front_.hardReset();
  inFlight_.clear();
  rows_.clear();
  window_.clear();
  nextSeq_ = 0;
  lastIssue_ = 0;
  anyStarted_ = false;
  lastCompletion_ = 0;
  slotFreedFrom_ = 0;
  lastOrphanAck_ = 0;
}

}  // namespace weft::sim::approx
