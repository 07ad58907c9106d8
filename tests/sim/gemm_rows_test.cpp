// GemmEngine, every implementation this CPU can run, against the GEMM of hw/spec/isa.json
// computed the straightforward way: odd array shapes, every k_rows, signed and unsigned operands
// with extreme zero points (weights that fit a signed byte after the zero point and weights that
// do not), accumulation, and the same weights streamed again (keep_weights).
#include <gtest/gtest.h>

#include <random>
#include <vector>

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

}  // namespace
}  // namespace weft::sim
