// The vector unit's commands in the functional model (hw/spec/isa.json WINDOW, ELTWISE,
// SOFTMAX, LAYER_NORM), lane by lane with the RTL's arithmetic (weft/hw/vector_ops.h).
#include <algorithm>
#include <vector>

#include "weft/hw/fp16.h"
#include "weft/hw/layer_norm_fp16.h"
#include "weft/hw/softmax_fp16.h"
#include "weft/hw/vector_ops.h"
#include "weft/sim/functional_model.h"

namespace weft::sim {

namespace vec = hw::vec;

namespace {

uint16_t halfAt(const uint8_t* row, uint32_t element) {
  return static_cast<uint16_t>(row[2 * element] | row[2 * element + 1] << 8);
}

// The valid taps of output pixel (oy, ox) in order (kx fastest): tap(input row, weight row), the
// weight row a dwconv's only; returns their count. row(r) is vector scratchpad row r.
template <typename RowFn, typename TapFn>
uint32_t windowTaps(const hw::WindowCmd& c, uint32_t oy, uint32_t ox, RowFn row, TapFn tap) {
  uint32_t count = 0;
  for (uint32_t ky = 0; ky < c.kH; ++ky) {
    for (uint32_t kx = 0; kx < c.kW; ++kx) {
      const int64_t y = int64_t{oy} * c.sH + c.yOff + int64_t{ky} * c.dH;
      const int64_t x = int64_t{ox} * c.sW + c.xOff + int64_t{kx} * c.dW;
      if (y < 0 || y >= c.tileH || x < 0 || x >= c.tileW) continue;
      ++count;
      tap(row(static_cast<uint32_t>(c.inAddr + y * c.rowStride + x * c.pixStride)),
          c.kind == hw::WinKind::kDwconv ? row(c.wAddr + ky * c.kW + kx) : nullptr);
    }
  }
  return count;
}

}  // namespace

// WINDOW in binary16 mode: lane j < Cols/2 reduces binary16 values into a binary32 word.
void FunctionalModel::windowFp16(const hw::WindowCmd& c) {
  const uint32_t lanes = cols_ / 2;
  auto row = [this](uint32_t r) { return vecRow(r); };
  std::vector<uint32_t> reduced(lanes);
  for (uint32_t oy = 0; oy < c.outH; ++oy) {
    for (uint32_t ox = 0; ox < c.outW; ++ox) {
      std::fill(reduced.begin(), reduced.end(), c.kind == hw::WinKind::kMax ? 0xff800000u : 0u);
      const uint32_t count = windowTaps(c, oy, ox, row, [&](const uint8_t* in, const uint8_t* w) {
        for (uint32_t j = 0; j < lanes; ++j) {
          const uint16_t v = halfAt(in, (c.phase + j) / c.dm);
          switch (c.kind) {
            case hw::WinKind::kDwconv:
              reduced[j] = hw::fp::fp32Add(reduced[j], hw::fp::fp16Mul(v, halfAt(w, j)));
              break;
            case hw::WinKind::kMax:
              if (hw::fp::fp32Greater(hw::fp::fp16ToFp32(v), reduced[j])) reduced[j] = hw::fp::fp16ToFp32(v);
              break;
            case hw::WinKind::kAvg:
            case hw::WinKind::kMean:
              reduced[j] = hw::fp::fp32Add(reduced[j], hw::fp::fp16ToFp32(v));
              break;
          }
        }
      });
      int32_t* out = &acc_[size_t{c.accAddr + oy * c.outW + ox} * cols_];
      for (uint32_t l = 0; l < cols_; ++l) {
        uint32_t r = 0;
        if (l < lanes) {
          const bool divides = c.kind == hw::WinKind::kAvg || c.kind == hw::WinKind::kMean;
          r = divides ? hw::fp::fp32DivCount(reduced[l], count) : reduced[l];
        }
        out[l] = static_cast<int32_t>(r);
      }
    }
  }
}

void FunctionalModel::window(const hw::WindowCmd& c) {
  if (c.fp16) {
    windowFp16(c);
    return;
  }
  auto row = [this](uint32_t r) { return vecRow(r); };
  std::vector<uint32_t> lane(cols_);  // the input lane each output lane reads
  for (uint32_t l = 0; l < cols_; ++l) lane[l] = (c.phase + l) / c.dm;
  std::vector<int32_t> reduced(cols_);
  for (uint32_t oy = 0; oy < c.outH; ++oy) {
    for (uint32_t ox = 0; ox < c.outW; ++ox) {
      std::fill(reduced.begin(), reduced.end(), c.kind == hw::WinKind::kMax ? vec::typeMin(c.inSigned) : 0);
      const uint32_t count = windowTaps(c, oy, ox, row, [&](const uint8_t* in, const uint8_t* w) {
        for (uint32_t l = 0; l < cols_; ++l) {
          const int32_t v = vec::operand(in[lane[l]], c.inSigned, c.inZp);
          switch (c.kind) {
            case hw::WinKind::kDwconv:
              reduced[l] = vec::wrappingAdd(reduced[l], v * vec::operand(w[l], c.wSigned, c.wZp));
              break;
            case hw::WinKind::kMax:
              reduced[l] = std::max(reduced[l], v);
              break;
            case hw::WinKind::kAvg:
            case hw::WinKind::kMean:
              reduced[l] = vec::wrappingAdd(reduced[l], v);
              break;
          }
        }
      });
      int32_t* out = &acc_[size_t{c.accAddr + oy * c.outW + ox} * cols_];
      for (uint32_t l = 0; l < cols_; ++l) out[l] = vec::windowResult(c.kind, reduced[l], count);
    }
  }
}

void FunctionalModel::eltwise(const hw::EltwiseCmd& c) {
  if (c.fp16) {  // lut, add or mul (checked): lane j < Cols/2 on the binary16 values of a and b
    const uint32_t lanes = cols_ / 2;
    const bool readsB = c.kind == hw::EltKind::kAdd || c.kind == hw::EltKind::kMul;
    uint32_t r = 0;
    for (uint32_t i1 = 0; i1 < c.count1; ++i1) {
      for (uint32_t i0 = 0; i0 < c.count0; ++i0, ++r) {
        const uint8_t* a = vecRow(c.aAddr + i1 * c.aStride1 + i0 * c.aStride0);
        const uint8_t* b = readsB ? vecRow(c.bAddr + i1 * c.bStride1 + i0 * c.bStride0) : nullptr;
        int32_t* out = &acc_[size_t{c.accAddr + r} * cols_];
        for (uint32_t l = 0; l < cols_; ++l) {
          if (l >= lanes) {
            out[l] = 0;
            continue;
          }
          const uint16_t h = halfAt(a, c.aBcast ? 0 : l);
          // A negative b_mult makes the add a SUB: b's sign flipped.
          const bool sub = c.kind == hw::EltKind::kAdd && c.bMult < 0;
          const uint16_t g = (readsB ? halfAt(b, c.bBcast ? 0 : l) : 0) ^ (sub ? 0x8000 : 0);
          uint32_t v = 0;
          switch (c.kind) {
            case hw::EltKind::kAdd: v = hw::fp::fp32Add(hw::fp::fp16ToFp32(h), hw::fp::fp16ToFp32(g)); break;
            case hw::EltKind::kMul: v = hw::fp::fp16Mul(h, g); break;
            default: v = hw::fp::lutPiece(static_cast<uint32_t>(lut_[h >> 8]), h); break;
          }
          out[l] = static_cast<int32_t>(v);
        }
      }
    }
    return;
  }
  uint32_t r = 0;
  for (uint32_t i1 = 0; i1 < c.count1; ++i1) {
    for (uint32_t i0 = 0; i0 < c.count0; ++i0, ++r) {
      const uint8_t* a = vecRow(c.aAddr + i1 * c.aStride1 + i0 * c.aStride0);
      // Only add and mul read b; the controller checks b's rows for those kinds alone, so a
      // copy's or lut's b_addr may lie anywhere.
      const bool readsB = c.kind == hw::EltKind::kAdd || c.kind == hw::EltKind::kMul;
      const uint8_t* b = readsB ? vecRow(c.bAddr + i1 * c.bStride1 + i0 * c.bStride0) : nullptr;
      int32_t* out = &acc_[size_t{c.accAddr + r} * cols_];
      for (uint32_t l = 0; l < cols_; ++l) {
        const uint8_t ab = a[c.aBcast ? 0 : l], bb = readsB ? b[c.bBcast ? 0 : l] : 0;
        const int32_t x = vec::operand(ab, c.aSigned, c.aZp), y = vec::operand(bb, c.bSigned, c.bZp);
        switch (c.kind) {
          case hw::EltKind::kAdd:
            out[l] = vec::eltwiseAdd(x, y, static_cast<int>(c.leftShift), c.aMult, c.aShift, c.bMult, c.bShift);
            break;
          case hw::EltKind::kMul:
            out[l] = static_cast<int32_t>(static_cast<uint32_t>(x) * static_cast<uint32_t>(y));
            break;
          case hw::EltKind::kLut:
            out[l] = lut_[ab];
            break;
          case hw::EltKind::kCopy:
            out[l] = x;
            break;
        }
      }
    }
  }
}

void FunctionalModel::softmax(const hw::SoftmaxCmd& c) {
  if (c.fp16) return softmaxFp16(c);
  // Which (row, lane) elements take part, and each lane's group: its own, or lane 0's for all.
  auto valid = [&](uint32_t i, uint32_t l) { return !(c.crossLanes && i + 1 == c.count && l >= c.lastLanes); };
  auto x = [&](uint32_t i, uint32_t l) { return vec::operand(vecRow(c.inAddr + i * c.stride)[l], c.inSigned, 0); };
  std::vector<int32_t> maxOf(cols_, vec::typeMin(c.inSigned)), sumOf(cols_, 0);
  for (uint32_t i = 0; i < c.count; ++i)
    for (uint32_t l = 0; l < cols_; ++l)
      if (valid(i, l)) maxOf[l] = std::max(maxOf[l], x(i, l));
  if (c.crossLanes) std::fill(maxOf.begin(), maxOf.end(), *std::max_element(maxOf.begin(), maxOf.end()));
  auto distance = [&](uint32_t i, uint32_t l) { return static_cast<uint32_t>(maxOf[l] - x(i, l)); };
  auto inTable = [&](uint32_t i, uint32_t l) { return valid(i, l) && distance(i, l) < c.lutLen; };
  for (uint32_t i = 0; i < c.count; ++i)
    for (uint32_t l = 0; l < cols_; ++l)
      if (inTable(i, l)) sumOf[l] = vec::wrappingAdd(sumOf[l], vec::softmaxSumTerm(lut_[distance(i, l) & 0xFF]));
  if (c.crossLanes) {
    int32_t all = 0;
    for (int32_t s : sumOf) all = vec::wrappingAdd(all, s);
    std::fill(sumOf.begin(), sumOf.end(), all);
  }
  std::vector<vec::SoftmaxScale> scale(cols_);
  for (uint32_t l = 0; l < cols_; ++l) scale[l] = vec::softmaxScale(sumOf[l]);
  for (uint32_t i = 0; i < c.count; ++i) {
    int32_t* out = &acc_[size_t{c.accAddr + i} * cols_];
    for (uint32_t l = 0; l < cols_; ++l) {
      out[l] = inTable(i, l) ? vec::softmaxOutput(scale[l], lut_[distance(i, l) & 0xFF], c.inSigned)
                             : vec::typeMin(c.inSigned);
    }
  }
}

// SOFTMAX in binary16 mode: lane j < Cols/2 holds binary16 values; maximum, sum and output in
// binary32 (weft/hw/softmax_fp16.h).
void FunctionalModel::softmaxFp16(const hw::SoftmaxCmd& c) {
  const uint32_t lanes = cols_ / 2;
  auto valid = [&](uint32_t i, uint32_t j) { return !(c.crossLanes && i + 1 == c.count && j >= c.lastLanes); };
  auto t = [&](uint32_t i, uint32_t j) {
    return hw::fp::fp16Mul(halfAt(vecRow(c.inAddr + i * c.stride), j), static_cast<uint16_t>(c.beta));
  };
  std::vector<uint32_t> maxOf(lanes, 0xff800000u), sumOf(lanes, 0);
  for (uint32_t i = 0; i < c.count; ++i)
    for (uint32_t j = 0; j < lanes; ++j)
      if (valid(i, j) && hw::fp::fp32Greater(t(i, j), maxOf[j])) maxOf[j] = t(i, j);
  if (c.crossLanes) {
    uint32_t all = maxOf[0];
    for (uint32_t m : maxOf)
      if (hw::fp::fp32Greater(m, all)) all = m;
    std::fill(maxOf.begin(), maxOf.end(), all);
  }
  auto e = [&](uint32_t i, uint32_t j) {
    const auto split = vec::softmaxExpSplit(t(i, j), maxOf[j]);
    return vec::softmaxExp(split, static_cast<uint32_t>(lut_[split.k]));
  };
  for (uint32_t i = 0; i < c.count; ++i)
    for (uint32_t j = 0; j < lanes; ++j)
      if (valid(i, j)) sumOf[j] = hw::fp::fp32Add(sumOf[j], e(i, j));
  if (c.crossLanes) {
    uint32_t all = 0;
    for (uint32_t s : sumOf) all = hw::fp::fp32Add(all, s);
    std::fill(sumOf.begin(), sumOf.end(), all);
  }
  std::vector<int32_t> scale(lanes);
  for (uint32_t j = 0; j < lanes; ++j) scale[j] = vec::softmaxFp16Scale(sumOf[j]);
  for (uint32_t i = 0; i < c.count; ++i) {
    int32_t* out = &acc_[size_t{c.accAddr + i} * cols_];
    std::fill(out, out + cols_, 0);
    for (uint32_t j = 0; j < lanes; ++j) {
      if (valid(i, j)) out[j] = static_cast<int32_t>(vec::softmaxFp16Output(e(i, j), scale[j], sumOf[j]));
    }
  }
}

// LAYER_NORM in binary16 mode: lane j < Cols/2 holds binary16 values; binary32 sums, lanes'
// rows in order from +0 (a lane past last_lanes of the last row adds +0), then the lanes in
// order; the statistics and the output as weft/hw/layer_norm_fp16.h.
void FunctionalModel::layerNormFp16(const hw::LayerNormCmd& c) {
  const uint32_t lanes = cols_ / 2;
  const uint32_t n = (c.count - 1) * lanes + c.lastLanes;
  auto valid = [&](uint32_t i, uint32_t j) { return i + 1 < c.count || j < c.lastLanes; };
  auto h = [&](uint32_t i, uint32_t j) { return halfAt(vecRow(c.inAddr + i * c.stride), j); };
  std::vector<uint32_t> sumOf(lanes, 0), squaresOf(lanes, 0);
  for (uint32_t i = 0; i < c.count; ++i) {
    for (uint32_t j = 0; j < lanes; ++j) {
      const bool ok = valid(i, j);
      sumOf[j] = hw::fp::fp32Add(sumOf[j], ok ? hw::fp::fp16ToFp32(h(i, j)) : 0);
      squaresOf[j] = hw::fp::fp32Add(squaresOf[j], ok ? hw::fp::fp16Mul(h(i, j), h(i, j)) : 0);
    }
  }
  uint32_t sum = 0, squares = 0;
  for (uint32_t j = 0; j < lanes; ++j) {
    sum = hw::fp::fp32Add(sum, sumOf[j]);
    squares = hw::fp::fp32Add(squares, squaresOf[j]);
  }
  const vec::LayerNormFp16Scale scale = vec::layerNormFp16Scale(sum, squares, n, c.epsFp32);
  for (uint32_t i = 0; i < c.count; ++i) {
    int32_t* out = &acc_[size_t{c.accAddr + i * c.accStride} * cols_];
    std::fill(out, out + cols_, 0);
    for (uint32_t j = 0; j < lanes; ++j) {
      if (valid(i, j)) out[j] = static_cast<int32_t>(vec::layerNormFp16Output(scale, h(i, j)));
    }
  }
}

void FunctionalModel::layerNorm(const hw::LayerNormCmd& c) {
  if (c.fp16) return layerNormFp16(c);
  const uint32_t n = (c.count - 1) * cols_ + c.lastLanes;
  auto lanes = [&](uint32_t i) { return i + 1 == c.count ? c.lastLanes : cols_; };
  auto x = [&](uint32_t i, uint32_t l) {
    return vec::operand(vecRow(c.inAddr + i * c.stride)[l], c.inSigned, c.inZp);
  };
  int32_t sum = 0, squares = 0;
  for (uint32_t i = 0; i < c.count; ++i) {
    for (uint32_t l = 0; l < lanes(i); ++l) {
      sum = vec::wrappingAdd(sum, x(i, l));
      squares = vec::wrappingAdd(squares, x(i, l) * x(i, l));
    }
  }
  const vec::LayerNormScale scale = vec::layerNormScale(sum, squares, n, c.eps, c.outShift);
  for (uint32_t i = 0; i < c.count; ++i) {
    int32_t* out = &acc_[size_t{c.accAddr + i * c.accStride} * cols_];
    for (uint32_t l = 0; l < cols_; ++l) out[l] = l < lanes(i) ? vec::layerNormOutput(scale, x(i, l), n, sum) : 0;
  }
}

}  // namespace weft::sim
