// FNV-1a (64-bit): a hash that is the same on every build and machine (std::hash need not be),
// for cache keys, fingerprints and seeds.
#pragma once

#include <cstdint>
#include <string_view>

namespace weft::common {

inline constexpr uint64_t kFnv1aOffsetBasis = 0xcbf29ce484222325ull;
inline constexpr uint64_t kFnv1aPrime = 0x100000001b3ull;
// FNV's basis with its last digit lost (1469598103934665603 for 14695981039346656037), as the
// synthesis cache's keys and approx_replay's read-back checksum were first written: kept there so
// that cached results and recorded checksums stay valid. New hashes use kFnv1aOffsetBasis.
inline constexpr uint64_t kFnv1aTruncatedBasis = 1469598103934665603ull;

// A running FNV-1a: bytes one by one; a 64-bit value as its eight bytes; or a whole 64-bit word
// as one step (not split into bytes: the form the tiling memo's keys and the replay checksums use).
class Fnv1a {
 public:
  constexpr explicit Fnv1a(uint64_t basis = kFnv1aOffsetBasis) : h_(basis) {}
  constexpr Fnv1a& bytes(std::string_view data) {
    for (const char c : data) byte(static_cast<unsigned char>(c));
    return *this;
  }
  constexpr Fnv1a& byte(uint8_t b) { return word(b); }
  constexpr Fnv1a& word(uint64_t v) {
    h_ = (h_ ^ v) * kFnv1aPrime;
    return *this;
  }
  // The eight bytes of `v`, least significant first (a value hashed as its bytes would be).
  constexpr Fnv1a& littleEndianBytes(uint64_t v) {
    for (int i = 0; i < 8; ++i) byte(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  constexpr uint64_t value() const { return h_; }

 private:
  uint64_t h_;
};

// The FNV-1a hash of `data`.
constexpr uint64_t fnv1a(std::string_view data, uint64_t basis = kFnv1aOffsetBasis) {
  return Fnv1a(basis).bytes(data).value();
}

}  // namespace weft::common
