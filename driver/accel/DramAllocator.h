// Device DRAM allocation: one allocator per device, shared by every prepared model.
//
// Weights, parameter rows, activations, snapshot records and the command ring all live in the
// simulated DRAM. Allocations are RAII handles: a prepared model owns its regions and returns
// them when it is destroyed, so long-running processes (sweeps) do not leak device memory.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "weft/nn/Result.h"

namespace weft::accel {

class DramAllocator;

// The alignment the compiler places every region at (tensors, parameter rows, snapshot records,
// the ring): a multiple of the transaction of the DRAMs whose transaction is at most 64 bytes, so
// the offset of a command's address within a transaction is the offset within its tensor
// (CostModel::meanTransactions).
inline constexpr uint64_t kRegionAlignment = 64;

// A region of device DRAM; freed when the last handle goes away.
class DramRegion {
 public:
  DramRegion(std::shared_ptr<DramAllocator> owner, uint64_t addr, uint64_t bytes)
      : owner_(std::move(owner)), addr_(addr), bytes_(bytes) {}
  ~DramRegion();
  DramRegion(const DramRegion&) = delete;
  DramRegion& operator=(const DramRegion&) = delete;

  uint64_t addr() const { return addr_; }
  uint64_t bytes() const { return bytes_; }

 private:
  std::shared_ptr<DramAllocator> owner_;
  uint64_t addr_;
  uint64_t bytes_;
};
using SharedRegion = std::shared_ptr<DramRegion>;

class DramAllocator : public std::enable_shared_from_this<DramAllocator> {
 public:
  // Manages [base, base + bytes). Address 0 is never handed out (base > 0), so that a zero
  // address in a command is always a bug. Every region starts at a multiple of `minAlignment`
  // (a power of two) whatever an allocation asks: the device queue gives the DRAM burst, so that
  // where a region lies never changes how its requests fall into bursts, nor the device's timing.
  static std::shared_ptr<DramAllocator> create(uint64_t base, uint64_t bytes, uint64_t minAlignment = 1);

  // First fit, `alignment` a power of two (raised to the minimum alignment).
  // RESOURCE_EXHAUSTED_PERSISTENT naming the sizes when the request does not fit; `what` says
  // what the memory is for.
  nn::Result<SharedRegion> allocate(uint64_t bytes, uint64_t alignment, const std::string& what);

  uint64_t bytesFree() const;
  uint64_t bytesInUse() const;

 private:
  DramAllocator(uint64_t base, uint64_t bytes, uint64_t minAlignment);
  friend class DramRegion;
  void release(uint64_t addr);
  uint64_t bytesInUseLocked() const;

  mutable std::mutex mutex_;
  uint64_t base_, size_, minAlignment_;
  std::map<uint64_t, uint64_t> free_;  // address -> bytes, coalesced
  std::map<uint64_t, uint64_t> used_;  // address -> bytes
};

}  // namespace weft::accel
