// The RTL against the functional model (sim/functional_model.h, the approx backend's data path)
// on the shared test programs of sim/testing: random multi-tile programs and a long
// double-buffered GEMM stream, written by another engineer from the spec alone.
#include <gtest/gtest.h>

#include <cstdlib>

#include "rtl_device.h"
#include "weft/sim/testing/programs.h"

namespace weft::rtltest {
namespace {

class RtlOracle : public ::testing::TestWithParam<std::string> {
 protected:
  // Runs a program with its inputs through the ring and compares the output region with the
  // functional model's.
  void check(RtlDevice& dev, const sim::testing::Program& program) {
    for (const auto& [addr, bytes] : program.inputs) dev.dram().put(addr, bytes);
    ASSERT_LT(program.commands.size(), kRing);
    dev.place(program.commands);
    dev.ring();
    ASSERT_EQ(dev.waitIrq(20'000'000), hw::reg::kIrqStatusDoneMask);
    const auto expected = sim::testing::functionalOutputs(dev.config(), program);
    const auto actual = dev.dram().get(program.outputBase, program.outputBytes);
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i) {
      ASSERT_EQ(static_cast<int>(actual[i]), static_cast<int>(expected[i])) << "output byte " << i;
    }
    EXPECT_EQ(dev.dram().load64(program.snapshotAddr), program.tag) << "snapshot tag";
  }
  static constexpr uint32_t kRing = 4096;

  sim::testing::ProgramLayout layout() const {
    sim::testing::ProgramLayout l;
    l.ringBase = RtlDevice::kRingBase;
    l.ringSize = kRing;
    return l;
  }
};

TEST_P(RtlOracle, RandomProgramsMatchTheFunctionalModel) {
  RtlDevice dev(GetParam());
  dev.initRing(kRing);
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE(seed);
    check(dev, sim::testing::randomProgram(dev.config(), seed, 6, layout()));
    if (HasFatalFailure()) return;
  }
}

TEST_P(RtlOracle, GemmStreamMatchesTheFunctionalModel) {
  RtlDevice dev(GetParam());
  dev.initRing(kRing);
  check(dev, sim::testing::gemmStreamProgram(dev.config(), 12, 64, layout()));
}

// The vector unit: every command kind with random fields, alone and beside a GEMM stream.
TEST_P(RtlOracle, RandomVectorProgramsMatchTheFunctionalModel) {
  RtlDevice dev(GetParam());
  dev.initRing(kRing);
  // WEFT_ORACLE_SEEDS=n runs n programs instead of 4 (by hand, after a change to the vector unit).
  const uint32_t seeds = std::getenv("WEFT_ORACLE_SEEDS") ? std::atoi(std::getenv("WEFT_ORACLE_SEEDS")) : 4;
  for (uint32_t seed = 1; seed <= seeds; ++seed) {
    SCOPED_TRACE(seed);
    check(dev, sim::testing::randomVectorProgram(dev.config(), seed, 24, seed % 2 == 0, layout()));
    if (HasFatalFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(rtl, RtlOracle, ::testing::Values("weft8", "weft16", "weft8os", "weft16os", "weft16fp"), configName);

}  // namespace
}  // namespace weft::rtltest
