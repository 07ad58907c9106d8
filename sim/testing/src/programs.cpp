#include "weft/sim/testing/programs.h"

#include "weft/sim/dram_storage.h"
#include "weft/sim/functional_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>

namespace weft::sim::testing {
namespace {

std::vector<uint8_t> randomBytes(std::mt19937& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

void put32(std::vector<uint8_t>& v, size_t at, int32_t x) { std::memcpy(&v[at], &x, 4); }

// ParamRows rows of Cols x (bias, multiplier, shift): mostly the ranges real layers use,
// some extremes (negative and minimum multipliers, large shifts) for the saturating paths.
std::vector<uint8_t> randomParams(std::mt19937& rng, const hw::HwConfig& cfg) {
  const unsigned C = cfg.cols();
  std::vector<uint8_t> v(size_t{cfg.paramRows()} * cfg.paramRowBytes());
  std::uniform_int_distribution<int32_t> bias(-200000, 200000);
  std::uniform_int_distribution<int32_t> mult(1 << 30, INT32_MAX);
  std::uniform_int_distribution<int> shift(-12, 3);
  std::uniform_int_distribution<int> extreme(0, 15);
  for (unsigned r = 0; r < cfg.paramRows(); ++r) {
    const size_t row = size_t{r} * cfg.paramRowBytes();
    for (unsigned n = 0; n < C; ++n) {
      int32_t m = mult(rng);
      int s = shift(rng);
      switch (extreme(rng)) {
        case 0: m = INT32_MIN; break;
        case 1: m = -m; break;
        case 2: s = 31; break;
        case 3: s = -31; break;
        default: break;
      }
      put32(v, row + 4 * n, bias(rng));
      put32(v, row + 4 * C + 4 * n, m);
      v[row + 8 * C + n] = static_cast<uint8_t>(static_cast<int8_t>(s));
    }
  }
  return v;
}

hw::CommandWord finalBarrier(Program& p, const ProgramLayout& layout, uint32_t tag) {
  hw::BarrierCmd b;
  b.snapshot = true;
  b.irq = true;
  b.tag = tag;
  b.dramAddr = layout.snapshot;
  p.snapshotAddr = layout.snapshot;
  p.tag = tag;
  return b.encode();
}

}  // namespace

Program randomProgram(const hw::HwConfig& cfg, uint32_t seed, unsigned tiles, const ProgramLayout& layout) {
  std::mt19937 rng(seed);
  auto uni = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  const unsigned R = cfg.rows(), C = cfg.cols();
  Program p;
  p.inputs.emplace_back(layout.inputs, randomBytes(rng, 64 << 10));
  p.inputs.emplace_back(layout.weights, randomBytes(rng, 64 << 10));
  p.inputs.emplace_back(layout.params, randomParams(rng, cfg));
  p.outputBase = layout.outputs;
  auto& cmds = p.commands;

  hw::LoadCmd lp;
  lp.dst = hw::Mem::kParam;
  lp.rowBytes = cfg.paramRowBytes();
  lp.dramAddr = layout.params;
  lp.stride0 = cfg.paramRowBytes();
  lp.count0 = cfg.paramRows();
  lp.count1 = lp.count2 = 1;
  cmds.push_back(lp.encode());

  uint64_t outCursor = layout.outputs;
  unsigned computeToLoad = 0;  // tokens pushed by GEMMs, not yet popped by input loads
  bool weightsHeld = false;
  for (unsigned tile = 0; tile < tiles; ++tile) {
    const bool lastTile = tile + 1 == tiles;
    // Input rows of this tile: a three-level walk over DRAM.
    hw::LoadCmd li;
    li.dst = hw::Mem::kIn;
    li.count0 = static_cast<uint32_t>(uni(1, 6));
    li.count1 = static_cast<uint32_t>(uni(1, 3));
    li.count2 = static_cast<uint32_t>(uni(1, 2));
    const uint32_t m = li.count0 * li.count1 * li.count2;
    // Room past the tile's rows for the bytes of a packed row that straddle into the next rows.
    const uint32_t packSpill = 4;
    const uint32_t inAddr = static_cast<uint32_t>(uni(0, cfg.inSpadRows() - m - packSpill));
    const uint32_t accAddr = static_cast<uint32_t>(uni(0, cfg.accRows() - m));
    const unsigned parts = static_cast<unsigned>(uni(1, 3));
    for (unsigned part = 0; part < parts; ++part) {
      const bool lastPart = part + 1 == parts;
      const bool lastGemm = lastTile && lastPart;
      const bool keep = part == 0 && weightsHeld && uni(0, 3) == 0;
      li.rowBytes = static_cast<uint32_t>(uni(1, R));
      li.spadAddr = inAddr;
      // A quarter of the input loads pack their rows byte by byte (im2col packing): at a byte
      // offset, straddling into the next rows, several beats long when a beat fits in a row.
      li.pack = uni(0, 3) == 0;
      li.packByte = li.pack ? static_cast<uint32_t>(uni(0, R - 1)) : 0;
      li.packStride = li.pack ? 1 : 0;
      if (li.pack && cfg.busBytes() <= R) li.rowBytes = static_cast<uint32_t>(uni(1, 3 * R));
      li.dramAddr = layout.inputs + static_cast<uint64_t>(uni(0, 8192));
      li.stride0 = static_cast<uint32_t>(uni(0, R + 8));
      // A quarter of the others spread each i0 run count1 x count2 rows apart (the same rows,
      // transposed), half of those whole contiguous rows, which the load unit merges.
      li.spread = !li.pack && uni(0, 3) == 0;
      if (li.spread) {
        li.packStride = li.count1 * li.count2;
        if (uni(0, 1) == 0) li.rowBytes = li.stride0 = R;
      }
      li.stride1 = li.count0 * li.stride0 + static_cast<uint32_t>(uni(0, 64));
      li.stride2 = li.count1 * li.stride1 + static_cast<uint32_t>(uni(0, 256));
      li.header = {};
      if (li.pack) {
        // Whole rows under the packed ones first: a packed LOAD leaves the other bytes as they
        // were, and the outputs must not depend on what earlier programs left there.
        hw::LoadCmd under;
        under.dst = hw::Mem::kIn;
        under.rowBytes = R;
        under.spadAddr = inAddr;
        under.dramAddr = layout.inputs + static_cast<uint64_t>(uni(0, 8192));
        under.stride0 = R;
        under.count0 = m + packSpill;
        under.count1 = under.count2 = 1;
        if (computeToLoad > 0) {  // it overwrites rows earlier GEMMs read
          under.header.wait1 = true;
          --computeToLoad;
        }
        cmds.push_back(under.encode());
      }
      if (computeToLoad > 0) {
        li.header.wait1 = true;
        --computeToLoad;
      }
      li.header.signal1 = keep;  // otherwise the weight load signals
      cmds.push_back(li.encode());

      hw::GemmCmd g;
      g.kRows = static_cast<uint32_t>(uni(1, R));
      // With the fp16 datapath, some GEMMs are fp16 (drawn only then, so that the programs of
      // other configurations stay as they were): an even k_rows, zero points 0, unsigned.
      g.fp16 = cfg.fp16() && uni(0, 2) > 0;
      if (g.fp16 && !keep) g.kRows = 2 * static_cast<uint32_t>(uni(1, R / 2));
      // A third of the later parts are GEMMs of 2-3 steps over K (k_steps), drawn from a
      // generator of their own so that the other draws stay as they were: their weights side by
      // side or one set reused, their inputs a window moving along the tile's rows.
      std::mt19937 stepRng(seed * 7919u + tile * 31u + part);
      auto stepUni = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(stepRng); };
      const bool steps = part > 0 && !keep && stepUni(0, 2) == 0;
      if (steps) {
        g.kSteps = static_cast<uint32_t>(stepUni(2, 3));
        g.wKstride = stepUni(0, 3) == 0 ? 0 : g.kRows;
      }
      // A fifth of the preloads on square weight-stationary arrays read their tile transposed
      // (w_transposed: Cols weight rows, each into a PE column), from a generator of their own.
      std::mt19937 transposeRng(seed * 104729u + tile * 17u + part);
      g.wTransposed = !keep && cfg.dataflow() == hw::Dataflow::kWS && R == C &&
                      std::uniform_int_distribution<int>(0, 4)(transposeRng) == 0;
      if (!keep) {
        const uint32_t wRows = (g.wTransposed ? C : g.kRows) + (g.kSteps - 1) * g.wKstride;
        hw::LoadCmd lw;
        lw.dst = hw::Mem::kW;
        lw.rowBytes = static_cast<uint32_t>(uni(1, C));
        lw.spadAddr = static_cast<uint32_t>(uni(0, cfg.wSpadRows() - wRows));
        lw.dramAddr = layout.weights + static_cast<uint64_t>(uni(0, 8192));
        lw.stride0 = C + static_cast<uint32_t>(uni(0, 4));
        lw.count0 = wRows;
        lw.count1 = lw.count2 = 1;
        if (wRows % 2 == 0 && uni(0, 1)) {  // the same rows as two levels
          lw.count0 = wRows / 2;
          lw.count1 = 2;
          lw.stride1 = lw.count0 * lw.stride0;
        }
        lw.header.signal1 = true;
        cmds.push_back(lw.encode());
        g.wAddr = lw.spadAddr;
      }
      g.keepWeights = keep;
      g.inAddr = inAddr;
      g.mRows = m;
      if (uni(0, 1)) {  // the same m rows as strided groups, reading only rows the tile loaded
        g.mRows = li.count0 * li.count1;
        g.mGroups = li.count2;
        g.inStride0 = static_cast<uint32_t>(uni(0, 1));
        g.inStride1 = static_cast<uint32_t>(uni(0, g.mRows));
      }
      if (steps) {  // fewer rows, every step's within the tile's (part 0 wrote all m)
        g.mRows = static_cast<uint32_t>(stepUni(1, m));
        g.mGroups = 1;
        g.inStride0 = 1;
        g.inStride1 = 0;
        g.inKstride = static_cast<uint32_t>(stepUni(0, (m - g.mRows) / (g.kSteps - 1)));
      }
      g.accAddr = accAddr;
      g.accumulate = part > 0;
      g.inSigned = uni(0, 1);
      g.wSigned = uni(0, 1);
      g.inZp = static_cast<int32_t>(g.inSigned ? uni(-128, 127) : uni(0, 255));
      g.wZp = static_cast<int32_t>(g.wSigned ? uni(-128, 127) : uni(0, 255));
      if (g.fp16) {
        g.inSigned = g.wSigned = false;
        g.inZp = g.wZp = 0;
      }
      g.header.wait0 = true;
      g.header.wait1 = part == 0 && tile > 0;  // the previous store freed the accumulator
      g.header.signal0 = !lastGemm;
      g.header.signal1 = lastPart;
      if (!lastGemm) ++computeToLoad;
      cmds.push_back(g.encode());
      weightsHeld = true;

      if (uni(0, 4) == 0) {  // a nop whose token bits mean nothing
        hw::NopCmd nop;
        nop.header = {true, true, true, true};
        cmds.push_back(nop.encode());
      }
    }

    hw::StoreCmd s;
    s.mode = uni(0, 2) == 0 ? hw::StoreMode::kRaw32 : hw::StoreMode::kRequant8;
    if (cfg.fp16() && uni(0, 1)) s.mode = uni(0, 2) == 0 ? hw::StoreMode::kFp16Affine : hw::StoreMode::kFp16;
    s.rowBytes = static_cast<uint32_t>(uni(1, C));
    s.paramRow = static_cast<uint32_t>(uni(0, cfg.paramRows() - 1));
    s.accAddr = accAddr;
    // Rows of several column tiles (one request a row), where whole tiles are whole beats. Every
    // tile reads rows this tile's GEMMs wrote (the accumulator holds older programs' rows too).
    uint32_t rows = m;
    const int64_t paramsLeft = int64_t{cfg.paramRows()} - s.paramRow;
    if (C % cfg.busBytes() == 0 && m > 1 && paramsLeft >= 2 && uni(0, 2) == 0) {
      s.tiles = static_cast<uint32_t>(uni(2, std::min<int64_t>(3, paramsLeft)));
      s.tileAccStride = static_cast<uint32_t>(uni(0, (m - 1) / (s.tiles - 1)));
      rows = m - (s.tiles - 1) * s.tileAccStride;
    }
    const uint32_t rowOut = ((s.tiles - 1) * C + s.rowBytes) * hw::columnBytes(s.mode);
    s.count0 = rows;
    s.count1 = 1;
    if (rows % 2 == 0 && uni(0, 1)) {
      s.count0 = rows / 2;
      s.count1 = 2;
    }
    s.stride0 = rowOut + static_cast<uint32_t>(uni(0, 8));
    s.stride1 = s.count0 * s.stride0 + static_cast<uint32_t>(uni(0, 32));
    s.dramAddr = outCursor;
    outCursor += (uint64_t{s.count1} * s.stride1 + 63) / 64 * 64;
    s.outZp = static_cast<int32_t>(uni(-100, 200));
    s.clampMin = static_cast<int32_t>(uni(-128, 100));
    s.clampMax = static_cast<int32_t>(uni(s.clampMin, 255));
    if (hw::columnBytes(s.mode) == 2) {  // fp16 modes: binary16 bounds: none, relu, relu6, or any
      const int bounds = static_cast<int>(uni(0, 3));
      const uint16_t lo[] = {0xfc00, 0x0000, 0x0000, static_cast<uint16_t>(uni(0, 0xffff))};
      const uint16_t hi[] = {0x7c00, 0x7c00, 0x4600, static_cast<uint16_t>(uni(0, 0xffff))};
      s.clampMin = static_cast<int16_t>(lo[bounds]);
      s.clampMax = static_cast<int16_t>(hi[bounds]);
    }
    s.header.wait0 = true;
    s.header.signal0 = !lastTile;
    cmds.push_back(s.encode());
  }
  p.outputBytes = outCursor - layout.outputs;
  p.inputs.emplace_back(p.outputBase, std::vector<uint8_t>(p.outputBytes));  // gaps read as 0
  cmds.push_back(finalBarrier(p, layout, seed));
  return p;
}

namespace {

// The building blocks of the generated streams: whole rows, one level of repetition.
hw::CommandWord paramLoad(const hw::HwConfig& cfg, const ProgramLayout& layout) {
  hw::LoadCmd lp;
  lp.dst = hw::Mem::kParam;
  lp.rowBytes = cfg.paramRowBytes();
  lp.dramAddr = layout.params;
  lp.stride0 = cfg.paramRowBytes();
  lp.count0 = lp.count1 = lp.count2 = 1;
  return lp.encode();
}

hw::LoadCmd rowLoad(hw::Mem dst, uint32_t rowBytes, uint32_t spadAddr, uint64_t dramAddr, uint32_t rows) {
  hw::LoadCmd l;
  l.dst = dst;
  l.rowBytes = rowBytes;
  l.spadAddr = spadAddr;
  l.dramAddr = dramAddr;
  l.stride0 = rowBytes;
  l.count0 = rows;
  l.count1 = l.count2 = 1;
  return l;
}

hw::GemmCmd fullGemm(const hw::HwConfig& cfg, uint32_t wAddr, uint32_t inAddr, uint32_t mRows, uint32_t accAddr) {
  hw::GemmCmd g;
  g.kRows = cfg.rows();
  g.wAddr = wAddr;
  g.inAddr = inAddr;
  g.mRows = mRows;
  g.accAddr = accAddr;
  g.inZp = 128;
  g.wSigned = true;
  return g;
}

hw::StoreCmd requantStore(const hw::HwConfig& cfg, uint32_t accAddr, uint64_t dramAddr, uint32_t rows) {
  hw::StoreCmd s;
  s.mode = hw::StoreMode::kRequant8;
  s.rowBytes = cfg.cols();
  s.accAddr = accAddr;
  s.dramAddr = dramAddr;
  s.stride0 = cfg.cols();
  s.count0 = rows;
  s.count1 = 1;
  s.clampMin = -128;
  s.clampMax = 127;
  return s;
}

}  // namespace

Program gemmStreamProgram(const hw::HwConfig& cfg, unsigned tiles, unsigned rowsPerTile,
                          const ProgramLayout& layout) {
  std::mt19937 rng(tiles * 7919u + rowsPerTile);
  const unsigned R = cfg.rows(), C = cfg.cols();
  const uint32_t M = std::min({rowsPerTile, cfg.inSpadRows() / 2, cfg.accRows() / 2});
  Program p;
  const uint64_t inputBytes = uint64_t{M} * R * 2, weightBytes = uint64_t{R} * C * 2;
  p.inputs.emplace_back(layout.inputs, randomBytes(rng, inputBytes));
  p.inputs.emplace_back(layout.weights, randomBytes(rng, weightBytes));
  p.inputs.emplace_back(layout.params, randomParams(rng, cfg));
  p.outputBase = layout.outputs;
  p.outputBytes = uint64_t{M} * C * 2;
  p.inputs.emplace_back(p.outputBase, std::vector<uint8_t>(p.outputBytes));
  auto& cmds = p.commands;
  cmds.push_back(paramLoad(cfg, layout));
  for (unsigned t = 0; t < tiles; ++t) {
    const unsigned buf = t % 2;
    const bool tail = t + 2 >= tiles;  // the last two tiles leave no token behind
    hw::LoadCmd li = rowLoad(hw::Mem::kIn, R, buf * M, layout.inputs + uint64_t{buf} * M * R, M);
    li.header.wait1 = t >= 2;
    cmds.push_back(li.encode());
    hw::LoadCmd lw = rowLoad(hw::Mem::kW, C, buf * R, layout.weights + uint64_t{buf} * R * C, R);
    lw.header.signal1 = true;
    cmds.push_back(lw.encode());
    hw::GemmCmd g = fullGemm(cfg, buf * R, buf * M, M, buf * M);
    g.header.wait0 = true;
    g.header.wait1 = t >= 2;
    g.header.signal0 = !tail;
    g.header.signal1 = true;
    cmds.push_back(g.encode());
    hw::StoreCmd s = requantStore(cfg, buf * M, layout.outputs + uint64_t{buf} * M * C, M);
    s.header.wait0 = true;
    s.header.signal0 = !tail;
    cmds.push_back(s.encode());
  }
  cmds.push_back(finalBarrier(p, layout, tiles));
  return p;
}

Program storeBoundProgram(const hw::HwConfig& cfg, unsigned stores, unsigned rows, const ProgramLayout& layout) {
  std::mt19937 rng(stores * 104729u + rows);
  const unsigned R = cfg.rows(), C = cfg.cols();
  stores = std::min<unsigned>(stores, cfg.get(hw::Param::kTokenDepth));  // every token fits its queue
  const uint32_t M = std::min(rows, cfg.accRows() / std::max(1u, stores));
  Program p;
  p.inputs.emplace_back(layout.inputs, randomBytes(rng, uint64_t{M} * R));
  p.inputs.emplace_back(layout.weights, randomBytes(rng, uint64_t{R} * C));
  p.inputs.emplace_back(layout.params, randomParams(rng, cfg));
  p.outputBase = layout.outputs;
  p.outputBytes = uint64_t{stores} * M * C;
  p.inputs.emplace_back(p.outputBase, std::vector<uint8_t>(p.outputBytes));
  auto& cmds = p.commands;
  cmds.push_back(paramLoad(cfg, layout));
  cmds.push_back(rowLoad(hw::Mem::kIn, R, 0, layout.inputs, M).encode());
  hw::LoadCmd lw = rowLoad(hw::Mem::kW, C, 0, layout.weights, R);
  lw.header.signal1 = true;
  cmds.push_back(lw.encode());
  for (unsigned k = 0; k < stores; ++k) {
    // Each GEMM fills its own accumulator rows (no store reads rows a later GEMM writes).
    hw::GemmCmd g = fullGemm(cfg, 0, 0, M, k * M);
    g.keepWeights = k > 0;
    g.header.wait0 = k == 0;
    g.header.signal1 = true;
    cmds.push_back(g.encode());
    hw::StoreCmd st = requantStore(cfg, k * M, layout.outputs + uint64_t{k} * M * C, M);
    st.header.wait0 = true;
    cmds.push_back(st.encode());
  }
  cmds.push_back(finalBarrier(p, layout, stores * 1000 + rows));
  return p;
}

namespace {

// Random fields for one vector command whose accumulator rows start at accAddr (at most
// `accRows` of them); returns the command and the rows it writes.
struct VectorWork {
  hw::CommandWord cmd;
  uint32_t rows;
};

VectorWork randomVectorCommand(std::mt19937& rng, const hw::HwConfig& cfg, uint32_t accAddr, uint32_t accRows) {
  auto uni = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  auto zp = [&](bool isSigned) { return static_cast<int32_t>(isSigned ? uni(-128, 127) : uni(0, 255)); };
  const uint32_t vrows = cfg.vecSpadRows();
  switch (uni(0, 3)) {
    case 0: {
      hw::WindowCmd w;
      w.kind = static_cast<hw::WinKind>(uni(0, 3));
      w.inSigned = uni(0, 1);
      w.wSigned = uni(0, 1);
      w.dm = uni(0, 3) == 0 ? static_cast<uint32_t>(uni(2, 4)) : 1;
      w.phase = static_cast<uint32_t>(uni(0, w.dm - 1));
      w.tileH = static_cast<uint32_t>(uni(0, 7) == 0 ? 0 : uni(1, 9));
      w.tileW = static_cast<uint32_t>(uni(1, 9));
      w.pixStride = static_cast<uint32_t>(uni(1, 3));
      w.rowStride = w.tileW * w.pixStride + static_cast<uint32_t>(uni(0, 3));
      const uint64_t span = w.tileH == 0 ? 1 : uint64_t{w.tileH - 1} * w.rowStride + uint64_t{w.tileW - 1} * w.pixStride + 1;
      w.inAddr = static_cast<uint32_t>(uni(0, vrows - span));
      w.kH = static_cast<uint32_t>(uni(1, 4));
      w.kW = static_cast<uint32_t>(uni(1, 4));
      w.wAddr = static_cast<uint32_t>(uni(0, vrows - w.kH * w.kW));
      w.sH = static_cast<uint32_t>(uni(1, 3));
      w.sW = static_cast<uint32_t>(uni(1, 3));
      w.dH = static_cast<uint32_t>(uni(1, 2));
      w.dW = static_cast<uint32_t>(uni(1, 2));
      w.yOff = static_cast<int32_t>(uni(-3, 2));
      w.xOff = static_cast<int32_t>(uni(-3, 2));
      w.outH = static_cast<uint32_t>(uni(1, 5));
      w.outW = static_cast<uint32_t>(uni(1, std::max<int64_t>(1, std::min<int64_t>(6, accRows / w.outH))));
      w.inZp = w.kind == hw::WinKind::kDwconv || uni(0, 1) ? zp(w.inSigned) : 0;
      w.wZp = zp(w.wSigned);
      w.accAddr = accAddr;
      // With the fp16 datapath, half of them in binary16 mode (random bytes: every kind of
      // binary16, NaNs, infinities and subnormals included).
      if (cfg.fp16() && uni(0, 1) == 1) {
        w.fp16 = true;
        w.inSigned = w.wSigned = false;
        w.inZp = w.wZp = 0;
      }
      return {w.encode(), w.outH * w.outW};
    }
    case 1: {
      hw::EltwiseCmd e;
      e.kind = static_cast<hw::EltKind>(uni(0, 3));
      e.aSigned = uni(0, 1);
      e.bSigned = uni(0, 1);
      e.aBcast = uni(0, 4) == 0;
      e.bBcast = uni(0, 4) == 0;
      e.count0 = static_cast<uint32_t>(uni(1, 6));
      e.count1 = static_cast<uint32_t>(uni(1, std::max<int64_t>(1, std::min<int64_t>(4, accRows / e.count0))));
      e.aStride0 = static_cast<uint32_t>(uni(0, 3));
      e.aStride1 = static_cast<uint32_t>(uni(0, 12));
      e.bStride0 = static_cast<uint32_t>(uni(0, 3));
      e.bStride1 = static_cast<uint32_t>(uni(0, 12));
      const uint32_t aSpan = (e.count1 - 1) * e.aStride1 + (e.count0 - 1) * e.aStride0 + 1;
      const uint32_t bSpan = (e.count1 - 1) * e.bStride1 + (e.count0 - 1) * e.bStride0 + 1;
      e.aAddr = static_cast<uint32_t>(uni(0, vrows - aSpan));
      e.bAddr = static_cast<uint32_t>(uni(0, vrows - bSpan));
      e.aZp = zp(e.aSigned);
      e.bZp = zp(e.bSigned);
      e.leftShift = static_cast<uint32_t>(uni(0, 20));
      auto mult = [&] {
        switch (uni(0, 7)) {
          case 0: return INT32_MIN;
          case 1: return static_cast<int32_t>(-uni(1 << 30, INT32_MAX));
          default: return static_cast<int32_t>(uni(1 << 30, INT32_MAX));
        }
      };
      e.aMult = mult();
      e.bMult = mult();
      e.aShift = static_cast<int32_t>(uni(0, 9) == 0 ? uni(-32, 31) : uni(-12, 2));
      e.bShift = static_cast<int32_t>(uni(0, 9) == 0 ? uni(-32, 31) : uni(-12, 2));
      e.accAddr = accAddr;
      if (cfg.fp16() && uni(0, 2) == 0) {  // binary16: a lookup, a sum or a product (unsigned, no zero points)
        e.fp16 = true;
        e.kind = std::array{hw::EltKind::kLut, hw::EltKind::kAdd, hw::EltKind::kMul}[uni(0, 2)];
        e.aSigned = e.bSigned = false;
        e.aZp = e.bZp = 0;
      }
      return {e.encode(), e.count0 * e.count1};
    }
    case 3: {
      // A row of (count - 1) * Cols + last_lanes elements. Random bytes make every variance, and
      // a zero point at the bytes' extreme or an eps of 0 or 2^47 the edge cases; a stride of 0
      // repeats one row (equal elements: V = 0 when eps = 0). Output rows are dense here (the
      // store reads every row of the span, and rows a program never wrote would hold another
      // program's values on a reused device); the layers' interleaved rows (acc_stride > 1) are
      // checked by the lowering's tests and `weft validate`.
      hw::LayerNormCmd n;
      n.inSigned = uni(0, 1);
      n.inZp = uni(0, 3) == 0 ? (n.inSigned ? 127 : 0) : zp(n.inSigned);
      n.count = static_cast<uint32_t>(uni(1, std::min<int64_t>(8, accRows)));
      n.accStride = n.count == 1 ? static_cast<uint32_t>(uni(0, 3)) : 1;
      n.stride = static_cast<uint32_t>(uni(0, 2));
      n.inAddr = static_cast<uint32_t>(uni(0, vrows - ((n.count - 1) * n.stride + 1)));
      n.lastLanes = static_cast<uint32_t>(uni(1, cfg.cols()));
      n.outShift = static_cast<uint32_t>(uni(0, 20));
      switch (uni(0, 3)) {
        case 0: n.eps = 0; break;
        case 1: n.eps = uint64_t{1} << 47; break;
        default: n.eps = static_cast<uint64_t>(uni(0, int64_t{1} << 24));
      }
      if (cfg.fp16() && uni(0, 2) == 0) {
        // binary16 mode over the random bytes (a row holds an infinity or a NaN now and then,
        // and its spread any size): epsilon 0, BERT's 1e-12, 1e-5, or any non-negative binary32
        // (a NaN or infinity too).
        n.fp16 = true;
        n.inSigned = false;
        n.inZp = 0;
        n.lastLanes = static_cast<uint32_t>(uni(1, cfg.cols() / 2));
        const uint32_t eps[] = {0, 0x2b8cbccc, 0x3727c5ac, static_cast<uint32_t>(uni(0, 0x7fffffff))};
        n.epsFp32 = eps[uni(0, 3)];
      }
      n.accAddr = accAddr;
      return {n.encode(), n.count};
    }
    default: {
      hw::SoftmaxCmd s;
      s.inSigned = uni(0, 1);
      s.crossLanes = uni(0, 1);
      s.count = static_cast<uint32_t>(uni(1, std::min<int64_t>(8, accRows)));
      s.stride = static_cast<uint32_t>(uni(0, 2));
      s.inAddr = static_cast<uint32_t>(uni(0, vrows - ((s.count - 1) * s.stride + 1)));
      s.lastLanes = static_cast<uint32_t>(uni(1, cfg.cols()));
      s.lutLen = static_cast<uint32_t>(uni(0, 2) == 0 ? uni(1, 256) : 256);
      if (cfg.fp16() && uni(0, 2) == 0) {
        // binary16 mode over the random bytes: beta 1, a tiny beta (so that many of the
        // random values lie within 32 of the maximum once scaled), or any positive binary16.
        s.fp16 = true;
        s.inSigned = false;
        s.lastLanes = static_cast<uint32_t>(uni(1, cfg.cols() / 2));
        switch (uni(0, 2)) {
          case 0: s.beta = 0x3c00; break;
          case 1: s.beta = static_cast<uint32_t>(uni(1, 8) << 10 | uni(0, 0x3ff)); break;
          default: s.beta = static_cast<uint32_t>(uni(1, 0x7bff)); break;
        }
      }
      s.accAddr = accAddr;
      return {s.encode(), s.count};
    }
  }
}

// A lookup table: exp(-d) in Q0.31 as SOFTMAX uses it for most entries, some random words.
std::vector<uint8_t> randomLut(std::mt19937& rng, const hw::HwConfig& cfg) {
  std::vector<uint8_t> v(size_t{cfg.lutRows()} * cfg.cols() * 4);
  const double scale = std::uniform_real_distribution<double>(0.01, 0.5)(rng);
  for (uint32_t e = 0; e < hw::micro::kLutEntries; ++e) {
    const auto exp = static_cast<int32_t>(std::min(2147483647.0, std::exp(-scale * e) * 2147483648.0));
    put32(v, size_t{e} * 4, rng() % 8 == 0 ? static_cast<int32_t>(rng()) : exp);
  }
  return v;
}

}  // namespace

Program randomVectorProgram(const hw::HwConfig& cfg, uint32_t seed, unsigned commands, bool withGemms,
                            const ProgramLayout& layout) {
  std::mt19937 rng(seed);
  const unsigned C = cfg.cols();
  Program p;
  const uint32_t vrows = cfg.vecSpadRows();
  p.inputs.emplace_back(layout.inputs, randomBytes(rng, uint64_t{vrows} * C));
  p.inputs.emplace_back(layout.weights, randomLut(rng, cfg));
  p.inputs.emplace_back(layout.params, std::vector<uint8_t>(cfg.paramRowBytes()));  // bias 0: raw stores
  auto& cmds = p.commands;
  cmds.push_back(paramLoad(cfg, layout));
  cmds.push_back(rowLoad(hw::Mem::kLut, 4 * C, 0, layout.weights, cfg.lutRows()).encode());
  hw::LoadCmd lv = rowLoad(hw::Mem::kVec, C, 0, layout.inputs, vrows);
  lv.header.signal0 = true;  // load -> vector
  cmds.push_back(lv.encode());

  // The vector unit's half of the accumulator (all of it without GEMMs).
  const uint32_t accBase = withGemms ? cfg.accRows() / 2 : 0;
  const uint32_t accRows = std::min<uint32_t>(cfg.accRows() - accBase, 48);
  uint64_t outCursor = layout.outputs;
  for (unsigned i = 0; i < commands; ++i) {
    VectorWork work = randomVectorCommand(rng, cfg, accBase, accRows);
    hw::CommandWord& v = work.cmd;
    v.set(hw::field::kWait0, i == 0);      // the loads
    v.set(hw::field::kWait1, i > 0);       // the previous store read the rows
    v.set(hw::field::kSignal1, 1);         // vector -> store
    cmds.push_back(v);
    hw::StoreCmd s;
    s.mode = hw::StoreMode::kRaw32;
    s.rowBytes = C;
    s.accAddr = accBase;
    s.count0 = work.rows;
    s.count1 = 1;
    s.stride0 = 4 * C;
    s.dramAddr = outCursor;
    outCursor += (uint64_t{work.rows} * 4 * C + 63) / 64 * 64;
    s.header.wait1 = true;                 // vector -> store
    s.header.signal1 = i + 1 < commands;   // store -> vector
    cmds.push_back(s.encode());
    if (withGemms && i % 2 == 0) {
      // A GEMM tile beside it, in the lower half of the accumulator, stored requantized; the
      // next tile reuses its scratchpad and accumulator rows, so it waits for this one.
      const bool first = i == 0, more = i + 2 < commands;
      const uint32_t M = std::min<uint32_t>(32, cfg.accRows() / 2);
      hw::LoadCmd li = rowLoad(hw::Mem::kIn, cfg.rows(), 0, layout.inputs + 4096 + i * 64, M);
      li.header.wait1 = !first;  // compute -> load
      cmds.push_back(li.encode());
      hw::LoadCmd lw = rowLoad(hw::Mem::kW, C, 0, layout.inputs + 8192 + i * 32, cfg.rows());
      lw.header.signal1 = true;  // load -> compute
      cmds.push_back(lw.encode());
      hw::GemmCmd g = fullGemm(cfg, 0, 0, M, 0);
      g.header.wait0 = true;
      g.header.wait1 = !first;  // store -> compute
      g.header.signal0 = more;  // compute -> load
      g.header.signal1 = true;  // compute -> store
      cmds.push_back(g.encode());
      hw::StoreCmd gs = requantStore(cfg, 0, outCursor, M);
      outCursor += (uint64_t{M} * C + 63) / 64 * 64;
      gs.header.wait0 = true;
      gs.header.signal0 = more;  // store -> compute
      cmds.push_back(gs.encode());
    }
  }
  p.outputBase = layout.outputs;
  p.outputBytes = outCursor - layout.outputs;
  p.inputs.emplace_back(p.outputBase, std::vector<uint8_t>(p.outputBytes));
  cmds.push_back(finalBarrier(p, layout, seed + 50000));
  return p;
}

void writeInputs(IDeviceBackend& device, const Program& program) {
  for (const auto& [addr, bytes] : program.inputs) device.writeDram(addr, bytes.data(), bytes.size());
}

std::vector<uint8_t> functionalOutputs(const hw::HwConfig& config, const Program& program) {
  DramStorage dram(config.dramBytes());
  for (const auto& [addr, bytes] : program.inputs) dram.write(addr, bytes.data(), bytes.size());
  FunctionalModel model(config);
  for (const auto& c : program.commands) {
    if (model.check(c) != hw::Error::kNone) throw std::logic_error("generated program has an invalid command");
    model.execute(c, dram);
  }
  if (!model.protocolErrors().empty()) throw std::logic_error(model.protocolErrors().front());
  std::vector<uint8_t> out(program.outputBytes);
  dram.read(program.outputBase, out.data(), out.size());
  return out;
}

std::vector<uint8_t> deviceOutputs(IDeviceBackend& device, const Program& program) {
  std::vector<uint8_t> out(program.outputBytes);
  device.readDram(program.outputBase, out.data(), out.size());
  return out;
}

}  // namespace weft::sim::testing
