// The command programs the driver generates obey the hardware's token protocol: executed one
// command at a time in ring order by the functional model, every command is valid (no
// STATUS.error), no unit pops a token that was not pushed, no token queue ever holds more
// than TokenDepth tokens, and every queue is empty at the end. Programs of random layers on
// several configurations, including a tiny token depth that forces the scheduler to bound
// the tokens in flight.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "../../driver/accel/PreparedModel.h"
#include "AccelTestUtil.h"
#include "weft/sim/functional_model.h"

namespace weft::accel::test {
namespace {

std::string describe(const hw::CommandWord& w) {
  switch (static_cast<hw::Opcode>(w.get(hw::field::kOpcode))) {
    case hw::Opcode::kLoad: {
      const auto c = hw::LoadCmd::decode(w);
      return fmt::format("LOAD dst {} row_bytes {} spad {} counts {}x{}x{}", hw::toString(c.dst), c.rowBytes,
                         c.spadAddr, c.count0, c.count1, c.count2);
    }
    case hw::Opcode::kGemm: {
      const auto c = hw::GemmCmd::decode(w);
      return fmt::format("GEMM k {} w {} in {} m {} acc {}", c.kRows, c.wAddr, c.inAddr, c.mRows, c.accAddr);
    }
    case hw::Opcode::kStore: {
      const auto c = hw::StoreCmd::decode(w);
      return fmt::format("STORE row_bytes {} param {} acc {} counts {}x{}", c.rowBytes, c.paramRow, c.accAddr,
                         c.count0, c.count1);
    }
    default:
      return std::string(hw::opcodeName(static_cast<hw::Opcode>(w.get(hw::field::kOpcode))));
  }
}

void checkProgram(const hw::HwConfig& config, const std::vector<uint8_t>& program, const std::string& what) {
  sim::FunctionalModel fm(config);
  sim::DramStorage dram(config.dramBytes());
  const auto depth = config.get(hw::Param::kTokenDepth);
  const size_t n = program.size() / hw::kCommandBytes;
  ASSERT_GT(n, 0u);
  for (size_t i = 0; i < n; ++i) {
    const auto word = hw::CommandWord::fromBytes(&program[i * hw::kCommandBytes]);
    ASSERT_EQ(fm.check(word), hw::Error::kNone) << what << ": command " << i << ": " << describe(word);
    fm.execute(word, dram);
    for (int64_t t : fm.tokens()) ASSERT_LE(t, depth) << what << ": command " << i << " overfills a token queue";
  }
  EXPECT_TRUE(fm.protocolErrors().empty()) << what << ": " << fm.protocolErrors().front();
  for (int64_t t : fm.tokens()) EXPECT_EQ(t, 0) << what << ": tokens left at the end";
  const auto last = hw::BarrierCmd::decode(hw::CommandWord::fromBytes(&program[(n - 1) * hw::kCommandBytes]));
  EXPECT_EQ(static_cast<hw::Opcode>(hw::CommandWord::fromBytes(&program[(n - 1) * hw::kCommandBytes])
                                        .get(hw::field::kOpcode)),
            hw::Opcode::kBarrier);
  EXPECT_TRUE(last.irq) << what << ": the program must end with an interrupting barrier";
}

const std::vector<uint8_t>& programOf(const hal::SharedPreparedModel& p) {
  return dynamic_cast<const PreparedModel&>(*p).compiled().program;
}

class Protocol : public ::testing::TestWithParam<std::string> {};

TEST_P(Protocol, GeneratedProgramsAreValidInRingOrder) {
  hw::HwConfig config = hw::HwConfig::load("weft8");
  if (GetParam() == "weft16") config = hw::HwConfig::load("weft16");
  if (GetParam() == "tokens2") {
    config = config.with(hw::Param::kTokenDepth, 2).with(hw::Param::kCmdQueueDepth, 2);
  }
  if (GetParam() == "small-memories") {
    config = config.with(hw::Param::kInSpadRows, 64).with(hw::Param::kWSpadRows, 32)
                 .with(hw::Param::kAccRows, 32).with(hw::Param::kParamRows, 2);
  }
  auto device = deviceOn(sim::createBackend(sim::BackendKind::kApprox, config));
  std::mt19937 rng(42);
  for (int i = 0; i < 12; ++i) {
    const bool conv = i % 3 != 2;
    const OpModel m = conv ? makeConvModel(randomConvCase(rng, 20, 40), rng) : makeFcModel(randomFcCase(rng, 50, 120), rng);
    auto prepared = prepare(*device, m.model);
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    checkProgram(config, programOf(prepared.value()), GetParam() + " model " + std::to_string(i));
    // And the program runs on the timed model with the right results.
    auto cpu = runOnCpu(m);
    ASSERT_TRUE(cpu.ok()) << cpu.error().message;
    auto run = runOnPrepared(*prepared.value(), m);
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_EQ(firstMismatch(run.value().outputs[0], cpu.value().outputs[0]), -1) << "model " << i;
  }
}
INSTANTIATE_TEST_SUITE_P(Configs, Protocol, ::testing::Values("weft8", "weft16", "tokens2", "small-memories"));

}  // namespace
}  // namespace weft::accel::test
