#include "weft/sim/dram_model.h"

#include <algorithm>

#include "weft/sim/cycle_dram.h"

namespace weft::sim {

DramTiming DramTiming::fromConfig(const hw::HwConfig& config) {
  DramTiming t;
  t.bytesPerCycle = static_cast<uint32_t>(config.get(hw::Param::kDramBytesPerCycle));
  t.latencyCycles = static_cast<uint32_t>(config.get(hw::Param::kDramLatencyCycles));
  t.burstBytes = static_cast<uint32_t>(config.get(hw::Param::kDramBurstBytes));
  t.device = dramDeviceFor(config);
  t.clockMHz = static_cast<uint64_t>(config.get(hw::Param::kClockMHz));
  t.busBytes = config.busBytes();
  return t;
}

DramModel::DramModel(DramStorage& storage, const DramTiming& timing) : storage_(&storage) {
  setTiming(timing);
}

DramModel::~DramModel() = default;

uint64_t DramModel::serveCycle(bool write, uint64_t addr, uint32_t bytes, uint64_t issueCycle) {
  const uint64_t t = issueCycle - std::min(issueCycle, origin_);
  const uint64_t answer = origin_ + (write ? cycle_->write(addr, bytes, t) : cycle_->read(addr, bytes, t));
  if (observer_) observer_(write, addr, bytes, issueCycle, answer);
  return answer;
}

void DramModel::endProgram(uint64_t cycle) {
  if (cycle_) cycle_->endProgram(cycle - std::min(cycle, origin_));
}

bool DramModel::activity(DramActivity& out) {
  if (!cycle_) return false;
  out = cycle_->activity();
  return true;
}

void DramModel::setTiming(const DramTiming& timing) {
  timing_ = timing;
  cycle_ = timing_.device ? std::make_unique<CycleDram>(timing_.device, timing_.clockMHz, timing_.busBytes) : nullptr;
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
  if (timing_.device) cycle_ = std::make_unique<CycleDram>(timing_.device, timing_.clockMHz, timing_.busBytes);
}

}  // namespace weft::sim
