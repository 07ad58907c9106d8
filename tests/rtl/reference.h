// A straightforward C++ reference of the scratchpads, accumulator and PE weights, updated by
// the same commands the tests send to the RTL (ring order). Stores compute their DRAM bytes
// with weft::hw::postprocess / requantize, bit for bit; GEMM fp16 and STORE mode fp16 use the
// binary16/binary32 arithmetic of weft/hw/fp16.h.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "weft/hw/config.h"
#include "weft/hw/fp16.h"
#include "weft/hw/generated.h"
#include "weft/hw/postproc.h"

namespace weft::rtltest {

class Reference {
 public:
  explicit Reference(const hw::HwConfig& c)
      : R(c.rows()), C(c.cols()), P(c.paramRowBytes()),
        in(size_t{c.inSpadRows()} * R), w(size_t{c.wSpadRows()} * C),
        param(size_t{c.paramRows()} * P), acc(size_t{c.accRows()} * C), pe(size_t{R} * C) {}

  void load(const hw::LoadCmd& l, const uint8_t* dram) {
    uint8_t* base = l.dst == hw::Mem::kIn ? in.data() : l.dst == hw::Mem::kW ? w.data() : param.data();
    const size_t rowSize = l.dst == hw::Mem::kIn ? R : l.dst == hw::Mem::kW ? C : P;
    size_t row = l.spadAddr;
    for (uint32_t i2 = 0; i2 < l.count2; ++i2)
      for (uint32_t i1 = 0; i1 < l.count1; ++i1)
        for (uint32_t i0 = 0; i0 < l.count0; ++i0, ++row) {
          const uint64_t a = l.dramAddr + uint64_t{i2} * l.stride2 + uint64_t{i1} * l.stride1 +
                             uint64_t{i0} * l.stride0;
          if (l.pack) {  // bytes from pack_byte of row spad_addr + n * pack_stride on
            const size_t n = row - l.spadAddr;
            std::memcpy(&base[(l.spadAddr + n * l.packStride) * rowSize + l.packByte], dram + a, l.rowBytes);
            continue;
          }
          // spread: row (i2,i1,i0) to spad_addr + i0 * pack_stride + i2 * count1 + i1
          const size_t to = l.spread ? l.spadAddr + size_t{i0} * l.packStride + size_t{i2} * l.count1 + i1 : row;
          std::memset(&base[to * rowSize], 0, rowSize);
          std::memcpy(&base[to * rowSize], dram + a, l.rowBytes);
        }
  }

  static int32_t operand(uint8_t b, bool isSigned) {
    return isSigned ? static_cast<int8_t>(b) : static_cast<int32_t>(b);
  }

  void gemm(const hw::GemmCmd& g) {
    if (!g.keepWeights) {
      k = g.kRows;
      for (unsigned r = 0; r < k; ++r)
        for (unsigned n = 0; n < C; ++n)
          pe[r * C + n] = operand(g.wTransposed ? w[(size_t{g.wAddr} + n) * C + r] : w[(size_t{g.wAddr} + r) * C + n],
                                  g.wSigned) - g.wZp;
    }
    for (uint32_t m = 0; m < g.mRows * g.mGroups; ++m)
      for (unsigned n = 0; n < C; ++n) {
        const size_t inRow = size_t{g.inAddr} + size_t{m / g.mRows} * g.inStride1 + size_t{m % g.mRows} * g.inStride0;
        int32_t& a = acc[(size_t{g.accAddr} + m) * C + n];
        if (g.fp16) {
          // hw/spec/isa.json GEMM fp16: binary16 pairs of bytes (zero points 0, so the input
          // bytes as they are; the weights' low bytes, however they were loaded).
          uint32_t p = 0;
          for (unsigned j = 0; j < k / 2; ++j) {
            const auto x = static_cast<uint16_t>(in[inRow * R + 2 * j] | in[inRow * R + 2 * j + 1] << 8);
            const auto wj = static_cast<uint16_t>((pe[2 * j * C + n] & 0xff) | (pe[(2 * j + 1) * C + n] & 0xff) << 8);
            p = hw::fp::fp32Add(p, hw::fp::fp16Mul(x, wj));
          }
          a = static_cast<int32_t>(g.accumulate ? hw::fp::fp32Add(static_cast<uint32_t>(a), p) : p);
          continue;
        }
        uint32_t sum = g.accumulate ? static_cast<uint32_t>(acc[(size_t{g.accAddr} + m) * C + n]) : 0;
        for (unsigned r = 0; r < k; ++r) {
          const int32_t x = operand(in[inRow * R + r], g.inSigned) - g.inZp;
          sum += static_cast<uint32_t>(x * pe[r * C + n]);
        }
        a = static_cast<int32_t>(sum);
      }
  }

  hw::ColumnParams columnParams(uint32_t paramRow, unsigned n) const {
    const uint8_t* p = &param[size_t{paramRow} * P];
    hw::ColumnParams cp;
    std::memcpy(&cp.bias, p + 4 * n, 4);
    std::memcpy(&cp.multiplier, p + 4 * C + 4 * n, 4);
    cp.shift = static_cast<int8_t>(p[8 * C + n]);
    return cp;
  }

  void store(const hw::StoreCmd& s, uint8_t* dram) const {
    const unsigned e = hw::columnBytes(s.mode);
    for (uint32_t t = 0; t < s.tiles; ++t) {
      const unsigned columns = t + 1 == s.tiles ? s.rowBytes : C;
      size_t row = s.accAddr + size_t{t} * s.tileAccStride;
      for (uint32_t i1 = 0; i1 < s.count1; ++i1)
        for (uint32_t i0 = 0; i0 < s.count0; ++i0, ++row) {
          uint8_t* out = dram + s.dramAddr + uint64_t{i1} * s.stride1 + uint64_t{i0} * s.stride0 + uint64_t{t} * C * e;
          for (unsigned n = 0; n < columns; ++n) {
            const auto p = columnParams(s.paramRow + t, n);
            const int32_t a = acc[row * C + n];
            if (s.mode == hw::StoreMode::kRaw32) {
              const uint32_t v = static_cast<uint32_t>(a) + static_cast<uint32_t>(p.bias);
              std::memcpy(out + 4 * n, &v, 4);
            } else if (s.mode == hw::StoreMode::kFp16 || s.mode == hw::StoreMode::kFp16Affine) {
              const auto lo = static_cast<uint16_t>(s.clampMin), hi = static_cast<uint16_t>(s.clampMax);
              const uint16_t h =
                  s.mode == hw::StoreMode::kFp16
                      ? hw::fp::storeFp16(static_cast<uint32_t>(a), static_cast<uint32_t>(p.bias), lo, hi)
                      : hw::fp::storeFp16Affine(static_cast<uint32_t>(a), static_cast<uint32_t>(p.multiplier),
                                                static_cast<uint32_t>(p.bias), lo, hi);
              std::memcpy(out + 2 * n, &h, 2);
            } else {
              out[n] = static_cast<uint8_t>(hw::postprocess(a, p, s.outZp, s.clampMin, s.clampMax));
            }
          }
        }
    }
  }

  unsigned R, C, P;
  std::vector<uint8_t> in, w, param;
  std::vector<int32_t> acc, pe;
  unsigned k = 0;  // rows of the weights held in the PEs
};

}  // namespace weft::rtltest
