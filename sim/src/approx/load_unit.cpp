#include "approx/load_unit.h"

#include <algorithm>

namespace weft::sim::approx {

LoadUnit::LoadUnit(Machine& m) : m_(m), front_(m, hw::Unit::kLoad) {}

uint64_t LoadUnit::startFrom() const { return busy_ ? kNever : front_.readyFrom(idleFrom_); }

uint64_t LoadUnit::nextCycle() const {
  uint64_t t = inFlight_.empty() ? kNever : inFlight_.front().doneAt;
  if (busy_) t = std::min(t, m_.readPort.acceptableFrom(wantFrom_));
  return std::min(t, startFrom());
}

void LoadUnit::act(uint64_t now, uint64_t) {
  if (!inFlight_.empty() && inFlight_.front().doneAt <= now) {
    front_.complete(inFlight_.front().cmd, now);
    lastCompletion_ = now;
    inFlight_.pop_front();
  } else if (busy_ && m_.readPort.acceptableFrom(wantFrom_) <= now) {
    request(now);
  } else if (startFrom() <= now) {
    start(now);
  }
}

void LoadUnit::start(uint64_t t) {
  const hw::CommandWord word = front_.start(t);
  cmd_ = hw::LoadCmd::decode(word);
  inFlight_.push_back({word, kNever});
  busy_ = true;
  wantFrom_ = t + 1;
  i0_ = i1_ = i2_ = 0;
  addr0_ = addr1_ = addr2_ = cmd_.dramAddr;
  // Contiguous full rows of whole beats merge (weft_load's merge_q and max_rows()); packed rows
  // never do. A packed row's beats are written as they arrive, so its timing is a plain row's.
  const hw::HwConfig& c = m_.config;
  const auto rowSize = static_cast<uint32_t>(hw::memRowBytes(cmd_.dst, c));
  const uint32_t perReq = m_.timing.rowsPerRequest(rowSize, c.busBytes());
  maxRows_ = (!cmd_.pack && cmd_.rowBytes == rowSize && cmd_.stride0 == cmd_.rowBytes && perReq > 1) ? perReq : 1;
}

void LoadUnit::request(uint64_t t) {
  stallTotal_ += t - wantFrom_;
  const uint32_t rows = std::min(cmd_.count0 - i0_, maxRows_);
  const uint32_t bytes = rows * cmd_.rowBytes;
  const uint64_t lastBeat = m_.readPort.accept(addr0_, bytes, t);
  m_.events.rdBytes.add(t, bytes, m_.now);
  m_.events.rdReqs.add(t, 1, m_.now);
  bool last = false;
  i0_ += rows;
  addr0_ += uint64_t{rows} * cmd_.stride0;
  if (i0_ == cmd_.count0) {
    i0_ = 0;
    if (++i1_ < cmd_.count1) {
      addr1_ += cmd_.stride1;
      addr0_ = addr1_;
    } else {
      i1_ = 0;
      addr2_ += cmd_.stride2;
      addr0_ = addr1_ = addr2_;
      last = ++i2_ == cmd_.count2;
    }
  }
  if (!last) {
    wantFrom_ = t + 1;
    return;
  }
  // The last row is written the cycle after its last beat; that completes the command.
  inFlight_.back().doneAt = lastBeat + 1;
  busy_ = false;
  idleFrom_ = t + 1;
  if (front_.readyFrom(t) == t) start(t);  // the next command starts in this very cycle
}

uint64_t LoadUnit::dramStallCycles(uint64_t t) const {
  return stallTotal_ + (busy_ && t > wantFrom_ ? t - wantFrom_ : 0);
}

void LoadUnit::softReset(uint64_t t) {
  front_.softReset(t);
  stallTotal_ = dramStallCycles(t);
  inFlight_.clear();
  busy_ = false;
  idleFrom_ = t;
}

void LoadUnit::hardReset() {
  front_.hardReset();
  inFlight_.clear();
  busy_ = false;
  idleFrom_ = wantFrom_ = 0;
  lastCompletion_ = 0;
  stallTotal_ = 0;
}

}  // namespace weft::sim::approx
