#include "approx/vector_unit.h"

#include <algorithm>

namespace weft::sim::approx {

VectorUnit::VectorUnit(Machine& m) : m_(m), front_(m, hw::Unit::kVector) {}

uint64_t VectorUnit::startFrom() const { return job_ ? kNever : front_.readyFrom(idleFrom_); }

uint64_t VectorUnit::nextCycle() const { return job_ ? job_->doneAt : startFrom(); }

void VectorUnit::act(uint64_t now, uint64_t) {
  if (job_) {
    front_.complete(job_->cmd, now);
    lastCompletion_ = now;
    idleFrom_ = now + 1;  // busy clears with the last write
    job_.reset();
    return;
  }
  const hw::CommandWord word = front_.start(now);
  const VectorTimeline tl = vectorTimeline(word, now);
  for (unsigned p = 0; p < tl.passes; ++p) slots_.add(tl.spans[p].begin, tl.spans[p].end, m_.now);
  job_ = Job{word, tl.done};
}

void VectorUnit::softReset(uint64_t t) {
  front_.softReset(t);
  slots_.cut(t);
  job_.reset();
  idleFrom_ = t;
}

void VectorUnit::hardReset() {
  front_.hardReset();
  slots_ = IntervalCounter{};
  job_.reset();
  lastCompletion_ = idleFrom_ = 0;
}

}  // namespace weft::sim::approx
