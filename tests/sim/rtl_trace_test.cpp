// The rtl backend's optional FST waveform (BackendOptions::tracePath), at weft8. A process
// elaborates one design, and tracing is chosen when it does: this binary is the only one that
// asks for it. The tracing build of the plugin comes from -DWEFT_RTL_TRACE_BUILDS=ON or is built on
// demand like any other missing model; with on-demand builds off, the request says how to build it.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "weft/sim/backend.h"
#include "weft/sim/rtl_stepper.h"
#include "weft/sim/testing/programs.h"
#include "weft/sim/testing/ring_driver.h"

namespace weft::sim {
namespace {

// A tracing model that is neither built nor allowed to be built is a clear error naming the
// build option. The odd TokenDepth makes a configuration no build or earlier test has made.
TEST(RtlTrace, WithoutAutobuildAMissingTracingModelSaysHowToBuildIt) {
  const auto config = hw::HwConfig::load("weft8").with("TokenDepth", 4);
  BackendOptions options;
  options.tracePath = ::testing::TempDir() + "weft_trace_missing_" + std::to_string(getpid()) + ".fst";
  setenv("WEFT_RTL_AUTOBUILD", "0", 1);
  try {
    createBackend(BackendKind::kRtl, config, options);
    ADD_FAILURE() << "tracing without a tracing build";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("WEFT_RTL_TRACE_BUILDS"), std::string::npos) << e.what();
  }
  unsetenv("WEFT_RTL_AUTOBUILD");
  struct stat st {};
  EXPECT_NE(stat(options.tracePath.c_str(), &st), 0) << "a failed request wrote " << options.tracePath;
}

// The tracing model is found (-DWEFT_RTL_TRACE_BUILDS=ON) or built on demand, and a program's
// run leaves a waveform behind while the outputs stay those of the functional model.
TEST(RtlTrace, WritesAWaveformOfAProgram) {
  const auto config = hw::HwConfig::load("weft8");
  BackendOptions options;
  options.tracePath = ::testing::TempDir() + "weft_trace_" + std::to_string(getpid()) + ".fst";
  options.traceDepth = 2;
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
