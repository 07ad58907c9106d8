// The fp16 datapath's arithmetic: rtl/weft_fp_pkg.sv, verilated through a probe module, against
// its C++ model (hw/include/weft/hw/fp16.h), bit for bit; and the model's conversions against
// the compiler's IEEE binary16 (_Float16), its product against exact double arithmetic.
// Exhaustive where the domain is 2^16, millions of draws elsewhere, weighted to the corners:
// zeros, subnormals, the largest finite values, infinities, NaNs, ties, exponents a few apart.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <random>
#include <vector>

#include "Vweft_fp_probe.h"
#include "weft/hw/fp16.h"
#include "weft/hw/softmax_fp16.h"

namespace weft::hw::fp {
namespace {

class Probe {
  // The verilated model of weft_fp_probe: combinational, evaluated per input.
 public:
  void set(uint32_t a, uint32_t b = 0, uint32_t c = 0) {
    model_.a_i = a;
    model_.b_i = b;
    model_.c_i = c;
    model_.eval();
  }
  uint32_t add() const { return model_.add_o; }
  uint32_t mul() const { return model_.mul_o; }
  uint32_t widen() const { return model_.widen_o; }
  uint16_t narrow() const { return static_cast<uint16_t>(model_.narrow_o); }
  bool greater() const { return model_.greater_o != 0; }
  uint32_t div() const { return model_.div_o; }
  uint16_t u8() const { return static_cast<uint16_t>(model_.u8_o); }
  uint32_t split() const { return model_.split_o; }
  uint32_t exp() const { return model_.exp_o; }
  uint32_t softmaxOut() const { return model_.smx_o; }
  uint32_t fmul() const { return model_.fmul_o; }

 private:
  Vweft_fp_probe model_;
};

// binary32 values with a bias to the corners of the format.
class Draw {
 public:
  explicit Draw(uint64_t seed) : rng_(seed) {}
  uint32_t bits() { return static_cast<uint32_t>(rng_()); }
  uint32_t mantissa() {
    switch (rng_() % 6) {
      case 0: return 0;
      case 1: return 0x7fffffu;
      case 2: return bits() & bits() & bits() & 0x7fffffu;  // few bits: ties and exact results
      case 3: return (bits() & 0x7fffffu) | 0x1000u;
      default: return bits() & 0x7fffffu;
    }
  }
  uint32_t exponent() {
    static const uint32_t corners[] = {0, 1, 2, 24, 103, 112, 113, 126, 127, 142, 143, 253, 254, 255};
    return rng_() % 3 == 0 ? corners[rng_() % std::size(corners)] : static_cast<uint32_t>(rng_() % 256);
  }
  uint32_t fp32() { return (bits() & 0x80000000u) | (exponent() << 23) | mantissa(); }
  // Near `a`: its exponent up to 30 apart, either sign.
  uint32_t near(uint32_t a) {
    const int e = static_cast<int>((a >> 23) & 0xff) + static_cast<int>(rng_() % 61) - 30;
    const uint32_t exp = static_cast<uint32_t>(std::clamp(e, 0, 255));
    return (bits() & 0x80000000u) | (exp << 23) | mantissa();
  }
  uint16_t fp16() {
    static const uint16_t corners[] = {0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0x7bff, 0x7c00, 0xfc00, 0x7e00, 0x7c01};
    if (rng_() % 4 == 0) return corners[rng_() % std::size(corners)];
    return static_cast<uint16_t>(rng_());
  }

 private:
  std::mt19937_64 rng_;
};

// binary32 operands at the format's corners: zeros, the least and largest subnormals, the least
// normal, one and its successor, the largest finite value, infinities, NaNs, powers of two.
constexpr uint32_t kFp32Corners[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x007fffffu, 0x00800000u, 0x3f800000u,
                                     0x3f800001u, 0x4b7fffffu, 0x7f7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                     0x7f800001u, 0xbf800000u, 0x33800000u, 0x34000000u, 0x3f000000u, 0x5f800000u,
                                     0x1f800000u, 0x20000000u, 0x00400000u};

// check(a, b) for every pair of corners, until a fatal failure.
template <typename Check>
void checkCornerPairs(Check check) {
  for (uint32_t a : kFp32Corners) {
    for (uint32_t b : kFp32Corners) check(a, b);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

uint16_t halfBits(_Float16 h) {
  uint16_t b;
  std::memcpy(&b, &h, sizeof b);
  return b;
}
_Float16 half(uint16_t b) {
  _Float16 h;
  std::memcpy(&h, &b, sizeof h);
  return h;
}

TEST(FpArithmetic, WideningEveryBinary16) {
  Probe probe;
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    probe.set(h);
    const uint32_t model = fp16ToFp32(static_cast<uint16_t>(h));
    ASSERT_EQ(probe.widen(), model) << std::hex << "fp16 " << h;
    const float ieee = static_cast<float>(half(static_cast<uint16_t>(h)));
    ASSERT_EQ(model, std::isnan(ieee) ? kFp32QuietNaN : bitsOf(ieee)) << std::hex << "fp16 " << h;
  }
}

TEST(FpArithmetic, NarrowingRoundsToNearestEven) {
  Probe probe;
  Draw draw(1);
  std::vector<uint32_t> values;
  // Every exponent from the subnormal range's edge to past the largest finite value, with
  // mantissas at each rounding boundary.
  for (uint32_t e = 95; e <= 145; ++e) {
    for (uint32_t m : {0u, 1u, 0xfffu, 0x1000u, 0x1001u, 0x2000u, 0x3000u, 0x7fe000u, 0x7fefffu, 0x7ff000u, 0x7fffffu}) {
      values.push_back((e << 23) | m);
      values.push_back(0x80000000u | (e << 23) | m);
    }
  }
  for (int i = 0; i < 2000000; ++i) values.push_back(draw.fp32());
  for (int i = 0; i < 1000000; ++i) values.push_back(((95 + draw.bits() % 51) << 23) | (draw.bits() & 0x807fffffu));
  for (uint32_t f : values) {
    probe.set(f);
    const uint16_t model = fp32ToFp16(f);
    ASSERT_EQ(probe.narrow(), model) << std::hex << "fp32 " << f;
    const auto ieee = static_cast<_Float16>(toFloat(f));
    ASSERT_EQ(model, isNaN32(f) ? kFp16QuietNaN : halfBits(ieee)) << std::hex << "fp32 " << f;
  }
}

TEST(FpArithmetic, Binary16ProductsAreExact) {
  Probe probe;
  Draw draw(2);
  std::vector<uint16_t> corners;
  for (uint32_t h : {0x0000u, 0x0001u, 0x0002u, 0x01ffu, 0x03ffu, 0x0400u, 0x0401u, 0x3bffu, 0x3c00u, 0x3c01u,
                     0x7bffu, 0x7c00u, 0x7c01u, 0x7e00u}) {
    corners.push_back(static_cast<uint16_t>(h));
    corners.push_back(static_cast<uint16_t>(h | 0x8000u));
  }
  auto check = [&](uint16_t a, uint16_t b) {
    probe.set(a, b);
    const uint32_t model = fp16Mul(a, b);
    ASSERT_EQ(probe.mul(), model) << std::hex << "fp16 " << a << " x " << b;
    const double exact = static_cast<double>(half(a)) * static_cast<double>(half(b));
    if (std::isnan(exact)) {
      ASSERT_EQ(model, kFp32QuietNaN);
    } else {
      ASSERT_EQ(static_cast<double>(toFloat(model)), exact) << std::hex << "fp16 " << a << " x " << b;
      ASSERT_EQ(std::signbit(toFloat(model)), std::signbit(exact));
    }
  };
  for (uint16_t a : corners) {
    for (uint16_t b : corners) check(a, b);
    if (HasFatalFailure()) return;
  }
  for (int i = 0; i < 3000000 && !HasFatalFailure(); ++i) check(draw.fp16(), draw.fp16());
}

TEST(FpArithmetic, Binary32SumsRoundToNearestEven) {
  Probe probe;
  Draw draw(3);
  auto check = [&](uint32_t a, uint32_t b) {
    probe.set(a, b);
    ASSERT_EQ(probe.add(), fp32Add(a, b)) << std::hex << "fp32 " << a << " + " << b;
  };
  checkCornerPairs(check);
  for (int i = 0; i < 3000000 && !HasFatalFailure(); ++i) {
    const uint32_t a = draw.fp32();
    check(a, i % 4 == 0 ? draw.fp32() : draw.near(a));
  }
  // x + (-x) and exact cancellations to subnormals.
  for (int i = 0; i < 200000 && !HasFatalFailure(); ++i) {
    const uint32_t a = draw.fp32();
    check(a, a ^ 0x80000000u);
    check(a, (a ^ 0x80000000u) + (draw.bits() % 5) - 2);
  }
}

// fp32_mul (the store's fp16_affine mode, the layer norm's mean squared and its output): IEEE's
// product, subnormal operands and results, overflow, and products near the rounding boundaries.
TEST(FpArithmetic, Binary32ProductsRoundToNearestEven) {
  Probe probe;
  Draw draw(12);
  auto check = [&](uint32_t a, uint32_t b) {
    probe.set(a, b);
    ASSERT_EQ(probe.fmul(), fp32Mul(a, b)) << std::hex << "fp32 " << a << " x " << b;
  };
  checkCornerPairs(check);
  for (int i = 0; i < 3000000 && !HasFatalFailure(); ++i) {
    const uint32_t a = draw.fp32();
    // Around the product's range edges: b's exponent chosen so that a*b lands near the least
    // subnormal, the least normal or the largest finite value; otherwise any value.
    uint32_t b = draw.fp32();
    if (i % 3 == 0) {
      static const int targets[] = {-149, -126, 0, 127};
      const int ea = std::max(1, static_cast<int>((a >> 23) & 0xff)) - 127;
      const int want = targets[i / 3 % 4] - ea + static_cast<int>(draw.bits() % 5) - 2;
      const uint32_t eb = static_cast<uint32_t>(std::clamp(want + 127, 0, 255));
      b = (b & 0x807fffffu) | (eb << 23);
    }
    check(a, b);
  }
}

// The vector unit's fp16 reductions: the maximum's comparison, the average's division by a
// count of taps (IEEE division's correctly rounded quotient, subnormal results included), and the
// lookup's low byte as binary16.
TEST(FpArithmetic, VectorMaxComparesNumerically) {
  Probe probe;
  Draw draw(4);
  auto check = [&](uint32_t a, uint32_t b) {
    probe.set(a, b);
    ASSERT_EQ(probe.greater(), fp32Greater(a, b)) << std::hex << "fp32 " << a << " > " << b;
  };
  const uint32_t corners[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x3f800000u, 0xbf800000u,
                              0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u};
  for (uint32_t a : corners) {
    for (uint32_t b : corners) check(a, b);
  }
  for (int i = 0; i < 1000000 && !HasFatalFailure(); ++i) {
    const uint32_t a = draw.fp32();
    check(a, i % 4 == 0 ? draw.fp32() : draw.near(a));
  }
}

TEST(FpArithmetic, VectorAverageDividesByTheCountRoundedToNearestEven) {
  Probe probe;
  Draw draw(5);
  std::mt19937 rng(6);
  auto check = [&](uint32_t a, uint32_t count) {
    probe.set(a, count);
    ASSERT_EQ(probe.div(), fp32DivCount(a, count)) << std::hex << "fp32 " << a << std::dec << " / " << count;
  };
  const uint32_t counts[] = {0, 1, 2, 3, 7, 9, 25, 49, 255, 4096, 65535, 65536, 131071};
  const uint32_t corners[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x007fffffu, 0x00800000u, 0x00800001u,
                              0x3f800000u, 0x40400000u, 0x7f7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                              0x01000000u, 0x01ffffffu, 0x33800000u};
  for (uint32_t a : corners) {
    for (uint32_t c : counts) check(a, c);
    if (HasFatalFailure()) return;
  }
  for (int i = 0; i < 2000000 && !HasFatalFailure(); ++i) {
    const uint32_t count = rng() % 3 == 0 ? counts[rng() % std::size(counts)] : 1 + rng() % (i % 2 ? 64 : 131071);
    check(draw.fp32(), count);
  }
}

TEST(FpArithmetic, EveryByteAsBinary16) {
  Probe probe;
  for (uint32_t v = 0; v < 256; ++v) {
    probe.set(v);
    ASSERT_EQ(probe.u8(), u8ToFp16(static_cast<uint8_t>(v))) << v;
    ASSERT_EQ(fp16Value(u8ToFp16(static_cast<uint8_t>(v))), static_cast<float>(v)) << v;
  }
}

// SOFTMAX's binary16 mode (weft/hw/softmax_fp16.h): the split of exp(t - M) (as the lane
// registers it: {zero, n, k, r}), the exponential from a split and any table word, and the output
// from any exponential, reciprocal and sum words.
TEST(FpArithmetic, SoftmaxExponentialSplitsAsTheModel) {
  Probe probe;
  Draw draw(7);
  std::mt19937 rng(8);
  auto check = [&](uint32_t t, uint32_t max) {
    const vec::SoftmaxExpSplit s = vec::softmaxExpSplit(t, max);
    const uint32_t packed = s.zero ? 1u << 26 : s.n << 20 | s.k << 12 | s.r;
    probe.set(t, max);
    ASSERT_EQ(probe.split(), packed) << std::hex << "t " << t << " max " << max;
  };
  for (int i = 0; i < 2000000 && !HasFatalFailure(); ++i) {
    // Mostly what the lanes see: binary16 products below a maximum, up to 40 apart.
    if (i % 3 == 0) {
      const uint32_t t = draw.fp32();
      check(t, i % 2 ? draw.near(t) : draw.fp32());
    } else {
      const float max = std::uniform_real_distribution<float>(-100, 100)(rng);
      const float t = max - std::uniform_real_distribution<float>(0, i % 2 ? 40.0f : 1e-3f)(rng);
      check(bitsOf(t), bitsOf(max));
    }
  }
}

TEST(FpArithmetic, SoftmaxExponentialFromAnyTableWord) {
  Probe probe;
  std::mt19937 rng(9);
  for (int i = 0; i < 2000000 && !HasFatalFailure(); ++i) {
    const uint32_t word = static_cast<uint32_t>(rng()) & ((1u << 27) - 1);
    vec::SoftmaxExpSplit s;
    s.zero = (word >> 26) != 0;
    s.n = (word >> 20) & 63;
    s.k = (word >> 12) & 255;
    s.r = word & 4095;
    const uint32_t table = i % 2 ? vec::softmaxFp16TableEntry(s.k) : static_cast<uint32_t>(rng());
    probe.set(word, table);
    ASSERT_EQ(probe.exp(), vec::softmaxExp(s, table)) << std::hex << "split " << word << " table " << table;
  }
}

TEST(FpArithmetic, SoftmaxOutputFromAnyWords) {
  Probe probe;
  Draw draw(10);
  std::mt19937 rng(11);
  for (int i = 0; i < 2000000 && !HasFatalFailure(); ++i) {
    const uint32_t e = i % 2 ? draw.fp32() & 0x7fffffffu : bitsOf(std::uniform_real_distribution<float>(0, 1)(rng));
    const uint32_t sum = i % 3 ? draw.fp32() : bitsOf(std::uniform_real_distribution<float>(1, 5000)(rng));
    const auto scale = static_cast<int32_t>(i % 5 == 0 ? rng() : static_cast<uint32_t>(vec::softmaxFp16Scale(sum)));
    probe.set(e, static_cast<uint32_t>(scale), sum);
    ASSERT_EQ(probe.softmaxOut(), vec::softmaxFp16Output(e, scale, sum))
        << std::hex << "e " << e << " scale " << scale << " sum " << sum;
  }
}

}  // namespace
}  // namespace weft::hw::fp
