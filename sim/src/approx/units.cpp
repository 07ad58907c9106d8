#include "approx/units.h"

#include <algorithm>

namespace weft::sim::approx {

// ---- LOAD ----

LoadUnit::LoadUnit(Machine& m)
    : ExecUnit(m, hw::Unit::kLoad),
      maxOutstanding_(static_cast<unsigned>(m.config.get(hw::Param::kMaxOutstanding))) {}

void LoadUnit::reset() {
  ExecUnit::reset();
  outstanding_.clear();
  rowsTotal_ = rowsIssued_ = 0;
  dramStall_.reset();
}

void LoadUnit::abort(uint64_t now) {
  ExecUnit::abort(now);
  outstanding_.clear();
  rowsTotal_ = rowsIssued_ = 0;
}

void LoadUnit::begin(const hw::CommandWord& cmd, uint64_t t) {
  cmd_ = hw::LoadCmd::decode(cmd);
  rowsTotal_ = uint64_t{cmd_.count0} * cmd_.count1 * cmd_.count2;
  rowsIssued_ = 0;
  i0_ = i1_ = i2_ = 0;
  nextIssue_ = t + m_.timing.loadStartCycles;
  lastData_ = t;
}

uint64_t LoadUnit::nextStep() const {
  if (rowsIssued_ == rowsTotal_) return lastData_ + 1 + m_.timing.loadRowWriteCycles;
  uint64_t t = std::max(nextIssue_, m_.readPort.requestFree());
  // A request slot frees the cycle after the last beat of its request.
  if (outstanding_.size() >= maxOutstanding_) t = std::max(t, outstanding_.front() + 1);
  return t;
}

bool LoadUnit::step(uint64_t t) {
  if (rowsIssued_ == rowsTotal_) return true;
  while (!outstanding_.empty() && outstanding_.front() < t) outstanding_.pop_front();
  dramStall_.addInterval(nextIssue_, t);
  const uint64_t addr = cmd_.dramAddr + uint64_t{i2_} * cmd_.stride2 +
                        uint64_t{i1_} * cmd_.stride1 + uint64_t{i0_} * cmd_.stride0;
  lastData_ = m_.readPort.read(addr, cmd_.rowBytes, t);
  outstanding_.push_back(lastData_);
  ++rowsIssued_;
  if (++i0_ == cmd_.count0) {
    i0_ = 0;
    if (++i1_ == cmd_.count1) {
      i1_ = 0;
      ++i2_;
    }
  }
  nextIssue_ = t + 1;
  return false;
}

// ---- GEMM ----

ComputeUnit::ComputeUnit(Machine& m) : ExecUnit(m, hw::Unit::kCompute) {}

void ComputeUnit::reset() {
  ExecUnit::reset();
  arrayRows_.reset();
}

void ComputeUnit::abort(uint64_t now) {
  ExecUnit::abort(now);
  arrayRows_.stopAt(now);
}

void ComputeUnit::begin(const hw::CommandWord& cmd, uint64_t t) {
  const auto g = hw::GemmCmd::decode(cmd);
  const ApproxTiming& tm = m_.timing;
  const uint64_t preload = g.keepWeights ? 0 : g.kRows + tm.preloadExtraCycles;
  const uint64_t streamStart = t + tm.computeStartCycles + preload;
  const uint64_t streamEnd = streamStart + g.mRows;
  arrayRows_.addInterval(streamStart, streamEnd);
  finish_ = streamEnd + m_.config.rows() + m_.config.cols() + tm.drainExtraCycles;
}

// ---- STORE ----

StoreUnit::StoreUnit(Machine& m) : ExecUnit(m, hw::Unit::kStore) {}

void StoreUnit::reset() {
  ExecUnit::reset();
  rowsTotal_ = rowsWritten_ = 0;
  dramStall_.reset();
}

void StoreUnit::abort(uint64_t now) {
  ExecUnit::abort(now);
  rowsTotal_ = rowsWritten_ = 0;
}

void StoreUnit::begin(const hw::CommandWord& cmd, uint64_t t) {
  cmd_ = hw::StoreCmd::decode(cmd);
  rowsTotal_ = uint64_t{cmd_.count0} * cmd_.count1;
  rowsWritten_ = 0;
  i0_ = i1_ = 0;
  rowBytes_ = cmd_.rowBytes * (cmd_.mode == hw::StoreMode::kRaw32 ? 4 : 1);
  rowBeats_ = (rowBytes_ + m_.config.busBytes() - 1) / m_.config.busBytes();
  nextRow_ = t + m_.timing.storePipeCycles;
  lastAck_ = t;
}

uint64_t StoreUnit::nextStep() const {
  if (rowsWritten_ == rowsTotal_) return lastAck_ + 1;
  return std::max(nextRow_, m_.writePort.dataFree());
}

bool StoreUnit::step(uint64_t t) {
  if (rowsWritten_ == rowsTotal_) return true;
  dramStall_.addInterval(nextRow_, t);  // the port was busy with another writer's beats
  const uint64_t addr = cmd_.dramAddr + uint64_t{i1_} * cmd_.stride1 + uint64_t{i0_} * cmd_.stride0;
  lastAck_ = std::max(lastAck_, m_.writePort.write(addr, rowBytes_, t));
  ++rowsWritten_;
  if (++i0_ == cmd_.count0) {
    i0_ = 0;
    ++i1_;
  }
  nextRow_ = t + rowBeats_;  // the next row follows this row's beats
  return false;
}

}  // namespace weft::sim::approx
