// Shared pieces of the randomized property tests: a seeded generator, the independent real-valued
// quantization used to form expected quantized outputs (round(real / scale) + zeroPoint, clamped
// by the activation in the quantized domain), and float activation clamps.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace weft::test {

class Random {
 public:
  explicit Random(uint32_t seed) : rng_(seed) {}
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  float uniformReal(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng_); }
  bool coin() { return uniform(0, 1) == 1; }
  std::vector<float> floats(size_t n, float lo = -1.0f, float hi = 1.0f) {
    std::vector<float> v(n);
    for (auto& x : v) x = uniformReal(lo, hi);
    return v;
  }
  template <typename T>
  std::vector<T> quantized(size_t n) {
    std::vector<T> v(n);
    for (auto& x : v) x = static_cast<T>(uniform(std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
    return v;
  }

 private:
  std::mt19937 rng_;
};

// Real-valued activation clamp (NONE, RELU, RELU1, RELU6).
inline double activate(double x, int activation) {
  switch (activation) {
    case 1: return std::max(0.0, x);
    case 2: return std::min(std::max(-1.0, x), 1.0);
    case 3: return std::min(std::max(0.0, x), 6.0);
    default: return x;
  }
}

// The quantized value of real `x` in an output of `scale`/`zeroPoint` and element type T, with the
// activation applied as quantized bounds.
template <typename T>
int32_t expectedQuantized(double x, float scale, int32_t zeroPoint, int activation) {
  int32_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  auto q = [&](double f) { return zeroPoint + static_cast<int32_t>(std::lround(f / scale)); };
  if (activation == 1 || activation == 3) lo = std::max(lo, q(0.0));
  if (activation == 2) lo = std::max(lo, q(-1.0));
  if (activation == 2) hi = std::min(hi, q(1.0));
  if (activation == 3) hi = std::min(hi, q(6.0));
  const double unclamped = std::round(x / scale) + zeroPoint;
  return static_cast<int32_t>(std::min<double>(std::max<double>(unclamped, lo), hi));
}

inline bool closeFloat(double got, double expected, double tolerance = 1e-4) {
  return std::fabs(got - expected) <= tolerance * (1.0 + std::fabs(expected));
}

}  // namespace weft::test
