// Logic area with the real yosys (tools/codesign/Synthesis.h): the whole weft_top of both
// default configurations synthesizes, the larger array has more logic, and a second ask is
// answered from the cache.
#include <gtest/gtest.h>

#include "Area.h"
#include "Synthesis.h"

namespace weft::codesign {
namespace {

TEST(SynthesisYosys, Weft16HasMoreLogicThanWeft8AndTheCacheAnswersAgain) {
  const SynthesisSetup setup = SynthesisSetup::fromBuild();
  ASSERT_NE(setup.yosys, "none");
  ASSERT_FALSE(setup.sources.empty());
  forgetSynthesisResults();
  const LogicArea a8 = synthesizeLogic(hw::HwConfig::load("weft8"), setup);
  const LogicArea a16 = synthesizeLogic(hw::HwConfig::load("weft16"), setup);
  ASSERT_TRUE(a8.synthesized) << a8.note;
  ASSERT_TRUE(a16.synthesized) << a16.note;
  EXPECT_GT(a16.um2, a8.um2);
  EXPECT_GT(a16.cells, a8.cells);
  EXPECT_EQ(a8.uncounted, 0u) << a8.note;
  // The scratchpads, accumulator, parameter memory and lookup table stay SRAM: the memories of
  // the weft_ram instances (weight, parameter, two vector), input scratchpad, accumulator, LUT.
  EXPECT_EQ(a8.srams, 7u);
  EXPECT_EQ(a16.srams, 7u);
  // 256 PEs against 64: the array's multipliers alone make the difference.
  EXPECT_GT(a16.um2ByType.at("$mul"), 1.5 * a8.um2ByType.at("$mul"));

  forgetSynthesisResults();
  const LogicArea again = synthesizeLogic(hw::HwConfig::load("weft16"), setup);
  EXPECT_TRUE(again.fromCache);
  EXPECT_DOUBLE_EQ(again.um2, a16.um2);

  const AreaEstimate area = estimateArea(EnergyModel(), hw::HwConfig::load("weft16"), setup);
  EXPECT_DOUBLE_EQ(area.logicUm2, a16.um2);
  EXPECT_GT(area.totalUm2(), area.sramUm2);
}

}  // namespace
}  // namespace weft::codesign
