// The fp16 datapath (hardware with Fp16, weft16fp): GEMM fp16 and STORE mode fp16 through the
// RTL, compared bit for bit with the C++ reference (reference.h, weft/hw/fp16.h).
//   - random tiles: binary16 inputs and weights with the corner values (zeros of both signs,
//     subnormals, infinities, NaNs, the largest finite values, sums past binary16's range),
//     even k_rows, accumulate chains, keep_weights (also of int8-loaded weights), int8 GEMMs
//     on other accumulator rows interleaved with the fp16 ones, fp16 stores with random binary32
//     bias words and clamps (relu, relu6, none, random), raw32 stores of the binary32 sums;
//   - hand-computed values, the order of the sums among them;
//   - decode: fp16 commands are rejected without Fp16 (bad_value), an odd k_rows is bad_length;
//   - timing: an fp16 GEMM takes the cycles of an int8 one, a fp16 store those of its bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>
#include <random>
#include <string>

#include "session.h"
#include "tile_programs.h"

namespace weft::rtltest {
namespace {

constexpr uint32_t kRing = 256;  // commands: a program of three tiles needs up to 63

// Binary16 patterns.
constexpr uint16_t kPlusZero = 0x0000, kMinusZero = 0x8000, kOne = 0x3c00, kPlusInf = 0x7c00,
                   kMinusInf = 0xfc00, kSix = 0x4600, kMaxFinite = 0x7bff;

class Fp16Tiles : public TilePrograms {
 public:
  Fp16Tiles(RtlDevice& dev, uint32_t seed) : TilePrograms(dev, seed, Session::kOutputs, kRing) {}

 protected:
  // A random binary16 value: mostly normal values of moderate range (so sums cancel and round),
  // and with probability `special` percent a corner value.
  uint16_t half(int special) {
    const auto sign = static_cast<uint16_t>(coin() ? 0x8000 : 0);
    const auto mant = static_cast<uint16_t>(uniform(0, 0x3ff));
    if (uniform(0, 99) < special) {
      switch (uniform(0, 9)) {
        case 0: return sign;                                                          // +-0
        case 1: return static_cast<uint16_t>(sign | std::max<uint16_t>(mant, 1));    // subnormal
        case 2: return static_cast<uint16_t>(sign | kPlusInf);                       // +-inf
        case 3: return static_cast<uint16_t>(sign | kPlusInf | std::max<uint16_t>(mant, 1));  // NaN, any payload
        case 4: return static_cast<uint16_t>(sign | kMaxFinite);
        case 5: return static_cast<uint16_t>(sign | 0x0400);                         // least normal
        case 6: return static_cast<uint16_t>(sign | (uniform(26, 30) << 10) | mant);  // sums past 65504
        default: return static_cast<uint16_t>(uniform(0, 0xffff));
      }
    }
    // Exponents 2^-14 .. 2^5: products from 2^-28 (binary16 subnormal results) to 2^10.
    return static_cast<uint16_t>(sign | (uniform(1, 20) << 10) | mant);
  }

  // A binary32 bias word: binary16-range values, zeros, anything, huge, infinities and NaNs.
  uint32_t biasWord() {
    switch (uniform(0, 9)) {
      case 0: return coin() ? 0x00000000u : 0x80000000u;
      case 1: return std::uniform_int_distribution<uint32_t>()(rng_);
      case 2: return (coin() ? 0x80000000u : 0) | (uint32_t(uniform(250, 254)) << 23) | uint32_t(uniform(0, 0x7fffff));
      case 3: return (coin() ? 0x80000000u : 0) | 0x7f800000u | uint32_t(coin() ? 0 : uniform(1, 0x7fffff));
      case 4: return (coin() ? 0x80000000u : 0) | uint32_t(uniform(1, 0x7fffff));  // binary32 subnormal
      default: return hw::fp::fp16ToFp32(half(0));
    }
  }

  // binary16 clamps: relu, relu6, none, -0, random ordered, anything.
  void clamps(hw::StoreCmd& s) {
    uint16_t lo, hi;
    switch (uniform(0, 9)) {
      case 0: case 1: case 2: lo = kPlusZero; hi = kPlusInf; break;
      case 3: case 4: lo = kPlusZero; hi = kSix; break;
      case 5: lo = kMinusInf; hi = kPlusInf; break;
      case 6: lo = kMinusZero; hi = coin() ? kPlusInf : kMaxFinite; break;
      case 7: lo = static_cast<uint16_t>(uniform(0, 0xffff)); hi = static_cast<uint16_t>(uniform(0, 0xffff)); break;
      default: {
        lo = half(0);
        hi = half(0);
        if (hw::fp::fp16Value(hi) < hw::fp::fp16Value(lo)) std::swap(lo, hi);
      }
    }
    s.clampMin = lo;
    s.clampMax = hi;
  }

  // Puts `bytes` (rows of rowSize bytes) in DRAM and returns a LOAD of their first `rowBytes`
  // bytes a row into dst at spad (the reference updated).
  hw::CommandWord loadRows(hw::Mem dst, uint32_t spad, const std::vector<uint8_t>& bytes, uint32_t rowSize,
                           uint32_t rowBytes) {
    const uint64_t addr = alloc(bytes.size());
    dev_.dram().put(addr, bytes);
    hw::LoadCmd l = Session::load(dst, spad, addr, rowBytes, static_cast<uint32_t>(bytes.size() / rowSize));
    l.stride0 = rowSize;
    ref_.load(l, dev_.dram().at(0));
    return l.encode();
  }

  // A GEMM fp16 (m rows onto accAddr) or an int8 one, with its loads appended to loads.
  hw::GemmCmd gemm(bool fp16, uint32_t m, uint32_t accAddr, bool accumulate, bool keep, int special,
                   std::vector<hw::CommandWord>& loads) {
    const auto& cfg = dev_.config();
    const unsigned R = cfg.rows(), C = cfg.cols();
    hw::GemmCmd g;
    g.fp16 = fp16;
    g.accumulate = accumulate;
    g.keepWeights = keep;
    g.accAddr = accAddr;
    const uint32_t span = stridedShape(g, m);
    g.inAddr = uniform(0, cfg.inSpadRows() - span);
    std::vector<uint8_t> in(size_t{span} * R);
    if (fp16) {
      for (size_t i = 0; i < in.size(); i += 2) {
        const uint16_t h = half(special);
        in[i] = static_cast<uint8_t>(h);
        in[i + 1] = static_cast<uint8_t>(h >> 8);
      }
    } else {
      g.inSigned = coin();
      g.inZp = g.inSigned ? uniform(-128, 127) : uniform(0, 255);
      for (auto& b : in) b = static_cast<uint8_t>(uniform(0, 255));
    }
    loads.push_back(loadRows(hw::Mem::kIn, g.inAddr, in, R, coin(80) ? R : uniform(1, R)));
    if (keep) {
      g.wAddr = uniform(0, 0xffff);  // ignored, like k_rows, w_zp and w_signed
      g.kRows = uniform(0, 255);
      g.wSigned = coin();
      g.wZp = uniform(-32768, 32767);
      return g;
    }
    g.kRows = fp16 ? 2 * uniform(1, R / 2) : uniform(1, R);
    g.wAddr = uniform(0, cfg.wSpadRows() - g.kRows);
    std::vector<uint8_t> w(size_t{g.kRows} * C);
    if (fp16) {
      // Rows 2j and 2j+1 hold the low and high bytes of w_j[n].
      for (unsigned j = 0; j < g.kRows / 2; ++j)
        for (unsigned n = 0; n < C; ++n) {
          const uint16_t h = half(special);
          w[size_t{2 * j} * C + n] = static_cast<uint8_t>(h);
          w[size_t{2 * j + 1} * C + n] = static_cast<uint8_t>(h >> 8);
        }
    } else {
      g.wSigned = coin();
      g.wZp = g.wSigned ? uniform(-128, 127) : uniform(0, 255);
      for (auto& b : w) b = static_cast<uint8_t>(uniform(0, 255));
    }
    loads.push_back(loadRows(hw::Mem::kW, g.wAddr, w, C, coin(85) ? C : uniform(1, C)));
    return g;
  }

  // One tile: a chain of fp16 GEMMs onto accumulator rows A and int8 GEMMs onto rows B,
  // interleaved; then fp16 and raw32 stores of A, raw32 and requant8 stores of B.
  void tile(std::vector<hw::CommandWord>& cmds, uint64_t& out) override {
    const auto& cfg = dev_.config();
    const unsigned C = cfg.cols();
    const int special = std::array<int, 5>{0, 1, 3, 10, 30}[uniform(0, 4)];
    const uint32_t m = uniform(1, 40), mb = uniform(1, 24);
    const uint32_t accA = uniform(0, cfg.accRows() / 2 - m);
    const uint32_t accB = uniform(cfg.accRows() / 2, cfg.accRows() - mb);
    const int nFp = uniform(1, 3), nInt = uniform(0, 2);

    // The order: fp16 GEMMs and int8 GEMMs, each in its own order, randomly merged.
    std::vector<bool> order(nFp, true);
    order.insert(order.end(), nInt, false);
    std::shuffle(order.begin(), order.end(), rng_);

    std::vector<hw::CommandWord> loads;
    std::vector<hw::GemmCmd> gemmsA, gemmsB, all;
    for (size_t i = 0; i < order.size(); ++i) {
      const bool fp = order[i];
      const bool firstOfRange = fp ? gemmsA.empty() : gemmsB.empty();
      // keep_weights takes the previous GEMM's weights whatever its mode (int8 weights for a
      // GEMM fp16 too: their low bytes, k_rows possibly odd).
      const bool keep = i > 0 && coin(35);
      const bool accumulate = !firstOfRange ? coin(85) : coin(20);
      const auto g = gemm(fp, fp ? m : mb, fp ? accA : accB, accumulate, keep, special, loads);
      (fp ? gemmsA : gemmsB).push_back(g);
      all.push_back(g);
    }

    // Parameter rows: random binary32 bias words (and int multipliers and shifts, which the
    // fp16 mode ignores); two rows for the stores of two tiles.
    const uint32_t paramRow = uniform(0, cfg.paramRows() - 2);
    std::vector<uint8_t> prow(2 * size_t{cfg.paramRowBytes()});
    for (unsigned t = 0; t < 2; ++t) {
      uint8_t* p = &prow[t * size_t{cfg.paramRowBytes()}];
      for (unsigned n = 0; n < C; ++n) {
        const uint32_t bias = biasWord();
        const auto mult = static_cast<int32_t>(uniform(1 << 30, std::numeric_limits<int32_t>::max()));
        std::memcpy(p + 4 * n, &bias, 4);
        std::memcpy(p + 4 * (C + n), &mult, 4);
        p[8 * C + n] = static_cast<uint8_t>(uniform(-8, 8));
      }
    }
    cmds.push_back(loadRows(hw::Mem::kParam, paramRow, prow, cfg.paramRowBytes(), cfg.paramRowBytes()));
    cmds.insert(cmds.end(), loads.begin(), loads.end());
    // The last load signals the compute unit; loads complete in order.
    hw::LoadCmd last = hw::LoadCmd::decode(cmds.back());
    last.header = tokens(false, false, false, true);
    cmds.back() = last.encode();
    for (size_t g = 0; g < all.size(); ++g) {
      all[g].header = tokens(g == 0, false, false, g + 1 == all.size());
      ref_.gemm(all[g]);
      cmds.push_back(all[g].encode());
    }

    // fp16 store of A: one or two tiles (the second re-reads the rows with the next parameter
    // row), a 2-level pattern.
    hw::StoreCmd h;
    h.header = tokens(true, false, false, false);
    h.mode = hw::StoreMode::kFp16;
    h.tiles = coin(25) ? 2 : 1;
    h.tileAccStride = 0;
    h.rowBytes = uniform(1, C);
    h.paramRow = paramRow;
    h.count0 = uniform(1, m);
    h.count1 = m / h.count0;
    h.accAddr = accA + uniform(0, m - h.count0 * h.count1);
    h.dramAddr = out + uniform(0, 3);
    h.stride0 = 2 * ((h.tiles - 1) * C + h.rowBytes) + uniform(0, 9);
    h.stride1 = h.stride0 * h.count0 + uniform(0, 9);
    clamps(h);
    out = h.dramAddr + uint64_t{h.stride1} * h.count1 + 64;
    addStore(cmds, h, gemmsA);

    // raw32 store of A: the binary32 sums (plus the bias word as an int32).
    hw::StoreCmd raw;
    raw.mode = hw::StoreMode::kRaw32;
    raw.rowBytes = C;
    raw.paramRow = paramRow;
    raw.accAddr = accA;
    raw.dramAddr = out;
    raw.stride0 = 4 * C;
    raw.count0 = m;
    raw.count1 = 1;
    out += uint64_t{raw.stride0} * m + 64;
    addStore(cmds, raw, gemmsA);

    if (!gemmsB.empty()) {
      raw.accAddr = accB;
      raw.count0 = mb;
      raw.dramAddr = out;
      out += uint64_t{raw.stride0} * mb + 64;
      addStore(cmds, raw, gemmsB);
      hw::StoreCmd q;
      q.mode = hw::StoreMode::kRequant8;
      q.rowBytes = uniform(1, C);
      q.paramRow = paramRow + 1;
      q.accAddr = accB;
      q.dramAddr = out;
      q.stride0 = q.rowBytes;
      q.count0 = mb;
      q.count1 = 1;
      q.outZp = uniform(-128, 127);
      q.clampMin = -128;
      q.clampMax = 127;
      out += uint64_t{q.stride0} * mb + 64;
      addStore(cmds, q, gemmsB);
    }
  }

  std::string describeGemm(const hw::GemmCmd& g) const override {
    return std::string(g.fp16 ? "fp16" : "int8") + " m " + std::to_string(g.mRows) + "x" + std::to_string(g.mGroups) +
           " k " + std::to_string(g.kRows) + (g.accumulate ? " +" : "") + (g.keepWeights ? " keep" : "");
  }
};

bool hasFp16(const std::string& config) { return hw::HwConfig::load(config).get(hw::Param::kFp16) != 0; }

class RtlFp16 : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!hasFp16(GetParam())) GTEST_SKIP() << GetParam() << " has no fp16 datapath";
  }
};

TEST_P(RtlFp16, RandomTilesMatchTheReferenceBitExact) {
  RtlDevice dev(GetParam());
  dev.initRing(kRing);
  // One reference for the whole sequence: tiles may accumulate onto earlier programs' rows.
  Fp16Tiles t(dev, 7);
  for (int program = 0; program < 80; ++program) {
    SCOPED_TRACE(program);
    t.run(3);
    if (HasFatalFailure()) return;
  }
}

// binary16 pairs of bytes as a scratchpad row: x_j in bytes 2j, 2j+1.
std::vector<uint8_t> halfRow(const std::vector<uint16_t>& h, unsigned bytes) {
  std::vector<uint8_t> row(bytes, 0);
  for (size_t j = 0; j < h.size(); ++j) {
    row[2 * j] = static_cast<uint8_t>(h[j]);
    row[2 * j + 1] = static_cast<uint8_t>(h[j] >> 8);
  }
  return row;
}

uint32_t word(const std::vector<uint8_t>& bytes, size_t at) {
  uint32_t v;
  std::memcpy(&v, &bytes[at], 4);
  return v;
}
uint16_t half16(const std::vector<uint8_t>& bytes, size_t at) {
  return static_cast<uint16_t>(bytes[at] | bytes[at + 1] << 8);
}

// Values worked out by hand: the sums run j = 0, 1, 2 in order and round at each step.
TEST_P(RtlFp16, HandComputedSumsInOrder) {
  Session s(GetParam());
  const unsigned R = s.dev.rows(), C = s.dev.cols();
  ASSERT_GE(R, 6u);
  ASSERT_GE(C, 7u);
  // x = (4096, 1, 1); column n's weights w_n = (w_n0, w_n1, w_n2).
  const std::vector<uint16_t> x = {0x6c00, kOne, kOne};
  const std::vector<std::vector<uint16_t>> w = {
      {0x6c00, kOne, kOne},        // 2^24 + 1 + 1: each tie rounds to even, 2^24 (reversed: 2^24 + 2)
      {kOne, kOne, 0x3800},        // 4096 + 1 + 0.5 = 4097.5, exact in binary32; binary16 4096
      {0xbc00, 0, 0},              // -4096
      {kPlusInf, 0, 0},            // inf
      {0x7e01, kOne, kOne},        // a NaN (any payload): the canonical NaN
      {kMinusZero, kMinusZero, kMinusZero},  // +0 + -0 + -0 + -0 = +0
      {0x0001, 0, 0},              // 4096 * 2^-24 = 2^-12
  };
  std::vector<uint8_t> wrows(size_t{6} * C, 0);
  for (size_t n = 0; n < w.size(); ++n)
    for (size_t j = 0; j < 3; ++j) {
      wrows[2 * j * C + n] = static_cast<uint8_t>(w[n][j]);
      wrows[(2 * j + 1) * C + n] = static_cast<uint8_t>(w[n][j] >> 8);
    }
  s.add(Session::load(hw::Mem::kIn, 5, s.put(halfRow(x, R)), R, 1));
  s.add(Session::load(hw::Mem::kW, 9, s.put(wrows), C, 6));
  s.add(Session::load(hw::Mem::kParam, 2, s.put(std::vector<uint8_t>(s.dev.config().paramRowBytes(), 0)),
                      s.dev.config().paramRowBytes(), 1, tokens(false, false, false, true)));
  hw::GemmCmd g;
  g.header = tokens(true, false, false, true);
  g.fp16 = true;
  g.kRows = 6;
  g.wAddr = 9;
  g.inAddr = 5;
  g.mRows = 1;
  g.accAddr = 3;
  s.add(g);
  hw::StoreCmd raw;
  raw.header = tokens(true, false, false, false);
  raw.mode = hw::StoreMode::kRaw32;
  raw.rowBytes = C;
  raw.paramRow = 2;
  raw.accAddr = 3;
  raw.dramAddr = Session::kOutputs;
  raw.stride0 = 4 * C;
  raw.count0 = raw.count1 = 1;
  s.add(raw);
  hw::StoreCmd h = raw;
  h.header = {};
  h.mode = hw::StoreMode::kFp16;
  h.dramAddr = Session::kOutputs + 0x100;
  h.stride0 = 2 * C;
  h.clampMin = kMinusInf;
  h.clampMax = kPlusInf;
  s.add(h);
  h.dramAddr = Session::kOutputs + 0x200;  // relu
  h.clampMin = kPlusZero;
  s.add(h);
  h.dramAddr = Session::kOutputs + 0x300;  // relu6
  h.clampMax = kSix;
  s.add(h);
  ASSERT_EQ(s.run(), hw::reg::kIrqStatusDoneMask);
  EXPECT_EQ(s.firstMismatch(), -1) << "the reference";

  const auto out = s.dev.dram().get(Session::kOutputs, 0x400);
  const std::vector<uint32_t> sums = {0x4b800000, 0x45800c00, 0xc5800000, 0x7f800000, 0x7fc00000, 0x00000000, 0x39800000};
  const std::vector<uint16_t> none = {kPlusInf, 0x6c00, 0xec00, kPlusInf, 0x7e00, 0x0000, 0x0c00};
  const std::vector<uint16_t> relu = {kPlusInf, 0x6c00, 0x0000, kPlusInf, 0x7e00, 0x0000, 0x0c00};
  const std::vector<uint16_t> relu6 = {kSix, kSix, 0x0000, kSix, 0x7e00, 0x0000, 0x0c00};
  for (size_t n = 0; n < sums.size(); ++n) {
    SCOPED_TRACE(n);
    EXPECT_EQ(hex(word(out, 4 * n), 8), hex(sums[n], 8));
    EXPECT_EQ(hex(half16(out, 0x100 + 2 * n), 4), hex(none[n], 4));
    EXPECT_EQ(hex(half16(out, 0x200 + 2 * n), 4), hex(relu[n], 4));
    EXPECT_EQ(hex(half16(out, 0x300 + 2 * n), 4), hex(relu6[n], 4));
  }
  // Columns without weights: +0 (p starts at +0); nothing past the row.
  EXPECT_EQ(word(out, 4 * (C - 1)), 0u);
  EXPECT_EQ(half16(out, 0x100 + 2 * C), 0u);
}

// Runs cmds (after the previous program has drained) and returns the counter's increase.
uint64_t delta(RtlDevice& dev, const std::vector<hw::CommandWord>& cmds, hw::Counter c) {
  const uint64_t before = dev.stepper().readCounter(c);
  std::vector<hw::CommandWord> prog = cmds;
  prog.push_back(barrier(true));
  EXPECT_EQ(dev.run(prog), hw::reg::kIrqStatusDoneMask);
  return dev.stepper().readCounter(c) - before;
}

// rtl/README.md: a GEMM fp16 streams exactly like an int8 GEMM; a fp16 store's timing is
// that of its bytes (two a column).
TEST_P(RtlFp16, Fp16CommandsTakeTheCyclesOfTheirInt8Shape) {
  constexpr uint64_t kWriteLatency = 6;
  RtlDevice dev(GetParam(), 12, kWriteLatency);
  dev.initRing();
  const unsigned R = dev.rows(), C = dev.cols(), B = dev.config().busBytes();
  for (uint32_t m : {1u, 7u, 40u}) {
    for (unsigned k : {2u, R}) {
      hw::GemmCmd g;
      g.fp16 = true;
      g.kRows = k;
      g.mRows = m;
      EXPECT_EQ(delta(dev, {g.encode()}, hw::Counter::kComputeActive), m + R + C + 1) << "m " << m << " k " << k;
    }
  }
  std::vector<hw::CommandWord> stream;
  for (int i = 0; i < 6; ++i) {
    hw::GemmCmd g;
    g.fp16 = i % 3 != 1;  // int8 GEMMs in between
    g.kRows = R;
    g.mRows = 40;
    g.wAddr = (i % 2) * R;
    g.accAddr = (i % 2) * 40;
    g.accumulate = i > 1;
    g.keepWeights = (i == 5);
    stream.push_back(g.encode());
  }
  EXPECT_EQ(delta(dev, stream, hw::Counter::kComputeActive), 6 * 40 + R + C + 1);
  // FP16_ROWS counts the fp16 GEMMs' rows (4 of the 6), ARRAY_ROWS every row.
  EXPECT_EQ(delta(dev, stream, hw::Counter::kFp16Rows), 4 * 40u);
  EXPECT_EQ(delta(dev, stream, hw::Counter::kArrayRows), 6 * 40u);

  hw::StoreCmd s;
  s.mode = hw::StoreMode::kFp16;
  s.rowBytes = C;
  s.dramAddr = 0x500000;
  s.stride0 = 4 * C;
  s.count0 = 10;
  s.count1 = 1;
  const uint64_t beats = (2 * C + B - 1) / B;
  const uint64_t bytesBefore = dev.stepper().readCounter(hw::Counter::kDmaWrBytes);
  EXPECT_EQ(delta(dev, {s.encode()}, hw::Counter::kStoreActive), 10 * beats + 5 + kWriteLatency);
  EXPECT_EQ(dev.stepper().readCounter(hw::Counter::kDmaWrBytes) - bytesBefore, 10u * 2 * C);
  // The same bytes in raw32 (half the columns) take the same cycles.
  hw::StoreCmd r = s;
  r.mode = hw::StoreMode::kRaw32;
  r.rowBytes = C / 2;
  EXPECT_EQ(delta(dev, {r.encode()}, hw::Counter::kStoreActive), 10 * beats + 5 + kWriteLatency);
  // Single-beat rows.
  s.rowBytes = std::min(C, B / 2);
  EXPECT_EQ(delta(dev, {s.encode()}, hw::Counter::kStoreActive), 10 + 5 + kWriteLatency);
  // Two tiles a row: one request of both tiles' bytes, 2 * (Cols + row_bytes); the first row's
  // request waits for its second tile, issued a cycle after the first.
  if (C % B == 0) {
    s.tiles = 2;
    s.rowBytes = C;
    const uint64_t reqsBefore = dev.stepper().readCounter(hw::Counter::kDmaWrReqs);
    const uint64_t before = dev.stepper().readCounter(hw::Counter::kDmaWrBytes);
    EXPECT_EQ(delta(dev, {s.encode()}, hw::Counter::kStoreActive), 10 * (4 * C / B) + 1 + 5 + kWriteLatency);
    EXPECT_EQ(dev.stepper().readCounter(hw::Counter::kDmaWrBytes) - before, 10u * 4 * C);
    EXPECT_EQ(dev.stepper().readCounter(hw::Counter::kDmaWrReqs) - reqsBefore, 10u);
  }
}

INSTANTIATE_TEST_SUITE_P(rtl, RtlFp16, ::testing::Values("weft16fp"), configName);

// Runs one command and returns the error it halts with (0: none).
uint32_t errorOf(RtlDevice& dev, const hw::CommandWord& cmd) {
  dev.place({cmd, barrier(true)});
  dev.ring();
  const uint32_t irq = dev.waitIrq(10000);
  const uint32_t error = irq == hw::reg::kIrqStatusErrorMask ? dev.status().error : 0;
  EXPECT_EQ(error, static_cast<uint32_t>(hw::checkCommand(cmd, dev.config()))) << "the models agree";
  dev.softReset();
  dev.stepper().step(2);
  return error;
}

hw::GemmCmd fp16Gemm(unsigned k) {
  hw::GemmCmd g;
  g.fp16 = true;
  g.kRows = k;
  g.mRows = 2;
  return g;
}
hw::StoreCmd fp16Store() {
  hw::StoreCmd s;
  s.mode = hw::StoreMode::kFp16;
  s.rowBytes = 2;
  s.dramAddr = Session::kOutputs;
  s.stride0 = 4;
  s.count0 = 2;
  s.count1 = 1;
  return s;
}

// The vector unit's binary16 mode: a 3x3 average over a 3x3 tile, and a lookup.
hw::WindowCmd fp16Window() {
  hw::WindowCmd w;
  w.fp16 = true;
  w.kind = hw::WinKind::kAvg;
  w.dm = 1;
  w.tileH = w.tileW = 3;
  w.pixStride = 1;
  w.rowStride = 3;
  w.outH = w.outW = 1;
  w.kH = w.kW = 3;
  w.sH = w.sW = w.dH = w.dW = 1;
  return w;
}
hw::EltwiseCmd fp16Lookup() {
  hw::EltwiseCmd e;
  e.fp16 = true;
  e.kind = hw::EltKind::kLut;
  e.count0 = e.count1 = 1;
  return e;
}

TEST(RtlFp16Decode, Fp16CommandsNeedTheFp16Datapath) {
  const auto bad = static_cast<uint32_t>(hw::Error::kBadValue);
  for (const char* config : {"weft16", "weft8"}) {
    SCOPED_TRACE(config);
    RtlDevice dev(config);
    dev.initRing();
    EXPECT_EQ(errorOf(dev, fp16Gemm(2).encode()), bad);
    hw::GemmCmd keep = fp16Gemm(2);
    keep.keepWeights = true;
    EXPECT_EQ(errorOf(dev, keep.encode()), bad);
    EXPECT_EQ(errorOf(dev, fp16Store().encode()), bad);
    hw::StoreCmd affine = fp16Store();
    affine.mode = hw::StoreMode::kFp16Affine;
    EXPECT_EQ(errorOf(dev, affine.encode()), bad);
    EXPECT_EQ(errorOf(dev, fp16Window().encode()), bad);
    EXPECT_EQ(errorOf(dev, fp16Lookup().encode()), bad);
  }
}

TEST(RtlFp16Decode, Fp16FieldRules) {
  if (!hasFp16("weft16fp")) GTEST_SKIP();
  RtlDevice dev("weft16fp");
  dev.initRing();
  const auto badValue = static_cast<uint32_t>(hw::Error::kBadValue);
  const auto badLength = static_cast<uint32_t>(hw::Error::kBadLength);
  EXPECT_EQ(errorOf(dev, fp16Gemm(2).encode()), 0u);
  EXPECT_EQ(errorOf(dev, fp16Gemm(dev.rows()).encode()), 0u);
  EXPECT_EQ(errorOf(dev, fp16Gemm(3).encode()), badLength) << "odd k_rows";
  EXPECT_EQ(errorOf(dev, fp16Gemm(1).encode()), badLength) << "odd k_rows";
  hw::GemmCmd g = fp16Gemm(2);
  g.inZp = 1;
  EXPECT_EQ(errorOf(dev, g.encode()), badValue) << "in_zp";
  g = fp16Gemm(2);
  g.inSigned = true;
  EXPECT_EQ(errorOf(dev, g.encode()), badValue) << "in_signed";
  g = fp16Gemm(2);
  g.wZp = 3;
  EXPECT_EQ(errorOf(dev, g.encode()), badValue) << "w_zp";
  g = fp16Gemm(2);
  g.wSigned = true;
  EXPECT_EQ(errorOf(dev, g.encode()), badValue) << "w_signed";
  // keep_weights ignores the weight fields, k_rows included.
  g = fp16Gemm(3);
  g.keepWeights = true;
  g.wZp = 3;
  g.wSigned = true;
  EXPECT_EQ(errorOf(dev, g.encode()), 0u);
  EXPECT_EQ(errorOf(dev, fp16Store().encode()), 0u);
  // The vector unit: binary16 windows and element-wise commands take no zero points or signed
  // bytes; lookups, sums and products only.
  EXPECT_EQ(errorOf(dev, fp16Window().encode()), 0u);
  hw::WindowCmd w = fp16Window();
  w.inZp = 1;
  EXPECT_EQ(errorOf(dev, w.encode()), badValue) << "window in_zp";
  w = fp16Window();
  w.kind = hw::WinKind::kDwconv;
  w.wSigned = true;
  EXPECT_EQ(errorOf(dev, w.encode()), badValue) << "window w_signed";
  EXPECT_EQ(errorOf(dev, fp16Lookup().encode()), 0u);
  hw::EltwiseCmd e = fp16Lookup();
  e.kind = hw::EltKind::kAdd;
  EXPECT_EQ(errorOf(dev, e.encode()), 0u) << "an fp16 add";
  e.kind = hw::EltKind::kMul;
  EXPECT_EQ(errorOf(dev, e.encode()), 0u) << "an fp16 mul";
  e.bZp = 2;
  EXPECT_EQ(errorOf(dev, e.encode()), badValue) << "an fp16 mul's b_zp";
  e = fp16Lookup();
  e.kind = hw::EltKind::kAdd;
  e.aSigned = true;
  EXPECT_EQ(errorOf(dev, e.encode()), badValue) << "an fp16 add's a_signed";
  e = fp16Lookup();
  e.aZp = 1;
  EXPECT_EQ(errorOf(dev, e.encode()), badValue) << "an fp16 lookup's a_zp";
  e = fp16Lookup();
  e.kind = hw::EltKind::kCopy;
  EXPECT_EQ(errorOf(dev, e.encode()), badValue) << "an fp16 copy";
  // LAYER_NORM in binary16: unsigned bytes, no zero point, at most Cols/2 lanes in its last row;
  // STORE fp16_affine.
  hw::LayerNormCmd n;
  n.fp16 = true;
  n.count = 2;
  n.stride = 1;
  n.accStride = 1;
  n.lastLanes = dev.cols() / 2;
  EXPECT_EQ(errorOf(dev, n.encode()), 0u);
  n.inSigned = true;
  EXPECT_EQ(errorOf(dev, n.encode()), badValue) << "an fp16 layer norm's in_signed";
  n.inSigned = false;
  n.inZp = 1;
  EXPECT_EQ(errorOf(dev, n.encode()), badValue) << "an fp16 layer norm's in_zp";
  n.inZp = 0;
  n.lastLanes = dev.cols() / 2 + 1;
  EXPECT_EQ(errorOf(dev, n.encode()), badLength) << "an fp16 layer norm's last_lanes";
  hw::StoreCmd affine = fp16Store();
  affine.mode = hw::StoreMode::kFp16Affine;
  EXPECT_EQ(errorOf(dev, affine.encode()), 0u);
}

}  // namespace
}  // namespace weft::rtltest
