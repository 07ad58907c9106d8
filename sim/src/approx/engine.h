// The approx backend's device: weft_top at the register level, cycle-approximate, following the
// units of rtl/README.md. It computes the same times as the reference agents
// (approx_device.h, one action at a time in cycle order), organised for speed:
//
//   * Only the DRAM side needs cycle order: one channel serves requests in the order they are
//     presented (DramModel), and the read port is shared by fetch and load. Those requests are
//     processed strictly in cycle order (ties: fetch, the controller's snapshot write, load,
//     store), each batch of a unit's requests in a tight loop up to the next request of another.
//   * Everything else is a dataflow over in-order units: the decoder's dispatch, every unit's
//     start, a GEMM's whole timeline, a store's row plan are max-plus functions of times already
//     known, computed as soon as their inputs are. Inputs not known yet depend on DRAM answers
//     still to come, which lie after every request already served, so what is computed is final.
//   * Nothing at or after the current run limit is applied (register accesses and resets find
//     the state of their cycle); counters record times, so a read at cycle t counts what
//     happened before t even when later work is already planned.
//
// Data moves through the functional model in ring order at dispatch, as in the reference.
#pragma once

#include <array>
#include <exception>
#include <memory>

#include "approx/approx_timing.h"
#include "approx/flow_parts.h"
#include "approx/functional_worker.h"
#include "approx/machine.h"
#include "approx/vector_timing.h"
#include "weft/sim/command_events.h"
#include "weft/sim/dram_model.h"
#include "weft/sim/functional_model.h"

namespace weft::sim::approx {

// A command as the controller holds it, with what the units need decoded once at fetch.
struct FlowCmd {
  hw::CommandWord word;
  uint64_t arrive = 0;  // in the fetch buffer from this cycle (the cycle after its last beat)
  uint64_t ready = 0;   // in its unit's FIFO, visible from this cycle (the cycle after dispatch)
  hw::Error error = hw::Error::kNone;
  hw::Unit unit = hw::Unit::kControl;
  hw::Opcode op = hw::Opcode::kNop;
  int8_t waits[2] = {-1, -1}, signals[2] = {-1, -1};  // token lines (hw::TokenQueue), -1: none
};

class Engine final {
 public:
  explicit Engine(const hw::HwConfig& config, const ApproxTiming& timing = {}, bool computesData = true);
  // computesData false: the timing backend (BackendKind::kTiming); the data path runs only the
  // snapshot barriers (FunctionalWorker).
  Engine(const hw::HwConfig& config, bool computesData) : Engine(config, ApproxTiming{}, computesData) {}

  uint32_t readReg(uint32_t addr);
  void writeReg(uint32_t addr, uint32_t value);
  // Runs until the interrupt line is high or maxCycles have passed; true on interrupt.
  // Rethrows a DRAM access fault of the device (std::out_of_range); the device then stays
  // stopped until hardReset().
  bool runUntilInterrupt(uint64_t maxCycles);
  void hardReset();

  uint64_t cycle() const { return now_; }
  DramModel& dramModel() { return dramModel_; }
  bool irqLine() const { return control_.irqLine(); }
  // The DRAM for the host: every command handed to the data path has run.
  DramStorage& dram();
  CounterValues counters(uint64_t t) const;
  // Per-command timelines (command_events.h), recorded when enabled.
  CommandLog& commandLog() { return log_; }

 private:
  // One of load, compute, store: its command FIFO and what the other stages need of it.
  struct Unit {
    Ring<FlowCmd> fifo;
    uint64_t dispatched = 0, started = 0;  // commands since the last reset
    Ring<uint64_t> starts;                 // start cycles of the latest FIFO-depth commands
    uint64_t lastStart = kNever;           // the FIFO's last pop
    uint64_t lastCompletion = 0;
    uint64_t openSince = kNever;  // activity of started commands whose completion is not known
    IntervalSum active, stall;
    EventTimes retired;
  };
  enum UnitId { kLoad = 0, kCompute = 1, kStore = 2, kVector = 3 };  // hw::Unit order
  enum class Phase { kNone, kCapture, kWrite, kAck };

  // time
  bool runTo(uint64_t limit, bool stopAtIrq);
  void propagate(uint64_t lim);
  enum class Step { kNone, kQuiet, kChanged };  // nothing before the limit; served; served, dataflow may go on
  Step dramStep(uint64_t lim);
  bool memoryTraffic(uint64_t bound);
  void applySoftReset(uint64_t t);
  void fold(uint64_t t);

  // read and write ports (weft_rd_arb, weft_wr_fifo over the DRAM model)
  uint64_t readAcceptableFrom(uint64_t t) const;
  uint64_t readAccept(uint64_t addr, uint32_t bytes, uint64_t t);
  struct WriteSlot {
    uint64_t request, lastBeat;
  };
  WriteSlot writePlan(uint64_t validFrom, uint32_t bytes);
  uint64_t writeFinish(uint64_t addr, uint32_t bytes, uint64_t lastBeat);

  // fetch (weft_fetch)
  bool ringBad() const;
  uint32_t requestSize(uint64_t t) const;
  uint64_t fetchCandidate() const;
  void fetch(uint64_t t);
  uint32_t ringHead(uint64_t t) const;

  // decode and dispatch (weft_ctrl)
  bool advanceDecoder(uint64_t lim);
  void popDecode(uint64_t t);
  void leave(uint64_t t);
  uint64_t drainedFrom() const;
  void finishBarrier(uint64_t t);
  void raiseIrq(uint32_t mask, uint64_t t);
  void halt(hw::Error e, uint64_t t);
  uint64_t decoderEventTime() const;  // the controller's next DRAM-side event
  void decoderEvent(uint64_t t);

  // units
  uint64_t headVisible(const Unit& u) const;
  uint64_t tokensReadyFrom(const FlowCmd& c) const;  // kNever: a token or slot not known yet
  void startCommand(Unit& u, const FlowCmd& c, uint64_t t, uint64_t visible, uint64_t (&reservations)[2]);
  // The two halves of startCommand, apart for a GEMM of several steps: its first step takes the
  // tokens, its last pops the command.
  void takeTokens(Unit& u, const FlowCmd& c, uint64_t t, uint64_t visible, uint64_t (&reservations)[2]);
  void popCommand(Unit& u, uint64_t t);
  void complete(Unit& u, const int8_t (&signals)[2], const uint64_t (&reservations)[2], uint64_t start,
                uint64_t done);
  bool tryStartLoad(uint64_t lim);
  uint64_t loadCandidate() const;
  bool loadRequests(uint64_t t, uint64_t bound);
  bool advanceCompute(uint64_t lim);
  uint64_t computeStepFrom(bool keepWeights) const;
  uint64_t computeStep(uint64_t t, bool keepWeights, uint32_t kRows, uint32_t preloadRows, uint64_t mRows, bool fp16);
  bool advanceStore(uint64_t lim);
  bool advanceVector(uint64_t lim);
  void growRows();
  bool storeWrite();

  // state for counters and STATUS
  bool workOpen() const;
  void busyBegins(uint64_t t);
  void busyExtends(uint64_t end) { busyEnd_ = std::max(busyEnd_, end); }
  bool busyAt(uint64_t t) const;
  uint64_t busyCycles(uint64_t t) const;
  uint64_t activeCycles(const Unit& u, uint64_t t) const;
  uint64_t tokenStallCycles(const Unit& u, uint64_t t) const;
  uint32_t registerValue(uint32_t addr);

  const hw::HwConfig config_;
  const ApproxTiming timing_;
  std::unique_ptr<DramStorage> dram_;
  DramModel dramModel_;
  FunctionalModel functional_;
  FunctionalWorker worker_;  // the data path, in ring order, possibly on its own thread
  const unsigned rows_, cols_, busBytes_, maxOutstanding_, fifoDepth_;
  const bool os_;  // Dataflow OS (gemm_schedule.h)
  unsigned busShift_ = 0;  // log2(BusBytes), a power of two
  static constexpr uint32_t kMems = 5;  // hw::Mem values
  uint32_t memRowBytes_[kMems] = {};  // per destination memory
  uint32_t mergeRows_[kMems] = {};    // rows one request may cover, per destination memory
  uint64_t beats(uint64_t bytes) const { return (bytes + busBytes_ - 1) >> busShift_; }

  uint64_t now_ = 0;           // every event before now_ has happened
  uint64_t frontier_ = 0;      // every DRAM request before it has been served
  uint64_t runStart_ = 0;      // now_ when the current run began
  uint64_t resetCycle_ = 0;    // counters count from here
  uint64_t softResetAt_ = kNever;
  uint64_t irqStop_ = kNever;  // the run ends before this cycle (the interrupt rose before it)
  bool stopAtIrq_ = false;
  ControlState control_;
  std::exception_ptr fault_;
  bool faulted_ = false;

  // Read port (weft_rd_arb): one request a cycle, at most MaxOutstanding in flight (a slot frees
  // the cycle after a read's last beat), data in request order, one beat a cycle.
  struct ReadPort {
    std::vector<uint64_t> lastBeats;  // of the latest MaxOutstanding reads, a ring
    unsigned next = 0;                // the slot the next read takes: the oldest read's
    bool full = false;                // MaxOutstanding reads since the reset
    uint64_t lastBeat = 0;            // of the latest read
    uint64_t acceptFrom = 0;          // the cycle after the latest acceptance
  } rp_;
  // write port
  uint64_t writeLastRequest_ = kNever, writeLastBeat_ = kNever, writeLastAck_ = kNever;

  // fetch
  uint32_t reqIdx_ = 0;
  uint64_t fetchCache_ = kNever;  // fetchCandidate(), kept (see dramStep)
  bool fetchValid_ = false, fetchExact_ = false;
  Ring<FlowCmd> fetched_;      // arrived or in flight, not yet taken into decode
  Ring<uint64_t> decodePops_;  // cycles of the decoder's latest takes from the buffer
  uint64_t lastDecodePop_ = kNever;

  // decode
  bool hasDec_ = false;
  FlowCmd dec_;
  uint64_t decVisible_ = 0, lastLeave_ = 0;
  Phase phase_ = Phase::kNone;
  uint64_t barrierAt_ = 0;  // capture, then the snapshot's last beat, then its acknowledgement
  uint64_t snapRequest_ = 0;
  uint64_t flushBeat_ = kNever, flushAck_ = 0, flushAddr_ = 0;  // a snapshot a soft reset interrupted

  // units and tokens
  std::array<Unit, hw::kNumFifoUnits> units_;
  std::array<TokenLine, hw::kNumTokenQueues> tokens_;

  struct LoadState {
    bool busy = false;  // issuing the requests of `cmd`
    hw::LoadCmd cmd;
    uint64_t start = 0;
    int8_t signals[2] = {-1, -1};
    uint64_t reservations[2] = {kNever, kNever};
    uint32_t maxRows = 1, i0 = 0, i1 = 0, i2 = 0;
    uint64_t addr0 = 0, addr1 = 0, addr2 = 0;
    uint64_t wantFrom = 0;  // the next request is valid from this cycle
    uint64_t idleFrom = 0;  // the next command may start from this cycle
  } load_;

  struct ComputeState {
    uint64_t lastIssue = 0;
    bool anyIssued = false;
    uint64_t preloadFreeFrom = 0;
    unsigned lastBuf = 0;
    uint32_t lastK = 0;  // k_rows of the latest GEMM with new weights (keep_weights)
    std::array<uint64_t, 2> bufFreeFrom{};
    std::array<uint64_t, 2> recentLastIssue{};  // of the two newest GEMMs since the last reset
    uint64_t sinceReset = 0;
    // The head's steps (k_steps): started so far, when the first and the latest started, and
    // the signal tokens the first reserved.
    uint64_t step = 0, commandStart = 0, stepStart = 0;
    uint64_t reservations[2] = {kNever, kNever};
    struct Undo {
      uint64_t start;
      unsigned lastBuf;
      uint32_t lastK;
      bool anyIssued;
    };
    Ring<Undo> undo{64};  // a step started at or after a soft reset is taken back
  } compute_;

  struct VectorState {
    uint64_t idleFrom = 0;  // the next command may start from this cycle
  } vector_;
  IntervalSum vectorSlots_;

  struct StoreRow {
    uint64_t addr;
    uint32_t bytes;
    uint64_t request, lastBeat;
    uint64_t owner;  // store number since the last reset; kNever: orphaned by a soft reset
    uint32_t tiles, tileBeats;  // the row buffer entries it took, and the beats of each but the last
    // When tile k leaves the row buffer: with its last beat.
    uint64_t tileLeaves(uint32_t k, uint64_t requestBeats) const {
      return k + 1 == tiles ? lastBeat : lastBeat + 1 - requestBeats + uint64_t{k + 1} * tileBeats - 1;
    }
  };
  struct StoreCmdState {
    uint64_t number, start, rowsLeft;
    int8_t signals[2];
    uint64_t reservations[2];
  };
  struct StoreState {
    uint64_t lastIssue = 0;
    bool anyStarted = false;
    Ring<uint64_t> window;         // when the newest storeFifoDepth row-buffer entries (tiles) leave
    Ring<StoreRow> rows{256};      // planned writes the DRAM has not seen yet, in beat order
    Ring<StoreCmdState> inFlight;  // started, completion not known yet
    std::array<uint64_t, 64> doneOf{};  // completion of store n (mod 64), kNever until known
    uint64_t lastOrphanAck = 0;
    struct Undo {
      uint64_t start;
      bool anyStarted;
    };
    Ring<Undo> undo{64};
  } store_;

  // counters
  EventTimes rdBytes_, rdReqs_, wrBytes_, wrReqs_, snapWrBytes_, snapWrReqs_, decoderRetired_;
  EventTimes dramStall_;  // a request's wait for the read port, counted at its acceptance
  // Traffic counted per batch of memoryTraffic(): nothing reads the counters inside one.
  uint64_t batchRdBytes_ = 0, batchRdReqs_ = 0, batchStall_ = 0, batchRdCycle_ = 0;
  uint64_t batchWrBytes_ = 0, batchWrReqs_ = 0, batchWrCycle_ = 0;
  IntervalSum arrayRows_;
  IntervalSum fp16Rows_;    // FP16_ROWS
  IntervalSum weightRows_;  // WSPAD_RD_ROWS
  uint64_t busyTotal_ = 0, busyBegin_ = kNever, busyEnd_ = 0;
  std::array<uint32_t, hw::kNumCounters> latchedHi_{};
  CommandLog log_;
};

// The read port's two steps are on the path of every load request: inline.
inline uint64_t Engine::readAcceptableFrom(uint64_t t) const {
  t = std::max(t, rp_.acceptFrom);
  if (rp_.full) {
    const uint64_t oldest = rp_.lastBeats[rp_.next];
    if (oldest >= t) t = oldest + 1;
  }
  return t;
}

inline uint64_t Engine::readAccept(uint64_t addr, uint32_t bytes, uint64_t t) {
  const uint64_t dram = dramModel_.timeRead(addr, bytes, t);
  const uint64_t first = std::max(dram, std::max(t + 1, rp_.lastBeat + 1));
  rp_.lastBeat = first + beats(bytes) - 1;
  rp_.lastBeats[rp_.next] = rp_.lastBeat;
  if (++rp_.next == maxOutstanding_) {
    rp_.next = 0;
    rp_.full = true;
  }
  rp_.acceptFrom = t + 1;
  if (log_.enabled()) log_.dram(false, t, rp_.lastBeat, bytes);
  return rp_.lastBeat;
}

}  // namespace weft::sim::approx
