// A device plus the C++ reference, kept in step: every command a test sends also updates the
// reference (in ring order), and every store's expected bytes land in an expected image of
// the output region. Tests then compare that region bit for bit.
#pragma once

#include <random>

#include "reference.h"
#include "rtl_device.h"

namespace weft::rtltest {

class Session {
 public:
  static constexpr uint64_t kData = 0x100000;     // inputs the programs read
  static constexpr uint64_t kOutputs = 0x500000;  // what they write
  static constexpr uint64_t kOutputBytes = 0x100000;

  explicit Session(const std::string& config, uint32_t seed = 1)
      : dev(config), ref(dev.config()), rng(seed), expected(kOutputBytes, 0) {
    dev.initRing();
  }

  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

  // DRAM for inputs, 64-byte aligned.
  uint64_t put(const std::vector<uint8_t>& bytes) {
    const uint64_t a = next_;
    next_ += (bytes.size() + 63) / 64 * 64;
    dev.dram().put(a, bytes);
    return a;
  }
  std::vector<uint8_t> randomBytes(size_t n) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = static_cast<uint8_t>(uniform(0, 255));
    return v;
  }

  // Each adds the command to the program and applies it to the reference.
  void add(const hw::LoadCmd& l) {
    ref.load(l, dev.dram().at(0));
    cmds.push_back(l.encode());
  }
  void add(const hw::GemmCmd& g) {
    ref.gemm(g);
    cmds.push_back(g.encode());
  }
  void add(const hw::StoreCmd& s) {
    ref.store(s, expected.data() - kOutputs);
    cmds.push_back(s.encode());
  }
  void add(const hw::CommandWord& other) { cmds.push_back(other); }

  // A contiguous load of `rows` rows of rowBytes from addr.
  static hw::LoadCmd load(hw::Mem dst, uint32_t spad, uint64_t addr, uint32_t rowBytes,
                          uint32_t rows, hw::CommandHeader h = {}) {
    hw::LoadCmd l;
    l.header = h;
    l.dst = dst;
    l.rowBytes = rowBytes;
    l.spadAddr = spad;
    l.dramAddr = addr;
    l.stride0 = rowBytes;
    l.count0 = rows;
    l.count1 = l.count2 = 1;
    return l;
  }

  // Runs the program (plus an interrupting barrier) and returns IRQ_STATUS.
  uint32_t run(uint64_t maxCycles = 2'000'000) {
    cmds.push_back(barrier(true));
    const uint32_t irq = dev.run(cmds, maxCycles);
    cmds.clear();
    return irq;
  }

  // The first output byte that differs from the reference, or -1.
  long firstMismatch() {
    const auto actual = dev.dram().get(kOutputs, kOutputBytes);
    for (size_t i = 0; i < actual.size(); ++i) {
      if (actual[i] != expected[i]) return static_cast<long>(i);
    }
    return -1;
  }

  RtlDevice dev;
  Reference ref;
  std::mt19937 rng;
  std::vector<uint8_t> expected;
  std::vector<hw::CommandWord> cmds;

 private:
  uint64_t next_ = kData;
};

}  // namespace weft::rtltest
