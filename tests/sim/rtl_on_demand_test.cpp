// The rtl backend at a configuration the build does not make: its plugin is built on demand
// (once; later runs find it in the build's RTL directory), and the RTL at these odd parameters
// agrees with the functional model's outputs and with the approx model's cycles and counters,
// at the end of each program and step by step through it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "program_runs.h"
#include "weft/sim/backend.h"
#include "weft/sim/functional_model.h"
#include "weft/sim/rtl_stepper.h"
#include "weft/sim/testing/lockstep.h"
#include "weft/sim/testing/programs.h"
#include "weft/sim/testing/ring_driver.h"

namespace weft::sim {
namespace {

// Small and odd: 4 x 4, a 4-byte bus (8 beats a command), 3 reads in flight, 2-deep queues.
const char* kTiny = R"({"name": "tiny", "base": "weft8", "params": {
  "Rows": 4, "Cols": 4, "InSpadRows": 64, "WSpadRows": 32, "AccRows": 64, "ParamRows": 2,
  "BusBytes": 4, "MaxOutstanding": 3, "CmdQueueDepth": 2, "TokenDepth": 2,
  "DramLatencyCycles": 20, "DramBytesPerCycle": 4, "DramMiB": 16}})";

// The output-stationary array at odd sizes: 5 rows (a block of 5 pixels, not a power of two),
// 3 columns, the tiny configuration's memories and bus.
const char* kTinyOs = R"({"name": "tinyos", "base": "weft8", "params": {
  "Rows": 5, "Cols": 3, "InSpadRows": 64, "WSpadRows": 32, "AccRows": 64, "ParamRows": 2,
  "BusBytes": 4, "MaxOutstanding": 3, "CmdQueueDepth": 2, "TokenDepth": 2, "Dataflow": "OS",
  "DramLatencyCycles": 20, "DramBytesPerCycle": 4, "DramMiB": 16}})";

// Programs run on a new device of `kind`.
ProgramRuns runAll(BackendKind kind, const hw::HwConfig& config, const std::vector<testing::Program>& programs) {
  auto device = createBackend(kind, config);
  return runPrograms(*device, programs, 5'000'000);
}

TEST(RtlOnDemand, WithoutAutobuildTheErrorSaysWhatToBuild) {
  const auto config = hw::HwConfig::fromJson(kTiny, "tiny").with("TokenDepth", 4);
  setenv("WEFT_RTL_AUTOBUILD", "0", 1);
  try {
    createBackend(BackendKind::kRtl, config);
    FAIL() << "an rtl backend without a model";
  } catch (const RtlPluginError& e) {
    EXPECT_NE(std::string(e.what()).find(RtlPlugin::fileName(config)), std::string::npos) << e.what();
  }
  unsetenv("WEFT_RTL_AUTOBUILD");
}

// The RTL's outputs against the functional model's, the approx model's cycles and counters
// against the RTL's, on random programs and a GEMM stream.
void expectRtlAndModelsAgree(const hw::HwConfig& config, uint32_t firstSeed) {
  std::vector<testing::Program> programs;
  for (uint32_t seed = firstSeed; seed < firstSeed + 4; ++seed) programs.push_back(testing::randomProgram(config, seed, 4));
  programs.push_back(testing::gemmStreamProgram(config, 6, 16));
  const ProgramRuns rtl = runAll(BackendKind::kRtl, config, programs);
  const ProgramRuns approx = runAll(BackendKind::kApprox, config, programs);
  for (size_t i = 0; i < programs.size(); ++i) {
    SCOPED_TRACE(fmt::format("program {}: rtl {} cycles, approx {}", i, rtl.cycles[i], approx.cycles[i]));
    std::printf("program %zu: rtl %llu cycles, approx %llu, counters %s\n", i, static_cast<unsigned long long>(rtl.cycles[i]),
                static_cast<unsigned long long>(approx.cycles[i]), rtl.counters[i] == approx.counters[i] ? "identical" : "differ");
    EXPECT_EQ(rtl.outputs[i], testing::functionalOutputs(config, programs[i]));
    EXPECT_EQ(approx.outputs[i], rtl.outputs[i]);
    EXPECT_NEAR(static_cast<double>(approx.cycles[i]), static_cast<double>(rtl.cycles[i]), 0.005 * rtl.cycles[i]);
    for (size_t c = 0; c < hw::kNumCounters; ++c) {
      const double want = static_cast<double>(rtl.counters[i][c]);
      EXPECT_NEAR(static_cast<double>(approx.counters[i][c]), want, 0.005 * want + 2) << hw::kCounterNames[c];
    }
  }
}

TEST(RtlOnDemand, BuildsAnOddConfigurationThatAgreesWithTheModels) {
  expectRtlAndModelsAgree(hw::HwConfig::fromJson(kTiny, "tiny"), 40);
}

// A second RTL design: SystemC elaborates one a process, so this test needs a process of its own
// (ctest runs every test of this file in its own; by hand, --gtest_filter='*OutputStationary*').
TEST(RtlOnDemand, BuildsAnOddOutputStationaryConfigurationThatAgreesWithTheModels) {
  const auto config = hw::HwConfig::fromJson(kTinyOs, "tinyos");
  expectRtlAndModelsAgree(config, 60);
  // Step by step too: STATUS and every counter every few cycles.
  std::vector<testing::Program> programs;
  for (uint32_t seed = 70; seed < 73; ++seed) programs.push_back(testing::randomProgram(config, seed, 3));
  programs.push_back(testing::gemmStreamProgram(config, 6, 16));
  auto rtl = createBackend(BackendKind::kRtl, config);
  auto approx = createBackend(BackendKind::kApprox, config);
  const auto failure = testing::runProgramsInLockstep(*rtl, *approx, programs, 2, 5'000'000);
  EXPECT_FALSE(failure) << "rtl vs approx: " << *failure;
}

// Side by side, STATUS and every counter compared every few cycles (after the test above has
// built the plugin, or found it).
TEST(RtlOnDemand, TheOddConfigurationFollowsTheRtlStepByStep) {
  const auto config = hw::HwConfig::fromJson(kTiny, "tiny");
  std::vector<testing::Program> programs;
  for (uint32_t seed = 50; seed < 53; ++seed) programs.push_back(testing::randomProgram(config, seed, 3));
  programs.push_back(testing::gemmStreamProgram(config, 6, 16));
  programs.push_back(testing::storeBoundProgram(config, 8, 6));
  auto rtl = createBackend(BackendKind::kRtl, config);
  auto approx = createBackend(BackendKind::kApprox, config);
  const auto failure = testing::runProgramsInLockstep(*rtl, *approx, programs, 2, 5'000'000);
  EXPECT_FALSE(failure) << "rtl vs approx: " << *failure;
}

}  // namespace
}  // namespace weft::sim
