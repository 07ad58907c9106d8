// GemmEngine, every implementation this CPU can run, against the GEMM of hw/spec/isa.json
// computed the straightforward way: odd array shapes, every k_rows, signed and unsigned operands
// with extreme zero points (weights that fit a signed byte after the zero point and weights that
// do not), accumulation, and the same weights streamed again (keep_weights).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "weft/hw/fp16.h"
#include "weft/sim/gemm_rows.h"

namespace weft::sim {
namespace {

std::vector<GemmIsa> runnableIsas() {
  std::vector<GemmIsa> isas;
  for (GemmIsa isa : {GemmIsa::kScalar, GemmIsa::kAvx2, GemmIsa::kAvx512}) {
    if (gemmIsaAvailable(isa)) isas.push_back(isa);
  }
  return isas;
}

int32_t operand(uint8_t b, bool isSigned) { return isSigned ? int32_t{static_cast<int8_t>(b)} : int32_t{b}; }

int32_t pickZp(std::mt19937& rng, bool isSigned) {
  static const int32_t unsignedZp[] = {0, 1, 20, 127, 128, 129, 240, 255};
  static const int32_t signedZp[] = {-128, -127, -1, 0, 1, 100, 127};
  if (rng() % 2) return isSigned ? int32_t(rng() % 256) - 128 : int32_t(rng() % 256);
  return isSigned ? signedZp[rng() % 7] : unsignedZp[rng() % 8];
}

class GemmRowsTest : public ::testing::TestWithParam<GemmIsa> {};

TEST_P(GemmRowsTest, MatchesTheStraightforwardGemm) {
  std::mt19937 rng(1234);
  const unsigned shapes[][2] = {{2, 2}, {3, 5}, {5, 12}, {8, 8}, {12, 8}, {16, 16}, {16, 17}, {7, 33},
                                {31, 16}, {32, 32}, {20, 48}, {64, 64}, {4, 8}, {36, 8}};
  for (const auto& shape : shapes) {
    const unsigned R = shape[0], C = shape[1];
    SCOPED_TRACE(testing::Message() << "array " << R << "x" << C);
    GemmEngine engine(R, C, GetParam());
    const uint32_t M = 1 + rng() % 40;
    std::vector<uint8_t> w(R * C), in(M * R + GemmEngine::kInputPadding);
    std::vector<int32_t> acc(M * C), want(M * C);
    for (auto& v : acc) v = static_cast<int32_t>(rng());
    want = acc;
    uint32_t kRows = 0;
    bool wSigned = false;
    int32_t wZp = 0;
    for (int step = 0; step < 12; ++step) {
      const bool keep = step % 4 == 3;
      if (!keep) {
        kRows = step == 0 ? R : rng() % (R + 1);
        wSigned = rng() % 2;
        wZp = pickZp(rng, wSigned);
        // Mostly weights near the zero point (they fit a signed byte), sometimes anything.
        const bool wide = rng() % 3 == 0;
        for (auto& v : w) {
          v = wide ? static_cast<uint8_t>(rng()) : static_cast<uint8_t>(std::clamp<int32_t>(
                         (wSigned ? wZp & 0xFF : wZp) + int32_t(rng() % 200) - 100, 0, 255));
        }
        engine.preload(w.data(), C, kRows, wSigned, wZp);
      }
      const bool inSigned = rng() % 2, accumulate = rng() % 2;
      const int32_t inZp = pickZp(rng, inSigned);
      for (auto& v : in) v = static_cast<uint8_t>(rng());
      engine.stream(in.data(), M, inSigned, inZp, acc.data(), accumulate);
      for (uint32_t m = 0; m < M; ++m) {
        for (uint32_t n = 0; n < C; ++n) {
          uint32_t sum = accumulate ? static_cast<uint32_t>(want[m * C + n]) : 0;
          for (uint32_t k = 0; k < kRows; ++k) {
            sum += static_cast<uint32_t>((operand(in[m * R + k], inSigned) - inZp) *
                                         (operand(w[k * C + n], wSigned) - wZp));
          }
          want[m * C + n] = static_cast<int32_t>(sum);
        }
      }
      ASSERT_EQ(acc, want) << "step " << step << " k_rows " << kRows << " M " << M << " in_zp " << inZp
                           << (inSigned ? " signed" : " unsigned") << " w_zp " << wZp
                           << (wSigned ? " signed" : " unsigned") << (keep ? " kept" : "")
                           << (accumulate ? " accumulating" : "");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Isa, GemmRowsTest, ::testing::ValuesIn(runnableIsas()),
                         [](const auto& info) { return std::string(toString(info.param)); });


// GEMM fp16 against the spec's chain of binary32 sums, written with the RTL's own functions'
// C++ twins (weft/hw/fp16.h) one step at a time: binary16 corner values (zeros of both signs,
// subnormals, infinities, NaNs, the largest finite), products that overflow binary16 but not
// binary32, accumulation onto arbitrary words, keep_weights after an int8 preload with a zero
// point (the pair reads the operands' low bytes), and an odd kept k_rows (its last row unpaired).
namespace fp = hw::fp;

uint16_t anyHalf(std::mt19937& rng) {
  static const uint16_t corners[] = {0x0000, 0x8000, 0x0001, 0x83ff, 0x3c00, 0xbc00, 0x7bff, 0xfbff,
                                     0x7c00, 0xfc00, 0x7e00, 0x7d01, 0x0400, 0x5bff, 0x2e66};
  if (rng() % 4 == 0) return corners[rng() % std::size(corners)];
  // Mostly moderate values so that sums keep their precision and rounding shows.
  const uint16_t exp = static_cast<uint16_t>(8 + rng() % 16);
  return static_cast<uint16_t>((rng() % 2) << 15 | exp << 10 | (rng() % 1024));
}

TEST_P(GemmRowsTest, Fp16MatchesTheSpecsChainOfSums) {
  std::mt19937 rng(77);
  const unsigned shapes[][2] = {{2, 2}, {4, 5}, {8, 8}, {16, 16}, {6, 17}, {32, 12}};
  for (const auto& shape : shapes) {
    const unsigned R = shape[0], C = shape[1];
    SCOPED_TRACE(testing::Message() << "array " << R << "x" << C);
    GemmEngine engine(R, C, GetParam());
    const uint32_t M = 1 + rng() % 20;
    std::vector<uint8_t> w(R * C), in(M * R + GemmEngine::kInputPadding);
    std::vector<uint32_t> acc(M * C), want;
    for (auto& v : acc) v = rng() % 3 == 0 ? static_cast<uint32_t>(rng()) : fp::fp16ToFp32(anyHalf(rng));
    want = acc;
    std::vector<int32_t> pe(R * C, 0);  // the PE operands: w - w_zp
    uint32_t kRows = 0;
    for (int step = 0; step < 10; ++step) {
      const bool keep = step % 3 == 2;
      if (!keep) {
        const bool int8 = step == 4;  // an int8 preload (zero point 3) an fp16 GEMM then keeps
        kRows = int8 ? 1 + rng() % R : 2 * (1 + rng() % (R / 2));
        for (unsigned k = 0; k + 1 < R; k += 2) {
          for (unsigned n = 0; n < C; ++n) {
            const uint16_t h = anyHalf(rng);
            w[k * C + n] = static_cast<uint8_t>(h);
            w[(k + 1) * C + n] = static_cast<uint8_t>(h >> 8);
          }
        }
        const int32_t zp = int8 ? 3 : 0;
        engine.preload(w.data(), C, kRows, false, zp);
        for (unsigned i = 0; i < R * C; ++i) pe[i] = (i / C < kRows) ? int32_t{w[i]} - zp : 0;
      }
      for (uint32_t m = 0; m < M; ++m) {
        for (unsigned k = 0; k + 1 < R; k += 2) {
          const uint16_t h = anyHalf(rng);
          in[m * R + k] = static_cast<uint8_t>(h);
          in[m * R + k + 1] = static_cast<uint8_t>(h >> 8);
        }
      }
      const bool accumulate = rng() % 2;
      engine.streamFp16(in.data(), M, acc.data(), accumulate);
      for (uint32_t m = 0; m < M; ++m) {
        for (unsigned n = 0; n < C; ++n) {
          uint32_t p = 0;
          for (uint32_t j = 0; j < kRows / 2; ++j) {
            const auto x = static_cast<uint16_t>(in[m * R + 2 * j] | in[m * R + 2 * j + 1] << 8);
            const auto wj = static_cast<uint16_t>((pe[2 * j * C + n] & 0xff) | (pe[(2 * j + 1) * C + n] & 0xff) << 8);
            p = fp::fp32Add(p, fp::fp16Mul(x, wj));
          }
          uint32_t& want_mn = want[m * C + n];
          want_mn = accumulate ? fp::fp32Add(want_mn, p) : p;
        }
      }
      ASSERT_EQ(acc, want) << "step " << step << ", k_rows " << kRows;
    }
  }
}

TEST(Fp16Store, RoundsClampsAndKeepsNaN) {
  const uint16_t noClampLo = 0xfc00, noClampHi = 0x7c00;  // -inf, +inf
  EXPECT_EQ(fp::storeFp16(fp::bitsOf(1.0f), fp::bitsOf(0.5f), noClampLo, noClampHi), 0x3e00);  // 1.5
  // Rounding to nearest even: 1 + 2^-11 is halfway between 1 and the next binary16.
  EXPECT_EQ(fp::storeFp16(fp::bitsOf(1.0f + 0x1p-11f), 0, noClampLo, noClampHi), 0x3c00);
  EXPECT_EQ(fp::storeFp16(fp::bitsOf(70000.0f), 0, noClampLo, noClampHi), 0x7c00);  // past 65504
  // relu (clamp to [+0, +inf]) and relu6 ([0, 6] = [0x0000, 0x4600]).
  EXPECT_EQ(fp::storeFp16(fp::bitsOf(-3.0f), 0, 0x0000, noClampHi), 0x0000);
  EXPECT_EQ(fp::storeFp16(fp::bitsOf(-0.0f), 0x80000000u, 0x0000, noClampHi), 0x8000);  // -0 is not below +0
  EXPECT_EQ(fp::storeFp16(fp::bitsOf(9.0f), 0, 0x0000, 0x4600), 0x4600);
  EXPECT_EQ(fp::storeFp16(fp::kFp32QuietNaN, 0, 0x0000, 0x4600), fp::kFp16QuietNaN);  // a NaN is not clamped
  EXPECT_EQ(fp::storeFp16(fp::bitsOf(-1.0f), fp::bitsOf(1.0f), 0x0000, 0x4600), 0x0000);
}

}  // namespace
}  // namespace weft::sim
