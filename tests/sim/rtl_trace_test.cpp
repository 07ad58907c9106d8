// The rtl backend's optional FST waveform (BackendOptions::tracePath), at weft8. A process
// elaborates one design, and tracing is chosen when it does: this binary is the only one that
// asks for it. With the tracing build of the plugin present (-DWEFT_RTL_TRACE_BUILDS=ON) a
// program's waveform is written; without it the request fails saying how to build it.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "weft/sim/backend.h"
#include "weft/sim/rtl_stepper.h"
#include "weft/sim/testing/programs.h"
#include "weft/sim/testing/ring_driver.h"

namespace weft::sim {
namespace {

bool traceBuildExists(const hw::HwConfig& config) {
  try {
    RtlPlugin::load(config, true);
    return true;
  } catch (const RtlPluginError&) {
    return false;
  }
}

TEST(RtlTrace, WritesAWaveformOrSaysHowToBuildTheTracingModel) {
  const auto config = hw::HwConfig::load("weft8");
  BackendOptions options;
  options.tracePath = ::testing::TempDir() + "weft_trace_" + std::to_string(getpid()) + ".fst";
  options.traceDepth = 2;
  if (!traceBuildExists(config)) {
    try {
      createBackend(BackendKind::kRtl, config, options);
      FAIL() << "tracing without a tracing build";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("WEFT_RTL_TRACE_BUILDS"), std::string::npos) << e.what();
    }
    return;
  }
  {
    auto device = createBackend(BackendKind::kRtl, config, options);
    testing::ProgramLayout layout;
    testing::RingDriver ring(*device, layout.ringBase, layout.ringSize);
    ring.init();
    const auto p = testing::randomProgram(config, 3, 1, layout);
    testing::writeInputs(*device, p);
    ring.submit(p.commands);
    EXPECT_EQ(ring.runToInterrupt(1'000'000), hw::reg::kIrqStatusDoneMask);
    EXPECT_EQ(testing::deviceOutputs(*device, p), testing::functionalOutputs(config, p));
  }
  struct stat st {};
  ASSERT_EQ(stat(options.tracePath.c_str(), &st), 0) << options.tracePath;
  EXPECT_GT(st.st_size, 1000);
  unlink(options.tracePath.c_str());
}

}  // namespace
}  // namespace weft::sim
