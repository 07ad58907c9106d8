// Addresses with a pending transaction -> a slot number: the controller looks one up for every
// transaction (a read of an address with a write pending is served from the write, a second
// read of an address joins the first). Open addressing with linear probing and backward-shift
// deletion in a fixed power-of-two table sized for the controller's queues, so a lookup is a
// multiply and a probe or two, and iteration order never matters (nothing iterates it).
#pragma once

#include <cstdint>
#include <vector>

namespace weft::sim::dram {

class AddressTable {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  explicit AddressTable(uint32_t maxEntries) {
    uint32_t bits = 4;
    while ((uint64_t{1} << bits) < uint64_t{maxEntries} * 2 + 2) ++bits;
    shift_ = 64 - bits;
    mask_ = (uint64_t{1} << bits) - 1;
    keys_.assign(mask_ + 1, kEmpty);
    values_.assign(mask_ + 1, kNone);
  }

  uint32_t find(uint64_t key) const {
    for (uint64_t i = home(key);; i = (i + 1) & mask_) {
      if (keys_[i] == key) return values_[i];
      if (keys_[i] == kEmpty) return kNone;
    }
  }
  // The value of `key` if present; else inserts `key` with `value` and returns kNone. One probe
  // sequence where find() then insert() take two.
  uint32_t findOrInsert(uint64_t key, uint32_t value) {
    uint64_t i = home(key);
    for (; keys_[i] != kEmpty; i = (i + 1) & mask_) {
      if (keys_[i] == key) return values_[i];
    }
    keys_[i] = key;
    values_[i] = value;
    return kNone;
  }
  // `key` must be absent.
  void insert(uint64_t key, uint32_t value) {
    uint64_t i = home(key);
    while (keys_[i] != kEmpty) i = (i + 1) & mask_;
    keys_[i] = key;
    values_[i] = value;
  }
  // `key` must be present.
  void erase(uint64_t key) {
    uint64_t i = home(key);
    while (keys_[i] != key) i = (i + 1) & mask_;
    // Backward shift: pull each following entry whose home lies at or before the hole.
    for (uint64_t j = (i + 1) & mask_; keys_[j] != kEmpty; j = (j + 1) & mask_) {
      const uint64_t h = home(keys_[j]);
      if (((j - h) & mask_) >= ((j - i) & mask_)) {
        keys_[i] = keys_[j];
        values_[i] = values_[j];
        i = j;
      }
    }
    keys_[i] = kEmpty;
    values_[i] = kNone;
  }

 private:
  static constexpr uint64_t kEmpty = UINT64_MAX;  // beyond every device
  uint64_t home(uint64_t key) const { return (key * 0x9E3779B97F4A7C15ull) >> shift_; }

  unsigned shift_;
  uint64_t mask_;
  std::vector<uint64_t> keys_;
  std::vector<uint32_t> values_;
};

}  // namespace weft::sim::dram
