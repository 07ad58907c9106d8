// SHA-256 (FIPS 180-4): the integrity check of compilation cache files and the fingerprint the
// runtime gives a model, so that a file made for another model or altered in any way is refused.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace weft::nn {

using Sha256Digest = std::array<uint8_t, 32>;

class Sha256 {
 public:
  Sha256();
  Sha256& update(const void* data, size_t size);
  Sha256& update(const std::vector<uint8_t>& bytes) { return update(bytes.data(), bytes.size()); }
  Sha256Digest finish();

 private:
  void compress(const uint8_t* block);
  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> block_{};
  size_t blockSize_ = 0;
  uint64_t totalBytes_ = 0;
};

inline Sha256Digest sha256(const void* data, size_t size) { return Sha256().update(data, size).finish(); }
inline Sha256Digest sha256(const std::vector<uint8_t>& bytes) { return sha256(bytes.data(), bytes.size()); }

}  // namespace weft::nn
