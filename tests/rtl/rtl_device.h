// Test helpers for the kernel-free RTL tests: a flat fixed-latency DRAM, and a device that
// owns the stepper and a command ring and runs command programs the way the driver does.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "weft/hw/config.h"
#include "weft/hw/generated.h"
#include "weft/sim/dram_port.h"
#include "weft/sim/rtl_stepper.h"

namespace weft::rtltest {

// DRAM as a byte vector: every read's first beat comes readLatency cycles after the request,
// every write is acknowledged writeLatency cycles after its last beat.
class FlatDram : public sim::IDramPort {
 public:
  explicit FlatDram(size_t bytes, uint64_t readLatency = 12, uint64_t writeLatency = 6)
      : mem_(bytes, 0), readLatency_(readLatency), writeLatency_(writeLatency) {}

  uint64_t read(uint64_t addr, uint8_t* dst, uint32_t bytes, uint64_t issueCycle) override {
    check(addr, bytes);
    std::memcpy(dst, &mem_[addr], bytes);
    ++reads;
    readBytes += bytes;
    return issueCycle + readLatency_;
  }
  uint64_t write(uint64_t addr, const uint8_t* src, uint32_t bytes, uint64_t issueCycle) override {
    check(addr, bytes);
    std::memcpy(&mem_[addr], src, bytes);
    ++writes;
    writeBytes += bytes;
    return issueCycle + writeLatency_;
  }

  uint8_t* at(uint64_t addr) { return &mem_[addr]; }
  void put(uint64_t addr, const std::vector<uint8_t>& bytes) {
    check(addr, bytes.size());
    std::memcpy(&mem_[addr], bytes.data(), bytes.size());
  }
  std::vector<uint8_t> get(uint64_t addr, size_t bytes) {
    check(addr, bytes);
    return std::vector<uint8_t>(mem_.begin() + addr, mem_.begin() + addr + bytes);
  }
  uint64_t load64(uint64_t addr) {
    uint64_t v;
    std::memcpy(&v, at(addr), 8);
    return v;
  }

  uint64_t reads = 0, writes = 0, readBytes = 0, writeBytes = 0;

 private:
  void check(uint64_t addr, uint64_t bytes) const {
    if (addr > mem_.size() || bytes > mem_.size() - addr) throw std::out_of_range("FlatDram access");
  }
  std::vector<uint8_t> mem_;
  uint64_t readLatency_, writeLatency_;
};

// STATUS, decoded.
struct Status {
  bool busy = false;
  bool halted = false;
  uint32_t error = 0;
};

// The RTL of a named configuration with a flat DRAM and a command ring at kRingBase.
class RtlDevice {
 public:
  static constexpr uint64_t kRingBase = 0x1000;
  static constexpr uint32_t kRingSize = 64;
  static constexpr uint64_t kDramBytes = 8 << 20;

  explicit RtlDevice(const std::string& configName, uint64_t readLatency = 12,
                     uint64_t writeLatency = 6);

  const hw::HwConfig& config() const { return config_; }
  unsigned rows() const { return config_.rows(); }
  unsigned cols() const { return config_.cols(); }

  // RING_BASE, RING_SIZE, IRQ_MASK (done | error) and CTRL.enable.
  void initRing(uint32_t ringSize = kRingSize);
  // Writes commands after the current tail (wrapping) without ringing the doorbell.
  void place(const std::vector<hw::CommandWord>& commands);
  // Writes RING_TAIL: every placed command up to `upTo` more (all placed when -1).
  void ring(int upTo = -1);
  // place() + ring() + runs until the interrupt; returns IRQ_STATUS (0 on timeout).
  uint32_t run(const std::vector<hw::CommandWord>& commands, uint64_t maxCycles = 2'000'000);
  // Runs until the interrupt; returns IRQ_STATUS and clears it.
  uint32_t waitIrq(uint64_t maxCycles = 2'000'000);

  Status status();
  void softReset();

  FlatDram& dram() { return dram_; }
  sim::RtlStepper& stepper() { return stepper_; }
  uint32_t tail() const { return placed_; }

 private:
  hw::HwConfig config_;
  FlatDram dram_;
  sim::RtlStepper stepper_;
  uint32_t ringSize_ = kRingSize;
  uint32_t placed_ = 0;  // ring index after the last placed command
  uint32_t rung_ = 0;    // value last written to RING_TAIL
};

// Names parameterized tests after the configuration ("rtl/Suite.Test/weft8").
inline std::string configName(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

// Command shorthands with the header tokens.
hw::CommandHeader tokens(bool wait0, bool wait1, bool signal0, bool signal1);
hw::CommandWord barrier(bool irq, bool snapshot = false, uint32_t tag = 0, uint64_t dramAddr = 0);

}  // namespace weft::rtltest
