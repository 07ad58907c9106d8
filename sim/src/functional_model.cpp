#include "weft/sim/functional_model.h"

#include <fmt/format.h>
#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "weft/hw/fp16.h"
#include "weft/hw/postproc.h"
#include "weft/sim/postproc_row.h"

namespace weft::sim {
namespace {

using hw::Error;

int32_t readLe32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return static_cast<int32_t>(v);
}

// The highest byte address + 1 a pattern of rows touches: rows (i2, i1, i0) of `bytes` bytes at
// base + i2 * s2 + i1 * s1 + i0 * s0 (strides are unsigned, so the last row is the farthest).
uint64_t patternEnd(uint64_t base, uint64_t c0, uint64_t s0, uint64_t c1, uint64_t s1, uint64_t c2, uint64_t s2,
                    uint64_t bytes) {
  return base + (c2 - 1) * s2 + (c1 - 1) * s1 + (c0 - 1) * s0 + bytes;
}

void checkPattern(const DramStorage& dram, uint64_t base, uint64_t end) {
  if (end > dram.size() || base > end) {
    throw std::out_of_range(fmt::format("DRAM access [{:#x}, {:#x}) outside the {} MiB device memory", base, end,
                                        dram.size() >> 20));
  }
}

// One row of a LOAD: rowBytes bytes, then zeros up to the destination row's size.
__attribute__((target("avx512f,avx512bw"))) void copyRowAvx512(uint8_t* dst, const uint8_t* src, uint32_t rowBytes,
                                                               uint32_t rowSize) {
  const __mmask64 data = rowBytes >= 64 ? ~__mmask64{0} : (__mmask64{1} << rowBytes) - 1;
  const __mmask64 row = rowSize >= 64 ? ~__mmask64{0} : (__mmask64{1} << rowSize) - 1;
  _mm512_mask_storeu_epi8(dst, row, _mm512_maskz_loadu_epi8(data, src));
}

void copyRowPortable(uint8_t* dst, const uint8_t* src, uint32_t rowBytes, uint32_t rowSize) {
  std::memcpy(dst, src, rowBytes);
  std::memset(dst + rowBytes, 0, rowSize - rowBytes);
}

}  // namespace

FunctionalModel::FunctionalModel(const hw::HwConfig& config)
    : config_(config), rows_(config.rows()), cols_(config.cols()), engine_(config.rows(), config.cols()) {
  vectorCopies_ = engine_.isa() == GemmIsa::kAvx512;
  reset();
}

void FunctionalModel::reset() {
  in_.assign(size_t{config_.inSpadRows()} * rows_ + GemmEngine::kInputPadding, 0);
  w_.assign(size_t{config_.wSpadRows()} * cols_, 0);
  param_.assign(size_t{config_.paramRows()} * config_.paramRowBytes(), 0);
  vec_.assign(size_t{config_.vecSpadRows()} * cols_, 0);
  lut_.fill(0);
  acc_.assign(size_t{config_.accRows()} * cols_, 0);
  engine_.reset();
  bias_.resize(cols_);
  multiplier_.resize(cols_);
  left_.resize(cols_);
  right_.resize(cols_);
  tokens_ = {};
  protocolErrors_.clear();
  commandIndex_ = 0;
}

void FunctionalModel::resetTokens() {
  tokens_ = {};
  protocolErrors_.clear();
  commandIndex_ = 0;
}

Error FunctionalModel::check(const hw::CommandWord& cmd) const { return hw::checkCommand(cmd, config_); }

// The token queues behind the header bits (hw/spec/isa.json units).
void FunctionalModel::popTokens(const hw::CommandWord& cmd, hw::Unit unit) {
  const auto& ports = hw::kUnitTokenPorts[static_cast<size_t>(unit)];
  const bool wait[2] = {cmd.get(hw::field::kWait0) != 0, cmd.get(hw::field::kWait1) != 0};
  for (int p = 0; p < 2; ++p) {
    const int q = ports.waits[p];
    if (!wait[p] || q < 0) continue;
    if (tokens_[q] == 0) {
      protocolErrors_.push_back(fmt::format(
          "command {} ({}) waits for a {} token that no earlier command pushed", commandIndex_,
          hw::opcodeName(static_cast<hw::Opcode>(cmd.get(hw::field::kOpcode))), hw::kTokenQueues[q].name));
      continue;
    }
    --tokens_[q];
  }
}

void FunctionalModel::pushTokens(const hw::CommandWord& cmd, hw::Unit unit) {
  const auto& ports = hw::kUnitTokenPorts[static_cast<size_t>(unit)];
  const bool signal[2] = {cmd.get(hw::field::kSignal0) != 0, cmd.get(hw::field::kSignal1) != 0};
  for (int p = 0; p < 2; ++p) {
    if (signal[p] && ports.signals[p] >= 0) ++tokens_[ports.signals[p]];
  }
}

void FunctionalModel::execute(const hw::CommandWord& cmd, DramStorage& dram,
                              const CounterValues& counters) {
  const auto op = static_cast<hw::Opcode>(cmd.get(hw::field::kOpcode));
  const hw::Unit unit = hw::unitOf(op);
  popTokens(cmd, unit);
  switch (op) {
    case hw::Opcode::kLoad:
      load(hw::LoadCmd::decode(cmd), dram);
      break;
    case hw::Opcode::kGemm:
      gemm(hw::GemmCmd::decode(cmd));
      break;
    case hw::Opcode::kStore:
      store(hw::StoreCmd::decode(cmd), dram);
      break;
    case hw::Opcode::kWindow:
      window(hw::WindowCmd::decode(cmd));
      break;
    case hw::Opcode::kEltwise:
      eltwise(hw::EltwiseCmd::decode(cmd));
      break;
    case hw::Opcode::kSoftmax:
      softmax(hw::SoftmaxCmd::decode(cmd));
      break;
    case hw::Opcode::kLayerNorm:
      layerNorm(hw::LayerNormCmd::decode(cmd));
      break;
    case hw::Opcode::kBarrier: {
      const auto c = hw::BarrierCmd::decode(cmd);
      if (c.snapshot) {
        std::array<uint64_t, 1 + hw::kNumCounters> record{};
        record[0] = c.tag;
        for (size_t i = 0; i < hw::kNumCounters; ++i) record[1 + i] = counters[i];
        dram.write(c.dramAddr, record.data(), sizeof(record));
      }
      break;
    }
    case hw::Opcode::kNop:
      break;
  }
  pushTokens(cmd, unit);
  ++commandIndex_;
}

void FunctionalModel::load(const hw::LoadCmd& c, const DramStorage& dram) {
  uint8_t* base = nullptr;
  const auto rowSize = static_cast<uint32_t>(hw::memRowBytes(c.dst, config_));
  std::vector<uint8_t> lutRows;  // the table's rows as bytes, unpacked into entries below
  switch (c.dst) {
    case hw::Mem::kIn: base = in_.data(); break;
    case hw::Mem::kW: base = w_.data(); break;
    case hw::Mem::kParam: base = param_.data(); break;
    case hw::Mem::kVec: base = vec_.data(); break;
    case hw::Mem::kLut:
      lutRows.assign(size_t{config_.lutRows()} * rowSize, 0);
      for (uint32_t e = 0; e < lut_.size(); ++e) std::memcpy(&lutRows[size_t{e} * 4], &lut_[e], 4);
      base = lutRows.data();
      break;
  }
  checkPattern(dram, c.dramAddr,
               patternEnd(c.dramAddr, c.count0, c.stride0, c.count1, c.stride1, c.count2, c.stride2, c.rowBytes));
  if (c.pack) {
    // Packed rows: row_bytes bytes from byte pack_byte of their first row on, the scratchpad
    // read as one byte string; nothing else changes (isa.json).
    uint64_t n = 0;
    for (uint32_t i2 = 0; i2 < c.count2; ++i2) {
      for (uint32_t i1 = 0; i1 < c.count1; ++i1) {
        for (uint32_t i0 = 0; i0 < c.count0; ++i0, ++n) {
          const uint64_t from = c.dramAddr + uint64_t{i2} * c.stride2 + uint64_t{i1} * c.stride1 + uint64_t{i0} * c.stride0;
          const uint64_t to = (c.spadAddr + n * c.packStride) * rowSize + c.packByte;
          std::memcpy(base + to, dram.data() + from, c.rowBytes);
        }
      }
    }
    return;
  }
  const auto copyRow = rowSize <= 64 && vectorCopies_ ? copyRowAvx512 : copyRowPortable;
  if (c.spread) {
    // Row (i2,i1,i0) to spad_addr + i0*pack_stride + i2*count1 + i1, in command order (a row
    // written twice keeps the later one, as in the load unit).
    for (uint32_t i2 = 0; i2 < c.count2; ++i2) {
      for (uint32_t i1 = 0; i1 < c.count1; ++i1) {
        const uint64_t addr = c.dramAddr + uint64_t{i2} * c.stride2 + uint64_t{i1} * c.stride1;
        const uint64_t row0 = uint64_t{c.spadAddr} + uint64_t{i2} * c.count1 + i1;
        for (uint32_t i0 = 0; i0 < c.count0; ++i0) {
          copyRow(base + (row0 + uint64_t{i0} * c.packStride) * rowSize, dram.data() + addr + uint64_t{i0} * c.stride0,
                  c.rowBytes, rowSize);
        }
      }
    }
  } else {
    loadRows(c, dram, base, rowSize);
  }
  if (c.dst == hw::Mem::kLut) {
    for (uint32_t e = 0; e < lut_.size(); ++e) lut_[e] = readLe32(&lutRows[size_t{e} * 4]);
  }
}

// A LOAD's rows in the plain layout: row (i2,i1,i0) to spad_addr + (i2*count1 + i1)*count0 + i0.
void FunctionalModel::loadRows(const hw::LoadCmd& c, const DramStorage& dram, uint8_t* base, uint32_t rowSize) {
  const auto copyRow = rowSize <= 64 && vectorCopies_ ? copyRowAvx512 : copyRowPortable;
  // Rows of up to 64 bytes (every input and weight row up to 64 columns) move as one masked
  // vector each; rows that repeat contiguously in DRAM and in the memory move as one block.
  const bool contiguous = c.rowBytes == rowSize && c.stride0 == rowSize;
  const uint8_t* src = dram.data();
  uint8_t* dst = base + size_t{c.spadAddr} * rowSize;
  for (uint32_t i2 = 0; i2 < c.count2; ++i2) {
    for (uint32_t i1 = 0; i1 < c.count1; ++i1) {
      const uint64_t addr = c.dramAddr + uint64_t{i2} * c.stride2 + uint64_t{i1} * c.stride1;
      if (contiguous) {
        std::memcpy(dst, src + addr, size_t{c.count0} * rowSize);
        dst += size_t{c.count0} * rowSize;
        continue;
      }
      for (uint32_t i0 = 0; i0 < c.count0; ++i0, dst += rowSize) copyRow(dst, src + addr + uint64_t{i0} * c.stride0, c.rowBytes, rowSize);
    }
  }
}

void FunctionalModel::gemm(const hw::GemmCmd& command) {
  // A GEMM of k_steps steps is that many GEMMs, each further along K.
  for (uint32_t s = 0; s < command.kSteps; ++s) {
    hw::GemmCmd step = command;
    step.inAddr = command.inAddr + s * command.inKstride;
    step.wAddr = command.wAddr + s * command.wKstride;
    step.accumulate = command.accumulate || s > 0;
    gemmStep(step);
  }
}

void FunctionalModel::gemmStep(const hw::GemmCmd& c) {
  if (!c.keepWeights && c.wTransposed) {
    // Weight row w_addr + n holds column n's weights along K: the tile as the PEs hold it.
    transposed_.resize(size_t{c.kRows} * cols_);
    for (uint32_t k = 0; k < c.kRows; ++k) {
      for (uint32_t n = 0; n < cols_; ++n) transposed_[size_t{k} * cols_ + n] = w_[(size_t{c.wAddr} + n) * cols_ + k];
    }
    engine_.preload(transposed_.data(), cols_, c.kRows, c.wSigned, c.wZp);
  } else if (!c.keepWeights) {
    engine_.preload(&w_[size_t{c.wAddr} * cols_], cols_, c.kRows, c.wSigned, c.wZp);
  }
  const uint32_t total = c.mRows * c.mGroups;
  const uint8_t* in = &in_[size_t{c.inAddr} * rows_];
  if (c.inStride0 != 1 || c.mGroups > 1) {
    // A strided GEMM (on-chip windows): gather its rows, then stream them as one block.
    gathered_.resize(size_t{total} * rows_ + GemmEngine::kInputPadding);
    uint8_t* dst = gathered_.data();
    for (uint32_t g = 0; g < c.mGroups; ++g) {
      for (uint32_t i = 0; i < c.mRows; ++i, dst += rows_) {
        const size_t row = size_t{c.inAddr} + size_t{g} * c.inStride1 + size_t{i} * c.inStride0;
        std::memcpy(dst, &in_[row * rows_], rows_);
      }
    }
    in = gathered_.data();
  }
  int32_t* acc = &acc_[size_t{c.accAddr} * cols_];
  if (c.fp16) {
    engine_.streamFp16(in, total, reinterpret_cast<uint32_t*>(acc), c.accumulate);
  } else {
    engine_.stream(in, total, c.inSigned, c.inZp, acc, c.accumulate);
  }
}

void FunctionalModel::store(const hw::StoreCmd& c, DramStorage& dram) {
  const bool raw = c.mode == hw::StoreMode::kRaw32;
  const bool fp16 = c.mode == hw::StoreMode::kFp16 || c.mode == hw::StoreMode::kFp16Affine;
  const bool affine = c.mode == hw::StoreMode::kFp16Affine;
  const uint32_t e = hw::columnBytes(c.mode);
  // A row: tiles - 1 whole tiles of Cols columns, then row_bytes columns of the last.
  const uint32_t bytes = e * ((c.tiles - 1) * cols_ + c.rowBytes);
  checkPattern(dram, c.dramAddr, patternEnd(c.dramAddr, c.count0, c.stride0, c.count1, c.stride1, 1, 0, bytes));
  for (uint32_t t = 0; t < c.tiles; ++t) {
    const uint32_t columnsOfTile = t + 1 == c.tiles ? c.rowBytes : cols_;
    const uint8_t* prow = &param_[size_t{c.paramRow + t} * config_.paramRowBytes()];
    for (uint32_t n = 0; n < columnsOfTile; ++n) {
      bias_[n] = readLe32(prow + 4 * n);
      multiplier_[n] = readLe32(prow + 4 * cols_ + 4 * n);
      const int shift = static_cast<int8_t>(prow[8 * cols_ + n]);
      left_[n] = requantLeft(shift);
      right_[n] = requantRight(shift);
    }
    const RequantColumns columns{bias_.data(), multiplier_.data(), left_.data(), right_.data()};
    const int32_t* acc = &acc_[(size_t{c.accAddr} + size_t{t} * c.tileAccStride) * cols_];
    for (uint32_t i1 = 0; i1 < c.count1; ++i1) {
      uint8_t* out = dram.data() + c.dramAddr + uint64_t{i1} * c.stride1 + uint64_t{t} * cols_ * e;
      for (uint32_t i0 = 0; i0 < c.count0; ++i0, acc += cols_, out += c.stride0) {
        if (raw) {
          for (uint32_t n = 0; n < columnsOfTile; ++n) {
            const auto v = static_cast<uint32_t>(acc[n]) + static_cast<uint32_t>(bias_[n]);
            std::memcpy(out + 4 * n, &v, 4);
          }
        } else if (fp16) {
          // The clamp fields hold binary16 bit patterns in this mode.
          const auto lo = static_cast<uint16_t>(c.clampMin), hi = static_cast<uint16_t>(c.clampMax);
          for (uint32_t n = 0; n < columnsOfTile; ++n) {
            const auto a = static_cast<uint32_t>(acc[n]), b = static_cast<uint32_t>(bias_[n]);
            const uint16_t h = affine ? hw::fp::storeFp16Affine(a, static_cast<uint32_t>(multiplier_[n]), b, lo, hi)
                                      : hw::fp::storeFp16(a, b, lo, hi);
            out[2 * n] = static_cast<uint8_t>(h);
            out[2 * n + 1] = static_cast<uint8_t>(h >> 8);
          }
        } else {
          requantizeRow(acc, columns, columnsOfTile, c.outZp, c.clampMin, c.clampMax, out);
        }
      }
    }
  }
}

}  // namespace weft::sim
