// The bytes of the simulated DRAM. Zero-initialised, allocated lazily by the OS (large sizes
// cost only the pages touched), bounds-checked on every access.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace weft::sim {

class DramStorage {
 public:
  explicit DramStorage(uint64_t bytes);
  ~DramStorage();
  DramStorage(const DramStorage&) = delete;
  DramStorage& operator=(const DramStorage&) = delete;

  uint64_t size() const { return size_; }
  // Throws std::out_of_range (changing nothing) unless [addr, addr + bytes) lies inside.
  void read(uint64_t addr, void* dst, uint64_t bytes) const;
  void write(uint64_t addr, const void* src, uint64_t bytes);
  void fill(uint64_t addr, uint8_t value, uint64_t bytes);
  bool contains(uint64_t addr, uint64_t bytes) const { return addr <= size_ && bytes <= size_ - addr; }
  // Direct access for models that have checked the range themselves.
  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }

 private:
  void check(uint64_t addr, uint64_t bytes) const;
  uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace weft::sim
