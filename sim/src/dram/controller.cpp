#include "controller.h"

#include <algorithm>
#include <cstring>

namespace weft::sim::dram {

namespace {
uint64_t refreshIntervalOf(const DeviceSpec& spec) {
  switch (spec.controller.refreshPolicy) {
    case RefreshPolicy::kBankStaggered: return spec.timing.tREFIb;
    case RefreshPolicy::kRankSimultaneous: return spec.timing.tREFI;
    case RefreshPolicy::kRankStaggered: break;
  }
  return spec.timing.tREFI / spec.org.ranks;  // one rank after the other
}
}  // namespace

ChannelController::ChannelController(const DeviceSpec& spec, const TimingTable& timing, uint32_t index,
                                     ReferenceChecks checks)
    : timing_(timing),
      index_(index),
      checks_(checks),
      ranks_(spec.org.ranks),
      banksPerRank_(spec.org.banks()),
      banksPerGroup_(spec.org.banksPerGroup),
      banks_(spec.org.ranks * spec.org.banks()),
      rankShift_(static_cast<uint32_t>(log2Exact(spec.org.banks()))),
      groupShift_(static_cast<uint32_t>(log2Exact(spec.org.banksPerGroup))),
      transactionQueueSize_(spec.controller.transactionQueueSize),
      queueCap_(spec.controller.commandQueueSize),
      numQueues_(spec.controller.queueStructure == QueueStructure::kPerBank ? banks_ : ranks_),
      writeHigh_(spec.controller.writeHigh()),
      writeLow_(spec.controller.writeLowWatermark),
      rowHitCap_(spec.controller.rowHitCap),
      perBank_(spec.controller.queueStructure == QueueStructure::kPerBank),
      unified_(spec.controller.unifiedQueue),
      closedPage_(spec.controller.pagePolicy == PagePolicy::kClosed),
      dualIssue_(spec.controller.dualCommandIssue),
      groups_(timing.groups),
      refreshPolicy_(spec.controller.refreshPolicy),
      refreshInterval_(refreshIntervalOf(spec)),
      nextRefresh_(refreshIntervalOf(spec)),
      pendingReads_(2 * spec.controller.transactionQueueSize + numQueues_ * queueCap_),
      pendingWrites_(2 * spec.controller.transactionQueueSize + numQueues_ * queueCap_) {
  bankNext_.assign(size_t{banks_} * kTargets, 0);
  groupNext_.assign(size_t{ranks_} * spec.org.bankGroups * kTargets, 0);
  rankNext_.assign(size_t{ranks_} * kTargets, 0);
  faw_.assign(size_t{ranks_} * 4, 0);
  fawCount_.assign(ranks_, 0);
  aw32_.assign(size_t{ranks_} * 32, 0);
  aw32Count_.assign(ranks_, 0);
  actWindow_.assign(ranks_, 0);
  bank_.resize(banks_);
  cmd_.resize(size_t{numQueues_} * 2 * queueCap_);
  size_.assign(numQueues_, 0);
  head_.assign(numQueues_, 0);
  exact_.assign(numQueues_, 0);
  summary_.resize(numQueues_);
  waitingReads_.resize(numQueues_);
  waitingWrites_.resize(numQueues_);
  movableReads_.assign((numQueues_ + 63) / 64, 0);
  movableWrites_.assign((numQueues_ + 63) / 64, 0);
  pool_.reserve(2 * size_t{transactionQueueSize_});
  lowerBound_.assign(numQueues_, 0);
  nonEmpty_.assign((numQueues_ + 63) / 64, 0);
  blockedBits_.assign((numQueues_ + 63) / 64, 0);
  writesIn_.assign(numQueues_, 0);
  stats_.rankActiveCycles.assign(ranks_, 0);
  stats_.rankPrechargedCycles.assign(ranks_, 0);
  openRows_.assign(ranks_, 0);
  rankSince_.assign(ranks_, 0);
  nextEvent_ = nextRefresh_;  // refresh goes on when nothing else does
}

// ---------------------------------------------------------------------------------------------
// Transactions in

void ChannelController::enqueue(const Transaction& t, const Coordinates& where, uint64_t cycle,
                                std::vector<Completion>& out) {
  const uint32_t bank = where.rank * banksPerRank_ + where.bankGroup * banksPerGroup_ + where.bank;
  const uint32_t q = queueOf(bank);
  const auto completeNow = [&](bool isWrite) {  // posted write, or a read served by a pending write
    if (recordCompletions_ && (!isWrite || recordWriteCompletions_)) {
      out.push_back(Completion{t.id, t.addr, cycle, cycle, cycle + 1, index_, isWrite});
    }
    stats_.lastDoneCycle = std::max(stats_.lastDoneCycle, cycle + 1);
  };
  if (t.isWrite) {
    ++stats_.writes;
    if (pendingWrites_.findOrInsert(t.addr, 0) == AddressTable::kNone) {
      // A write has no read chain: its slot holds its entry cycle, mod 2^32.
      wait(t.addr, where, bank, q, static_cast<uint32_t>(cycle), true, !unified_);
      outstandingChange(bank, +1, cycle);
    } else {
      ++stats_.writesMerged;
    }
    ++stats_.writesDone;
    completeNow(true);
  } else {
    ++stats_.reads;
    if (pendingWrites_.find(t.addr) != AddressTable::kNone) {
      ++stats_.readsForwarded;
      ++stats_.readsDone;
      stats_.readLatencySum += 1;
      completeNow(false);
    } else {
      uint32_t slot;
      if (!freeSlots_.empty()) {
        slot = freeSlots_.back();
        freeSlots_.pop_back();
        slots_[slot] = {t.id, t.addr, cycle, kNoSlot};
      } else {
        slot = static_cast<uint32_t>(slots_.size());
        slots_.push_back({t.id, t.addr, cycle, kNoSlot});
      }
      ++undecided_;
      const uint32_t head = pendingReads_.findOrInsert(t.addr, slot);
      if (head != AddressTable::kNone) {  // one read command will serve both
        uint32_t last = head;
        while (slots_[last].next != kNoSlot) last = slots_[last].next;
        slots_[last].next = slot;
        ++stats_.readsMerged;
      } else {
        wait(t.addr, where, bank, q, slot, false, false);
        outstandingChange(bank, +1, cycle);
      }
    }
  }
  // Nothing else depends on the transaction queues: a transaction that cannot move on now
  // changes nothing in this cycle.
  if (nextEvent_ > cycle && canMoveNextCycle()) nextEvent_ = cycle;
}

// ---------------------------------------------------------------------------------------------
// Time

void ChannelController::advanceTo(uint64_t end, std::vector<Completion>& out) {
  while (nextEvent_ < end) {
    const uint64_t c = nextEvent_;
    processCycle(c, out);
    nextEvent_ = computeNextEvent(c);
  }
}

uint64_t ChannelController::runUntilDecided(std::vector<Completion>& out) {
  uint64_t end = 0;
  while (undecided_ > 0) {  // as advanceTo(nextEvent() + 1) each time: one event
    const uint64_t c = nextEvent_;
    processCycle(c, out);
    nextEvent_ = computeNextEvent(c);
    end = c + 1;
  }
  return end;
}

void ChannelController::processCycle(uint64_t c, std::vector<Completion>& out) {
  if (c == nextRefresh_) {
    insertRefresh();
    nextRefresh_ += refreshInterval_;
  }
  Candidate first{};
  bool have = !refreshQ_.empty() && refreshCandidate(c, first);
  if (!have) have = pick(c, first);
  if (have) {
    issue(first, c, out);
    // HBM: the row and column command buses are separate; a second command of the other kind.
    Candidate second{};
    if (dualIssue_ && pick(c, second) && isColumn(second.kind) != isColumn(first.kind)) issue(second, c, out);
  }
  if (scheduleTransaction(c)) lastMove_ = c;  // something moved (or the drain stopped): look again at c + 1
}

// Nothing changes between events but time, so the next event is the earliest of: the next cycle
// when a transaction moved or a command issued (another may move), a ready command, a refresh.
uint64_t ChannelController::computeNextEvent(uint64_t c) {
  if (checks_.everyCycle) return c + 1;
  // A move may be followed by another; a command issued at c already had its move at c.
  if (lastMove_ == c && canMoveNextCycle()) return c + 1;
  uint64_t next = nextRefresh_;
  if (!refreshQ_.empty()) next = std::min(next, refreshReady());
  // Locals: the stores into the bounds could otherwise be taken to change what they point into.
  uint64_t* const bound = lowerBound_.data();
  uint64_t* const exact = exact_.data();
  const uint64_t epoch = epoch_;
  const size_t words = nonEmpty_.size();
  for (size_t w = 0; w < words; ++w) {
    for (uint64_t bits = nonEmpty_[w] & ~blockedBits_[w]; bits != 0; bits &= bits - 1) {
      const uint32_t q = static_cast<uint32_t>(w * 64) + static_cast<uint32_t>(__builtin_ctzll(bits));
      // lowerBound_ never overestimates: a queue whose bound is not earlier cannot be first.
      if (bound[q] >= next) continue;
      const uint64_t r = queueReady(q);
      bound[q] = r;
      exact[q] = epoch;
      if (r < next) next = r;
    }
  }
  return next > c ? next : c + 1;
}

// ---------------------------------------------------------------------------------------------
// Choosing a command

bool ChannelController::pick(uint64_t c, Candidate& out) {
  // Round robin: the queues after the one served last, then from the first up to it. Word by
  // word from the start's: its queues from the start on, the words after it, the words before
  // it, and its queues before the start last.
  const uint32_t start = rr_ + 1 == numQueues_ ? 0 : rr_ + 1;
  const size_t words = nonEmpty_.size(), first = start >> 6;
  const uint64_t fromStart = ~uint64_t{0} << (start & 63);
  if (words == 1) {  // up to 64 queues (every preset): the same order, without the word loop
    const uint64_t all = nonEmpty_[0] & ~blockedBits_[0];
    for (uint64_t bits = all & fromStart; bits != 0; bits &= bits - 1) {
      const uint32_t q = static_cast<uint32_t>(__builtin_ctzll(bits));
      if (lowerBound_[q] > c || !firstReady(q, c, out)) continue;
      rr_ = q;
      return true;
    }
    for (uint64_t bits = all & ~fromStart; bits != 0; bits &= bits - 1) {
      const uint32_t q = static_cast<uint32_t>(__builtin_ctzll(bits));
      if (lowerBound_[q] > c || !firstReady(q, c, out)) continue;
      rr_ = q;
      return true;
    }
    return false;
  }
  for (size_t k = 0, w = first; k <= words; ++k, w = w + 1 == words ? 0 : w + 1) {
    uint64_t bits = nonEmpty_[w] & ~blockedBits_[w];
    if (k == 0) {
      bits &= fromStart;
    } else if (k == words) {
      bits &= ~fromStart;
    }
    for (; bits != 0; bits &= bits - 1) {
      const uint32_t q = static_cast<uint32_t>(w * 64) + static_cast<uint32_t>(__builtin_ctzll(bits));
      if (lowerBound_[q] > c || !firstReady(q, c, out)) continue;
      rr_ = q;
      return true;
    }
  }
  return false;
}

uint64_t ChannelController::actReady(uint32_t bank) const {
  return std::max(ready(bank, kTAct), actWindow_[rankOf(bank)]);
}

void ChannelController::recordActivate(uint32_t r, uint64_t c) {
  // The rolling windows: the 4th-last activate (tFAW) and the 32nd-last (GDDR's t32AW) bound the
  // rank's next one. Kept as one cycle per rank, since actReady() is asked far more often.
  uint64_t window = 0;
  if (timing_.tFAW != 0) {
    faw_[size_t{r} * 4 + fawCount_[r]++ % 4] = c;
    if (fawCount_[r] >= 4) window = faw_[size_t{r} * 4 + fawCount_[r] % 4] + timing_.tFAW;
  }
  if (timing_.t32AW != 0) {
    aw32_[size_t{r} * 32 + aw32Count_[r]++ % 32] = c;
    if (aw32Count_[r] >= 32) window = std::max(window, aw32_[size_t{r} * 32 + aw32Count_[r] % 32] + timing_.t32AW);
  }
  actWindow_[r] = window;
}

bool ChannelController::writeDependsOnEarlierRead(uint32_t q, uint32_t i) const {
  const Entry& w = entry(q, i);
  for (uint32_t j = 0; j < i; ++j) {
    const Entry& e = entry(q, j);
    if (!e.isWrite && e.bank == w.bank && e.row == w.row && e.column == w.column) return true;
  }
  return false;
}

// The queue's entries in order; each asks for the command its bank needs: an activate if the
// bank is closed, its column command on a hit, else a precharge, which only the bank's oldest
// entry may ask for and only if no entry hits the open row (or that row had rowHitCap hits).
// A write waits for an older read of the same column. With `out`: the first command ready at
// c; otherwise the earliest cycle any of them is ready (into *earliest).
bool ChannelController::scanQueue(uint32_t q, uint64_t c, Candidate* out, uint64_t* earliest) {
  uint64_t best = kNever;
  const uint32_t n = size_[q];
  for (uint32_t i = 0; i < n; ++i) {
    const Entry& e = entry(q, i);
    const Bank& bk = bank_[e.bank];
    CommandKind kind;
    uint64_t t;
    if (bk.openRow < 0) {
      kind = kAct;
      t = actReady(e.bank);
    } else if (bk.openRow == e.row) {
      if (e.isWrite && writeDependsOnEarlierRead(q, i)) continue;
      kind = columnKind(e.isWrite);
      t = ready(e.bank, e.isWrite ? kTWr : kTRd);
    } else {
      bool older = false;
      for (uint32_t j = 0; j < i && !older; ++j) older = entry(q, j).bank == e.bank;
      if (older) continue;
      if (bk.hits < rowHitCap_) {
        bool pendingHit = false;
        for (uint32_t j = i; j < n && !pendingHit; ++j) {
          pendingHit = entry(q, j).bank == e.bank && entry(q, j).row == bk.openRow;
        }
        if (pendingHit) continue;
      }
      kind = kPre;
      t = ready(e.bank, kTPre);
    }
    if (out != nullptr) {
      if (t <= c) {
        *out = Candidate{kind, q, i, e.bank, false};
        return true;
      }
    } else if (t < best) {
      best = t;
    }
  }
  if (earliest != nullptr) *earliest = best;
  return false;
}

// A per-bank queue's choice in O(1): every entry of a closed bank wants the same activate; of an
// open bank, only the first read hit, the first write hit free to go, and the head's precharge
// can be the first ready command.
void ChannelController::summarize(uint32_t q) {
  Summary s;
  s.valid = true;
  const Bank& bk = bank_[q];
  if (bk.openRow < 0) {
    s.activate = true;
  } else {
    const bool headHits = entry(q, 0).row == bk.openRow;
    bool anyHit = headHits;
    const bool writes = writesIn_[q] > 0;
    for (uint32_t i = 0; i < size_[q]; ++i) {
      const Entry& e = entry(q, i);
      if (e.row != bk.openRow) continue;
      anyHit = true;
      if (!e.isWrite) {
        if (s.readHit < 0) s.readHit = static_cast<int32_t>(i);
      } else if (s.writeHit < 0 && !writeDependsOnEarlierRead(q, i)) {
        s.writeHit = static_cast<int32_t>(i);
      }
      if (s.readHit >= 0 && (s.writeHit >= 0 || !writes)) break;  // nothing later changes the choice
    }
    s.anyHit = anyHit;
    s.precharge = !headHits && (!anyHit || bk.hits >= rowHitCap_);
  }
  summary_[q] = s;
}

// The summary of queue q after an entry joined its end, from the summary before (valid, queue
// not empty before): true if it is unchanged, so the queue's bound stays as it was (exact if it
// was). A closed bank's queue wants its activate whatever it holds; at an open bank a new entry
// matters only if it hits the row: it may be the first read hit, the first write hit free to go
// (summarize found none before it), and it ends a precharge that waited for no hit.
bool ChannelController::summaryAfterAppend(uint32_t q) {
  Summary& s = summary_[q];
  if (!s.valid || !perBank_ || checks_.scanQueues) return false;
  if (s.activate) return true;
  const uint32_t i = size_[q] - 1;
  const Entry& e = entry(q, i);
  const Bank& bk = bank_[q];
  if (e.row != bk.openRow) return true;
  bool same = true;
  if (!e.isWrite) {
    if (s.readHit < 0) s.readHit = static_cast<int32_t>(i), same = false;
  } else if (s.writeHit < 0 && !writeDependsOnEarlierRead(q, i)) {
    s.writeHit = static_cast<int32_t>(i), same = false;
  }
  if (!s.anyHit) {
    s.anyHit = true;
    const bool precharge = s.precharge && bk.hits >= rowHitCap_;  // the head does not hit, or it would be a hit
    if (precharge != s.precharge) s.precharge = precharge, same = false;
  }
  return same;  // changed: kept valid, as updated; the caller resets the bound
}

bool ChannelController::firstReady(uint32_t q, uint64_t c, Candidate& out) {
  if (!perBank_ || checks_.scanQueues) return scanQueue(q, c, &out, nullptr);
  // The bound is exact while no command issued and the queue did not change since it was taken.
  const uint64_t earliest = exact_[q] == epoch_ ? lowerBound_[q] : queueReady(q);
  if (earliest > c) {
    // Exact until the queue or a timing changes, and a lower bound after: later searches skip it.
    lowerBound_[q] = earliest;
    exact_[q] = epoch_;
    return false;
  }
  const Summary& s = summary_[q];
  if (s.activate) {
    out = Candidate{kAct, q, 0, q, false};
    return true;
  }
  if (s.precharge && ready(q, kTPre) <= c) {  // the head's precharge comes before any hit
    out = Candidate{kPre, q, 0, q, false};
    return true;
  }
  int32_t best = kNoEntry;
  if (s.readHit >= 0 && ready(q, kTRd) <= c) best = s.readHit;
  if (s.writeHit >= 0 && s.writeHit < best && ready(q, kTWr) <= c) best = s.writeHit;
  if (best == kNoEntry) return false;
  const uint32_t i = static_cast<uint32_t>(best);
  out = Candidate{columnKind(entry(q, i).isWrite), q, i, q, false};
  return true;
}

uint64_t ChannelController::queueReady(uint32_t q) {
  if (!perBank_ || checks_.scanQueues) {
    uint64_t t = kNever;
    scanQueue(q, 0, nullptr, &t);
    return t;
  }
  if (!summary_[q].valid) summarize(q);
  const Summary& s = summary_[q];
  if (s.activate) return actReady(q);
  uint64_t t = kNever;
  if (s.precharge) t = std::min(t, ready(q, kTPre));
  if (s.readHit >= 0) t = std::min(t, ready(q, kTRd));
  if (s.writeHit >= 0) t = std::min(t, ready(q, kTWr));
  return t;
}

// ---------------------------------------------------------------------------------------------
// Refresh: as soon as due, the rank's (or bank's) commands wait; its open banks are precharged,
// one a cycle as each may, and the refresh issues when every bank is ready for it.

void ChannelController::insertRefresh() {
  const auto push = [&](RefreshRequest r) {
    refreshQ_.push_back(r);
    if (refreshQ_.size() == 1) blockRefreshedQueues();
  };
  switch (refreshPolicy_) {
    case RefreshPolicy::kRankStaggered:
      push({refreshRank_, -1});
      refreshRank_ = (refreshRank_ + 1) % ranks_;
      break;
    case RefreshPolicy::kRankSimultaneous:
      for (uint32_t r = 0; r < ranks_; ++r) push({r, -1});
      break;
    case RefreshPolicy::kBankStaggered: {
      const uint32_t bank = refreshRank_ * banksPerRank_ + refreshGroup_ * banksPerGroup_ + refreshBank_;
      push({refreshRank_, static_cast<int32_t>(bank)});
      // JEDEC's fixed order: bank groups fastest, then banks, then ranks.
      if (++refreshGroup_ == banksPerRank_ / banksPerGroup_) {
        refreshGroup_ = 0;
        if (++refreshBank_ == banksPerGroup_) {
          refreshBank_ = 0;
          refreshRank_ = (refreshRank_ + 1) % ranks_;
        }
      }
      break;
    }
  }
}

void ChannelController::blockRefreshedQueues() {
  for (uint32_t q = blockedLo_; q < blockedHi_; ++q) blockedBits_[q >> 6] &= ~(uint64_t{1} << (q & 63));
  blockedLo_ = blockedHi_ = 0;
  if (refreshQ_.empty()) return;
  const RefreshRequest& r = refreshQ_.front();
  if (r.bank >= 0) {
    blockedLo_ = queueOf(static_cast<uint32_t>(r.bank));
    blockedHi_ = blockedLo_ + 1;
  } else {
    blockedLo_ = queueOf(r.rank * banksPerRank_);
    blockedHi_ = perBank_ ? blockedLo_ + banksPerRank_ : blockedLo_ + 1;
  }
  for (uint32_t q = blockedLo_; q < blockedHi_; ++q) blockedBits_[q >> 6] |= uint64_t{1} << (q & 63);
}

bool ChannelController::refreshCandidate(uint64_t c, Candidate& out) const {
  const RefreshRequest& r = refreshQ_.front();
  if (r.bank >= 0) {
    const uint32_t b = static_cast<uint32_t>(r.bank);
    if (bank_[b].openRow >= 0) {
      if (ready(b, kTPre) > c) return false;
      out = Candidate{kPre, 0, 0, b, true};
      return true;
    }
    if (ready(b, kTRefb) > c) return false;
    out = Candidate{kRefb, 0, 0, b, true};
    return true;
  }
  const uint32_t first = r.rank * banksPerRank_;
  bool all = true;
  for (uint32_t b = first; b < first + banksPerRank_; ++b) {
    if (bank_[b].openRow >= 0) {
      if (ready(b, kTPre) <= c) {
        out = Candidate{kPre, 0, 0, b, true};
        return true;
      }
      all = false;
    } else if (ready(b, kTRef) > c) {
      all = false;
    }
  }
  if (!all) return false;
  out = Candidate{kRef, 0, 0, first, true};
  return true;
}

uint64_t ChannelController::refreshReady() const {
  const RefreshRequest& r = refreshQ_.front();
  if (r.bank >= 0) {
    const uint32_t b = static_cast<uint32_t>(r.bank);
    return bank_[b].openRow >= 0 ? ready(b, kTPre) : ready(b, kTRefb);
  }
  const uint32_t first = r.rank * banksPerRank_;
  uint64_t firstPrecharge = kNever, allClosed = 0;
  for (uint32_t b = first; b < first + banksPerRank_; ++b) {
    if (bank_[b].openRow >= 0) {
      firstPrecharge = std::min(firstPrecharge, ready(b, kTPre));
    } else {
      allClosed = std::max(allClosed, ready(b, kTRef));
    }
  }
  return firstPrecharge != kNever ? firstPrecharge : allClosed;
}

// ---------------------------------------------------------------------------------------------
// Issuing

void ChannelController::applyTiming(CommandKind kind, uint32_t bank, uint32_t rank, uint64_t c) {
  ++epoch_;  // every ready time may have moved
  const auto bump = [c](uint64_t* next, const Delays& delays) {
    for (const Delay& d : delays) next[d.target] = std::max(next[d.target], c + d.cycles);
  };
  bump(&bankNext_[size_t{bank} * kTargets], timing_.sameBank[kind]);
  if (groups_) bump(&groupNext_[size_t{groupOf(bank)} * kTargets], timing_.sameGroup[kind]);
  bump(&rankNext_[size_t{rank} * kTargets], timing_.sameRank[kind]);
  if (ranks_ > 1 && !timing_.otherRanks[kind].empty()) {
    for (uint32_t r = 0; r < ranks_; ++r) {
      if (r != rank) bump(&rankNext_[size_t{r} * kTargets], timing_.otherRanks[kind]);
    }
  }
}

void ChannelController::touchQueueOf(uint32_t bank) {
  const uint32_t q = queueOf(bank);
  summary_[q].valid = false;
  lowerBound_[q] = 0;
  exact_[q] = 0;
}

void ChannelController::openRowCount(uint32_t rank, int delta, uint64_t c) {
  if (delta > 0) {
    if (openRows_[rank]++ == 0) {
      stats_.rankPrechargedCycles[rank] += c - rankSince_[rank];
      rankSince_[rank] = c;
    }
  } else if (--openRows_[rank] == 0) {
    stats_.rankActiveCycles[rank] += c - rankSince_[rank];
    rankSince_[rank] = c;
  }
}

void ChannelController::outstandingChange(uint32_t bank, int delta, uint64_t c) {
  Bank& bk = bank_[bank];
  const bool flips = delta > 0 ? bk.outstanding++ == 0 : --bk.outstanding == 0;
  if (!flips) return;
  stats_.bankBusySum += uint64_t{busyBanks_} * (c - busySince_);
  if (busyBanks_ > 0) stats_.busyCycles += c - busySince_;
  busySince_ = c;
  busyBanks_ = delta > 0 ? busyBanks_ + 1 : busyBanks_ - 1;
}

void ChannelController::issue(const Candidate& cand, uint64_t c, std::vector<Completion>& out) {
  const uint32_t b = cand.bank, r = rankOf(b);
  Bank& bk = bank_[b];
  if (recordCommands_) {
    static constexpr CommandRecord::Kind kinds[kKinds] = {
        CommandRecord::kActivate,          CommandRecord::kPrecharge,         CommandRecord::kRead,
        CommandRecord::kWrite,             CommandRecord::kReadAutoPrecharge, CommandRecord::kWriteAutoPrecharge,
        CommandRecord::kRefresh,           CommandRecord::kBankRefresh};
    CommandRecord rec;
    rec.cycle = c;
    rec.kind = kinds[cand.kind];
    rec.channel = index_;
    rec.rank = r;
    rec.bankGroup = (b & (banksPerRank_ - 1)) >> groupShift_;
    rec.bank = b & (banksPerGroup_ - 1);
    if (cand.kind == kRef) rec.bankGroup = rec.bank = 0;
    rec.forRefresh = cand.fromRefresh;
    if (cand.kind == kAct || isColumn(cand.kind)) {
      const Entry& e = entry(cand.queue, cand.entry);
      rec.row = e.row;
      rec.addr = e.addr;
    } else if (cand.kind == kPre) {
      rec.row = bk.openRow;
      if (!cand.fromRefresh) rec.addr = entry(cand.queue, cand.entry).addr;
    }
    commands_.push_back(rec);
  }
  switch (cand.kind) {
    case kAct: {
      bk.openRow = entry(cand.queue, cand.entry).row;
      bk.hits = 0;
      bk.openedAfterConflict = bk.closedForConflict;
      bk.closedForConflict = false;
      ++stats_.activates;
      openRowCount(r, +1, c);
      recordActivate(r, c);
      touchQueueOf(b);
      break;
    }
    case kPre:
      bk.openRow = -1;
      bk.closedForConflict = !cand.fromRefresh;
      ++stats_.precharges;
      openRowCount(r, -1, c);
      touchQueueOf(b);
      break;
    case kRd:
    case kWr:
    case kRda:
    case kWra: {
      const uint32_t q = cand.queue;
      const Entry& at = entry(q, cand.entry);
      const struct {
        uint64_t addr;
        uint32_t slot;
        bool isWrite;
      } e{at.addr, at.slot, at.isWrite};
      removeEntry(q, cand.entry);
      if (size_[q] == 0) nonEmpty_[q >> 6] &= ~(uint64_t{1} << (q & 63));
      writesIn_[q] -= e.isWrite;
      --cmdTotal_;
      updateMovable(q);
      if (bk.hits > 0) {
        ++stats_.rowHits;
      } else if (bk.openedAfterConflict) {
        ++stats_.rowConflicts;
      } else {
        ++stats_.rowMisses;
      }
      ++bk.hits;
      outstandingChange(b, -1, c);
      if (e.isWrite) {
        ++stats_.writeCommands;
        stats_.writeLatencySum += static_cast<uint32_t>(static_cast<uint32_t>(c) - e.slot);  // < 2^32 cycles
        pendingWrites_.erase(e.addr);
      } else {
        ++stats_.readCommands;
        pendingReads_.erase(e.addr);
        drainBlocked_ = false;
        const uint64_t done = c + timing_.readDelay;
        for (uint32_t s = e.slot; s != kNoSlot;) {
          const ReadSlot& rs = slots_[s];
          if (recordCompletions_) out.push_back(Completion{rs.id, rs.addr, rs.enter, c, done, index_, false});
          ++stats_.readsDone;
          stats_.readLatencySum += done - rs.enter;
          --undecided_;
          freeSlots_.push_back(s);
          s = rs.next;
        }
        stats_.lastDoneCycle = std::max(stats_.lastDoneCycle, done);
      }
      if (cand.kind == kRda || cand.kind == kWra) {
        bk.openRow = -1;
        bk.closedForConflict = false;
        ++stats_.autoPrecharges;
        openRowCount(r, -1, c);
      }
      touchQueueOf(b);
      break;
    }
    case kRef:
    case kRefb:
      ++(cand.kind == kRef ? stats_.refreshes : stats_.bankRefreshes);
      refreshQ_.pop_front();
      blockRefreshedQueues();  // the next refresh, if one waits, takes its queues now
      break;
    case kKinds:
      break;
  }
  applyTiming(cand.kind, b, r, c);
}

// A command queue lives in 2 x queueCap_ slots, its entries at [head, head + size): the oldest
// leaves by moving the head, any other by closing the gap from the nearer end.
void ChannelController::removeEntry(uint32_t q, uint32_t i) {
  Entry* base = &cmd_[size_t{q} * 2 * queueCap_ + head_[q]];
  const uint32_t n = size_[q];
  if (i < n - 1 - i) {
    if (i > 0) std::memmove(base + 1, base, i * sizeof(Entry));
    ++head_[q];
  } else if (i + 1 < n) {
    std::memmove(base + i, base + i + 1, (n - 1 - i) * sizeof(Entry));
  }
  if (--size_[q] == 0) head_[q] = 0;
}

void ChannelController::appendEntry(uint32_t q, const Entry& e) {
  if (head_[q] + size_[q] == 2 * queueCap_) {
    Entry* base = &cmd_[size_t{q} * 2 * queueCap_];
    std::memmove(base, base + head_[q], size_[q] * sizeof(Entry));
    head_[q] = 0;
  }
  cmd_[size_t{q} * 2 * queueCap_ + head_[q] + size_[q]++] = e;
}

// ---------------------------------------------------------------------------------------------
// From the transaction queues to the command queues: one a cycle, the oldest whose command
// queue has room; reads unless the write queue is draining.

bool ChannelController::drainStarts() const {
  if (writesWaiting_ == 0) return false;  // each case below needs a write waiting
  return !unified_ && drainLeft_ == 0 && !drainBlocked_ &&
         (writesWaiting_ >= writeHigh_ || (writesWaiting_ > writeLow_ && cmdTotal_ == 0) ||
          (flush_ && writesWaiting_ > 0));
}

bool ChannelController::writesPending() const {
  if (writesWaiting_ > 0) return true;
  for (const uint32_t w : writesIn_) {
    if (w > 0) return true;
  }
  return false;
}

void ChannelController::flushWrites(bool on, uint64_t now) {
  flush_ = on;
  // The rule changed: a move may be possible from now on.
  if (on && nextEvent_ > now) nextEvent_ = now;
}

bool ChannelController::canMoveNextCycle() const {
  const bool writes = !unified_ && (drainLeft_ > 0 || drainStarts());
  return anyBit(writes ? movableWrites_ : movableReads_);
}

void ChannelController::updateMovable(uint32_t q) {
  const uint64_t bit = uint64_t{1} << (q & 63);
  const uint64_t room = size_[q] < queueCap_ ? bit : 0;
  const uint64_t readsBit = waitingReads_[q].count > 0 ? room : 0;
  const uint64_t writesBit = waitingWrites_[q].count > 0 ? room : 0;
  uint64_t& reads = movableReads_[q >> 6];
  uint64_t& writes = movableWrites_[q >> 6];
  reads = (reads & ~bit) | readsBit;
  writes = (writes & ~bit) | writesBit;
}

void ChannelController::wait(uint64_t addr, const Coordinates& where, uint32_t bank, uint32_t q, uint32_t slot,
                             bool isWrite, bool asWrite) {
  uint32_t i;
  if (!freePool_.empty()) {
    i = freePool_.back();
    freePool_.pop_back();
  } else {
    i = static_cast<uint32_t>(pool_.size());
    pool_.emplace_back();
  }
  // Field by field, inlined into enqueue(): no Entry built on the stack and copied (MobileNet's
  // trace: 3 % fewer instructions a replay, callgrind).
  Entry& e = pool_[i];
  e.addr = addr;
  e.row = where.row;
  e.column = where.column;
  e.bank = bank;
  e.queue = q;
  e.slot = slot;
  e.next = kNil;
  e.order = arrivals_++;
  e.isWrite = isWrite;
  WaitList& list = (asWrite ? waitingWrites_ : waitingReads_)[q];
  if (list.count++ == 0) {
    list.head = i;
  } else {
    pool_[list.tail].next = i;
  }
  list.tail = i;
  ++(asWrite ? writesWaiting_ : readsWaiting_);
  // The list holds one now: movable if its command queue has room (the other list's bit stands).
  if (size_[q] < queueCap_) (asWrite ? movableWrites_ : movableReads_)[q >> 6] |= uint64_t{1} << (q & 63);
}

bool ChannelController::scheduleTransaction(uint64_t c) {
  (void)c;
  if (drainStarts()) drainLeft_ = writesWaiting_;
  const bool writes = !unified_ && drainLeft_ > 0;
  const std::vector<uint64_t>& movable = writes ? movableWrites_ : movableReads_;
  std::vector<WaitList>& lists = writes ? waitingWrites_ : waitingReads_;
  // The oldest transaction whose command queue has room: the oldest head of those queues.
  uint32_t best = kNil, bestQueue = 0;
  const size_t words = movable.size();
  size_t w = 0;
  if (words == 1 && (movable[0] & (movable[0] - 1)) == 0) {  // one queue or none: no order to compare
    if (movable[0] == 0) return false;  // every one waits for a full command queue
    bestQueue = static_cast<uint32_t>(__builtin_ctzll(movable[0]));
    best = lists[bestQueue].head;
    w = words;
  }
  for (; w < words; ++w) {
    for (uint64_t bits = movable[w]; bits != 0; bits &= bits - 1) {
      const uint32_t q = static_cast<uint32_t>(w * 64) + static_cast<uint32_t>(__builtin_ctzll(bits));
      const uint32_t head = lists[q].head;
      // Live entries are far fewer than 2^31 arrivals apart: the signed difference orders them.
      if (best == kNil || static_cast<int32_t>(pool_[head].order - pool_[best].order) < 0) {
        best = head;
        bestQueue = q;
      }
    }
  }
  if (best == kNil) return false;  // every one waits for a full command queue
  const Entry& e = pool_[best];
  if (writes) {
    if (pendingReads_.find(e.addr) != AddressTable::kNone) {  // a read of it goes first
      drainLeft_ = 0;
      drainBlocked_ = true;
      return true;  // reads may move from the next cycle on
    }
    --drainLeft_;
  }
  WaitList& list = lists[bestQueue];
  list.head = e.next;
  if (--list.count == 0) list.tail = kNil;
  --(writes ? writesWaiting_ : readsWaiting_);
  const uint32_t q = bestQueue;
  const bool isWrite = e.isWrite;
  const bool wasEmpty = size_[q] == 0;
  appendEntry(q, e);  // before the pool slot is freed: freePool_ may grow, pool_ does not
  freePool_.push_back(best);
  writesIn_[q] += isWrite;
  nonEmpty_[q >> 6] |= uint64_t{1} << (q & 63);
  ++cmdTotal_;
  if (wasEmpty) summary_[q].valid = false;
  if (wasEmpty || !summaryAfterAppend(q)) {  // the queue's ready time may be earlier now
    lowerBound_[q] = 0;
    exact_[q] = 0;
  }
  updateMovable(q);
  if (!isWrite) drainBlocked_ = false;
  return true;
}

// ---------------------------------------------------------------------------------------------

DramStats ChannelController::statsAt(uint64_t now) const {
  DramStats s = stats_;
  for (uint32_t r = 0; r < ranks_; ++r) {
    if (now <= rankSince_[r]) continue;
    (openRows_[r] > 0 ? s.rankActiveCycles[r] : s.rankPrechargedCycles[r]) += now - rankSince_[r];
  }
  if (now > busySince_) {
    s.bankBusySum += uint64_t{busyBanks_} * (now - busySince_);
    if (busyBanks_ > 0) s.busyCycles += now - busySince_;
  }
  return s;
}

}  // namespace weft::sim::dram
