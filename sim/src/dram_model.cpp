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
  burstShift_ = -1;
  for (int b = 0; b < 32; ++b) {
    if ((uint64_t{1} << b) == timing_.burstBytes) burstShift_ = b;
  }
  // Requests are at most 4095 bytes: they touch at most 4095 / G + 2 bursts.
  holdByBursts_.resize(4095 / timing_.burstBytes + 3);
  for (uint64_t b = 0; b < holdByBursts_.size(); ++b) {
    holdByBursts_[b] = (b * timing_.burstBytes + timing_.bytesPerCycle - 1) / timing_.bytesPerCycle;
  }
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
