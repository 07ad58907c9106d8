// The cycle-level DRAM behind both backends (sim/include/weft/sim/cycle_dram.h): small programs
// on the rtl and approx backends at weft16 with LPDDR4, HBM2 and DDR4 must agree exactly, in
// cycles, outputs, every counter after every lock-step and the DRAM's own statistics; the
// configurations' DRAM parameters and their bad values. One binary (the weft16 RTL build: the
// three configurations share it), each test its own process.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "program_runs.h"
#include "weft/sim/backend.h"
#include "weft/sim/cycle_dram.h"
#include "weft/sim/dram/errors.h"
#include "weft/sim/testing/lockstep.h"
#include "weft/sim/testing/programs.h"
#include "weft/sim/testing/ring_driver.h"

namespace weft::sim {
namespace {

constexpr uint64_t kBudget = 20'000'000;

std::vector<testing::Program> programsFor(const hw::HwConfig& config) {
  std::vector<testing::Program> programs;
  for (uint32_t seed = 200; seed < 204; ++seed) programs.push_back(testing::randomProgram(config, seed, 3 + seed % 3));
  programs.push_back(testing::gemmStreamProgram(config, 4, 64));
  programs.push_back(testing::storeBoundProgram(config, 4, 32));
  programs.push_back(testing::randomVectorProgram(config, 7, 12, true));
  return programs;
}

void expectSameDram(const DramActivity& a, const DramActivity& b) {
  EXPECT_EQ(a.dramCycles, b.dramCycles);
  EXPECT_EQ(a.stats.reads, b.stats.reads);
  EXPECT_EQ(a.stats.writes, b.stats.writes);
  EXPECT_EQ(a.stats.activates, b.stats.activates);
  EXPECT_EQ(a.stats.precharges, b.stats.precharges);
  EXPECT_EQ(a.stats.refreshes, b.stats.refreshes);
  EXPECT_EQ(a.stats.rowHits, b.stats.rowHits);
  EXPECT_EQ(a.stats.rowMisses, b.stats.rowMisses);
  EXPECT_EQ(a.stats.rowConflicts, b.stats.rowConflicts);
  EXPECT_EQ(a.stats.readLatencySum, b.stats.readLatencySum);
  EXPECT_EQ(a.stats.writeCommands, b.stats.writeCommands);
  EXPECT_DOUBLE_EQ(a.energy.total(), b.energy.total());
}

void bothBackendsAgree(const std::string& name, const hw::HwConfig& config) {
  const auto programs = programsFor(config);
  ProgramRuns rtl, approx;
  {
    auto device = createBackend(BackendKind::kRtl, config);
    rtl = runPrograms(*device, programs, kBudget);
  }
  {
    auto device = createBackend(BackendKind::kApprox, config);
    approx = runPrograms(*device, programs, kBudget);
  }
  ASSERT_TRUE(rtl.haveDram);
  ASSERT_TRUE(approx.haveDram);
  for (size_t i = 0; i < programs.size(); ++i) {
    SCOPED_TRACE(fmt::format("{}: program {} (tag {})", name, i, programs[i].tag));
    EXPECT_EQ(rtl.cycles[i], approx.cycles[i]);
    EXPECT_EQ(rtl.outputs[i], approx.outputs[i]);
    EXPECT_EQ(rtl.outputs[i], testing::functionalOutputs(config, programs[i]));
  }
  expectSameDram(rtl.dram, approx.dram);
  // Every transaction entered and every posted write was written by the end of the last program.
  EXPECT_GT(rtl.dram.stats.reads, 0u);
  EXPECT_GT(rtl.dram.stats.writes, 0u);
  EXPECT_EQ(rtl.dram.stats.writes - rtl.dram.stats.writesMerged, rtl.dram.stats.writeCommands);
  EXPECT_GT(rtl.dram.energy.total(), 0.0);
  std::printf("%s: %zu programs, %llu DRAM cycles, %llu reads, %llu writes, row hits %llu, misses %llu, conflicts %llu, "
              "%llu activates, %llu refreshes, %.1f nJ\n",
              name.c_str(), programs.size(), (unsigned long long)rtl.dram.dramCycles, (unsigned long long)rtl.dram.stats.reads,
              (unsigned long long)rtl.dram.stats.writes, (unsigned long long)rtl.dram.stats.rowHits,
              (unsigned long long)rtl.dram.stats.rowMisses, (unsigned long long)rtl.dram.stats.rowConflicts,
              (unsigned long long)rtl.dram.stats.activates, (unsigned long long)rtl.dram.stats.refreshes,
              rtl.dram.energy.total() / 1e3);
}

void bothBackendsAgree(const char* name) { bothBackendsAgree(name, hw::HwConfig::load(name)); }

// LPDDR4 with the channel the lowest field of the address (row-bank-rank-column-channel).
hw::HwConfig fineInterleave() {
  return hw::HwConfig::fromJson(R"({"base": "weft16-lpddr4", "params": {"DramMapping": "robabgracoch"}})", "fine");
}

TEST(CycleDramBackends, Lpddr4RtlAndApproxAreIdentical) { bothBackendsAgree("weft16-lpddr4"); }
TEST(CycleDramBackends, Hbm2RtlAndApproxAreIdentical) { bothBackendsAgree("weft16-hbm2"); }
TEST(CycleDramBackends, Ddr4RtlAndApproxAreIdentical) { bothBackendsAgree("weft16-ddr4"); }
TEST(CycleDramBackends, Lpddr4FineInterleaveRtlAndApproxAreIdentical) {
  bothBackendsAgree("weft16-lpddr4 robabgracoch", fineInterleave());
}

// Every counter and STATUS after every 97 cycles, on a program mix, at LPDDR4.
TEST(CycleDramBackends, Lpddr4CountersAgreeThroughoutAProgram) {
  const auto config = hw::HwConfig::load("weft16-lpddr4");
  auto rtl = createBackend(BackendKind::kRtl, config);
  auto approx = createBackend(BackendKind::kApprox, config);
  const auto diff = testing::runProgramsInLockstep(*rtl, *approx, programsFor(config), 97, kBudget);
  EXPECT_FALSE(diff.has_value()) << *diff;
}

// A real DRAM is slower than the 16 B/cycle pipe on a load-bound stream when it has less
// bandwidth, and it changes the cycles: the parameter is not ignored.
TEST(CycleDramBackends, TheDramChangesTheCycles) {
  const auto simple = hw::HwConfig::load("weft16");
  const auto lp = hw::HwConfig::load("weft16-lpddr4");
  const auto program = testing::gemmStreamProgram(simple, 4, 64);
  auto a = createBackend(BackendKind::kApprox, simple);
  auto b = createBackend(BackendKind::kApprox, lp);
  const ProgramRuns ra = runPrograms(*a, {program}, kBudget);
  const ProgramRuns rb = runPrograms(*b, {program}, kBudget);
  EXPECT_FALSE(ra.haveDram);
  EXPECT_TRUE(rb.haveDram);
  EXPECT_NE(ra.cycles[0], rb.cycles[0]);
  EXPECT_EQ(ra.outputs[0], rb.outputs[0]);
}

std::string errorOf(const std::string& json) {
  try {
    const auto config = hw::HwConfig::fromJson(json, "test.json");
    dramDeviceFor(config);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "accepted";
}

TEST(CycleDramConfig, ParametersSelectTheDevice) {
  EXPECT_EQ(dramDeviceFor(hw::HwConfig::load("weft16")), nullptr);
  EXPECT_EQ(dramDeviceFor(hw::HwConfig::load("weft16-lpddr4"))->name, "lpddr4-3200");
  EXPECT_EQ(dramDeviceFor(hw::HwConfig::load("weft16-ddr4"))->name, "ddr4-3200");
  EXPECT_EQ(dramDeviceFor(hw::HwConfig::load("weft16-hbm2"))->name, "hbm2");
  const auto two = dramDeviceFor(hw::HwConfig::fromJson(
      R"({"base": "weft16-lpddr4", "params": {"DramChannels": 2, "DramMapping": "rochrababgco"}})", "t"));
  EXPECT_EQ(two->org.channels, 2u);
  EXPECT_EQ(two->controller.addressMapping, "rochrababgco");
}

// With LPDDR4's own mapping (rorabachco) a channel holds 2 KB of the address at a time, so a
// stream's 1 KB requests, each decided before the next is offered (sim/dram/README.md, "decide at
// offer"), run at one x16 channel's 6.4 GB/s; with the channel the lowest field a request's
// transactions go to the four channels side by side. The outputs are the same.
TEST(CycleDramConfig, AFineChannelInterleaveSpreadsAStreamOverTheChannels) {
  const auto device = dramDeviceFor(fineInterleave());
  EXPECT_EQ(device->controller.addressMapping, "robabgracoch");
  const auto lp = hw::HwConfig::load("weft16-lpddr4");
  const auto program = testing::gemmStreamProgram(lp, 4, 64);
  auto coarse = createBackend(BackendKind::kApprox, lp);
  auto fine = createBackend(BackendKind::kApprox, fineInterleave());
  const ProgramRuns rc = runPrograms(*coarse, {program}, kBudget);
  const ProgramRuns rf = runPrograms(*fine, {program}, kBudget);
  EXPECT_LT(static_cast<double>(rf.cycles[0]), 0.8 * static_cast<double>(rc.cycles[0]))
      << rf.cycles[0] << " against " << rc.cycles[0];
  EXPECT_EQ(rf.outputs[0], rc.outputs[0]);
}

TEST(CycleDramConfig, BadValuesNameTheFieldAndTheRule) {
  EXPECT_NE(errorOf(R"({"params": {"Dram": "ddr9"}})").find("Dram = \"ddr9\" is not one of"), std::string::npos);
  EXPECT_NE(errorOf(R"({"params": {"Dram": "hbm2", "DramChannels": 3}})").find("DramChannels = 3 must be a power of two"),
            std::string::npos);
  // LPDDR4-3200 with one channel: 1 GiB, less than 2048 MiB.
  EXPECT_NE(errorOf(R"({"params": {"Dram": "lpddr4", "DramChannels": 1, "DramMiB": 2048}})")
                .find("DramMiB = 2048 exceeds the device's capacity of 1024 MiB"),
            std::string::npos)
      << errorOf(R"({"params": {"Dram": "lpddr4", "DramChannels": 1, "DramMiB": 2048}})");
  EXPECT_NE(errorOf(R"({"params": {"Dram": "ini"}})").find("needs 'dram_ini'"), std::string::npos);
  // A file where the kind goes: the message says how a configuration names one.
  EXPECT_NE(errorOf(R"({"params": {"Dram": "/x/DDR4.ini"}})").find("\"dram_ini\": \"<path>\" beside them"),
            std::string::npos)
      << errorOf(R"({"params": {"Dram": "/x/DDR4.ini"}})");
  EXPECT_NE(errorOf(R"({"params": {"Dram": "hbm2"}, "dram_ini": "x.ini"})").find("applies to Dram \"ini\" only"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"params": {"Dram": "ini"}, "dram_ini": "/nonexistent/x.ini"})").find("/nonexistent/x.ini"),
            std::string::npos);
}

TEST(CycleDramConfig, AnIniFileRelativeToItsConfiguration) {
  const std::string dir = ::testing::TempDir();
  std::ofstream(dir + "/dev.ini") << "[dram_structure]\nprotocol = DDR4\nbankgroups = 2\nbanks_per_group = 4\n"
                                     "rows = 65536\ncolumns = 1024\ndevice_width = 16\nBL = 8\n"
                                     "[timing]\ntCK = 0.63\nAL = 0\nCL = 22\nCWL = 16\ntRCD = 22\ntRP = 22\n"
                                     "tRAS = 52\ntRFC = 560\ntREFI = 12480\ntRRD_S = 9\ntRRD_L = 11\ntWTR_S = 4\n"
                                     "tWTR_L = 12\ntFAW = 48\ntWR = 24\ntCCD_S = 4\ntCCD_L = 8\ntRTP = 12\n"
                                     "[system]\nchannel_size = 8192\nchannels = 1\nbus_width = 64\n"
                                     "address_mapping = rochrababgco\n";
  std::ofstream(dir + "/cfg.json") << R"({"name": "ini-test", "base": "weft16", "params": {"Dram": "ini"}, "dram_ini": "dev.ini"})";
  const auto config = hw::HwConfig::load(dir + "/cfg.json");
  const auto device = dramDeviceFor(config);
  ASSERT_NE(device, nullptr);
  EXPECT_EQ(device->org.channels, 1u);
  // A small program runs on it (approx; the RTL agrees by the tests above).
  auto backend = createBackend(BackendKind::kApprox, config);
  const ProgramRuns r = runPrograms(*backend, {testing::randomProgram(config, 5, 3)}, kBudget);
  EXPECT_TRUE(r.haveDram);
  EXPECT_GT(r.dram.stats.reads, 0u);
}

}  // namespace
}  // namespace weft::sim
