// Registers: identity, the configuration read back (it must equal hw::HwConfig: the RTL and
// the C++ side derive from the same spec), interrupt status and mask, counters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "rtl_device.h"

namespace weft::rtltest {
namespace {

class RtlRegs : public ::testing::TestWithParam<std::string> {};

TEST_P(RtlRegs, IdentityAndVersion) {
  RtlDevice dev(GetParam());
  EXPECT_EQ(dev.stepper().readReg(hw::reg::kId), hw::reg::kIdValue);
  EXPECT_EQ(dev.stepper().readReg(hw::reg::kVersion), hw::reg::kVersionValue);
  EXPECT_EQ(dev.stepper().readReg(0xffc), 0u) << "undefined addresses read 0";
}

TEST_P(RtlRegs, ConfigurationReadsBackTheHwConfig) {
  RtlDevice dev(GetParam());
  int checked = 0;
  for (const auto& r : hw::reg::kRegisters) {
    if (r.param < 0) continue;
    const auto expected = dev.config().get(static_cast<hw::Param>(r.param));
    EXPECT_EQ(dev.stepper().readReg(r.addr), static_cast<uint32_t>(expected)) << r.name;
    ++checked;
  }
  // Every RTL parameter has its configuration register.
  const auto rtlParams = std::count_if(hw::kParamSpecs.begin(), hw::kParamSpecs.end(), [](const auto& p) { return p.rtl; });
  EXPECT_EQ(checked, rtlParams);
}

TEST_P(RtlRegs, ReadOnlyRegistersIgnoreWrites) {
  RtlDevice dev(GetParam());
  dev.stepper().writeReg(hw::reg::kId, 0);
  dev.stepper().writeReg(hw::reg::kCfgRows, 99);
  dev.stepper().writeReg(hw::reg::kRingHead, 5);
  EXPECT_EQ(dev.stepper().readReg(hw::reg::kId), hw::reg::kIdValue);
  EXPECT_EQ(dev.stepper().readReg(hw::reg::kCfgRows), dev.rows());
  EXPECT_EQ(dev.stepper().readReg(hw::reg::kRingHead), 0u);
}

TEST_P(RtlRegs, RingRegistersReadBack) {
  RtlDevice dev(GetParam());
  auto& s = dev.stepper();
  s.writeReg(hw::reg::kRingBaseLo, 0x12345660);
  s.writeReg(hw::reg::kRingBaseHi, 0x1ab);
  s.writeReg(hw::reg::kRingSize, 77);
  s.writeReg(hw::reg::kIrqMask, 0xffffffff);
  EXPECT_EQ(s.readReg(hw::reg::kRingBaseLo), 0x12345660u);
  EXPECT_EQ(s.readReg(hw::reg::kRingBaseHi), 0xabu) << "bits 39:32 only";
  EXPECT_EQ(s.readReg(hw::reg::kRingSize), 77u);
  EXPECT_EQ(s.readReg(hw::reg::kIrqMask), 3u);
  EXPECT_EQ(s.readReg(hw::reg::kCtrl), 0u);
  s.writeReg(hw::reg::kCtrl, hw::reg::kCtrlEnableMask | hw::reg::kCtrlSoftResetMask);
  EXPECT_EQ(s.readReg(hw::reg::kCtrl), hw::reg::kCtrlEnableMask) << "soft_reset reads 0";
}

TEST_P(RtlRegs, IrqMaskGatesTheLineAndStatusIsWriteOneToClear) {
  RtlDevice dev(GetParam());
  auto& s = dev.stepper();
  dev.initRing();
  s.writeReg(hw::reg::kIrqMask, 0);
  dev.place({barrier(true)});
  dev.ring();
  s.step(200);
  EXPECT_FALSE(s.irq()) << "masked";
  EXPECT_EQ(s.readReg(hw::reg::kIrqStatus), hw::reg::kIrqStatusDoneMask);
  s.writeReg(hw::reg::kIrqMask, hw::reg::kIrqStatusErrorMask);
  s.step(2);
  EXPECT_FALSE(s.irq()) << "done is not enabled";
  s.writeReg(hw::reg::kIrqMask, hw::reg::kIrqStatusDoneMask);
  s.step(1);
  EXPECT_TRUE(s.irq());
  s.writeReg(hw::reg::kIrqStatus, hw::reg::kIrqStatusErrorMask);  // the other bit: no effect
  EXPECT_TRUE(s.irq());
  EXPECT_EQ(s.readReg(hw::reg::kIrqStatus), hw::reg::kIrqStatusDoneMask);
  s.writeReg(hw::reg::kIrqStatus, hw::reg::kIrqStatusDoneMask);
  EXPECT_FALSE(s.irq());
  EXPECT_EQ(s.readReg(hw::reg::kIrqStatus), 0u);
}

TEST_P(RtlRegs, CountersAre64BitAndLoLatchesHi) {
  RtlDevice dev(GetParam());
  auto& s = dev.stepper();
  const uint64_t c0 = s.readCounter(hw::Counter::kCycles);
  s.step(100);
  const uint64_t c1 = s.readCounter(hw::Counter::kCycles);
  // readCounter is two accesses of one cycle each: LO is read 102 cycles after the first LO.
  EXPECT_EQ(c1 - c0, 102u);
  EXPECT_EQ(c0, 0u) << "the first read after reset samples CYCLES before its own edge";
  EXPECT_EQ(s.readCounter(hw::Counter::kBusy), 0u);
  EXPECT_EQ(s.readCounter(hw::Counter::kCmdsRetired), 0u);
  // HI returns the half latched by the last LO read of that counter, not the live value.
  const uint32_t lo = s.readReg(hw::counterAddr(hw::Counter::kCycles));
  s.step(10);
  EXPECT_EQ(s.readReg(hw::counterAddr(hw::Counter::kCycles) + 4), 0u);
  EXPECT_GT(lo, 0u);
}

INSTANTIATE_TEST_SUITE_P(rtl, RtlRegs, ::testing::Values("weft8", "weft16", "weft8os", "weft16os", "weft16fp"), configName);

}  // namespace
}  // namespace weft::rtltest

namespace weft::rtltest {
namespace {

TEST(RtlPlugin, MissingModelNamesEveryPathSearched) {
  const hw::HwConfig odd = hw::HwConfig::load("weft8").with("Rows", 4);
  try {
    FlatDram dram(1024);
    sim::RtlStepper stepper(odd, dram);
    FAIL() << "a model for " << odd.rtlKey() << " should not exist";
  } catch (const sim::RtlPluginError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(sim::RtlPlugin::fileName(odd)), std::string::npos) << what;
    for (const auto& dir : sim::RtlPlugin::searchDirs()) {
      EXPECT_NE(what.find(dir), std::string::npos) << what;
    }
    EXPECT_NE(what.find("WEFT_RTL_DIR"), std::string::npos) << what;
  }
}

TEST(RtlPlugin, LoadedPluginMatchesTheConfiguration) {
  const hw::HwConfig config = hw::HwConfig::load("weft8");
  const auto& plugin = sim::RtlPlugin::load(config);
  EXPECT_EQ(plugin.api().abiVersion, static_cast<uint32_t>(WEFT_RTL_ABI_VERSION));
  EXPECT_EQ(std::string(plugin.api().rtlKey), config.rtlKey());
  EXPECT_EQ(plugin.api().busBytes, config.busBytes());
  EXPECT_EQ(&plugin, &sim::RtlPlugin::load(config)) << "loaded once per process";
}

// Needs -DWEFT_RTL_TRACE_BUILDS=ON (the tracing plugins are not built by default).
TEST(RtlPlugin, TraceWritesAnFstWhenTheTracingBuildExists) {
  const hw::HwConfig config = hw::HwConfig::load("weft8");
  bool found = false;
  for (const auto& dir : sim::RtlPlugin::searchDirs()) {
    if (FILE* f = std::fopen((dir + "/" + sim::RtlPlugin::fileName(config, true)).c_str(), "rb")) {
      std::fclose(f);
      found = true;
    }
  }
  if (!found) GTEST_SKIP() << "no tracing build (configure with -DWEFT_RTL_TRACE_BUILDS=ON)";
  const std::string path = ::testing::TempDir() + "weft_rtl_trace_test.fst";
  std::remove(path.c_str());
  {
    FlatDram dram(1024);
    sim::RtlStepperOptions options;
    options.tracePath = path;
    options.traceDepth = 1;
    sim::RtlStepper stepper(config, dram, options);
    EXPECT_EQ(stepper.readReg(hw::reg::kId), hw::reg::kIdValue);
    stepper.step(100);
  }
  FILE* f = std::fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr) << path;
  std::fseek(f, 0, SEEK_END);
  EXPECT_GT(std::ftell(f), 100);
  std::fclose(f);
}

}  // namespace
}  // namespace weft::rtltest
