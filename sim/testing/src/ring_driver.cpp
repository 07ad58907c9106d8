#include "weft/sim/testing/ring_driver.h"

#include <stdexcept>
#include <vector>

namespace weft::sim::testing {

namespace reg = hw::reg;

RingDriver::RingDriver(IDeviceBackend& device, uint64_t ringBase, uint32_t ringSize)
    : device_(device), ringBase_(ringBase), ringSize_(ringSize) {}

void RingDriver::init() {
  tail_ = 0;
  device_.writeReg(reg::kRingBaseLo, static_cast<uint32_t>(ringBase_));
  device_.writeReg(reg::kRingBaseHi, static_cast<uint32_t>(ringBase_ >> 32));
  device_.writeReg(reg::kRingSize, ringSize_);
  device_.writeReg(reg::kIrqMask, reg::kIrqStatusDoneMask | reg::kIrqStatusErrorMask);
  device_.writeReg(reg::kCtrl, reg::kCtrlEnableMask);
}

void RingDriver::submit(const std::vector<hw::CommandWord>& commands) {
  if (commands.size() >= ringSize_) throw std::invalid_argument("program larger than the ring");
  // One DRAM write per contiguous stretch of the ring (each write is a call into the device).
  std::vector<uint8_t> bytes;
  uint32_t start = tail_;
  auto flush = [&] {
    if (!bytes.empty()) device_.writeDram(ringBase_ + uint64_t{start} * hw::kCommandBytes, bytes.data(), bytes.size());
    bytes.clear();
  };
  for (const auto& c : commands) {
    const size_t at = bytes.size();
    bytes.resize(at + hw::kCommandBytes);
    c.toBytes(&bytes[at]);
    tail_ = (tail_ + 1) % ringSize_;
    if (tail_ == 0) {
      flush();
      start = 0;
    }
  }
  flush();
  device_.writeReg(reg::kRingTail, tail_);
}

uint32_t RingDriver::runToInterrupt(uint64_t maxCycles) {
  if (!device_.runUntilInterrupt(maxCycles)) return 0;
  const uint32_t status = device_.readReg(reg::kIrqStatus);
  device_.writeReg(reg::kIrqStatus, status);
  return status;
}

void RingDriver::softReset() {
  device_.writeReg(reg::kCtrl, reg::kCtrlSoftResetMask);
  init();
}

uint64_t readCounter(IDeviceBackend& device, hw::Counter c) {
  const uint32_t lo = device.readReg(hw::counterAddr(c));
  const uint32_t hi = device.readReg(hw::counterAddr(c) + 4);
  return (uint64_t{hi} << 32) | lo;
}

uint64_t RingDriver::readCounter(hw::Counter c) { return testing::readCounter(device_, c); }

}  // namespace weft::sim::testing
