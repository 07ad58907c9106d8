// STORE (weft_store + weft_wr_fifo): the front end issues one accumulator row a cycle while
// fewer than storeFifoDepth rows are between issue and their last write beat; a row's write
// request is valid storeIssueToRequest cycles after its issue, its beats follow on the write
// port. The next command starts in the cycle the last row of the current one issues (with
// room for it among storeCmdsInFlight unacknowledged commands); a command completes with the
// acknowledgement of its last row. Everything but the acknowledgements depends on the store
// alone, so a command's rows are planned when it starts; each row's DRAM write is one action,
// in cycle order with the other DRAM requests.
#pragma once

#include <algorithm>
#include <deque>

#include "approx/unit_front.h"

namespace weft::sim::approx {

class StoreUnit final : public Agent {
 public:
  explicit StoreUnit(Machine& m);
  uint64_t nextCycle() const override;
  void act(uint64_t now, uint64_t horizon) override;
  void softReset(uint64_t t) override;
  void hardReset() override;

  // A command started and not complete (STORE_ACTIVE, STATUS.busy).
  bool active() const { return !inFlight_.empty(); }
  // Not active and no write awaiting its acknowledgement (rows a soft reset left behind
  // still send their beats): what a barrier waits for.
  bool idle() const { return inFlight_.empty() && rows_.empty(); }
  uint64_t lastCompletion() const { return std::max(lastCompletion_, lastOrphanAck_); }
  const UnitFront& front() const { return front_; }
  // Rows whose write request comes before t but whose write is not served yet (rows are served
  // at their last beat): DMA_WR_* count a request when the port accepts it.
  struct Writes {
    uint64_t bytes = 0, requests = 0;
  };
  Writes plannedWrites(uint64_t t) const {
    Writes w;
    for (const Row& r : rows_) {
      if (r.request >= t) break;
      w.bytes += r.bytes;
      ++w.requests;
    }
    return w;
  }

 private:
  struct InFlight {
    hw::CommandWord cmd;
    uint64_t seq;
    uint64_t rowsLeft;  // rows whose write is not yet acknowledged
    uint64_t doneAt;    // kNever until the last row's acknowledgement is known
  };
  struct Row {
    uint64_t addr;
    uint32_t bytes;
    uint64_t request, lastBeat;
    uint64_t seq;  // owning command; kNever for a row orphaned by a soft reset
    uint32_t tiles, tileBeats;  // the row buffer entries it took, and the beats of each but the last
    // When tile k leaves the row buffer: with its last beat.
    uint64_t tileLeaves(uint32_t k, uint64_t requestBeats) const {
      return k + 1 == tiles ? lastBeat : lastBeat + 1 - requestBeats + uint64_t{k + 1} * tileBeats - 1;
    }
  };
  uint64_t startFrom() const;
  void start(uint64_t t);
  void finishRow(uint64_t t);

  Machine& m_;
  UnitFront front_;
  std::deque<InFlight> inFlight_;
  std::deque<Row> rows_;             // planned, not yet written to DRAM, in beat order
  std::deque<uint64_t> window_;      // when the newest storeFifoDepth row-buffer entries (tiles) leave
  uint64_t nextSeq_ = 0;
  uint64_t lastIssue_ = 0;           // issue cycle of the newest planned row
  bool anyStarted_ = false;
  uint64_t lastCompletion_ = 0;
  uint64_t slotFreedFrom_ = 0;  // the latest completion's slot is free from this cycle
  uint64_t lastOrphanAck_ = 0;  // acknowledgement of the last row a soft reset orphaned
};

}  // namespace weft::sim::approx
