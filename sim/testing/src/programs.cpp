#include "weft/sim/testing/programs.h"

#include "weft/sim/dram_storage.h"
#include "weft/sim/functional_model.h"

#include <algorithm>
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
    const uint32_t inAddr = static_cast<uint32_t>(uni(0, cfg.inSpadRows() - m));
    const uint32_t accAddr = static_cast<uint32_t>(uni(0, cfg.accRows() - m));
    const unsigned parts = static_cast<unsigned>(uni(1, 3));
    for (unsigned part = 0; part < parts; ++part) {
      const bool lastPart = part + 1 == parts;
      const bool lastGemm = lastTile && lastPart;
      const bool keep = part == 0 && weightsHeld && uni(0, 3) == 0;
      li.rowBytes = static_cast<uint32_t>(uni(1, R));
      li.spadAddr = inAddr;
      li.dramAddr = layout.inputs + static_cast<uint64_t>(uni(0, 8192));
      li.stride0 = static_cast<uint32_t>(uni(0, R + 8));
      li.stride1 = li.count0 * li.stride0 + static_cast<uint32_t>(uni(0, 64));
      li.stride2 = li.count1 * li.stride1 + static_cast<uint32_t>(uni(0, 256));
      li.header = {};
      if (computeToLoad > 0) {
        li.header.waitNext = true;
        --computeToLoad;
      }
      li.header.signalNext = keep;  // otherwise the weight load signals
      cmds.push_back(li.encode());

      hw::GemmCmd g;
      g.kRows = static_cast<uint32_t>(uni(1, R));
      if (!keep) {
        hw::LoadCmd lw;
        lw.dst = hw::Mem::kW;
        lw.rowBytes = static_cast<uint32_t>(uni(1, C));
        lw.spadAddr = static_cast<uint32_t>(uni(0, cfg.wSpadRows() - g.kRows));
        lw.dramAddr = layout.weights + static_cast<uint64_t>(uni(0, 8192));
        lw.stride0 = C + static_cast<uint32_t>(uni(0, 4));
        lw.count0 = g.kRows;
        lw.count1 = lw.count2 = 1;
        if (g.kRows % 2 == 0 && uni(0, 1)) {  // the same rows as two levels
          lw.count0 = g.kRows / 2;
          lw.count1 = 2;
          lw.stride1 = lw.count0 * lw.stride0;
        }
        lw.header.signalNext = true;
        cmds.push_back(lw.encode());
        g.wAddr = lw.spadAddr;
      }
      g.keepWeights = keep;
      g.inAddr = inAddr;
      g.mRows = m;
      g.accAddr = accAddr;
      g.accumulate = part > 0;
      g.inSigned = uni(0, 1);
      g.wSigned = uni(0, 1);
      g.inZp = static_cast<int32_t>(g.inSigned ? uni(-128, 127) : uni(0, 255));
      g.wZp = static_cast<int32_t>(g.wSigned ? uni(-128, 127) : uni(0, 255));
      g.header.waitPrev = true;
      g.header.waitNext = part == 0 && tile > 0;  // the previous store freed the accumulator
      g.header.signalPrev = !lastGemm;
      g.header.signalNext = lastPart;
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
    s.rowBytes = static_cast<uint32_t>(uni(1, C));
    s.paramRow = static_cast<uint32_t>(uni(0, cfg.paramRows() - 1));
    s.accAddr = accAddr;
    const uint32_t rowOut = s.rowBytes * (s.mode == hw::StoreMode::kRaw32 ? 4 : 1);
    s.count0 = m;
    s.count1 = 1;
    if (m % 2 == 0 && uni(0, 1)) {
      s.count0 = m / 2;
      s.count1 = 2;
    }
    s.stride0 = rowOut + static_cast<uint32_t>(uni(0, 8));
    s.stride1 = s.count0 * s.stride0 + static_cast<uint32_t>(uni(0, 32));
    s.dramAddr = outCursor;
    outCursor += (uint64_t{s.count1} * s.stride1 + 63) / 64 * 64;
    s.outZp = static_cast<int32_t>(uni(-100, 200));
    s.clampMin = static_cast<int32_t>(uni(-128, 100));
    s.clampMax = static_cast<int32_t>(uni(s.clampMin, 255));
    s.header.waitPrev = true;
    s.header.signalPrev = !lastTile;
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
    li.header.waitNext = t >= 2;
    cmds.push_back(li.encode());
    hw::LoadCmd lw = rowLoad(hw::Mem::kW, C, buf * R, layout.weights + uint64_t{buf} * R * C, R);
    lw.header.signalNext = true;
    cmds.push_back(lw.encode());
    hw::GemmCmd g = fullGemm(cfg, buf * R, buf * M, M, buf * M);
    g.header.waitPrev = true;
    g.header.waitNext = t >= 2;
    g.header.signalPrev = !tail;
    g.header.signalNext = true;
    cmds.push_back(g.encode());
    hw::StoreCmd s = requantStore(cfg, buf * M, layout.outputs + uint64_t{buf} * M * C, M);
    s.header.waitPrev = true;
    s.header.signalPrev = !tail;
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
  lw.header.signalNext = true;
  cmds.push_back(lw.encode());
  for (unsigned k = 0; k < stores; ++k) {
    // Each GEMM fills its own accumulator rows (no store reads rows a later GEMM writes).
    hw::GemmCmd g = fullGemm(cfg, 0, 0, M, k * M);
    g.keepWeights = k > 0;
    g.header.waitPrev = k == 0;
    g.header.signalNext = true;
    cmds.push_back(g.encode());
    hw::StoreCmd st = requantStore(cfg, k * M, layout.outputs + uint64_t{k} * M * C, M);
    st.header.waitPrev = true;
    cmds.push_back(st.encode());
  }
  cmds.push_back(finalBarrier(p, layout, stores * 1000 + rows));
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
