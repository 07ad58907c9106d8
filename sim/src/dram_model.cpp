#include "weft/sim/dram_model.h"

#include <algorithm>

namespace weft::sim {

DramTiming DramTiming::fromConfig(const hw::HwConfig& config) {
  DramTiming t;
  t.bytesPerCycle = static_cast<uint32_t>(config.get(hw::Param::kDramBytesPerCycle));
  t.latencyCycles = static_cast<uint32_t>(config.get(hw::Param::kDramLatencyCycles));
  t.burstBytes = static_cast<uint32_t>(config.get(hw::Param::kDramBurstBytes));
  return t;
}

DramModel::DramModel(DramStorage& storage, const DramTiming& timing) : storage_(&storage) {
  setTiming(timing);
}

void DramModel::setTiming(const DramTiming& timing) {
  timing_ = timing;
  // Requests are at most 4095 bytes: they touch at most 4095 / G + 2 bursts.
  holdByBursts_.resize(4095 / timing_.burstBytes + 3);
  for (uint64_t b = 0; b < holdByBursts_.size(); ++b) {
    holdByBursts_[b] = (b * timing_.burstBytes + timing_.bytesPerCycle - 1) / timing_.bytesPerCycle;
  }
}

uint64_t DramModel::holdCycles(uint64_t addr, uint32_t bytes) const {
  const uint64_t g = timing_.burstBytes;
  const uint64_t last = addr + std::max<uint32_t>(bytes, 1) - 1;
  const uint64_t bursts = last / g - addr / g + 1;
  if (bursts < holdByBursts_.size()) return holdByBursts_[bursts];
  return (bursts * g + timing_.bytesPerCycle - 1) / timing_.bytesPerCycle;
}

uint64_t DramModel::serve(bool write, uint64_t addr, uint32_t bytes, uint64_t issueCycle) {
  const uint64_t hold = holdCycles(addr, bytes);
  const uint64_t start = std::max(issueCycle, channelFree_);
  channelFree_ = start + hold;
  stats_.busyCycles += hold;
  const uint64_t answer = start + timing_.latencyCycles;
  if (observer_) observer_(write, addr, bytes, issueCycle, answer);
  return answer;
}

uint64_t DramModel::timeRead(uint64_t addr, uint32_t bytes, uint64_t issueCycle) {
  ++stats_.reads;
  stats_.bytesRead += bytes;
  return serve(false, addr, bytes, issueCycle);
}

uint64_t DramModel::timeWrite(uint64_t addr, uint32_t bytes, uint64_t issueCycle) {
  ++stats_.writes;
  stats_.bytesWritten += bytes;
  return serve(true, addr, bytes, issueCycle);
}

uint64_t DramModel::read(uint64_t addr, uint8_t* dst, uint32_t bytes, uint64_t issueCycle) {
  storage_->read(addr, dst, bytes);  // throws before any state changes
  return timeRead(addr, bytes, issueCycle);
}

uint64_t DramModel::write(uint64_t addr, const uint8_t* src, uint32_t bytes, uint64_t issueCycle) {
  storage_->write(addr, src, bytes);
  return timeWrite(addr, bytes, issueCycle);
}

void DramModel::reset() {
  channelFree_ = 0;
  stats_ = {};
}

}  // namespace weft::sim
