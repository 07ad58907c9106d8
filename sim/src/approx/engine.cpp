// The engine's clock, DRAM side, resets, registers and counters; the units' dataflow is in
// engine_units.cpp.
#include "approx/engine.h"
#include "approx/gemm_schedule.h"

#include <algorithm>

namespace weft::sim::approx {

Engine::Engine(const hw::HwConfig& config, const ApproxTiming& timing, bool computesData)
    : config_(config),
      timing_(timing),
      dram_(std::make_unique<DramStorage>(config.dramBytes())),
      dramModel_(*dram_, DramTiming::fromConfig(config)),
      functional_(config),
      worker_(functional_, *dram_, FunctionalWorker::threadedByEnvironment(), computesData),
      rows_(config.rows()),
      cols_(config.cols()),
      busBytes_(config.busBytes()),
      maxOutstanding_(static_cast<unsigned>(config.get(hw::Param::kMaxOutstanding))),
      fifoDepth_(static_cast<unsigned>(config.get(hw::Param::kCmdQueueDepth))),
      os_(outputStationary(config)) {
  while ((1u << busShift_) < busBytes_) ++busShift_;
  // Contiguous full rows of whole beats merge into requests (weft_load's merge_q and max_rows()).
  for (uint32_t d = 0; d < kMems; ++d) {
    memRowBytes_[d] = static_cast<uint32_t>(hw::memRowBytes(static_cast<hw::Mem>(d), config));
    mergeRows_[d] = timing_.rowsPerRequest(memRowBytes_[d], busBytes_);
  }
  rp_.lastBeats.assign(maxOutstanding_, 0);
  fetched_.reset(timing_.fetchSlots);
  decodePops_.reset(timing_.fetchSlots);
  for (Unit& u : units_) {
    u.fifo.reset(fifoDepth_);
    u.starts.reset(fifoDepth_);
  }
  // Which end of each token queue acts first within a cycle, in the reference's agent order
  // (fetch, decode, then the units in hw::Unit order).
  const auto depth = static_cast<unsigned>(config.get(hw::Param::kTokenDepth));
  for (size_t q = 0; q < tokens_.size(); ++q) {
    tokens_[q].init(depth, hw::kTokenQueues[q].from < hw::kTokenQueues[q].to);
  }
  store_.window.reset(timing_.storeFifoDepth);
  store_.inFlight.reset(timing_.storeCmdsInFlight + 1);
}

// ---- time ----

bool Engine::runTo(uint64_t limit, bool stopAtIrq) {
  if (faulted_) {
    now_ = std::max(now_, limit);
    return false;
  }
  stopAtIrq_ = stopAtIrq;
  irqStop_ = kNever;
  // An idle device (the usual state of a register access) has nothing to do until a register
  // changes: time just passes.
  if (softResetAt_ == kNever && !workOpen() && store_.rows.empty() && flushBeat_ == kNever &&
      (!control_.enable || control_.tail == reqIdx_ || control_.haltedFrom != kNever)) {
    now_ = std::max(now_, limit);
    return false;
  }
  runStart_ = now_;
  fetchValid_ = false;
  try {
    // The dataflow runs again only after an event that can let it go further: a command
    // arriving, a LOAD or STORE completing, the controller's snapshot steps, a reset.
    for (bool changed = true;;) {
      if (changed) propagate(std::min({limit, softResetAt_, irqStop_}));
      const Step step = dramStep(std::min({limit, softResetAt_, irqStop_}));
      if (step != Step::kNone) {
        changed = step == Step::kChanged;
        continue;
      }
      // Everything before the soft reset has happened: it takes effect, then time goes on.
      if (softResetAt_ != kNever && limit >= softResetAt_ && irqStop_ > softResetAt_) {
        applySoftReset(softResetAt_);
        changed = true;
        continue;
      }
      break;
    }
  } catch (...) {
    // A DRAM access outside the memory: the hardware would hang or fault the bus.
    fault_ = std::current_exception();
    faulted_ = true;
  }
  if (irqStop_ != kNever && !faulted_) {
    now_ = irqStop_;  // the line is a flop: high from the cycle after it rose
    fold(now_);
    return true;
  }
  now_ = std::max(now_, limit);
  fold(now_);
  return false;
}

void Engine::propagate(uint64_t lim) {
  for (bool progress = true; progress;) {
    progress = advanceDecoder(lim);
    lim = std::min(lim, irqStop_);
    progress |= tryStartLoad(lim);
    progress |= advanceCompute(lim);
    progress |= advanceStore(lim);
    progress |= advanceVector(lim);
  }
}

// The earliest DRAM-side event, ties in the reference's agent order: a fetch, the controller's
// snapshot, a load request, a store row's write. Load requests and store writes, the bulk,
// are merged in one loop up to the next fetch or controller event (nothing else can come
// between, see engine.h), until one of them completes a command.
Engine::Step Engine::dramStep(uint64_t lim) {
  // The fetch candidate is kept between steps: only a take by the decoder, a fetch, a register
  // write or a reset can make it earlier (invalidate); reads and time passing only make it later,
  // so a kept value is a bound, recomputed when it would be the next event.
  if (!fetchValid_) {
    fetchCache_ = fetchCandidate();
    fetchValid_ = fetchExact_ = true;
  }
  const uint64_t tD = decoderEventTime();
  const uint64_t tL = loadCandidate();
  const uint64_t tW = store_.rows.empty() ? kNever : store_.rows.front().lastBeat;
  if (!fetchExact_ && fetchCache_ <= std::min({tD, tL, tW}) && fetchCache_ < lim) {
    fetchCache_ = fetchCandidate();
    fetchExact_ = true;
  }
  const uint64_t tF = fetchCache_;
  const uint64_t t = std::min({tF, tD, tL, tW});
  if (t >= lim) return Step::kNone;
  fetchExact_ = false;
  if (t == tF) {
    fetchValid_ = false;
    frontier_ = t;
    fetch(t);
    return Step::kChanged;
  }
  if (t == tD) {
    frontier_ = t;
    decoderEvent(t);
    return Step::kChanged;
  }
  return memoryTraffic(std::min({tF, tD, lim})) ? Step::kChanged : Step::kQuiet;
}

void Engine::fold(uint64_t t) {
  rdBytes_.fold(t);
  rdReqs_.fold(t);
  wrBytes_.fold(t);
  wrReqs_.fold(t);
  snapWrBytes_.fold(t);
  snapWrReqs_.fold(t);
  decoderRetired_.fold(t);
  arrayRows_.fold(t);
  fp16Rows_.fold(t);
  weightRows_.fold(t);
  vectorSlots_.fold(t);
  dramStall_.fold(t);
  for (Unit& u : units_) {
    u.active.fold(t);
    u.stall.fold(t);
    u.retired.fold(t);
  }
}

bool Engine::runUntilInterrupt(uint64_t maxCycles) {
  if (irqLine()) return true;
  const bool irq = runTo(now_ + std::min(maxCycles, kNever - 1 - now_), true);  // "forever" must not wrap
  try {
    worker_.drain();  // the host looks at DRAM next
  } catch (...) {
    fault_ = std::current_exception();
    faulted_ = true;
  }
  if (fault_) {
    std::exception_ptr f = fault_;
    fault_ = nullptr;
    std::rethrow_exception(f);
  }
  return irq;
}

// ---- DRAM ports ----

Engine::WriteSlot Engine::writePlan(uint64_t validFrom, uint32_t bytes) {
  WriteSlot s;
  s.request = std::max(validFrom, writeLastRequest_ == kNever ? 0 : writeLastRequest_ + 1);
  const uint64_t first = std::max(s.request + 1, writeLastBeat_ == kNever ? 0 : writeLastBeat_ + 1);
  s.lastBeat = first + beats(bytes) - 1;
  writeLastRequest_ = s.request;
  writeLastBeat_ = s.lastBeat;
  return s;
}

uint64_t Engine::writeFinish(uint64_t addr, uint32_t bytes, uint64_t lastBeat) {
  const uint64_t done = dramModel_.timeWrite(addr, bytes, lastBeat);
  writeLastAck_ = std::max({done, lastBeat + 1, writeLastAck_ == kNever ? 0 : writeLastAck_ + 1});
  return writeLastAck_;
}

// ---- fetch ----

bool Engine::ringBad() const {
  const ControlState& c = control_;
  return c.ringSize == 0 || c.tail >= c.ringSize || reqIdx_ >= c.ringSize;
}

// Commands one request would fetch in cycle t: the buffer's free slots then (a slot the
// decoder takes in cycle p is free from p + 1), at least half the buffer unless all that is left
// fits.
uint32_t Engine::requestSize(uint64_t t) const {
  // Takes are recorded in cycle order: those at or after t are the newest.
  size_t occupied = fetched_.size();
  for (size_t i = decodePops_.size(); i > 0 && decodePops_.at(i - 1) >= t; --i) ++occupied;
  const uint32_t slots = timing_.fetchSlots;
  const uint32_t free = slots - static_cast<uint32_t>(std::min<size_t>(occupied, slots));
  const ControlState& c = control_;
  const uint32_t avail = c.tail > reqIdx_ ? c.tail - reqIdx_ : c.ringSize - reqIdx_;
  if (free == 0 || (free < slots / 2 && avail > free)) return 0;
  return std::min(avail, free);
}

uint64_t Engine::fetchCandidate() const {
  const ControlState& c = control_;
  if (!c.enable || c.tail == reqIdx_) return kNever;
  const uint64_t base = std::max(runStart_, frontier_);
  // Fetch stops once the controller halts; requests up to the halting cycle still go out.
  if (ringBad()) return c.haltedFrom == kNever ? base : kNever;
  uint64_t t = readAcceptableFrom(base);
  while (requestSize(t) == 0) {
    uint64_t pop = kNever;  // the next take by the decoder frees a slot after it (takes in cycle order)
    for (size_t i = 0; i < decodePops_.size(); ++i) {
      if (decodePops_.at(i) >= t) {
        pop = decodePops_.at(i);
        break;
      }
    }
    if (pop == kNever) return kNever;
    t = readAcceptableFrom(pop + 1);
  }
  return t < c.haltedFrom ? t : kNever;
}

void Engine::fetch(uint64_t t) {
  ControlState& c = control_;
  if (ringBad()) {
    halt(hw::Error::kBadRing, t);
    return;
  }
  const uint32_t n = requestSize(t);
  const uint32_t bytes = n * hw::kCommandBytes;
  const uint64_t addr = c.ringBase + uint64_t{reqIdx_} * hw::kCommandBytes;
  uint8_t words[hw::kCommandBytes * 64];
  if (worker_.mayWrite(addr, bytes)) worker_.drain();  // a program storing into its own ring
  dram_->read(addr, words, bytes);  // throws on a ring outside the memory, changing nothing
  const uint64_t lastBeat = readAccept(addr, bytes, t);
  rdBytes_.add(t, bytes, frontier_);
  rdReqs_.add(t, 1, frontier_);
  // Beats carry the commands in order; a command is in the buffer after its last beat.
  const uint64_t first = lastBeat + 1 - beats(bytes);
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t beat = busBytes_ <= hw::kCommandBytes ? first + (uint64_t{i + 1} * hw::kCommandBytes >> busShift_) - 1
                                                         : first + (uint64_t{i} * hw::kCommandBytes >> busShift_);
    FlowCmd& f = fetched_.push();
    f.word = hw::CommandWord::fromBytes(words + size_t{i} * hw::kCommandBytes);
    f.arrive = beat + 1;
    f.error = functional_.check(f.word);
    f.op = static_cast<hw::Opcode>(f.word.get(hw::field::kOpcode));
    f.unit = f.error == hw::Error::kNone ? hw::unitOf(f.op) : hw::Unit::kControl;
    // The token queues behind the header bits (hw/spec/isa.json units).
    const auto& ports = hw::kUnitTokenPorts[static_cast<size_t>(f.unit)];
    f.waits[0] = f.word.get(hw::field::kWait0) != 0 ? ports.waits[0] : -1;
    f.waits[1] = f.word.get(hw::field::kWait1) != 0 ? ports.waits[1] : -1;
    f.signals[0] = f.word.get(hw::field::kSignal0) != 0 ? ports.signals[0] : -1;
    f.signals[1] = f.word.get(hw::field::kSignal1) != 0 ? ports.signals[1] : -1;
  }
  busyExtends(lastBeat + 1);  // reads in flight keep the device busy until they land
  const uint64_t next = uint64_t{reqIdx_} + n;
  reqIdx_ = static_cast<uint32_t>(next >= c.ringSize ? next - c.ringSize : next);
}

uint32_t Engine::ringHead(uint64_t t) const {
  uint32_t inFlight = 0;
  for (size_t i = 0; i < fetched_.size(); ++i) inFlight += fetched_.at(i).arrive > t ? 1 : 0;
  const uint32_t size = std::max<uint32_t>(control_.ringSize, 1);
  return (reqIdx_ + size - inFlight % size) % size;
}

// ---- resets ----

void Engine::applySoftReset(uint64_t t) {
  softResetAt_ = kNever;
  if (log_.enabled()) log_.reset(t);
  fetchValid_ = false;
  const bool wasOpen = workOpen();
  // The controller: a snapshot whose request DRAM accepted still sends its beats (the write
  // port is rewound below, as the store's reset does in the reference, after the controller's).
  if (phase_ == Phase::kWrite && snapRequest_ < t) {
    flushBeat_ = barrierAt_;
    flushAddr_ = hw::BarrierCmd::decode(dec_.word).dramAddr;
  }
  hasDec_ = false;
  phase_ = Phase::kNone;
  lastLeave_ = t;

  // Every unit: counts end at t; what was planned at or after t does not happen (work the
  // dataflow computed ahead, completions falling after t).
  for (Unit& u : units_) {
    // The head at t: the first command started at or after it (its stall is cut below), or the
    // one still waiting, whose stall so far is counted now.
    if (u.lastStart == kNever || u.lastStart < t) {
      const uint64_t stalled = tokenStallCycles(u, t) - u.stall.value(t);
      if (stalled > 0) u.stall.add(t - stalled, t, frontier_);
    }
    u.stall.cut(t);
    u.active.cut(t);
    if (u.openSince != kNever && u.openSince < t) u.active.add(u.openSince, t, frontier_);
    u.openSince = kNever;
    u.retired.cut(t);
    u.fifo.clear();
    u.dispatched = u.started = 0;
    u.starts.clear();
    if (u.lastStart != kNever && u.lastStart >= t) u.lastStart = t - 1;
    u.lastCompletion = std::min(u.lastCompletion, t - 1);
  }
  arrayRows_.cut(t);
  fp16Rows_.cut(t);
  weightRows_.cut(t);
  vectorSlots_.cut(t);
  vector_.idleFrom = t;

  if (load_.busy && t > load_.wantFrom) dramStall_.add(t - 1, t - load_.wantFrom, frontier_);
  load_.busy = false;
  load_.idleFrom = t;

  // A GEMM started at or after t is taken back: the weight buffers are as before it.
  for (size_t i = 0; i < compute_.undo.size(); ++i) {
    const auto& u = compute_.undo.at(i);
    if (u.start >= t) {
      compute_.lastBuf = u.lastBuf;
      compute_.lastK = u.lastK;
      compute_.anyIssued = u.anyIssued;
      break;
    }
  }
  compute_.undo.clear();
  compute_.step = 0;  // the head's later steps never run
  compute_.lastIssue = t;
  compute_.preloadFreeFrom = t;
  compute_.bufFreeFrom = {t, t};
  compute_.sinceReset = 0;

  for (size_t i = 0; i < store_.undo.size(); ++i) {
    if (store_.undo.at(i).start >= t) {
      store_.anyStarted = store_.undo.at(i).anyStarted;
      break;
    }
  }
  store_.undo.clear();
  // Rows whose requests DRAM accepted still send their beats; the others are dropped.
  while (!store_.rows.empty() && store_.rows.back().request >= t) store_.rows.popBack();
  store_.window.clear();
  for (size_t i = 0; i < store_.rows.size(); ++i) {
    StoreRow& row = store_.rows.at(i);
    row.owner = kNever;
    for (uint32_t k = 0; k < row.tiles; ++k) {
      if (store_.window.size() == store_.window.capacity()) store_.window.pop();
      store_.window.push() = row.tileLeaves(k, beats(row.bytes));
    }
  }
  store_.inFlight.clear();
  store_.lastIssue = t;
  writeLastRequest_ = store_.rows.empty() ? kNever : store_.rows.back().request;
  writeLastBeat_ = store_.rows.empty() ? t : store_.rows.back().lastBeat;

  reqIdx_ = 0;
  fetched_.clear();
  decodePops_.clear();
  for (auto& q : tokens_) q.clear();
  worker_.resetTokens();
  ControlState& c = control_;
  c.tail = 0;
  c.haltedFrom = kNever;
  c.error = hw::Error::kNone;
  c.irqStatus = 0;

  // STATUS.busy: the current spell ends at t, unless an interrupted snapshot still writes.
  if (busyBegin_ != kNever) {
    const uint64_t end = wasOpen ? t : std::min(busyEnd_, t);
    if (flushBeat_ != kNever) {
      busyEnd_ = flushBeat_ + 1;
    } else {
      busyTotal_ += end > busyBegin_ ? end - busyBegin_ : 0;
      busyBegin_ = kNever;
    }
  }
}

void Engine::hardReset() {
  if (log_.enabled()) log_.reset(now_);
  now_ += timing_.resetCycles;  // rst_ni held low
  fetchValid_ = false;
  // The DRAM channel keeps its occupancy: DRAM finishes what it began.
  frontier_ = runStart_ = resetCycle_ = now_;
  for (Unit& u : units_) {
    u.fifo.clear();
    u.starts.clear();
    u.dispatched = u.started = 0;
    u.lastCompletion = 0;
    u.openSince = kNever;
    u.active.reset();
    u.stall.reset();
    u.retired.reset();
  }
  load_ = LoadState{};
  compute_.lastIssue = compute_.preloadFreeFrom = 0;
  compute_.anyIssued = false;
  compute_.lastBuf = 0;
  compute_.lastK = 0;
  compute_.bufFreeFrom = {0, 0};
  compute_.sinceReset = 0;
  compute_.step = 0;
  compute_.undo.clear();
  vector_ = VectorState{};
  store_.lastIssue = 0;
  store_.anyStarted = false;
  store_.window.clear();
  store_.rows.clear();
  store_.inFlight.clear();
  store_.lastOrphanAck = 0;
  store_.undo.clear();
  for (auto& q : tokens_) q.clear();
  hasDec_ = false;
  phase_ = Phase::kNone;
  lastLeave_ = 0;
  flushBeat_ = kNever;
  flushAck_ = 0;
  reqIdx_ = 0;
  fetched_.clear();
  decodePops_.clear();
  worker_.reset();
  functional_.reset();
  rp_ = ReadPort{std::vector<uint64_t>(maxOutstanding_, 0), 0, false, now_, 0};
  writeLastRequest_ = kNever;
  writeLastBeat_ = writeLastAck_ = now_;
  for (EventTimes* e :
       {&rdBytes_, &rdReqs_, &wrBytes_, &wrReqs_, &snapWrBytes_, &snapWrReqs_, &decoderRetired_, &dramStall_}) {
    e->reset();
  }
  arrayRows_.reset();
  fp16Rows_.reset();
  weightRows_.reset();
  vectorSlots_.reset();
  busyTotal_ = 0;
  busyBegin_ = kNever;
  busyEnd_ = 0;
  control_ = ControlState{};
  latchedHi_ = {};
  softResetAt_ = kNever;
  fault_ = nullptr;
  faulted_ = false;
}

// ---- STATUS.busy and the counters ----

// Work whose end is not known yet: it keeps the device busy past every cycle run so far.
bool Engine::workOpen() const {
  const ControlState& c = control_;
  // Commands left in the buffer of a halted controller will not run: they are not "busy".
  if (c.haltedFrom == kNever && ((c.enable && c.tail != reqIdx_) || !fetched_.empty())) return true;
  if (hasDec_) return true;
  for (const Unit& u : units_) {
    if (u.dispatched != u.started) return true;
  }
  return load_.busy || !store_.inFlight.empty();
}

// The device is busy from the doorbell (or CTRL.enable) until its last command ends: every
// command's busy span runs from then to its end without a gap, so a spell is one interval.
void Engine::busyBegins(uint64_t t) {
  if (busyBegin_ != kNever && !workOpen() && busyEnd_ < t) {
    busyTotal_ += busyEnd_ > busyBegin_ ? busyEnd_ - busyBegin_ : 0;
    busyBegin_ = kNever;
  }
  if (busyBegin_ == kNever && workOpen()) {
    busyBegin_ = t;
    busyEnd_ = t;
  }
}

bool Engine::busyAt(uint64_t t) const {
  return busyBegin_ != kNever && t >= busyBegin_ && (workOpen() || t < busyEnd_);
}

uint64_t Engine::busyCycles(uint64_t t) const {
  if (busyBegin_ == kNever || t <= busyBegin_) return busyTotal_;
  const uint64_t end = workOpen() ? t : std::min(t, std::max(busyEnd_, busyBegin_));
  return busyTotal_ + (end - busyBegin_);
}

uint64_t Engine::activeCycles(const Unit& u, uint64_t t) const {
  uint64_t v = u.active.value(t);
  if (u.openSince != kNever && t > u.openSince) {
    const uint64_t from = std::max(u.openSince, std::min(u.active.maxEnd(), t));
    v += t - from;
  }
  return v;
}

// Cycles the unit's queue head waited for a token or for room to signal one: those recorded at
// the starts, and the current head's so far.
uint64_t Engine::tokenStallCycles(const Unit& u, uint64_t t) const {
  uint64_t v = u.stall.value(t);
  if (u.started == u.dispatched) return v;
  if (&u == &units_[kCompute] && compute_.step > 0) return v;  // a GEMM whose first step took its tokens
  const FlowCmd& h = u.fifo.front();
  const uint64_t visible = headVisible(u);
  uint64_t ok = 0;
  for (int q : h.waits) {
    if (q >= 0) ok = std::max(ok, tokens_[q].nextReadyAt());
  }
  for (int q : h.signals) {
    if (q < 0) continue;
    const uint64_t room = tokens_[q].roomFrom();
    ok = room == kNever || room > t || ok == kNever ? kNever : std::max(ok, tokens_[q].spaceSince());
  }
  ok = std::min(ok, t);
  return v + (ok > visible ? ok - visible : 0);
}

CounterValues Engine::counters(uint64_t t) const {
  using C = hw::Counter;
  CounterValues v{};
  auto set = [&](C c, uint64_t value) { v[static_cast<size_t>(c)] = value; };
  set(C::kCycles, t - resetCycle_);
  set(C::kBusy, busyCycles(t));
  set(C::kLoadActive, activeCycles(units_[kLoad], t));
  set(C::kComputeActive, activeCycles(units_[kCompute], t));
  set(C::kStoreActive, activeCycles(units_[kStore], t));
  set(C::kArrayRows, arrayRows_.value(t));
  set(C::kFp16Rows, fp16Rows_.value(t));
  set(C::kWspadRdRows, weightRows_.value(t));
  set(C::kVectorActive, activeCycles(units_[kVector], t));
  set(C::kVectorSlots, vectorSlots_.value(t));
  set(C::kStallVectorToken, tokenStallCycles(units_[kVector], t));
  // A store row is counted when its write is served, at its last beat; the RTL counts the
  // request when the port accepts it, which may be before t while the beats are still to come.
  uint64_t plannedBytes = 0, plannedReqs = 0;
  for (size_t i = 0; i < store_.rows.size() && store_.rows.at(i).request < t; ++i) {
    plannedBytes += store_.rows.at(i).bytes;
    ++plannedReqs;
  }
  set(C::kDmaRdBytes, rdBytes_.value(t));
  set(C::kDmaWrBytes, wrBytes_.value(t) + snapWrBytes_.value(t) + plannedBytes);
  set(C::kDmaRdReqs, rdReqs_.value(t));
  set(C::kDmaWrReqs, wrReqs_.value(t) + snapWrReqs_.value(t) + plannedReqs);
  set(C::kStallLoadToken, tokenStallCycles(units_[kLoad], t));
  set(C::kStallComputeToken, tokenStallCycles(units_[kCompute], t));
  set(C::kStallStoreToken, tokenStallCycles(units_[kStore], t));
  set(C::kStallDramRd, dramStall_.value(t) + (load_.busy && t > load_.wantFrom ? t - load_.wantFrom : 0));
  // The harness's write port is always ready (RtlStepper): the store never waits on it.
  set(C::kStallDramWr, 0);
  uint64_t retired = decoderRetired_.value(t);
  for (const Unit& u : units_) retired += u.retired.value(t);
  set(C::kCmdsRetired, retired);
  return v;
}

DramStorage& Engine::dram() {
  try {
    worker_.drain();
  } catch (...) {  // reported by the next run, as a fault inside it would be
    fault_ = std::current_exception();
    faulted_ = true;
  }
  return *dram_;
}

// ---- registers ----

uint32_t Engine::registerValue(uint32_t addr) {
  return readRegisterFile(
      addr, config_, control_, now_, latchedHi_, [this](uint64_t t) { return counters(t); },
      [this](uint64_t t) { return busyAt(t); }, [this](uint64_t t) { return ringHead(t); });
}

uint32_t Engine::readReg(uint32_t addr) {
  // The request cycle: the value is the one of this cycle, registered at its end.
  runTo(now_, false);
  const uint32_t value = registerValue(addr);
  runTo(now_ + timing_.regAccessCycles, false);
  return value;
}

void Engine::writeReg(uint32_t addr, uint32_t value) {
  // The device acts through the request cycle with the old values; the write lands at its end.
  runTo(now_ + timing_.regAccessCycles, false);
  const uint64_t w = now_ - 1;  // the request cycle
  const bool wasOpen = workOpen();
  if (writeRegisterFile(control_, addr, value, w)) softResetAt_ = w + 2;  // soft_rst_q, then clr
  fetchValid_ = false;
  if (wasOpen && !workOpen()) busyExtends(w + 1);  // e.g. CTRL.enable cleared with commands unfetched
  busyBegins(w + 1);
}

}  // namespace weft::sim::approx
