#include "weft/sim/functional_model.h"

#include <fmt/format.h>
#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "weft/hw/postproc.h"
#include "weft/sim/postproc_row.h"

namespace weft::sim {
namespace {

using hw::Error;

bool zeroPointFits(int64_t zp, bool isSigned) {
  return isSigned ? (zp >= -128 && zp <= 127) : (zp >= 0 && zp <= 255);
}

int32_t operand(uint8_t byte, bool isSigned) {
  return isSigned ? static_cast<int32_t>(static_cast<int8_t>(byte)) : static_cast<int32_t>(byte);
}

int32_t readLe32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return static_cast<int32_t>(v);
}

// One input row through the PE weights. The weights are stored as k pairs: for each pair p and
// column n the two 16-bit values w[2p][n], w[2p+1][n] side by side, so that one multiply-add
// of 16-bit pairs (pmaddwd) gives x[2p] w[2p][n] + x[2p+1] w[2p+1][n] for 8 columns at once.
void gemmRowScalar(const int16_t* xs, const int16_t* wp, uint32_t kPairs, uint32_t cols, int32_t* acc,
                   bool accumulate) {
  for (uint32_t n = 0; n < cols; ++n) {
    int32_t sum = 0;
    for (uint32_t p = 0; p < kPairs; ++p) {
      const int16_t* w = wp + (size_t{p} * cols + n) * 2;
      sum += int32_t{xs[2 * p]} * w[0] + int32_t{xs[2 * p + 1]} * w[1];
    }
    const uint32_t base = accumulate ? static_cast<uint32_t>(acc[n]) : 0;
    acc[n] = static_cast<int32_t>(base + static_cast<uint32_t>(sum));
  }
}

__attribute__((target("avx2"))) void gemmRowAvx2(const int16_t* xs, const int16_t* wp, uint32_t kPairs,
                                                 uint32_t cols, int32_t* acc, bool accumulate) {
  uint32_t n = 0;
  for (; n + 8 <= cols; n += 8) {
    __m256i sum = _mm256_setzero_si256();
    for (uint32_t p = 0; p < kPairs; ++p) {
      int32_t pair;
      std::memcpy(&pair, xs + 2 * p, 4);
      const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wp + (size_t{p} * cols + n) * 2));
      sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_set1_epi32(pair), w));
    }
    __m256i* out = reinterpret_cast<__m256i*>(acc + n);
    const __m256i base = accumulate ? _mm256_loadu_si256(out) : _mm256_setzero_si256();
    _mm256_storeu_si256(out, _mm256_add_epi32(base, sum));  // wraps, as the RTL's adders
  }
  if (n < cols) {  // the columns past the last group of 8
    for (; n < cols; ++n) {
      int32_t sum = 0;
      for (uint32_t p = 0; p < kPairs; ++p) {
        const int16_t* w = wp + (size_t{p} * cols + n) * 2;
        sum += int32_t{xs[2 * p]} * w[0] + int32_t{xs[2 * p + 1]} * w[1];
      }
      const uint32_t base = accumulate ? static_cast<uint32_t>(acc[n]) : 0;
      acc[n] = static_cast<int32_t>(base + static_cast<uint32_t>(sum));
    }
  }
}

// AVX2 where the CPU has it; WEFT_FUNCTIONAL_SCALAR=1 forces the portable loop (its test).
using GemmRow = void (*)(const int16_t*, const int16_t*, uint32_t, uint32_t, int32_t*, bool);
const GemmRow gemmRow =
    std::getenv("WEFT_FUNCTIONAL_SCALAR") == nullptr && __builtin_cpu_supports("avx2") ? gemmRowAvx2 : gemmRowScalar;

}  // namespace

FunctionalModel::FunctionalModel(const hw::HwConfig& config)
    : config_(config), rows_(config.rows()), cols_(config.cols()) {
  reset();
}

void FunctionalModel::reset() {
  in_.assign(size_t{config_.inSpadRows()} * rows_, 0);
  w_.assign(size_t{config_.wSpadRows()} * cols_, 0);
  param_.assign(size_t{config_.paramRows()} * config_.paramRowBytes(), 0);
  acc_.assign(size_t{config_.accRows()} * cols_, 0);
  kStride_ = (rows_ + 1) / 2 * 2;  // k values, padded to whole pairs
  peWeights_.assign(size_t{cols_} * kStride_, 0);
  peKRows_ = 0;
  xs_.assign(kStride_, 0);
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

Error FunctionalModel::check(const hw::CommandWord& cmd) const {
  const uint64_t opcode = cmd.get(hw::field::kOpcode);
  if (!hw::isOpcode(opcode)) return Error::kBadOpcode;
  switch (static_cast<hw::Opcode>(opcode)) {
    case hw::Opcode::kLoad: {
      const auto c = hw::LoadCmd::decode(cmd);
      uint64_t rowBytes = 0, depth = 0;
      switch (c.dst) {
        case hw::Mem::kIn: rowBytes = rows_; depth = config_.inSpadRows(); break;
        case hw::Mem::kW: rowBytes = cols_; depth = config_.wSpadRows(); break;
        case hw::Mem::kParam: rowBytes = config_.paramRowBytes(); depth = config_.paramRows(); break;
        default: return Error::kBadValue;
      }
      if (c.count0 == 0 || c.count1 == 0 || c.count2 == 0) return Error::kBadLength;
      if (c.rowBytes == 0 || c.rowBytes > rowBytes) return Error::kBadLength;
      const uint64_t n = uint64_t{c.count0} * c.count1 * c.count2;
      if (c.spadAddr + n > depth) return Error::kBadAddress;
      return Error::kNone;
    }
    case hw::Opcode::kGemm: {
      const auto c = hw::GemmCmd::decode(cmd);
      if (!zeroPointFits(c.inZp, c.inSigned)) return Error::kBadValue;
      if (!c.keepWeights && !zeroPointFits(c.wZp, c.wSigned)) return Error::kBadValue;
      if (c.mRows == 0) return Error::kBadLength;
      if (!c.keepWeights && (c.kRows == 0 || c.kRows > rows_)) return Error::kBadLength;
      if (!c.keepWeights && uint64_t{c.wAddr} + c.kRows > config_.wSpadRows()) return Error::kBadAddress;
      if (uint64_t{c.inAddr} + c.mRows > config_.inSpadRows()) return Error::kBadAddress;
      if (uint64_t{c.accAddr} + c.mRows > config_.accRows()) return Error::kBadAddress;
      return Error::kNone;
    }
    case hw::Opcode::kStore: {
      const auto c = hw::StoreCmd::decode(cmd);
      if (c.mode != hw::StoreMode::kRequant8 && c.mode != hw::StoreMode::kRaw32) return Error::kBadValue;
      if (c.count0 == 0 || c.count1 == 0) return Error::kBadLength;
      if (c.rowBytes == 0 || c.rowBytes > cols_) return Error::kBadLength;
      if (uint64_t{c.accAddr} + uint64_t{c.count0} * c.count1 > config_.accRows()) return Error::kBadAddress;
      if (c.paramRow >= config_.paramRows()) return Error::kBadAddress;
      return Error::kNone;
    }
    case hw::Opcode::kNop:
    case hw::Opcode::kBarrier:
      return Error::kNone;
  }
  return Error::kBadOpcode;
}

void FunctionalModel::popTokens(const hw::CommandWord& cmd, hw::Unit unit) {
  auto pop = [&](Queue q, const char* name) {
    if (tokens_[q] == 0) {
      protocolErrors_.push_back(fmt::format(
          "command {} ({}) waits for a {} token that no earlier command pushed", commandIndex_,
          hw::opcodeName(static_cast<hw::Opcode>(cmd.get(hw::field::kOpcode))), name));
      return;
    }
    --tokens_[q];
  };
  const bool waitPrev = cmd.get(hw::field::kWaitPrev) != 0;
  const bool waitNext = cmd.get(hw::field::kWaitNext) != 0;
  if (unit == hw::Unit::kLoad && waitNext) pop(kComputeToLoad, "compute->load");
  if (unit == hw::Unit::kCompute && waitPrev) pop(kLoadToCompute, "load->compute");
  if (unit == hw::Unit::kCompute && waitNext) pop(kStoreToCompute, "store->compute");
  if (unit == hw::Unit::kStore && waitPrev) pop(kComputeToStore, "compute->store");
}

void FunctionalModel::pushTokens(const hw::CommandWord& cmd, hw::Unit unit) {
  const bool signalPrev = cmd.get(hw::field::kSignalPrev) != 0;
  const bool signalNext = cmd.get(hw::field::kSignalNext) != 0;
  if (unit == hw::Unit::kLoad && signalNext) ++tokens_[kLoadToCompute];
  if (unit == hw::Unit::kCompute && signalPrev) ++tokens_[kComputeToLoad];
  if (unit == hw::Unit::kCompute && signalNext) ++tokens_[kComputeToStore];
  if (unit == hw::Unit::kStore && signalPrev) ++tokens_[kStoreToCompute];
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
  size_t rowSize = 0;
  switch (c.dst) {
    case hw::Mem::kIn: base = in_.data(); rowSize = rows_; break;
    case hw::Mem::kW: base = w_.data(); rowSize = cols_; break;
    case hw::Mem::kParam: base = param_.data(); rowSize = config_.paramRowBytes(); break;
  }
  size_t row = c.spadAddr;
  for (uint32_t i2 = 0; i2 < c.count2; ++i2) {
    for (uint32_t i1 = 0; i1 < c.count1; ++i1) {
      for (uint32_t i0 = 0; i0 < c.count0; ++i0, ++row) {
        const uint64_t addr = c.dramAddr + uint64_t{i2} * c.stride2 + uint64_t{i1} * c.stride1 +
                              uint64_t{i0} * c.stride0;
        uint8_t* dst = base + row * rowSize;
        dram.read(addr, dst, c.rowBytes);
        std::memset(dst + c.rowBytes, 0, rowSize - c.rowBytes);
      }
    }
  }
}

void FunctionalModel::gemm(const hw::GemmCmd& c) {
  if (!c.keepWeights) {
    peKRows_ = c.kRows;
    std::fill(peWeights_.begin(), peWeights_.end(), 0);
    for (uint32_t k = 0; k < c.kRows; ++k) {
      const uint8_t* w = &w_[(size_t{c.wAddr} + k) * cols_];
      for (uint32_t n = 0; n < cols_; ++n) {
        peWeights_[(size_t{k / 2} * cols_ + n) * 2 + k % 2] = static_cast<int16_t>(operand(w[n], c.wSigned) - c.wZp);
      }
    }
  }
  // Operands are 9-bit (a byte minus a zero point checked to fit), products 18-bit: a sum of
  // up to 64 of them cannot overflow int32; adding it to the accumulator wraps, as in the RTL.
  const uint32_t kPairs = (peKRows_ + 1) / 2;
  std::fill(xs_.begin(), xs_.end(), 0);
  for (uint32_t m = 0; m < c.mRows; ++m) {
    const uint8_t* x = &in_[(size_t{c.inAddr} + m) * rows_];
    for (uint32_t k = 0; k < peKRows_; ++k) xs_[k] = static_cast<int16_t>(operand(x[k], c.inSigned) - c.inZp);
    gemmRow(xs_.data(), peWeights_.data(), kPairs, cols_, &acc_[(size_t{c.accAddr} + m) * cols_], c.accumulate);
  }
}

void FunctionalModel::store(const hw::StoreCmd& c, DramStorage& dram) {
  const uint8_t* prow = &param_[size_t{c.paramRow} * config_.paramRowBytes()];
  for (uint32_t n = 0; n < c.rowBytes; ++n) {
    bias_[n] = readLe32(prow + 4 * n);
    multiplier_[n] = readLe32(prow + 4 * cols_ + 4 * n);
    const int shift = static_cast<int8_t>(prow[8 * cols_ + n]);
    left_[n] = requantLeft(shift);
    right_[n] = requantRight(shift);
  }
  const RequantColumns columns{bias_.data(), multiplier_.data(), left_.data(), right_.data()};
  std::vector<uint8_t> out(size_t{c.rowBytes} * 4);
  const size_t bytes = c.mode == hw::StoreMode::kRaw32 ? out.size() : c.rowBytes;
  size_t row = c.accAddr;
  for (uint32_t i1 = 0; i1 < c.count1; ++i1) {
    for (uint32_t i0 = 0; i0 < c.count0; ++i0, ++row) {
      const int32_t* acc = &acc_[row * cols_];
      if (c.mode == hw::StoreMode::kRaw32) {
        for (uint32_t n = 0; n < c.rowBytes; ++n) {
          const auto v = static_cast<uint32_t>(acc[n]) + static_cast<uint32_t>(bias_[n]);
          std::memcpy(&out[4 * n], &v, 4);
        }
      } else {
        requantizeRow(acc, columns, c.rowBytes, c.outZp, c.clampMin, c.clampMax, out.data());
      }
      const uint64_t addr = c.dramAddr + uint64_t{i1} * c.stride1 + uint64_t{i0} * c.stride0;
      dram.write(addr, out.data(), bytes);
    }
  }
}

}  // namespace weft::sim
