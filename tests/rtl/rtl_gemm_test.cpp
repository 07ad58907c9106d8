// Randomized GEMM tiles through the RTL, compared bit-exact with the C++ reference:
// random k_rows, m_rows, zero points, signedness, accumulate chains, keep_weights, transposed
// weight tiles (w_transposed, on the square weight-stationary arrays), and raw32 /
// requant8 stores with random per-column bias, multiplier, shift, out_zp and clamps.
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "tile_programs.h"

namespace weft::rtltest {
namespace {

class GemmTiles : public TilePrograms {
 public:
  GemmTiles(RtlDevice& dev, uint32_t seed) : TilePrograms(dev, seed, 0x400000, RtlDevice::kRingSize) {}

 protected:
  int32_t zeroPoint(bool isSigned) { return isSigned ? uniform(-128, 127) : uniform(0, 255); }
  int32_t any32() {
    return static_cast<int32_t>(std::uniform_int_distribution<uint32_t>()(rng_));
  }

  // Puts random bytes in DRAM at addr and returns a LOAD of `rows` rows of rowBytes each
  // (contiguous, so count0 = rows) into memory dst at spad.
  hw::CommandWord loadRandom(hw::Mem dst, uint32_t spad, uint32_t rows, uint32_t rowBytes) {
    std::vector<uint8_t> bytes(size_t{rows} * rowBytes);
    const uint64_t addr = alloc(bytes.size());
    for (auto& b : bytes) b = static_cast<uint8_t>(uniform(0, 255));
    dev_.dram().put(addr, bytes);
    hw::LoadCmd l;
    l.dst = dst;
    l.rowBytes = rowBytes;
    l.spadAddr = spad;
    l.dramAddr = addr;
    l.stride0 = rowBytes;
    l.count0 = rows;
    l.count1 = 1;
    l.count2 = 1;
    ref_.load(l, dev_.dram().at(0));
    return l.encode();
  }

  // One tile: inputs and weights loaded, a chain of GEMMs into one accumulator range, then a
  // raw32 and a requant8 store of it. Appends to cmds; outputs go to DRAM at out.
  void tile(std::vector<hw::CommandWord>& cmds, uint64_t& out) override {
    const auto& cfg = dev_.config();
    const unsigned R = cfg.rows(), C = cfg.cols();
    const uint32_t m = uniform(1, 40);
    const uint32_t accAddr = uniform(0, cfg.accRows() - m);
    const int chain = uniform(1, 3);

    std::vector<hw::GemmCmd> gemms;
    for (int g = 0; g < chain; ++g) {
      hw::GemmCmd gm;
      gm.accumulate = g > 0 || coin(20);
      gm.keepWeights = g > 0 && coin(35);
      gm.inSigned = coin();
      gm.wSigned = coin();
      gm.kRows = uniform(1, R);
      gm.accAddr = accAddr;
      const uint32_t span = stridedShape(gm, m);
      gm.inAddr = uniform(0, cfg.inSpadRows() - span);
      gm.wTransposed = !gm.keepWeights && R == C && cfg.dataflow() == hw::Dataflow::kWS && coin(40);
      const uint32_t wRows = gm.wTransposed ? C : gm.kRows;  // a transposed tile is a row per column
      gm.wAddr = uniform(0, cfg.wSpadRows() - wRows);
      gm.inZp = zeroPoint(gm.inSigned);
      gm.wZp = zeroPoint(gm.wSigned);
      cmds.push_back(loadRandom(hw::Mem::kIn, gm.inAddr, span, uniform(1, R)));
      if (!gm.keepWeights) {
        cmds.push_back(loadRandom(hw::Mem::kW, gm.wAddr, wRows, uniform(1, C)));
      } else {
        gm.wAddr = uniform(0, 0xffff);  // ignored, like k_rows, w_zp and w_signed
        gm.kRows = uniform(0, 255);
        gm.wZp = uniform(-32768, 32767);
      }
      gemms.push_back(gm);
    }
    // The last load signals the compute unit; loads complete in order.
    hw::LoadCmd last = hw::LoadCmd::decode(cmds.back());
    last.header = tokens(false, false, false, true);
    cmds.back() = last.encode();
    for (size_t g = 0; g < gemms.size(); ++g) {
      gemms[g].header = tokens(g == 0, false, false, g + 1 == gemms.size());
      ref_.gemm(gemms[g]);
      cmds.push_back(gemms[g].encode());
    }

    // Parameters: random, plus a column driven into the saturating high-multiply case.
    const uint32_t paramRow = uniform(0, cfg.paramRows() - 1);
    std::vector<uint8_t> prow(cfg.paramRowBytes());
    for (unsigned n = 0; n < C; ++n) {
      int32_t bias = coin(80) ? uniform(-(1 << 20), 1 << 20) : any32();
      int32_t mult = coin(70) ? uniform(1 << 30, std::numeric_limits<int32_t>::max()) : any32();
      int8_t shift = static_cast<int8_t>(coin(90) ? uniform(-31, 31) : uniform(-128, 127));
      if (n == 0 && coin(30)) {
        const int32_t a = ref_.acc[size_t{accAddr} * C];
        bias = static_cast<int32_t>(static_cast<uint32_t>(std::numeric_limits<int32_t>::min()) -
                                    static_cast<uint32_t>(a));
        mult = std::numeric_limits<int32_t>::min();
        shift = 0;
      }
      std::memcpy(&prow[4 * n], &bias, 4);
      std::memcpy(&prow[4 * (C + n)], &mult, 4);
      prow[8 * C + n] = static_cast<uint8_t>(shift);
    }
    const uint64_t paramAddr = alloc(prow.size());
    dev_.dram().put(paramAddr, prow);
    hw::LoadCmd pl;
    pl.dst = hw::Mem::kParam;
    pl.rowBytes = cfg.paramRowBytes();
    pl.spadAddr = paramRow;
    pl.dramAddr = paramAddr;
    pl.count0 = pl.count1 = pl.count2 = 1;
    ref_.load(pl, dev_.dram().at(0));
    // First in the tile's loads, so that the compute token still comes from the last one.
    cmds.insert(cmds.begin() + static_cast<long>(firstOfTile_), pl.encode());

    // raw32 store of every row, then a requant8 store in a 2-level pattern.
    hw::StoreCmd raw;
    raw.header = tokens(true, false, false, false);
    raw.mode = hw::StoreMode::kRaw32;
    raw.rowBytes = uniform(1, C);
    raw.paramRow = paramRow;
    raw.accAddr = accAddr;
    raw.dramAddr = out;
    raw.stride0 = 4 * raw.rowBytes + uniform(0, 8);
    raw.count0 = m;
    raw.count1 = 1;
    out += uint64_t{raw.stride0} * m + 64;
    addStore(cmds, raw, gemms);

    hw::StoreCmd q;
    q.mode = hw::StoreMode::kRequant8;
    q.rowBytes = uniform(1, C);
    q.paramRow = paramRow;
    q.count0 = uniform(1, m);
    q.count1 = m / q.count0;
    q.accAddr = accAddr + uniform(0, m - q.count0 * q.count1);
    q.dramAddr = out;
    q.stride0 = q.rowBytes + uniform(0, 5);
    q.stride1 = q.stride0 * q.count0 + uniform(0, 9);
    q.outZp = uniform(-128, 255);
    q.clampMin = uniform(-128, 255);
    q.clampMax = uniform(q.clampMin, 255);
    out += uint64_t{q.stride1} * q.count1 + 64;
    addStore(cmds, q, gemms);
  }

  std::string describeGemm(const hw::GemmCmd& g) const override {
    return "m " + std::to_string(g.mRows) + "x" + std::to_string(g.mGroups) + " strides " +
           std::to_string(g.inStride0) + "/" + std::to_string(g.inStride1) + " k " + std::to_string(g.kRows) + " acc " +
           std::to_string(g.accAddr) + (g.accumulate ? " +" : "") + (g.keepWeights ? " keep" : "") + (g.wTransposed ? " transposed" : "") + " in_zp " +
           std::to_string(g.inZp) + (g.inSigned ? "s" : "u") + " w_zp " + std::to_string(g.wZp) +
           (g.wSigned ? "s" : "u");
  }
};

class RtlGemm : public ::testing::TestWithParam<std::string> {};

TEST_P(RtlGemm, RandomTilesMatchTheReferenceBitExact) {
  RtlDevice dev(GetParam());
  dev.initRing();
  // One reference for the whole sequence: tiles may accumulate onto earlier programs' rows.
  GemmTiles t(dev, 1);
  for (int program = 0; program < 25; ++program) {
    SCOPED_TRACE(program);
    t.run(3);
    if (HasFatalFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(rtl, RtlGemm, ::testing::Values("weft8", "weft16", "weft8os", "weft16os", "weft16fp"), configName);

}  // namespace
}  // namespace weft::rtltest
