// A backend that forwards to a real one and can misbehave on purpose: the fault injection of
// the recovery tests and the slow simulator of the timing tests.
#pragma once

#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include "weft/hw/generated.h"
#include "weft/sim/backend.h"

namespace weft::accel::test {

class WrappedBackend : public sim::IDeviceBackend {
 public:
  explicit WrappedBackend(std::unique_ptr<sim::IDeviceBackend> inner) : inner_(std::move(inner)) {}

  // Faults armed for the next doorbell (RING_TAIL write).
  enum class Fault {
    kNone,
    kBadOpcode,        // the first command of the program gets an undefined opcode
    kDropDoorbell,     // the doorbell never reaches the device: nothing runs
    kWaitForeverToken,  // the first LOAD waits for a compute->load token nobody pushes
    kEmptyStore,        // the first STORE gets count0 = 0: a field rule the controller enforces
    kLoadPastDram       // the first LOAD reads beyond the end of DRAM (a DRAM fault)
  };
  void arm(Fault f) { fault_ = f; }
  // Host time added inside every runUntilInterrupt (a slow simulator).
  void addSimulatorDelay(std::chrono::milliseconds d) { delay_ = d; }
  uint64_t hardResets() const { return hardResets_; }

  sim::BackendKind kind() const override { return inner_->kind(); }
  const hw::HwConfig& config() const override { return inner_->config(); }
  uint32_t readReg(uint32_t addr) override { return inner_->readReg(addr); }
  void writeReg(uint32_t addr, uint32_t value) override {
    if (addr == hw::reg::kRingBaseLo) base_ = (base_ & ~0xFFFFFFFFull) | value;
    if (addr == hw::reg::kRingBaseHi) base_ = (base_ & 0xFFFFFFFFull) | (uint64_t{value} << 32);
    if (addr == hw::reg::kRingSize) size_ = value;
    if (addr == hw::reg::kRingTail && fault_ != Fault::kNone) {
      const Fault f = fault_;
      fault_ = Fault::kNone;
      if (f == Fault::kDropDoorbell) return;
      tamper(f, inner_->readReg(hw::reg::kRingHead), value);
    }
    inner_->writeReg(addr, value);
  }
  void writeDram(uint64_t addr, const void* src, size_t bytes) override { inner_->writeDram(addr, src, bytes); }
  void readDram(uint64_t addr, void* dst, size_t bytes) override { inner_->readDram(addr, dst, bytes); }
  uint64_t dramBytes() const override { return inner_->dramBytes(); }
  bool runUntilInterrupt(uint64_t maxCycles) override {
    if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
    return inner_->runUntilInterrupt(maxCycles);
  }
  uint64_t cycle() const override { return inner_->cycle(); }
  void hardReset() override {
    ++hardResets_;
    inner_->hardReset();
  }
  sim::BackendStats stats() const override { return inner_->stats(); }

 private:
  // Changes the program between the ring's head and the new tail.
  void tamper(Fault f, uint32_t head, uint32_t tail) {
    for (uint32_t i = head; i != tail; i = (i + 1) % size_) {
      const uint64_t at = base_ + uint64_t{i} * hw::kCommandBytes;
      uint8_t bytes[hw::kCommandBytes];
      inner_->readDram(at, bytes, sizeof bytes);
      auto word = hw::CommandWord::fromBytes(bytes);
      const auto op = static_cast<hw::Opcode>(word.get(hw::field::kOpcode));
      if (f == Fault::kBadOpcode) {
        word.set(hw::field::kOpcode, 0xF);
      } else if (f == Fault::kWaitForeverToken && op == hw::Opcode::kLoad) {
        word.set(hw::field::kWait1, 1);
      } else if (f == Fault::kEmptyStore && op == hw::Opcode::kStore) {
        word.set(hw::field::store::kCount0, 0);
      } else if (f == Fault::kLoadPastDram && op == hw::Opcode::kLoad) {
        word.set(hw::field::load::kDramAddr, inner_->dramBytes() + 4096);
      } else {
        continue;
      }
      word.toBytes(bytes);
      inner_->writeDram(at, bytes, sizeof bytes);
      return;
    }
  }

  std::unique_ptr<sim::IDeviceBackend> inner_;
  Fault fault_ = Fault::kNone;
  std::chrono::milliseconds delay_{0};
  uint64_t base_ = 0;
  uint32_t size_ = 1;
  uint64_t hardResets_ = 0;
};

}  // namespace weft::accel::test
