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

  // Shifts and masks over at most two 64-bit words (a field is at most 64 bits wide): decoding
  // a command is on every model's per-command path.
  uint64_t get(Field f) const {
    const unsigned word = f.lsb / 64, shift = f.lsb % 64;
    uint64_t value = words_[word] >> shift;
    if (shift != 0 && shift + f.width > 64 && word + 1 < kWords) value |= words_[word + 1] << (64 - shift);
    return f.width >= 64 ? value : value & ((uint64_t{1} << f.width) - 1);
  }

  int64_t getSigned(Field f) const {
    const uint64_t raw = get(f);
    const uint64_t sign = uint64_t{1} << (f.width - 1);
    return static_cast<int64_t>((raw ^ sign) - sign);
  }

  // Stores the low f.width bits of value (two's complement for negative values).
  void set(Field f, uint64_t value) {
    const uint64_t mask = f.width >= 64 ? ~uint64_t{0} : (uint64_t{1} << f.width) - 1;
    value &= mask;
    const unsigned word = f.lsb / 64, shift = f.lsb % 64;
    words_[word] = (words_[word] & ~(mask << shift)) | (value << shift);
    if (shift != 0 && shift + f.width > 64 && word + 1 < kWords) {
      const unsigned spill = 64 - shift;
      words_[word + 1] = (words_[word + 1] & ~(mask >> spill)) | (value >> spill);
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
