#include "approx/unit_front.h"

#include <algorithm>

namespace weft::sim::approx {

UnitFront::UnitFront(Machine& m, hw::Unit unit) : m_(m), unit_(unit) {}

// The token queues behind the header bits (hw/spec/isa.json units).
std::array<int, 2> UnitFront::waits(const hw::CommandWord& cmd) const {
  const auto& ports = hw::kUnitTokenPorts[static_cast<size_t>(unit_)];
  return {cmd.get(hw::field::kWait0) != 0 ? ports.waits[0] : -1, cmd.get(hw::field::kWait1) != 0 ? ports.waits[1] : -1};
}

std::array<int, 2> UnitFront::signals(const hw::CommandWord& cmd) const {
  const auto& ports = hw::kUnitTokenPorts[static_cast<size_t>(unit_)];
  return {cmd.get(hw::field::kSignal0) != 0 ? ports.signals[0] : -1,
          cmd.get(hw::field::kSignal1) != 0 ? ports.signals[1] : -1};
}

uint64_t UnitFront::readyFrom(uint64_t from) const {
  if (!hasHead()) return kNever;
  uint64_t t = std::max(from, m_.fifo(unit_).frontVisibleAt());
  for (int q : waits(head())) {
    if (q >= 0) t = std::max(t, m_.tokens[q].availableFrom());
  }
  if (t == kNever) return kNever;
  for (int q : signals(head())) {
    if (q >= 0) t = std::max(t, m_.tokens[q].spaceFrom(t));
  }
  return t;
}

uint64_t UnitFront::tokensFrom() const {
  uint64_t t = 0;
  for (int q : waits(head())) {
    if (q >= 0) t = std::max(t, m_.tokens[q].availableFrom());
  }
  for (int q : signals(head())) {
    if (q < 0) continue;
    if (m_.tokens[q].spaceFrom(t) == kNever) return kNever;
    t = std::max(t, m_.tokens[q].spaceSince());
  }
  return t;
}

void UnitFront::startTokens(uint64_t t) {
  const uint64_t visible = m_.fifo(unit_).frontVisibleAt();
  const uint64_t ok = std::min(tokensFrom(), t);
  if (ok > visible) stallTotal_ += ok - visible;  // cmd_valid && !tok_ok
  const hw::CommandWord& cmd = head();
  for (int q : waits(cmd)) {
    if (q >= 0) m_.tokens[q].pop(t);
  }
  for (int q : signals(cmd)) {
    if (q >= 0) m_.tokens[q].reserve();
  }
  active_.begin(t + 1);
  headStarted_ = true;
}

hw::CommandWord UnitFront::pop(uint64_t t) {
  auto& fifo = m_.fifo(unit_);
  const hw::CommandWord cmd = fifo.front().word;
  fifo.pop(t);
  headStarted_ = false;
  return cmd;
}

void UnitFront::complete(const hw::CommandWord& cmd, uint64_t t) {
  for (int q : signals(cmd)) {
    if (q >= 0) m_.tokens[q].fill(t);
  }
  m_.events.retired.add(t, 1, m_.now);
  active_.end(t + 1);
}

uint64_t UnitFront::tokenStallCycles(uint64_t t) const {
  if (!hasHead() || headStarted_) return stallTotal_;
  const uint64_t visible = m_.fifo(unit_).frontVisibleAt();
  const uint64_t ok = std::min(tokensFrom(), t);
  return stallTotal_ + (ok > visible ? ok - visible : 0);
}

void UnitFront::softReset(uint64_t t) {
  stallTotal_ = tokenStallCycles(t);  // the FIFO it refers to is about to be cleared
  active_.endAll(t);
  headStarted_ = false;
}

void UnitFront::hardReset() {
  active_ = ActivityCounter{};
  stallTotal_ = 0;
  headStarted_ = false;
}

}  // namespace weft::sim::approx
