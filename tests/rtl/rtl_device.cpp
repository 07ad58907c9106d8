#include "rtl_device.h"

namespace weft::rtltest {

RtlDevice::RtlDevice(const std::string& configName, uint64_t readLatency, uint64_t writeLatency)
    : config_(hw::HwConfig::load(configName)),
      dram_(kDramBytes, readLatency, writeLatency),
      stepper_(config_, dram_) {}

void RtlDevice::initRing(uint32_t ringSize) {
  ringSize_ = ringSize;
  placed_ = rung_ = 0;
  stepper_.writeReg(hw::reg::kRingBaseLo, static_cast<uint32_t>(kRingBase));
  stepper_.writeReg(hw::reg::kRingBaseHi, static_cast<uint32_t>(kRingBase >> 32));
  stepper_.writeReg(hw::reg::kRingSize, ringSize);
  stepper_.writeReg(hw::reg::kIrqMask, hw::reg::kIrqStatusDoneMask | hw::reg::kIrqStatusErrorMask);
  stepper_.writeReg(hw::reg::kCtrl, hw::reg::kCtrlEnableMask);
}

void RtlDevice::place(const std::vector<hw::CommandWord>& commands) {
  for (const auto& c : commands) {
    c.toBytes(dram_.at(kRingBase + uint64_t{placed_} * hw::kCommandBytes));
    placed_ = (placed_ + 1) % ringSize_;
  }
}

void RtlDevice::ring(int upTo) {
  if (upTo < 0) {
    rung_ = placed_;
  } else {
    rung_ = (rung_ + static_cast<uint32_t>(upTo)) % ringSize_;
  }
  stepper_.writeReg(hw::reg::kRingTail, rung_);
}

uint32_t RtlDevice::run(const std::vector<hw::CommandWord>& commands, uint64_t maxCycles) {
  place(commands);
  ring();
  return waitIrq(maxCycles);
}

uint32_t RtlDevice::waitIrq(uint64_t maxCycles) {
  stepper_.run(maxCycles);
  if (!stepper_.irq()) return 0;
  const uint32_t irq = stepper_.readReg(hw::reg::kIrqStatus);
  stepper_.writeReg(hw::reg::kIrqStatus, irq);
  return irq;
}

Status RtlDevice::status() {
  const uint32_t s = stepper_.readReg(hw::reg::kStatus);
  Status st;
  st.busy = (s & hw::reg::kStatusBusyMask) != 0;
  st.halted = (s & hw::reg::kStatusHaltedMask) != 0;
  st.error = (s & hw::reg::kStatusErrorMask) >> hw::reg::kStatusErrorLsb;
  return st;
}

void RtlDevice::softReset() {
  stepper_.writeReg(hw::reg::kCtrl, hw::reg::kCtrlEnableMask | hw::reg::kCtrlSoftResetMask);
  placed_ = rung_ = 0;
}

hw::CommandHeader tokens(bool wait0, bool wait1, bool signal0, bool signal1) {
  hw::CommandHeader h;
  h.wait0 = wait0;
  h.wait1 = wait1;
  h.signal0 = signal0;
  h.signal1 = signal1;
  return h;
}

hw::CommandWord barrier(bool irq, bool snapshot, uint32_t tag, uint64_t dramAddr) {
  hw::BarrierCmd b;
  b.irq = irq;
  b.snapshot = snapshot;
  b.tag = tag;
  b.dramAddr = dramAddr;
  return b.encode();
}

}  // namespace weft::rtltest
