#include "weft/sim/dram_storage.h"

#include <fmt/format.h>
#include <sys/mman.h>

#include <cstring>
#include <new>
#include <stdexcept>

namespace weft::sim {

DramStorage::DramStorage(uint64_t bytes) : size_(bytes) {
  // Anonymous mmap: zero pages on first touch, so a 512 MiB DRAM costs what a program uses.
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  // Transparent huge pages where the kernel offers them on request: writing a network's weights
  // (BERT-base: 110 MB) then takes a fault every 2 MiB instead of every 4 KiB, which on a
  // virtual machine was a sixth of a compilation. Advice only: without THP nothing changes.
  madvise(p, bytes, MADV_HUGEPAGE);
  data_ = static_cast<uint8_t*>(p);
}

DramStorage::~DramStorage() { munmap(data_, size_); }

void DramStorage::check(uint64_t addr, uint64_t bytes) const {
  if (!contains(addr, bytes)) {
    throw std::out_of_range(fmt::format("DRAM access [{:#x}, +{}) outside the {} MiB device memory",
                                        addr, bytes, size_ >> 20));
  }
}

void DramStorage::read(uint64_t addr, void* dst, uint64_t bytes) const {
  check(addr, bytes);
  std::memcpy(dst, data_ + addr, bytes);
}

void DramStorage::write(uint64_t addr, const void* src, uint64_t bytes) {
  check(addr, bytes);
  std::memcpy(data_ + addr, src, bytes);
}

void DramStorage::fill(uint64_t addr, uint8_t value, uint64_t bytes) {
  check(addr, bytes);
  std::memset(data_ + addr, value, bytes);
}

}  // namespace weft::sim
