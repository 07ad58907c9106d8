// Random tile programs through the RTL, checked byte for byte against the C++ reference
// (reference.h): the scaffolding the int8 (rtl_gemm_test) and fp16 (rtl_fp16_test) suites share.
// A suite derives, writes its tiles (tile(): loads, GEMMs, stores through addStore) and says how
// it describes a GEMM; run() executes a program of several tiles and, on the first wrong byte,
// names the store, accumulator row and GEMMs behind it.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "reference.h"
#include "rtl_device.h"

namespace weft::rtltest {

inline std::string hex(uint64_t v, int digits) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%0*llx", digits, static_cast<unsigned long long>(v));
  return b;
}

class TilePrograms {
 public:
  static constexpr uint64_t kInputs = 0x100000, kOutputBytes = 0x100000;

  // Inputs go from kInputs up, outputs to [outputs, outputs + kOutputBytes); a program holds
  // fewer than `ringSize` commands (the ring the device was initialised with).
  TilePrograms(RtlDevice& dev, uint32_t seed, uint64_t outputs, uint32_t ringSize)
      : dev_(dev), ref_(dev.config()), rng_(seed), expected_(kOutputBytes, 0), outputs_(outputs), ring_(ringSize) {}
  virtual ~TilePrograms() = default;

  // Runs `tiles` tiles as one program ending in an interrupting barrier (barriers between the
  // tiles, which reuse scratchpad, accumulator and parameter rows) and compares every output byte.
  void run(int tiles) {
    std::fill(expected_.begin(), expected_.end(), 0);
    dev_.dram().put(outputs_, expected_);
    next_ = kInputs;
    stores_.clear();
    std::vector<hw::CommandWord> cmds;
    uint64_t out = outputs_;
    for (int t = 0; t < tiles; ++t) {
      if (t > 0) cmds.push_back(barrier(false));
      firstOfTile_ = cmds.size();
      tile(cmds, out);
    }
    ASSERT_LT(out, outputs_ + kOutputBytes);
    ASSERT_LT(next_, outputs_);
    cmds.push_back(barrier(true));
    ASSERT_LT(cmds.size(), ring_);
    ASSERT_EQ(dev_.run(cmds), hw::reg::kIrqStatusDoneMask);
    const auto actual = dev_.dram().get(outputs_, kOutputBytes);
    for (size_t i = 0; i < actual.size(); ++i) {
      ASSERT_EQ(static_cast<int>(actual[i]), static_cast<int>(expected_[i]))
          << "output byte " << i << " (" << describe(outputs_ + i) << ")";
    }
  }

 protected:
  // Appends one tile's commands, its outputs from `out` on (advanced past them).
  virtual void tile(std::vector<hw::CommandWord>& cmds, uint64_t& out) = 0;
  // A GEMM as the failure messages show it.
  virtual std::string describeGemm(const hw::GemmCmd& g) const = 0;

  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool coin(int percent = 50) { return uniform(0, 99) < percent; }

  // Strided GEMMs (on-chip windows) half of the time: the m rows as groups. Returns the span
  // of input rows.
  uint32_t stridedShape(hw::GemmCmd& g, uint32_t m) {
    g.mRows = m;
    if (!coin()) return m;
    for (uint32_t d = uniform(1, 8); d > 1; --d) {
      if (m % d == 0) {
        g.mGroups = d;
        break;
      }
    }
    g.mRows = m / g.mGroups;
    g.inStride0 = uniform(0, 3);
    g.inStride1 = uniform(0, 4 * g.mRows);
    return (g.mGroups - 1) * g.inStride1 + (g.mRows - 1) * g.inStride0 + 1;
  }

  // DRAM for the program's inputs: every tile gets its own.
  uint64_t alloc(size_t bytes) {
    const uint64_t a = next_;
    next_ += (bytes + 63) / 64 * 64;
    return a;
  }

  // Appends a STORE, applies it to the expected outputs and records the GEMMs behind it.
  void addStore(std::vector<hw::CommandWord>& cmds, const hw::StoreCmd& s, std::vector<hw::GemmCmd> gemms) {
    cmds.push_back(s.encode());
    ref_.store(s, expected_.data() - outputs_);
    stores_.push_back({s, std::move(gemms)});
  }

  // Which store, row and byte wrote a DRAM byte, with the GEMMs behind it.
  std::string describe(uint64_t addr) const {
    const unsigned C = dev_.config().cols();
    for (size_t k = 0; k < stores_.size(); ++k) {
      const auto& st = stores_[k].store;
      const uint64_t width = uint64_t{hw::columnBytes(st.mode)} * ((st.tiles - 1) * C + st.rowBytes);
      for (uint32_t i1 = 0; i1 < st.count1; ++i1) {
        for (uint32_t i0 = 0; i0 < st.count0; ++i0) {
          const uint64_t a = st.dramAddr + uint64_t{i1} * st.stride1 + uint64_t{i0} * st.stride0;
          if (addr < a || addr >= a + width) continue;
          std::string d = "store " + std::to_string(k) + " " + std::string(hw::toString(st.mode)) + " acc row " +
                          std::to_string(st.accAddr + i1 * st.count0 + i0) + " byte " + std::to_string(addr - a) +
                          " clamps " + hex(static_cast<uint16_t>(st.clampMin), 4) + ".." +
                          hex(static_cast<uint16_t>(st.clampMax), 4) + "; gemms:";
          for (const auto& g : stores_[k].gemms) d += " [" + describeGemm(g) + "]";
          return d;
        }
      }
    }
    return "not written by any store";
  }

  RtlDevice& dev_;
  Reference ref_;
  std::mt19937 rng_;
  std::vector<uint8_t> expected_;  // the output region as the reference computes it
  size_t firstOfTile_ = 0;         // the index of the running tile's first command

 private:
  struct StoreRecord {
    hw::StoreCmd store;
    std::vector<hw::GemmCmd> gemms;
  };
  std::vector<StoreRecord> stores_;
  uint64_t next_ = kInputs;
  uint64_t outputs_;
  uint32_t ring_;
};

}  // namespace weft::rtltest
