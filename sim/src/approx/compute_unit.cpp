#include "approx/compute_unit.h"

#include <algorithm>

#include "approx/gemm_schedule.h"

namespace weft::sim::approx {

ComputeUnit::ComputeUnit(Machine& m)
    : m_(m), front_(m, hw::Unit::kCompute), os_(outputStationary(m.config)) {}

uint64_t ComputeUnit::startFrom() const {
  if (!front_.hasHead()) return kNever;
  uint64_t t = 0;
  // Stream queue: a step occupies it from the cycle after its start through its last issue.
  // Steps are in lastIssue order, so the depth-th newest must have left it.
  const size_t depth = m_.timing.streamQueueDepth;
  if (stepIssues_.size() >= depth) t = stepIssues_[stepIssues_.size() - depth] + 1;
  // A preload needs the weight read port and the other buffer, drained (WS only: the
  // output-stationary array streams its weights with every block).
  if (!os_ && hw::GemmCmd::decode(front_.head()).keepWeights == false) {
    t = std::max({t, preloadFreeFrom_, bufFreeFrom_[1 - lastBuf_]});
  }
  // A later step of the head: no tokens, from the cycle after the step before it.
  if (step_ > 0) return std::max(t, lastStepStart_ + 1);
  return front_.readyFrom(t);
}

uint64_t ComputeUnit::nextCycle() const {
  const uint64_t done = jobs_.empty() ? kNever : jobs_.front().doneAt;
  return std::min(done, startFrom());
}

void ComputeUnit::act(uint64_t now, uint64_t) {
  if (!jobs_.empty() && jobs_.front().doneAt <= now) {
    front_.complete(jobs_.front().cmd, now);
    lastCompletion_ = now;
    jobs_.pop_front();
  } else if (startFrom() <= now) {
    start(now);
  }
}

void ComputeUnit::start(uint64_t t) {
  const auto g = hw::GemmCmd::decode(front_.head());
  if (step_ == 0) front_.startTokens(t);
  const hw::HwConfig& c = m_.config;
  // The preload reads k_rows weight rows, or Cols of them for a transposed tile.
  const uint32_t preloadRows = g.wTransposed && !os_ ? c.cols() : g.kRows;
  const uint32_t kRows = g.keepWeights ? lastK_ : preloadRows;  // weight rows read
  if (!g.keepWeights) lastK_ = g.kRows;
  unsigned buf = lastBuf_;
  if (!os_ && !g.keepWeights) {
    buf = 1 - lastBuf_;
    lastBuf_ = buf;
    preloadFreeFrom_ = t + preloadRows;  // row 0 read in cycle t, the others one a cycle
  }
  const uint64_t first = anyIssued_ ? std::max(t + 1, lastIssue_ + 1) : t + 1;
  const GemmSchedule s = gemmSchedule(os_, first, uint64_t{g.mRows} * g.mGroups, c.rows(), c.cols());
  lastIssue_ = s.lastIssue;
  anyIssued_ = true;
  if (stepIssues_.size() == m_.timing.streamQueueDepth) stepIssues_.pop_front();
  stepIssues_.push_back(s.lastIssue);
  lastStepStart_ = t;
  if (!os_) bufFreeFrom_[buf] = s.lastIssue + c.cols();
  arrayRows_.add(first, s.rowsEnd, m_.now);
  if (g.fp16) fp16Rows_.add(first, s.rowsEnd, m_.now);
  forEachWeightRead(os_, t, first, uint64_t{g.mRows} * g.mGroups, kRows, g.keepWeights, c.rows(),
                    [&](uint64_t a, uint64_t b) { weightRows_.add(a, b, m_.now); });
  if (++step_ < g.kSteps) return;
  step_ = 0;
  jobs_.push_back({front_.pop(t), s.lastIssue, s.done});
}

void ComputeUnit::softReset(uint64_t t) {
  front_.softReset(t);
  arrayRows_.cut(t);
  fp16Rows_.cut(t);
  weightRows_.cut(t);
  jobs_.clear();
  stepIssues_.clear();
  step_ = 0;
  // The stream queue and the array pipeline are cleared; the preload port frees at once.
  lastIssue_ = t;
  preloadFreeFrom_ = t;
  bufFreeFrom_ = {t, t};
}

void ComputeUnit::hardReset() {
  front_.hardReset();
  arrayRows_ = IntervalCounter{};
  fp16Rows_ = IntervalCounter{};
  weightRows_ = IntervalCounter{};
  lastK_ = 0;
  jobs_.clear();
  stepIssues_.clear();
  step_ = 0;
  lastCompletion_ = lastIssue_ = preloadFreeFrom_ = 0;
  anyIssued_ = false;
  lastBuf_ = 0;
  bufFreeFrom_ = {0, 0};
}

}  // namespace weft::sim::approx
