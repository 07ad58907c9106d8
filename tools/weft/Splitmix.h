// splitmix64, the integer generator behind the bundled networks' weights (traces/README.md);
// scripts/make_network.py implements the same sequence for calibration.
#pragma once

#include <cstdint>

namespace weft::tool {

class Splitmix64 {
 public:
  explicit Splitmix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

}  // namespace weft::tool
