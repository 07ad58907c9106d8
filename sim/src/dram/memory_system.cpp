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
  now_ = cycle;
  const Coordinates where = mapping_.decode(t.addr);
  ChannelController& ch = *channels_[where.channel];
  ch.advanceTo(now_, completions_);
  if (!ch.canAccept(t.isWrite)) {
    throw std::logic_error(fmt::format("DRAM channel {} has no room for a {} at cycle {}", where.channel,
                                       t.isWrite ? "write" : "read", cycle));
  }
  ch.enqueue(t, where, now_, completions_);
}

uint64_t MemorySystem::offer(const Transaction& t, uint64_t cycle) {
  if (t.addr >= capacity_) {
    throw std::out_of_range(fmt::format("DRAM address {:#x} is beyond the device ({} bytes)", t.addr, capacity_));
  }
  now_ = std::max(cycle, now_);
  const Coordinates where = mapping_.decode(t.addr);
  ChannelController& ch = *channels_[where.channel];
  ch.advanceTo(now_, completions_);
  // A full queue empties only when its channel moves a transaction on, at one of its events.
  while (!ch.canAccept(t.isWrite)) {
    now_ = ch.nextEvent() + 1;
    ch.advanceTo(now_, completions_);
  }
  ch.enqueue(t, where, now_, completions_);
  return now_;
}

void MemorySystem::recordCompletions(bool on) {
  for (auto& ch : channels_) ch->recordCompletions(on);
}

void MemorySystem::recordWriteCompletions(bool on) {
  for (auto& ch : channels_) ch->recordWriteCompletions(on);
}

void MemorySystem::decideReads(std::vector<Completion>& out) {
  for (auto& ch : channels_) {
    if (ch->undecided() == 0) continue;
    ch->advanceTo(now_, completions_);
    now_ = std::max(now_, ch->runUntilDecided(completions_));
  }
  if (out.empty()) {
    out.swap(completions_);  // the same records, without copying them
  } else {
    out.insert(out.end(), completions_.begin(), completions_.end());
  }
  completions_.clear();
}

void MemorySystem::recordCommands(bool on) {
  for (auto& ch : channels_) ch->recordCommands(on);
}

void MemorySystem::takeCommands(std::vector<CommandRecord>& out) {
  sync();
  const size_t first = out.size();
  for (auto& ch : channels_) ch->takeCommands(out);
  std::stable_sort(out.begin() + static_cast<long>(first), out.end(),
                   [](const CommandRecord& a, const CommandRecord& b) { return a.cycle < b.cycle; });
}

const char* commandName(CommandRecord::Kind k) {
  switch (k) {
    case CommandRecord::kActivate: return "ACT";
    case CommandRecord::kPrecharge: return "PRE";
    case CommandRecord::kRead: return "RD";
    case CommandRecord::kWrite: return "WR";
    case CommandRecord::kReadAutoPrecharge: return "RDA";
    case CommandRecord::kWriteAutoPrecharge: return "WRA";
    case CommandRecord::kRefresh: return "REF";
    case CommandRecord::kBankRefresh: return "REFb";
  }
  return "?";
}

void MemorySystem::advanceTo(uint64_t cycle) { now_ = std::max(now_, cycle); }

void MemorySystem::sync() {
  for (auto& ch : channels_) ch->advanceTo(now_, completions_);
}

uint64_t MemorySystem::nextEventCycle() {
  sync();
  uint64_t next = kNever;
  for (const auto& ch : channels_) next = std::min(next, ch->nextEvent());
  return std::max(next, now_);
}

uint64_t MemorySystem::undecided() {
  sync();
  uint64_t n = 0;
  for (const auto& ch : channels_) n += ch->undecided();
  return n;
}

uint64_t MemorySystem::drain() {
  sync();
  for (auto& ch : channels_) now_ = std::max(now_, ch->runUntilDecided(completions_));
  sync();
  uint64_t last = 0;
  for (const auto& ch : channels_) last = std::max(last, ch->lastDoneCycle());
  return last;
}

uint64_t MemorySystem::drainWrites() {
  sync();
  uint64_t end = now_;
  for (auto& ch : channels_) {
    if (!ch->writesPending()) continue;
    ch->flushWrites(true, now_);
    uint64_t t = now_;
    while (ch->writesPending()) {
      if (ch->nextEvent() == kNever) throw std::logic_error("DRAM write drain: writes pending and no event");
      t = std::max(t, ch->nextEvent() + 1);
      ch->advanceTo(t, completions_);
    }
    ch->flushWrites(false, t);
    end = std::max(end, t);
  }
  now_ = end;
  sync();
  return now_;
}

void MemorySystem::takeCompletions(std::vector<Completion>& out) {
  sync();
  // Each channel's are in order already; channels ran at different times.
  std::stable_sort(completions_.begin(), completions_.end(), [](const Completion& a, const Completion& b) {
    return a.decidedCycle != b.decidedCycle ? a.decidedCycle < b.decidedCycle : a.channel < b.channel;
  });
  // Those decided at now() itself wait: a channel may still decide others in that cycle.
  auto end = completions_.begin();
  while (end != completions_.end() && end->decidedCycle < now_) ++end;
  out.insert(out.end(), completions_.begin(), end);
  completions_.erase(completions_.begin(), end);
}

DramStats MemorySystem::stats() {
  sync();
  DramStats total;
  for (const auto& ch : channels_) total.add(ch->statsAt(now_));
  return total;
}

}  // namespace weft::sim::dram
