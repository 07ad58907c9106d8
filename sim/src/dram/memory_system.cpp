#include "weft/sim/dram/memory_system.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "controller.h"

namespace weft::sim::dram {

MemorySystem::MemorySystem(DeviceSpec spec, ReferenceChecks checks)
    : spec_(std::move(spec)), mapping_(spec_.controller.addressMapping, spec_.org), capacity_(spec_.org.capacityBytes()) {
  validateDevice(spec_, spec_.name);
  timing_ = std::make_unique<TimingTable>(spec_);
  for (uint32_t c = 0; c < spec_.org.channels; ++c) {
    channels_.push_back(std::make_unique<ChannelController>(spec_, *timing_, c, checks));
  }
}

MemorySystem::~MemorySystem() = default;

bool MemorySystem::canAccept(uint64_t addr, bool isWrite) const {
  return channels_[mapping_.channelOf(addr)]->canAccept(isWrite);
}

void MemorySystem::enqueue(const Transaction& t, uint64_t cycle) {
  if (t.addr >= capacity_) {
    throw std::out_of_range(fmt::format("DRAM address {:#x} is beyond the device ({} bytes)", t.addr, capacity_));
  }
  if (cycle < now_) throw std::logic_error(fmt::format("DRAM enqueue at cycle {} before now ({})", cycle, now_));
  advanceTo(cycle);
  const Coordinates where = mapping_.decode(t.addr);
  ChannelController& ch = *channels_[where.channel];
  if (!ch.canAccept(t.isWrite)) {
    throw std::logic_error(fmt::format("DRAM channel {} has no room for a {} at cycle {}", where.channel,
                                       t.isWrite ? "write" : "read", cycle));
  }
  const size_t before = completions_.size();
  ch.enqueue(t, where, cycle, completions_);
  for (size_t i = before; i < completions_.size(); ++i) lastDone_ = std::max(lastDone_, completions_[i].doneCycle);
}

uint64_t MemorySystem::offer(const Transaction& t, uint64_t cycle) {
  if (t.addr >= capacity_) {
    throw std::out_of_range(fmt::format("DRAM address {:#x} is beyond the device ({} bytes)", t.addr, capacity_));
  }
  advanceTo(std::max(cycle, now_));
  const ChannelController& ch = *channels_[mapping_.channelOf(t.addr)];
  // A full queue empties only when its channel moves a transaction on, at one of its events.
  while (!ch.canAccept(t.isWrite)) advanceTo(ch.nextEvent() + 1);
  enqueue(t, now_);
  return now_;
}

void MemorySystem::advanceTo(uint64_t cycle) {
  if (cycle <= now_) return;
  const size_t before = completions_.size();
  bool severalChannels = false;
  uint32_t firstChannel = UINT32_MAX;
  for (auto& ch : channels_) {
    if (ch->nextEvent() >= cycle) continue;
    const size_t n = completions_.size();
    ch->advanceTo(cycle, completions_);
    if (completions_.size() > n) {
      if (firstChannel == UINT32_MAX) firstChannel = ch->index();
      else severalChannels = true;
    }
  }
  if (severalChannels) {  // channel by channel -> in the order they were decided
    std::stable_sort(completions_.begin() + static_cast<long>(before), completions_.end(),
                     [](const Completion& a, const Completion& b) { return a.decidedCycle < b.decidedCycle; });
  }
  for (size_t i = before; i < completions_.size(); ++i) lastDone_ = std::max(lastDone_, completions_[i].doneCycle);
  now_ = cycle;
}

uint64_t MemorySystem::nextEventCycle() const {
  uint64_t next = kNever;
  for (const auto& ch : channels_) next = std::min(next, ch->nextEvent());
  return std::max(next, now_);
}

uint64_t MemorySystem::undecided() const {
  uint64_t n = 0;
  for (const auto& ch : channels_) n += ch->undecided();
  return n;
}

uint64_t MemorySystem::drain() {
  while (undecided() > 0) advanceTo(nextEventCycle() + 1);
  return lastDone_;
}

void MemorySystem::takeCompletions(std::vector<Completion>& out) {
  out.insert(out.end(), completions_.begin(), completions_.end());
  completions_.clear();
}

DramStats MemorySystem::stats() const {
  DramStats total;
  for (const auto& ch : channels_) total.add(ch->statsAt(now_));
  return total;
}

}  // namespace weft::sim::dram
