// A 256-bit command as the controller fetches it from DRAM, with bit-field access.
// The layout of each command type lives in hw/spec/isa.json; the typed structs that use
// this class are generated into weft/hw/generated.h.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

namespace weft::hw {

// A field of a command: bits [lsb, lsb + width) of the 256-bit word.
struct Field {
  uint16_t lsb;
  uint16_t width;
  bool isSigned;
};

class CommandWord {
 public:
  static constexpr size_t kWords = 4;

  uint64_t get(Field f) const {
    uint64_t value = 0;
    for (unsigned i = 0; i < f.width; ++i) {
      const unsigned bit = f.lsb + i;
      value |= ((words_[bit / 64] >> (bit % 64)) & 1u) << i;
    }
    return value;
  }

  int64_t getSigned(Field f) const {
    const uint64_t raw = get(f);
    const uint64_t sign = uint64_t{1} << (f.width - 1);
    return static_cast<int64_t>((raw ^ sign) - sign);
  }

  // Stores the low f.width bits of value (two's complement for negative values).
  void set(Field f, uint64_t value) {
    for (unsigned i = 0; i < f.width; ++i) {
      const unsigned bit = f.lsb + i;
      const uint64_t mask = uint64_t{1} << (bit % 64);
      if ((value >> i) & 1u) {
        words_[bit / 64] |= mask;
      } else {
        words_[bit / 64] &= ~mask;
      }
    }
  }

  // True when value survives a round trip through field f.
  static bool fits(Field f, int64_t value) {
    if (f.isSigned) {
      const int64_t lo = -(int64_t{1} << (f.width - 1));
      const int64_t hi = (int64_t{1} << (f.width - 1)) - 1;
      return value >= lo && value <= hi;
    }
    return value >= 0 && (f.width >= 64 || static_cast<uint64_t>(value) < (uint64_t{1} << f.width));
  }

  const std::array<uint64_t, kWords>& words() const { return words_; }
  std::array<uint64_t, kWords>& words() { return words_; }

  void toBytes(uint8_t* out) const { std::memcpy(out, words_.data(), sizeof(words_)); }
  static CommandWord fromBytes(const uint8_t* in) {
    CommandWord c;
    std::memcpy(c.words_.data(), in, sizeof(c.words_));
    return c;
  }

  bool operator==(const CommandWord& o) const { return words_ == o.words_; }

 private:
  std::array<uint64_t, kWords> words_{};
};

}  // namespace weft::hw
