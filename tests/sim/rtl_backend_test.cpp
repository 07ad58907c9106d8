// The rtl backend at one configuration (WEFT_TEST_CONFIG; one binary per configuration, as
// SystemC simulates one design per process): the IDeviceBackend contract, outputs identical to
// the approx backend's on randomized programs, and the one-design-per-process rules.
#include <fmt/format.h>

#include <array>
#include <cstdio>

#include "backend_suite.h"
#include "program_runs.h"
#include "weft/sim/functional_model.h"
#include "weft/sim/testing/lockstep.h"

#ifndef WEFT_TEST_CONFIG
#error "WEFT_TEST_CONFIG names the configuration under test"
#endif

namespace weft::sim {
namespace {

INSTANTIATE_TEST_SUITE_P(Rtl, BackendTest,
                         ::testing::Values(BackendCase{BackendKind::kRtl, WEFT_TEST_CONFIG, ""}),
                         caseName);

TEST(RtlVersusApprox, RandomProgramsGiveIdenticalOutputs) {
  const auto config = hw::HwConfig::load(WEFT_TEST_CONFIG);
  std::vector<testing::Program> programs;
  for (uint32_t seed = 100; seed < 108; ++seed) programs.push_back(testing::randomProgram(config, seed, 3 + seed % 4));
  programs.push_back(testing::gemmStreamProgram(config, 6, 64));
  ProgramRuns rtl, approx;
  {
    auto device = createBackend(BackendKind::kRtl, config);
    rtl = runPrograms(*device, programs, kProgramBudget);
  }
  {
    auto device = createBackend(BackendKind::kApprox, config);
    approx = runPrograms(*device, programs, kProgramBudget);
  }
  size_t exact = 0;
  for (size_t i = 0; i < programs.size(); ++i) {
    SCOPED_TRACE(fmt::format("program {} (tag {}): rtl {} cycles, approx {}", i, programs[i].tag,
                             rtl.cycles[i], approx.cycles[i]));
    EXPECT_EQ(rtl.outputs[i], approx.outputs[i]);
    EXPECT_EQ(rtl.outputs[i], testing::functionalOutputs(config, programs[i]));
    // The approximate model follows the RTL's units cycle for cycle; the contract is 0.5 %.
    EXPECT_NEAR(static_cast<double>(approx.cycles[i]), static_cast<double>(rtl.cycles[i]), 0.005 * rtl.cycles[i]);
    for (size_t c = 0; c < hw::kNumCounters; ++c) {
      const double want = static_cast<double>(rtl.counters[i][c]);
      EXPECT_NEAR(static_cast<double>(approx.counters[i][c]), want, 0.005 * want + 2) << hw::kCounterNames[c];
    }
    exact += rtl.cycles[i] == approx.cycles[i] && rtl.counters[i] == approx.counters[i];
  }
  std::printf("approx matched the RTL exactly (cycles and all counters) on %zu of %zu programs\n", exact,
              programs.size());
}

// Per-command timelines (command_events.h): every command's decode, dispatch, start and
// completion cycle, the RTL's from its observation signal and the model's from its engine,
// identical event for event on programs that exercise every unit and opcode.
TEST(RtlVersusApprox, CommandTimelinesAreIdentical) {
  const auto config = hw::HwConfig::load(WEFT_TEST_CONFIG);
  std::vector<testing::Program> programs;
  for (uint32_t seed = 400; seed < 404; ++seed) programs.push_back(testing::randomProgram(config, seed, 4));
  programs.push_back(testing::gemmStreamProgram(config, 8, 32));
  programs.push_back(testing::storeBoundProgram(config, 12, 8));
  programs.push_back(testing::randomVectorProgram(config, 410, 24, false));
  programs.push_back(testing::randomVectorProgram(config, 411, 24, true));
  std::array<std::vector<std::vector<CommandEvent>>, 2> events;
  std::array<std::vector<std::vector<DramEvent>>, 2> dram;
  for (int b = 0; b < 2; ++b) {
    auto device = createBackend(b == 0 ? BackendKind::kRtl : BackendKind::kApprox, config);
    EXPECT_TRUE(device->takeCommandEvents().empty());  // off by default
    device->recordCommands(true);
    testing::ProgramLayout layout;
    testing::RingDriver ring(*device, layout.ringBase, layout.ringSize);
    ring.init();
    for (const auto& p : programs) {
      testing::writeInputs(*device, p);
      ring.submit(p.commands);
      EXPECT_EQ(ring.runToInterrupt(kProgramBudget), hw::reg::kIrqStatusDoneMask) << "tag " << p.tag;
      events[b].push_back(device->takeCommandEvents());
      dram[b].push_back(device->takeDramEvents());
    }
  }
  for (size_t i = 0; i < programs.size(); ++i) {
    SCOPED_TRACE(fmt::format("program {} (tag {})", i, programs[i].tag));
    // Every DRAM request, from acceptance to last beat or acknowledgement.
    ASSERT_FALSE(dram[0][i].empty());
    ASSERT_EQ(dram[0][i].size(), dram[1][i].size());
    for (size_t d = 0; d < dram[0][i].size(); ++d) {
      const DramEvent &r = dram[0][i][d], &a = dram[1][i][d];
      ASSERT_EQ(r, a) << "DRAM request " << d << ": rtl " << (r.write ? "write" : "read") << " " << r.bytes << " B "
                      << r.issue << ".." << r.done << ", approx " << (a.write ? "write" : "read") << " " << a.bytes
                      << " B " << a.issue << ".." << a.done;
    }
    const auto &rtl = events[0][i], &approx = events[1][i];
    ASSERT_EQ(rtl.size(), programs[i].commands.size());
    ASSERT_EQ(approx.size(), rtl.size());
    for (size_t c = 0; c < rtl.size(); ++c) {
      const auto op = static_cast<unsigned>(programs[i].commands[c].get(hw::field::kOpcode));
      EXPECT_EQ(rtl[c].opcode, op) << "command " << c;
      EXPECT_NE(rtl[c].complete, kNoCycle) << "command " << c;
      EXPECT_LE(rtl[c].decode, rtl[c].dispatch);
      EXPECT_LE(rtl[c].dispatch, rtl[c].start);
      EXPECT_LE(rtl[c].start, rtl[c].complete);
      const auto describe = [](const CommandEvent& e) {
        return fmt::format("seq {} unit {} op {}: decode {} dispatch {} start {} complete {}", e.seq, e.unit,
                           e.opcode, e.decode, e.dispatch, e.start, e.complete);
      };
      ASSERT_EQ(rtl[c], approx[c]) << "command " << c << "\n  rtl    " << describe(rtl[c]) << "\n  approx "
                                   << describe(approx[c]);
    }
  }
}

// The same programs on both backends side by side, STATUS and every counter compared every few
// cycles: the model must follow the RTL's timeline, not only reach its totals (a counter read
// while a program runs, or a snapshot barrier, sees the timeline).
TEST(RtlVersusApprox, StatusAndCountersAgreeThroughoutAProgram) {
  const auto config = hw::HwConfig::load(WEFT_TEST_CONFIG);
  std::vector<testing::Program> programs;
  for (uint32_t seed = 200; seed < 204; ++seed) programs.push_back(testing::randomProgram(config, seed, 3));
  programs.push_back(testing::gemmStreamProgram(config, 12, 8));
  // Stores outrunning their acknowledgements: each further store waits for a slot to free.
  programs.push_back(testing::storeBoundProgram(config, 10, 4));
  programs.push_back(testing::storeBoundProgram(config, 16, 16));
  // The vector unit alone and beside the array.
  programs.push_back(testing::randomVectorProgram(config, 300, 16, false));
  programs.push_back(testing::randomVectorProgram(config, 301, 16, true));
  auto rtl = createBackend(BackendKind::kRtl, config);
  auto approx = createBackend(BackendKind::kApprox, config);
  const auto failure = testing::runProgramsInLockstep(*rtl, *approx, programs, 2, kProgramBudget);
  EXPECT_FALSE(failure) << "rtl vs approx: " << *failure;
}

// A soft reset in the middle of a stream (reads and writes in flight, tokens, queues), then a
// program: the model must come out of the reset where the RTL does.
TEST(RtlVersusApprox, SoftResetMidTrafficThenAProgram) {
  const auto config = hw::HwConfig::load(WEFT_TEST_CONFIG);
  const auto stream = testing::gemmStreamProgram(config, 8, 64);
  const auto after = testing::randomProgram(config, 21, 3);
  uint64_t length = 0;  // of the stream alone, to cut it at a quarter, half, three quarters
  {
    auto device = createBackend(BackendKind::kApprox, config);
    testing::ProgramLayout layout;
    testing::RingDriver ring(*device, layout.ringBase, layout.ringSize);
    ring.init();
    testing::writeInputs(*device, stream);
    ring.submit(stream.commands);
    ASSERT_EQ(ring.runToInterrupt(kProgramBudget), hw::reg::kIrqStatusDoneMask);
    length = device->cycle();
  }
  for (uint64_t cut : {length / 4, length / 2, 3 * length / 4}) {
    SCOPED_TRACE(fmt::format("soft reset after {} cycles", cut));
    std::array<uint64_t, 2> cycles{};
    std::array<CounterValues, 2> counters{};
    std::array<std::vector<uint8_t>, 2> outputs;
    for (int b = 0; b < 2; ++b) {
      auto device = createBackend(b == 0 ? BackendKind::kRtl : BackendKind::kApprox, config);
      testing::ProgramLayout layout;
      testing::RingDriver ring(*device, layout.ringBase, layout.ringSize);
      ring.init();
      testing::writeInputs(*device, stream);
      ring.submit(stream.commands);
      ASSERT_FALSE(device->runUntilInterrupt(cut));
      ring.softReset();
      testing::writeInputs(*device, after);
      ring.submit(after.commands);
      ASSERT_EQ(ring.runToInterrupt(kProgramBudget), hw::reg::kIrqStatusDoneMask);
      cycles[b] = device->cycle();
      device->readDram(after.snapshotAddr + 8, counters[b].data(), sizeof(CounterValues));
      outputs[b] = testing::deviceOutputs(*device, after);
    }
    EXPECT_EQ(outputs[0], outputs[1]);
    EXPECT_NEAR(static_cast<double>(cycles[1]), static_cast<double>(cycles[0]), 0.005 * cycles[0]);
    for (size_t c = 0; c < hw::kNumCounters; ++c) {
      const double want = static_cast<double>(counters[0][c]);
      EXPECT_NEAR(static_cast<double>(counters[1][c]), want, 0.005 * want + 2) << hw::kCounterNames[c];
    }
    std::string differ;
    for (size_t c = 0; c < hw::kNumCounters; ++c) {
      if (counters[0][c] != counters[1][c]) {
        differ += fmt::format(" {} {}/{}", hw::kCounterNames[c], counters[0][c], counters[1][c]);
      }
    }
    std::printf("soft reset at %llu: rtl %llu cycles, approx %llu; counters (rtl/approx)%s\n",
                static_cast<unsigned long long>(cut), static_cast<unsigned long long>(cycles[0]),
                static_cast<unsigned long long>(cycles[1]), differ.empty() ? " identical" : differ.c_str());
  }
}

TEST(RtlBackendProcess, OneDesignPerProcessOneDeviceAtATime) {
  const auto config = hw::HwConfig::load(WEFT_TEST_CONFIG);
  auto first = createBackend(BackendKind::kRtl, config);
  try {
    createBackend(BackendKind::kRtl, config);
    FAIL() << "a second live rtl backend was created";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("already exists"), std::string::npos) << e.what();
  }
  const std::string other = std::string(WEFT_TEST_CONFIG) == "weft8" ? "weft16" : "weft8";
  try {
    createBackend(BackendKind::kRtl, hw::HwConfig::load(other));
    FAIL() << "a second RTL build was elaborated";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("process of its own"), std::string::npos) << e.what();
  }
  first->writeReg(hw::reg::kIrqMask, 1);
  first.reset();
  // The same build again: a fresh device (registers reset, DRAM empty) with this clock.
  auto again = createBackend(BackendKind::kRtl, config.with("ClockMHz", 500));
  EXPECT_EQ(again->readReg(hw::reg::kId), hw::reg::kIdValue);
  EXPECT_EQ(again->readReg(hw::reg::kIrqMask), 0u);
  EXPECT_EQ(again->cycle(), 2u);  // two register accesses so far, a cycle each
  uint8_t b = 0xff;
  again->readDram(0, &b, 1);
  EXPECT_EQ(b, 0);
}

}  // namespace
}  // namespace weft::sim
