// The engine's dataflow: the decoder and the units, each in order, each event computed
// from times already known (engine.h). The rules are rtl/README.md's, as the reference agents
// (controller.cpp, load_unit.cpp, compute_unit.cpp, store_unit.cpp) state them cycle by cycle.
#include <algorithm>

#include "approx/engine.h"
#include "approx/gemm_schedule.h"

namespace weft::sim::approx {
namespace {

size_t unitIndex(hw::Unit u) { return static_cast<size_t>(u); }  // hw::Unit order

}  // namespace

// ---- decode and dispatch (weft_ctrl) ----

void Engine::popDecode(uint64_t t) {
  dec_ = fetched_.front();
  fetched_.pop();
  if (decodePops_.size() == decodePops_.capacity()) decodePops_.pop();
  decodePops_.push() = t;
  // The slot is free from t + 1: a fetch waiting for slots may go earlier.
  if (fetchValid_ && fetchCache_ > t + 1) fetchValid_ = false;
  lastDecodePop_ = t;
  hasDec_ = true;
  if (log_.enabled()) log_.decode(t, static_cast<unsigned>(dec_.word.get(hw::field::kOpcode)));
  decVisible_ = t + 1;
}

void Engine::leave(uint64_t t) {
  hasDec_ = false;
  lastLeave_ = t;
  busyExtends(t + 1);
  // The next command enters the decode register in the same cycle.
  if (!fetched_.empty() && !control_.halted(t) &&
      std::max(fetched_.front().arrive, lastDecodePop_ == kNever ? 0 : lastDecodePop_ + 1) <= t) {
    popDecode(t);
  }
}

void Engine::raiseIrq(uint32_t mask, uint64_t t) {
  control_.raise(mask, t);
  if (stopAtIrq_ && control_.irqLine()) irqStop_ = std::min(irqStop_, t + 1);
}

void Engine::halt(hw::Error e, uint64_t t) {
  fetchValid_ = false;
  const uint32_t before = control_.irqStatus;
  control_.halt(e, t);
  busyExtends(t + 1);
  if (control_.irqStatus != before && stopAtIrq_ && control_.irqLine()) irqStop_ = std::min(irqStop_, t + 1);
}

// The cycle from which the machine is drained for a barrier: every dispatched command started
// and completed, every write acknowledged (kNever while one of those is not known).
uint64_t Engine::drainedFrom() const {
  if (flushBeat_ != kNever || load_.busy || !store_.inFlight.empty() || !store_.rows.empty()) return kNever;
  uint64_t t = flushAck_ + 1;
  for (const Unit& u : units_) {
    if (u.dispatched != u.started) return kNever;
    if (u.lastStart != kNever) t = std::max(t, u.lastStart + 1);  // the FIFO is empty after its last pop
    t = std::max(t, u.lastCompletion + 1);
  }
  return std::max(t, store_.lastOrphanAck + 1);
}

void Engine::finishBarrier(uint64_t t) {
  if (hw::BarrierCmd::decode(dec_.word).irq) raiseIrq(hw::reg::kIrqStatusDoneMask, t);
  decoderRetired_.add(t, 1, frontier_);
  if (log_.enabled()) log_.controlRetire(t);
  phase_ = Phase::kNone;
  leave(t);
}

bool Engine::advanceDecoder(uint64_t lim) {
  bool progress = false;
  for (;;) {
    if (!hasDec_) {
      if (fetched_.empty()) return progress;
      const uint64_t t = std::max({fetched_.front().arrive, lastDecodePop_ == kNever ? 0 : lastDecodePop_ + 1, lastLeave_});
      if (control_.halted(t) || t >= lim) return progress;
      popDecode(t);
      progress = true;
      continue;
    }
    if (phase_ != Phase::kNone) {  // a snapshot: its capture and write are DRAM-side events
      if (phase_ != Phase::kAck || barrierAt_ >= lim) return progress;
      finishBarrier(barrierAt_);
      progress = true;
      continue;
    }
    uint64_t t = decVisible_;
    if (dec_.error != hw::Error::kNone) {
      if (control_.halted(t) || t >= lim) return progress;
      halt(dec_.error, t);  // the command is not executed
      hasDec_ = false;
      lastLeave_ = t;
      return true;
    }
    if (dec_.unit != hw::Unit::kControl) {
      Unit& u = units_[unitIndex(dec_.unit)];
      if (u.dispatched >= fifoDepth_) {  // a FIFO slot: the command depth places ahead started
        const uint64_t ahead = u.dispatched - fifoDepth_;
        if (ahead >= u.started) return progress;
        t = std::max(t, u.starts.at(u.starts.size() - (u.started - ahead)) + 1);
      }
      if (control_.halted(t) || t >= lim) return progress;
      FlowCmd& slot = u.fifo.push();
      slot = dec_;
      slot.ready = t + 1;
      ++u.dispatched;
      if (log_.enabled()) log_.dispatch(static_cast<unsigned>(unitIndex(dec_.unit)), t);
      const hw::CommandWord word = dec_.word;
      leave(t);
      worker_.execute(word);
      progress = true;
      continue;
    }
    if (dec_.op == hw::Opcode::kNop) {
      if (control_.halted(t) || t >= lim) return progress;
      worker_.execute(dec_.word);
      decoderRetired_.add(t, 1, frontier_);
      if (log_.enabled()) log_.controlRetire(t);
      leave(t);
      progress = true;
      continue;
    }
    // A barrier, once the machine is drained.
    const uint64_t drained = drainedFrom();
    if (drained == kNever) return progress;
    t = std::max(t, drained);
    if (control_.halted(t) || t >= lim) return progress;
    if (log_.enabled()) log_.controlStart(t);
    if (!hw::BarrierCmd::decode(dec_.word).snapshot) {
      worker_.execute(dec_.word);
      finishBarrier(t);
      progress = true;
      continue;
    }
    phase_ = Phase::kCapture;  // the counters as the barrier finds them: a DRAM-side event
    barrierAt_ = t;
    return true;
  }
}

uint64_t Engine::decoderEventTime() const {
  uint64_t t = flushBeat_;
  if (phase_ == Phase::kCapture || phase_ == Phase::kWrite) t = std::min(t, barrierAt_);
  return t;
}

void Engine::decoderEvent(uint64_t t) {
  if (flushBeat_ <= t) {
    flushAck_ = writeFinish(flushAddr_, hw::kSnapshotBytes, t);
    flushBeat_ = kNever;
    return;
  }
  const auto b = hw::BarrierCmd::decode(dec_.word);
  if (phase_ == Phase::kCapture) {
    // The record holds the counters as the barrier found them; its write follows.
    worker_.executeSnapshot(dec_.word, counters(t));
    const WriteSlot slot = writePlan(t + 1, hw::kSnapshotBytes);
    snapWrBytes_.add(slot.request, hw::kSnapshotBytes, frontier_);
    snapWrReqs_.add(slot.request, 1, frontier_);
    barrierAt_ = slot.lastBeat;
    snapRequest_ = slot.request;
    phase_ = Phase::kWrite;
    return;
  }
  barrierAt_ = writeFinish(b.dramAddr, hw::kSnapshotBytes, t);  // its acknowledgement
  if (log_.enabled()) log_.dram(true, snapRequest_, barrierAt_, hw::kSnapshotBytes);
  phase_ = Phase::kAck;
}

// ---- what every unit shares (UnitFront) ----

uint64_t Engine::headVisible(const Unit& u) const {
  return std::max(u.fifo.front().ready, u.lastStart == kNever ? 0 : u.lastStart + 1);
}

uint64_t Engine::tokensReadyFrom(const FlowCmd& c) const {
  uint64_t t = 0;
  for (int q : c.waits) {
    if (q < 0) continue;
    const uint64_t r = tokens_[q].nextReadyAt();
    if (r == kNever) return kNever;
    t = std::max(t, r);
  }
  for (int q : c.signals) {
    if (q < 0) continue;
    const uint64_t r = tokens_[q].roomFrom();
    if (r == kNever) return kNever;
    t = std::max(t, r);
  }
  return t;
}

void Engine::startCommand(Unit& u, const FlowCmd& c, uint64_t t, uint64_t visible, uint64_t (&reservations)[2]) {
  takeTokens(u, c, t, visible, reservations);
  popCommand(u, t);
}

void Engine::takeTokens(Unit& u, const FlowCmd& c, uint64_t t, uint64_t visible, uint64_t (&reservations)[2]) {
  // STALL_*_TOKEN: the head visible, a token it waits for or room for one it signals missing.
  uint64_t ok = 0;
  for (int q : c.waits) {
    if (q >= 0) ok = std::max(ok, tokens_[q].nextReadyAt());
  }
  for (int q : c.signals) {
    if (q >= 0) ok = std::max(ok, tokens_[q].spaceSince());
  }
  ok = std::min(ok, t);
  if (ok > visible) u.stall.add(visible, ok, frontier_);
  for (int q : c.waits) {
    if (q >= 0) tokens_[q].pop(t);
  }
  for (int i = 0; i < 2; ++i) reservations[i] = c.signals[i] >= 0 ? tokens_[c.signals[i]].reserve(t) : kNever;
  if (log_.enabled()) log_.start(static_cast<unsigned>(&u - units_.data()), t);
}

void Engine::popCommand(Unit& u, uint64_t t) {
  if (u.starts.size() == u.starts.capacity()) u.starts.pop();
  u.starts.push() = t;
  ++u.started;
  u.lastStart = t;
  u.fifo.pop();
}

void Engine::complete(Unit& u, const int8_t (&signals)[2], const uint64_t (&reservations)[2], uint64_t start,
                      uint64_t done) {
  for (int i = 0; i < 2; ++i) {
    if (signals[i] >= 0) tokens_[signals[i]].fill(reservations[i], done + 1);
  }
  u.retired.add(done, 1, frontier_);
  if (log_.enabled()) log_.complete(static_cast<unsigned>(&u - units_.data()), done);
  u.active.add(start + 1, done + 1, frontier_);
  u.lastCompletion = std::max(u.lastCompletion, done);
  busyExtends(done + 1);
}

// ---- LOAD (weft_load) ----

bool Engine::tryStartLoad(uint64_t lim) {
  Unit& u = units_[kLoad];
  if (load_.busy || u.started == u.dispatched) return false;
  const FlowCmd& c = u.fifo.front();
  const uint64_t visible = headVisible(u);
  const uint64_t tokens = tokensReadyFrom(c);
  if (tokens == kNever) return false;
  // After a command's last request the next may start in that very cycle.
  const uint64_t t = std::max({load_.idleFrom, visible, tokens});
  if (t >= lim) return false;
  LoadState& l = load_;
  l.cmd = hw::LoadCmd::decode(c.word);
  l.signals[0] = c.signals[0];
  l.signals[1] = c.signals[1];
  startCommand(u, c, t, visible, l.reservations);
  l.busy = true;
  l.start = t;
  l.wantFrom = t + 1;
  l.i0 = l.i1 = l.i2 = 0;
  l.addr0 = l.addr1 = l.addr2 = l.cmd.dramAddr;
  // Contiguous full rows of whole beats merge (weft_load's merge_q and max_rows()); packed rows
  // never do, and otherwise time as plain rows (their beats are written as they arrive).
  const auto dst = static_cast<size_t>(l.cmd.dst);
  l.maxRows = (!l.cmd.pack && l.cmd.rowBytes == memRowBytes_[dst] && l.cmd.stride0 == l.cmd.rowBytes)
                  ? mergeRows_[dst] : 1;
  u.openSince = t + 1;
  return true;
}

uint64_t Engine::loadCandidate() const { return load_.busy ? readAcceptableFrom(load_.wantFrom) : kNever; }

// The current LOAD's requests from cycle t on, one per cycle the read port grants, while they
// come before `bound`; true when the last one completes the command. The hot loop of the
// model: its state lives in locals.
bool Engine::loadRequests(uint64_t t, uint64_t bound) {
  LoadState& l = load_;
  const uint32_t count0 = l.cmd.count0, count1 = l.cmd.count1, count2 = l.cmd.count2, rowBytes = l.cmd.rowBytes;
  const uint64_t stride0 = l.cmd.stride0, stride1 = l.cmd.stride1, stride2 = l.cmd.stride2;
  const uint32_t maxRows = l.maxRows;
  uint32_t i0 = l.i0, i1 = l.i1, i2 = l.i2;
  uint64_t addr0 = l.addr0, addr1 = l.addr1, addr2 = l.addr2, wantFrom = l.wantFrom;
  uint64_t bytes = 0, requests = 0, stall = 0, lastBeat = 0, tLast = t;
  bool done = false;
  for (;;) {
    stall += t - wantFrom;
    const uint32_t rows = std::min(count0 - i0, maxRows);
    const uint32_t n = rows * rowBytes;
    lastBeat = readAccept(addr0, n, t);
    bytes += n;
    ++requests;
    tLast = t;
    wantFrom = t + 1;
    i0 += rows;
    addr0 += rows * stride0;
    if (i0 == count0) {
      i0 = 0;
      if (++i1 < count1) {
        addr1 += stride1;
        addr0 = addr1;
      } else {
        i1 = 0;
        addr2 += stride2;
        addr0 = addr1 = addr2;
        if (++i2 == count2) {
          done = true;
          break;
        }
      }
    }
    t = readAcceptableFrom(wantFrom);
    if (t >= bound) break;
  }
  l.i0 = i0, l.i1 = i1, l.i2 = i2;
  l.addr0 = addr0, l.addr1 = addr1, l.addr2 = addr2, l.wantFrom = wantFrom;
  frontier_ = tLast;
  batchRdBytes_ += bytes;
  batchRdReqs_ += requests;
  batchStall_ += stall;
  batchRdCycle_ = tLast;
  if (!done) return false;
  // The last row is written the cycle after its last beat; that completes the command.
  Unit& u = units_[kLoad];
  complete(u, l.signals, l.reservations, l.start, lastBeat + 1);
  u.openSince = kNever;
  l.busy = false;
  l.idleFrom = tLast;
  return true;
}

// Load requests and store writes in cycle order (a read before a write in the same cycle), up
// to `bound`. Counters are added once per batch: nothing reads them at a cycle inside it. True
// when a command completed (the dataflow may go on).
bool Engine::memoryTraffic(uint64_t bound) {
  bool completed = false;
  for (;;) {
    const uint64_t tW = store_.rows.empty() ? kNever : store_.rows.front().lastBeat;
    const uint64_t tL = load_.busy ? readAcceptableFrom(load_.wantFrom) : kNever;
    if (tL <= tW) {
      if (tL >= bound) break;
      if (loadRequests(tL, std::min(bound, tW == kNever ? kNever : tW + 1))) {
        completed = true;
        break;
      }
    } else {
      if (tW >= bound) break;
      frontier_ = tW;
      if (storeWrite()) {
        completed = true;
        break;
      }
    }
  }
  if (batchRdReqs_ > 0) {
    rdBytes_.add(batchRdCycle_, batchRdBytes_, frontier_);
    rdReqs_.add(batchRdCycle_, batchRdReqs_, frontier_);
    dramStall_.add(batchRdCycle_, batchStall_, frontier_);
    batchRdBytes_ = batchRdReqs_ = batchStall_ = 0;
  }
  if (batchWrReqs_ > 0) {
    wrBytes_.add(batchWrCycle_, batchWrBytes_, frontier_);
    wrReqs_.add(batchWrCycle_, batchWrReqs_, frontier_);
    batchWrBytes_ = batchWrReqs_ = 0;
  }
  return completed;
}

// ---- GEMM (weft_compute) ----

bool Engine::advanceCompute(uint64_t lim) {
  Unit& u = units_[kCompute];
  ComputeState& s = compute_;
  bool progress = false;
  while (u.started < u.dispatched) {
    const FlowCmd& c = u.fifo.front();
    const bool keep = c.word.get(hw::field::gemm::kKeepWeights) != 0;
    // A GEMM of k_steps steps starts once a step (weft_gemm_steps), a step a GEMM of its own:
    // the first takes the tokens, a later one waits for nothing outside the unit and goes the
    // cycle after the one before it at the earliest, the last pops the command.
    const bool first = s.step == 0;
    uint64_t visible = 0, t = computeStepFrom(keep);
    if (first) {
      visible = headVisible(u);
      const uint64_t tokens = tokensReadyFrom(c);
      if (tokens == kNever) break;
      t = std::max({t, visible, tokens});
    } else {
      t = std::max(t, s.stepStart + 1);
    }
    if (t >= lim) break;
    if (s.undo.size() == s.undo.capacity()) s.undo.pop();
    s.undo.push() = {t, s.lastBuf, s.lastK, s.anyIssued};
    if (first) {
      takeTokens(u, c, t, visible, s.reservations);
      s.commandStart = t;
      u.openSince = t + 1;  // until its last step is known
    }
    // The preload reads k_rows weight rows, or Cols of them for a transposed tile.
    const uint32_t preloadRows = c.word.get(hw::field::gemm::kWTransposed) != 0
                                     ? cols_
                                     : static_cast<uint32_t>(c.word.get(hw::field::gemm::kKRows));
    const uint64_t done = computeStep(t, keep, static_cast<uint32_t>(c.word.get(hw::field::gemm::kKRows)), preloadRows,
                                      c.word.get(hw::field::gemm::kMRows) * c.word.get(hw::field::gemm::kMGroups),
                                      c.word.get(hw::field::gemm::kFp16) != 0);
    s.stepStart = t;
    progress = true;
    if (++s.step < c.word.get(hw::field::gemm::kKSteps)) continue;  // decode rejects 0
    s.step = 0;
    const int8_t signals[2] = {c.signals[0], c.signals[1]};
    popCommand(u, t);
    complete(u, signals, s.reservations, s.commandStart, done);
    u.openSince = kNever;
  }
  return progress;
}

// The earliest start of the compute unit's next step: the 2-entry stream queue holds a step
// from after its start through its last issue; new weights need the weight read port and the
// other PE buffer, drained (WS only).
uint64_t Engine::computeStepFrom(bool keep) const {
  const ComputeState& s = compute_;
  uint64_t t = s.sinceReset >= timing_.streamQueueDepth
                   ? s.recentLastIssue[(s.sinceReset - timing_.streamQueueDepth) % 2] + 1
                   : 0;
  if (!keep && !os_) t = std::max({t, s.preloadFreeFrom, s.bufFreeFrom[1 - s.lastBuf]});
  return t;
}

// One step (a GEMM) started in cycle t; returns the cycle it completes.
uint64_t Engine::computeStep(uint64_t t, bool keep, uint32_t kRows, uint32_t preloadRows, uint64_t mRows,
                             bool fp16) {
  ComputeState& s = compute_;
  const uint32_t kUsed = keep ? s.lastK : os_ ? kRows : preloadRows;  // weight rows read
  if (!keep) s.lastK = kRows;
  unsigned buf = s.lastBuf;
  if (!keep && !os_) {
    buf = 1 - s.lastBuf;
    s.lastBuf = buf;
    s.preloadFreeFrom = t + preloadRows;  // row 0 read in cycle t, the others one a cycle
  }
  const uint64_t first = s.anyIssued ? std::max(t + 1, s.lastIssue + 1) : t + 1;
  const GemmSchedule g = gemmSchedule(os_, first, mRows, rows_, cols_);
  s.lastIssue = g.lastIssue;
  s.anyIssued = true;
  if (!os_) s.bufFreeFrom[buf] = g.lastIssue + cols_;
  s.recentLastIssue[s.sinceReset % 2] = g.lastIssue;
  ++s.sinceReset;
  arrayRows_.add(first, g.rowsEnd, frontier_);
  if (fp16) fp16Rows_.add(first, g.rowsEnd, frontier_);
  forEachWeightRead(os_, t, first, mRows, kUsed, keep, rows_,
                    [&](uint64_t a, uint64_t b) { weightRows_.add(a, b, frontier_); });
  return g.done;
}

// ---- vector unit (weft_vector) ----

bool Engine::advanceVector(uint64_t lim) {
  Unit& u = units_[kVector];
  bool progress = false;
  while (u.started < u.dispatched) {
    const FlowCmd& c = u.fifo.front();
    const uint64_t visible = headVisible(u);
    const uint64_t tokens = tokensReadyFrom(c);
    if (tokens == kNever) break;
    const uint64_t t = std::max({vector_.idleFrom, visible, tokens});
    if (t >= lim) break;
    const int8_t signals[2] = {c.signals[0], c.signals[1]};
    const VectorTimeline tl = vectorTimeline(c.word, t);
    uint64_t reservations[2];
    startCommand(u, c, t, visible, reservations);
    for (unsigned p = 0; p < tl.passes; ++p) vectorSlots_.add(tl.spans[p].begin, tl.spans[p].end, frontier_);
    vector_.idleFrom = tl.done + 1;  // busy clears with the last write
    complete(u, signals, reservations, t, tl.done);
    progress = true;
  }
  return progress;
}

// ---- STORE (weft_store, weft_wr_fifo) ----

bool Engine::advanceStore(uint64_t lim) {
  Unit& u = units_[kStore];
  StoreState& s = store_;
  bool progress = false;
  while (u.started < u.dispatched) {
    const FlowCmd& c = u.fifo.front();
    // While issuing, the next command starts in the cycle of the current one's last row; at
    // most storeCmdsInFlight commands await acknowledgements, and a completion frees its slot
    // from the next cycle (weft_store's completion FIFO is full until the pop has happened).
    uint64_t t = s.anyStarted ? s.lastIssue : 0;
    const uint64_t number = u.started;
    if (number >= timing_.storeCmdsInFlight) {
      const uint64_t done = s.doneOf[(number - timing_.storeCmdsInFlight) % s.doneOf.size()];
      if (done == kNever) break;
      t = std::max(t, done + 1);
    }
    const uint64_t visible = headVisible(u);
    const uint64_t tokens = tokensReadyFrom(c);
    if (tokens == kNever) break;
    t = std::max({t, visible, tokens});
    if (t >= lim) break;
    const auto cmd = hw::StoreCmd::decode(c.word);
    if (s.undo.size() == s.undo.capacity()) s.undo.pop();
    s.undo.push() = {t, s.anyStarted};
    StoreCmdState& st = s.inFlight.push();
    st.number = number;
    st.start = t;
    st.rowsLeft = uint64_t{cmd.count0} * cmd.count1;
    st.signals[0] = c.signals[0];
    st.signals[1] = c.signals[1];
    startCommand(u, c, t, visible, st.reservations);
    s.doneOf[number % s.doneOf.size()] = kNever;
    if (u.openSince == kNever) u.openSince = t + 1;
    // Tiles: one a cycle from the cycle after the start while the row buffer has room (a tile
    // issues once the tile storeFifoDepth before it has left); a row's write request
    // storeIssueToRequest cycles after its last tile's issue, its beats on the port, each tile
    // leaving the buffer with its last beat.
    const uint32_t e = hw::columnBytes(cmd.mode);
    const uint32_t tileBytes = cols_ * e;
    const uint32_t bytes = (cmd.tiles - 1) * tileBytes + cmd.rowBytes * e;
    const size_t window = timing_.storeFifoDepth;
    uint64_t issue = s.anyStarted ? std::max(t, s.lastIssue) : t;
    for (uint32_t i1 = 0; i1 < cmd.count1; ++i1) {
      for (uint32_t i0 = 0; i0 < cmd.count0; ++i0) {
        for (uint32_t k = 0; k < cmd.tiles; ++k) {
          issue += 1;
          if (s.window.size() + k >= window) issue = std::max(issue, s.window.at(s.window.size() + k - window) + 1);
        }
        const WriteSlot slot = writePlan(issue + timing_.storeIssueToRequest, bytes);
        if (s.rows.size() == s.rows.capacity()) growRows();
        const StoreRow& row = s.rows.push() = {cmd.dramAddr + uint64_t{i1} * cmd.stride1 + uint64_t{i0} * cmd.stride0,
                                               bytes, slot.request, slot.lastBeat, number, cmd.tiles,
                                               static_cast<uint32_t>(beats(tileBytes))};
        for (uint32_t k = 0; k < cmd.tiles; ++k) {
          if (s.window.size() == window) s.window.pop();
          s.window.push() = row.tileLeaves(k, beats(bytes));
        }
      }
    }
    s.lastIssue = issue;
    s.anyStarted = true;
    progress = true;
  }
  return progress;
}

void Engine::growRows() {
  Ring<StoreRow> bigger(store_.rows.capacity() * 2);
  for (size_t i = 0; i < store_.rows.size(); ++i) bigger.push() = store_.rows.at(i);
  store_.rows = std::move(bigger);
}

// The oldest planned row reaches DRAM with its last beat; true when that completes a command
// (or acknowledges a row a soft reset orphaned, which a barrier may wait for).
bool Engine::storeWrite() {
  StoreState& s = store_;
  const StoreRow r = s.rows.front();
  s.rows.pop();
  const uint64_t ack = writeFinish(r.addr, r.bytes, r.lastBeat);
  if (log_.enabled()) log_.dram(true, r.request, ack, r.bytes);
  batchWrBytes_ += r.bytes;
  ++batchWrReqs_;
  batchWrCycle_ = r.request;  // counted at the request, as DMA_WR_* are
  if (r.owner == kNever) {
    s.lastOrphanAck = ack;
    return true;
  }
  StoreCmdState& owner = s.inFlight.front();
  if (--owner.rowsLeft > 0) return false;
  Unit& u = units_[kStore];
  complete(u, owner.signals, owner.reservations, owner.start, ack);
  s.doneOf[owner.number % s.doneOf.size()] = ack;
  s.inFlight.pop();
  u.openSince = s.inFlight.empty() ? kNever : s.inFlight.front().start + 1;
  return true;
}

}  // namespace weft::sim::approx
