// The controller's validation against the models': hw/spec/isa.json's checks are generated both
// into the RTL package (check_command, run by weft_ctrl at decode) and into C++ (checkCommand, run
// by the functional and approximate models). Random command words, every field drawn from its
// boundaries (zero, one, the parameters and memory depths around which the rules turn, the
// zero-point ranges, the field's extremes), must get the same error from both.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "rtl_device.h"

namespace weft::rtltest {
namespace {

class RtlDecode : public ::testing::TestWithParam<std::string> {};

// Values around which the checks turn, for a configuration.
std::vector<int64_t> boundaries(const hw::HwConfig& c) {
  std::vector<int64_t> v = {0, 1, 2, 3, -1, -128, -129, 127, 128, 255, 256, 257};
  for (const auto& p : hw::kParamSpecs) {
    if (!p.rtl) continue;
    const int64_t x = c.get(hw::paramByName(p.name));
    for (int64_t d : {-2, -1, 0, 1}) v.push_back(x + d);
  }
  for (int64_t x : {int64_t{c.paramRowBytes()}, int64_t{4 * c.cols()}, int64_t{c.lutRows()}}) {
    for (int64_t d : {-1, 0, 1}) v.push_back(x + d);
  }
  return v;
}

hw::CommandWord randomCommand(std::mt19937& rng, const std::vector<int64_t>& edges) {
  auto uni = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  hw::CommandWord c;
  const auto op = static_cast<uint64_t>(uni(0, 15) < 12 ? uni(1, 7) : uni(0, 15));
  c.set(hw::field::kOpcode, op);
  for (const auto& f : hw::kOpcodeFields) {
    if (static_cast<uint64_t>(f.op) != op) continue;
    int64_t v = 0;
    switch (uni(0, 4)) {
      case 0: v = uni(0, 3); break;
      case 1: v = static_cast<int64_t>(rng()); break;
      default: v = edges[static_cast<size_t>(uni(0, static_cast<int64_t>(edges.size()) - 1))]; break;
    }
    c.set(f.field, static_cast<uint64_t>(v));
  }
  return c;
}

TEST_P(RtlDecode, ControllerAndModelsRejectTheSameCommandsWithTheSameError) {
  RtlDevice dev(GetParam());
  const hw::HwConfig& cfg = dev.config();
  const auto edges = boundaries(cfg);
  std::mt19937 rng(2026);
  std::map<std::pair<uint64_t, uint32_t>, int> seen;  // (opcode, error) -> invalid commands run
  int valid = 0;
  dev.initRing();
  for (int trial = 0; trial < 3000; ++trial) {
    const hw::CommandWord cmd = randomCommand(rng, edges);
    const hw::Error expected = hw::checkCommand(cmd, cfg);
    if (expected == hw::Error::kNone) {
      ++valid;  // would run: the program tests execute valid commands
      continue;
    }
    const uint64_t op = cmd.get(hw::field::kOpcode);
    ++seen[{op, static_cast<uint32_t>(expected)}];
    dev.place({cmd, barrier(true)});
    dev.ring();
    ASSERT_EQ(dev.waitIrq(10000), hw::reg::kIrqStatusErrorMask) << "trial " << trial << " opcode " << op;
    ASSERT_EQ(dev.status().error, static_cast<uint32_t>(expected))
        << "trial " << trial << ": opcode " << op << ", the models say " << hw::toString(expected);
    dev.softReset();
    dev.stepper().step(2);
  }
  // Every opcode with checks met each of its errors in this run (the draw reaches them all), but
  // a STORE's bad_value with Fp16: every mode is defined there, and its tiles rule cannot fail
  // (Cols is whole bus beats on the fp16 configurations).
  for (uint64_t op : {1, 2, 3, 5, 6, 7}) {
    for (hw::Error e : {hw::Error::kBadValue, hw::Error::kBadLength, hw::Error::kBadAddress}) {
      if (op == 3 && e == hw::Error::kBadValue && cfg.fp16() && cfg.cols() % cfg.busBytes() == 0) continue;
      EXPECT_GT((seen[{op, static_cast<uint32_t>(e)}]), 0) << "opcode " << op << " never raised " << hw::toString(e);
    }
  }
  EXPECT_GT(valid, 0);
}

INSTANTIATE_TEST_SUITE_P(rtl, RtlDecode, ::testing::Values("weft8", "weft16", "weft8os", "weft16os", "weft16fp"), configName);

}  // namespace
}  // namespace weft::rtltest
