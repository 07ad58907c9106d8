#include "DramAllocator.h"

#include <fmt/format.h>

#include <algorithm>

namespace weft::accel {

DramRegion::~DramRegion() {
  if (owner_) owner_->release(addr_);
}

std::shared_ptr<DramAllocator> DramAllocator::create(uint64_t base, uint64_t bytes, uint64_t minAlignment) {
  return std::shared_ptr<DramAllocator>(new DramAllocator(base, bytes, minAlignment));
}

DramAllocator::DramAllocator(uint64_t base, uint64_t bytes, uint64_t minAlignment)
    : base_(base), size_(bytes), minAlignment_(minAlignment) {
  if (bytes > 0) free_[base] = bytes;
}

nn::Result<SharedRegion> DramAllocator::allocate(uint64_t bytes, uint64_t alignment,
                                                 const std::string& what) {
  if (bytes == 0) bytes = 1;
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    return NN_ERROR(BAD_DATA) << "DRAM alignment " << alignment << " is not a power of two";
  }
  alignment = std::max(alignment, minAlignment_);
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    const uint64_t start = it->first, length = it->second;
    const uint64_t aligned = (start + alignment - 1) & ~(alignment - 1);
    if (aligned - start > length || length - (aligned - start) < bytes) continue;
    // Split the free block into [start, aligned) [aligned, aligned+bytes) [end, ...).
    free_.erase(it);
    if (aligned > start) free_[start] = aligned - start;
    const uint64_t end = aligned + bytes;
    if (start + length > end) free_[end] = start + length - end;
    used_[aligned] = bytes;
    return std::make_shared<DramRegion>(shared_from_this(), aligned, bytes);
  }
  uint64_t largest = 0;
  for (const auto& [a, n] : free_) largest = std::max(largest, n);
  return NN_ERROR(RESOURCE_EXHAUSTED_PERSISTENT)
         << fmt::format("device DRAM exhausted: {} needs {} bytes, largest free block is {} "
                        "bytes of {} free (DramMiB sets the size)",
                        what, bytes, largest, size_ - bytesInUseLocked());
}

uint64_t DramAllocator::bytesFree() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return size_ - bytesInUseLocked();
}

uint64_t DramAllocator::bytesInUse() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytesInUseLocked();
}

uint64_t DramAllocator::bytesInUseLocked() const {
  uint64_t n = 0;
  for (const auto& [a, b] : used_) n += b;
  return n;
}

void DramAllocator::release(uint64_t addr) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = used_.find(addr);
  if (it == used_.end()) return;
  uint64_t start = addr, length = it->second;
  used_.erase(it);
  // Coalesce with the neighbours.
  auto next = free_.lower_bound(start);
  if (next != free_.end() && next->first == start + length) {
    length += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      length += prev->second;
      free_.erase(prev);
    }
  }
  free_[start] = length;
}

}  // namespace weft::accel
