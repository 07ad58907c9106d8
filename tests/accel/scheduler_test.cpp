// The compiler's scheduling stages on their own: the streaming estimate that ranks candidate
// tilings must equal what scheduling the same commands reports (else the compiler would pick
// a tiling by one measure and report another), over layers of several shapes, every candidate
// tiling, two array sizes and a shallow token queue; ramped plans' boxes; and the generator's
// error path.
#include <gtest/gtest.h>

#include <cstdio>
#include <stdexcept>

#include "CommandCost.h"
#include "CommandGenerator.h"
#include "CommandScheduler.h"
#include "CostModel.h"
#include "Tiling.h"
#include "weft/hw/config.h"

namespace weft::accel {
namespace {

struct Shape {
  const char* name;
  uint32_t h, w, c, filter, stride, outC;
};

GemmLayer convLayer(const Shape& s) {
  GemmLayer l;
  l.input = {1, s.h, s.w, s.c};
  l.output = {1, (s.h - s.filter) / s.stride + 1, (s.w - s.filter) / s.stride + 1, s.outC};
  l.filterH = l.filterW = s.filter;
  l.strideH = l.strideW = s.stride;
  l.weights.assign(size_t{s.outC} * l.k(), 3);
  l.wZp = 1;
  l.columns.resize(s.outC);
  return l;
}

LayerPlacement placement(const GemmLayer& l) {
  LayerPlacement where;
  where.input = {0x10000, l.input.channels, uint64_t{l.input.width} * l.input.channels, l.input.elements()};
  where.output = {0x800000, l.output.channels, uint64_t{l.output.width} * l.output.channels, l.output.elements()};
  where.weights = 0x1000000;
  where.params = 0x2000000;
  return where;
}

std::vector<KChunk> chunksOf(const GemmLayer& l, const hw::HwConfig& config) {
  const LayerPlacement where = placement(l);
  return chunkK(l, where.input.pixelStride, where.input.rowStride, config.rows());
}

const Shape kShapes[] = {
    {"pointwise", 14, 14, 64, 1, 1, 48}, {"3x3", 12, 12, 24, 3, 1, 40},   {"7x7/2 rgb", 32, 32, 3, 7, 2, 20},
    {"skinny", 40, 40, 1, 3, 1, 1},      {"deep k", 6, 6, 300, 3, 1, 17}, {"fc-like", 1, 1, 700, 1, 1, 257},
};

class EstimateMatchesSchedule : public ::testing::TestWithParam<const char*> {};

TEST_P(EstimateMatchesSchedule, ForEveryCandidateTiling) {
  const auto config = std::string(GetParam()) == "shallow-tokens" ? hw::HwConfig::load("weft8").with("TokenDepth", 4)
                                                                  : hw::HwConfig::load(GetParam());
  for (const Shape& shape : kShapes) {
    SCOPED_TRACE(shape.name);
    const GemmLayer layer = convLayer(shape);
    const auto ranked = rankTilings(layer, chunksOf(layer, config), placement(layer).input, config, 6);
    ASSERT_FALSE(ranked.empty());
    for (size_t i = 0; i < ranked.size(); ++i) {
      SCOPED_TRACE(ranked[i].describe());
      std::vector<PlannedCommand> commands;
      ASSERT_TRUE(generateCommands(layer, ranked[i], placement(layer), config, commands).ok());
      // As a program's schedule prices them (placed): the search's estimator (tensors at address
      // 0) prices a STORE's rows wherever they might start.
      ScheduleEstimator estimator(config, 0, /*placed=*/true);
      ASSERT_TRUE(generateCommands(layer, ranked[i], placement(layer), config, estimator).ok());
      const size_t count = commands.size();
      // gemmWork() mirrors the generator, a step a GEMM: the search extrapolates truncated
      // estimates over it.
      GemmWork emitted;
      uint64_t gemmCommands = 0;
      const CostModel cost(config);
      for (const auto& c : commands) {
        const auto* gemm = std::get_if<hw::GemmCmd>(&c.cmd);
        if (gemm == nullptr) continue;
        ++gemmCommands;
        emitted.commands += gemm->kSteps;
        emitted.busyCycles += estimate(cost, c).busyCycles;
      }
      // A tile's chunks of a load fold into GEMMs of several steps (k_steps), where the chunks are
      // alike (the fully connected shape's: all but the last 16 bytes).
      if (std::string(shape.name) == "fc-like" && steppable(ranked[i]) && ranked[i].largestLoad() > 1) {
        EXPECT_LT(gemmCommands * (ranked[i].largestLoad() - 1), emitted.commands);
      }
      const GemmWork work = gemmWork(ranked[i], config);
      EXPECT_EQ(work.commands, emitted.commands);
      EXPECT_DOUBLE_EQ(work.busyCycles, emitted.busyCycles);
      auto scheduled = scheduleCommands(std::move(commands), config);
      ASSERT_TRUE(scheduled.ok()) << scheduled.error().message;
      EXPECT_EQ(scheduled.value().ring.size(), count);
      EXPECT_GT(estimator.cycles(), 0);
      EXPECT_DOUBLE_EQ(estimator.cycles(), scheduled.value().estimatedCycles);
      // Scheduling segment by segment as the commands come gives the same program, byte for byte.
      std::vector<uint8_t> ring(count * hw::kCommandBytes);
      for (size_t k = 0; k < count; ++k) {
        scheduled.value().commands[scheduled.value().ring[k]].encode().toBytes(&ring[k * hw::kCommandBytes]);
      }
      ProgramBuilder builder(config);
      ASSERT_TRUE(generateCommands(layer, ranked[i], placement(layer), config, builder).ok());
      EXPECT_EQ(builder.size(), count);
      auto program = builder.finish();
      ASSERT_TRUE(program.ok()) << program.error().message;
      EXPECT_EQ(program.value().commands, count);
      EXPECT_TRUE(program.value().program == ring);
      EXPECT_DOUBLE_EQ(program.value().estimatedCycles, scheduled.value().estimatedCycles);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Configurations, EstimateMatchesSchedule,
                         ::testing::Values("weft8", "weft16", "shallow-tokens"), [](const auto& info) {
                           return std::string(info.param) == "shallow-tokens" ? std::string("weft8_token_depth_4")
                                                                              : std::string(info.param);
                         });

// A budgeted estimate: exactly the whole one when the budget covers the program; otherwise cut
// short (EstimateBudgetSpent) and extrapolated over the GEMM work left, close to the whole
// estimate on regular layers, which is what lets the search rank big candidates by a prefix.
TEST(ScheduleEstimator, ABudgetCutsTheProgramShortAndExtrapolates) {
  const auto config = hw::HwConfig::load("weft8");
  size_t truncated = 0;
  for (const Shape& shape : kShapes) {
    SCOPED_TRACE(shape.name);
    const GemmLayer layer = convLayer(shape);
    const auto ranked = rankTilings(layer, chunksOf(layer, config), placement(layer).input, config, 6);
    for (const TilePlan& plan : ranked) {
      SCOPED_TRACE(plan.describe());
      ScheduleEstimator whole(config);
      ASSERT_TRUE(generateCommands(layer, plan, placement(layer), config, whole).ok());
      const GemmWork work = gemmWork(plan, config);
      for (uint64_t budget : {work.commands + 1, std::max<uint64_t>(2, work.commands / 3)}) {
        ScheduleEstimator prefix(config, budget);
        bool spent = false;
        try {
          ASSERT_TRUE(generateCommands(layer, plan, placement(layer), config, prefix).ok());
        } catch (const EstimateBudgetSpent&) {
          spent = true;
        }
        EXPECT_EQ(spent, prefix.truncated());
        EXPECT_EQ(spent, budget <= work.commands);
        if (!spent) {
          EXPECT_DOUBLE_EQ(prefix.projectedCycles(work.busyCycles), whole.cycles());
          EXPECT_DOUBLE_EQ(prefix.projectedChannelCycles(work.busyCycles), whole.channelCycles());
          continue;
        }
        ++truncated;
        EXPECT_LT(prefix.cycles(), whole.cycles());
        EXPECT_GE(prefix.projectedCycles(work.busyCycles), prefix.cycles());
        EXPECT_GE(prefix.projectedChannelCycles(work.busyCycles), prefix.channelCycles());
      }
    }
  }
  EXPECT_GT(truncated, 10u);
}

// On layers of real size (ResNet's 56x56x64 3x3 and 14x14x256 1x1 at 8x8), a prefix of a
// tenth of the GEMMs puts every candidate within a few per cent of its whole estimate.
TEST(ScheduleEstimator, APrefixEstimatesRealLayersWithinAFewPerCent) {
  const auto config = hw::HwConfig::load("weft8");
  const Shape shapes[] = {{"3x3", 58, 58, 64, 3, 1, 64}, {"1x1", 14, 14, 256, 1, 1, 1024}};
  for (const Shape& shape : shapes) {
    SCOPED_TRACE(shape.name);
    const GemmLayer layer = convLayer(shape);
    const auto ranked = rankTilings(layer, chunksOf(layer, config), placement(layer).input, config, 6);
    double worst = 0;
    for (const TilePlan& plan : ranked) {
      SCOPED_TRACE(plan.describe());
      ScheduleEstimator whole(config);
      ASSERT_TRUE(generateCommands(layer, plan, placement(layer), config, whole).ok());
      const GemmWork work = gemmWork(plan, config);
      ScheduleEstimator prefix(config, work.commands / 10);
      EXPECT_THROW((void)generateCommands(layer, plan, placement(layer), config, prefix), EstimateBudgetSpent);
      const double error = prefix.projectedCycles(work.busyCycles) / whole.cycles() - 1;
      worst = std::max(worst, std::abs(error));
      EXPECT_LT(std::abs(error), 0.05);
    }
    std::printf("%s: %zu candidates, worst prefix error %.2f %%\n", shape.name, ranked.size(), 100 * worst);
  }
}

// A high-resolution layer is tens of millions of commands: both sinks end a segment with a
// barrier before it would exceed kMaxSegmentCommands, so scheduling it holds a bounded number of
// commands, and the estimate still equals the scheduled program's.
TEST(ProgramBuilder, ALongSegmentIsCutByBarriers) {
  const auto config = hw::HwConfig::load("weft8");
  const size_t n = 2 * kMaxSegmentCommands + 3;
  ProgramBuilder builder(config);
  ScheduleEstimator estimator(config);
  for (size_t i = 0; i < n; ++i) {
    for (CommandSink* sink : {static_cast<CommandSink*>(&builder), static_cast<CommandSink*>(&estimator)}) {
      hw::GemmCmd g;
      g.kRows = 8;
      g.mRows = 4;
      g.accAddr = static_cast<uint32_t>(i % 64);
      sink->add(PlannedCommand{g, {{bufferId(BufferKind::kAccumulator, static_cast<uint32_t>(i % 2)), true}}});
    }
  }
  auto program = builder.finish();
  ASSERT_TRUE(program.ok());
  ASSERT_EQ(program.value().commands, n + 2);
  ASSERT_EQ(program.value().program.size(), (n + 2) * hw::kCommandBytes);
  for (size_t k = 1; k <= 2; ++k) {  // after every kMaxSegmentCommands GEMMs
    const size_t at = k * kMaxSegmentCommands + (k - 1);
    const auto word = hw::CommandWord::fromBytes(&program.value().program[at * hw::kCommandBytes]);
    EXPECT_EQ(static_cast<hw::Opcode>(word.get(hw::field::kOpcode)), hw::Opcode::kBarrier) << "command " << at;
  }
  EXPECT_DOUBLE_EQ(estimator.cycles(), program.value().estimatedCycles);
}

// The watchdog's serial bound: with a cycle-level DRAM it allows for that DRAM's worst case
// (every 32-byte LPDDR4 transaction a row conflict, one after another: tRC + tRCD + RL + burst,
// 162 DRAM cycles of 0.625 ns, refresh taking 448 of every 6246) over the estimate's 25 bytes a
// cycle: Squeezenet's pool10 ran 224,633 cycles at weft16-lpddr4 against a budget of 203,767.
TEST(ProgramBuilder, TheWatchdogBoundAllowsForACycleLevelDram) {
  const auto bound = [](const hw::HwConfig& config) {
    ProgramBuilder builder(config);
    hw::GemmCmd g;
    g.kRows = 8;
    g.mRows = 4;
    builder.add(PlannedCommand{g, {{bufferId(BufferKind::kAccumulator, 0), true}}});
    return builder.serialCycles();
  };
  const auto lpddr4 = hw::HwConfig::load("weft16-lpddr4");
  // The same estimate's parameters with the simple pipe: the bound the estimate alone gives.
  const double simple = bound(lpddr4.with(hw::Param::kDram, 0));
  const double expected = 162.0 * 6246 / (6246 - 448) * 0.625 / 32 * 25;
  EXPECT_NEAR(bound(lpddr4) / simple, expected, 1e-9);
}

TEST(Tiling, CandidatesAreDistinct) {
  const auto config = hw::HwConfig::load("weft16");
  // A 7x7 kernel over 3 channels: no two chunks can share a load, so every requested
  // load size groups them alike; each grouping must be scheduled once, not once per size.
  const GemmLayer layer = convLayer({"7x7/2 rgb", 64, 64, 3, 7, 2, 64});
  const auto ranked = rankTilings(layer, chunksOf(layer, config), placement(layer).input, config, 6);
  for (size_t i = 0; i < ranked.size(); ++i) {
    for (size_t j = i + 1; j < ranked.size(); ++j) {
      const bool same = ranked[i].describe() == ranked[j].describe() && ranked[i].wSlots == ranked[j].wSlots;
      EXPECT_FALSE(same) << "candidates " << i << " and " << j << ": " << ranked[i].describe();
    }
  }
}

// Every output pixel in exactly one box, each box one LOAD/STORE can address.
void expectBoxesCoverOnce(const GemmLayer& layer, const std::vector<MBox>& boxes) {
  const ImageShape& out = layer.output;
  std::vector<int> seen(size_t{out.batches} * out.height * out.width, 0);
  for (const MBox& b : boxes) {
    const bool images = b.noh == out.height && b.now == out.width;
    const bool rows = b.nb == 1 && b.now == out.width;
    const bool segment = b.nb == 1 && b.noh == 1;
    EXPECT_TRUE(images || rows || segment) << b.b0 << " " << b.nb << " " << b.oh0 << " " << b.noh << " " << b.ow0;
    for (uint32_t i = b.b0; i < b.b0 + b.nb; ++i)
      for (uint32_t y = b.oh0; y < b.oh0 + b.noh; ++y)
        for (uint32_t x = b.ow0; x < b.ow0 + b.now; ++x) ++seen.at((size_t{i} * out.height + y) * out.width + x);
  }
  for (size_t p = 0; p < seen.size(); ++p) ASSERT_EQ(seen[p], 1) << "pixel " << p;
}

TEST(Tiling, RampedPlansCutTheEndBoxesSmallAndCoverEveryPixelOnce) {
  for (const char* name : {"weft16", "weft8", "weft8os"}) {
    SCOPED_TRACE(name);
    const auto config = hw::HwConfig::load(name);
    const unsigned align = config.dataflow() == hw::Dataflow::kOS ? config.rows() : 1;
    for (const Shape& s : {Shape{"resnet50 CB2a_1", 56, 56, 64, 1, 1, 64}, Shape{"3x3", 30, 45, 16, 3, 1, 24},
                           Shape{"wide", 4, 300, 16, 1, 1, 16}}) {
      SCOPED_TRACE(s.name);
      GemmLayer layer = convLayer(s);
      layer.input.batches = layer.output.batches = 2;
      for (const TilePlan& plan : rankTilings(layer, chunksOf(layer, config), placement(layer).input, config, 6)) {
        const auto ramped = rampedPlan(plan, config);
        if (plan.boxes.size() < 3) {
          EXPECT_FALSE(ramped.has_value());
          continue;
        }
        ASSERT_TRUE(ramped.has_value()) << plan.describe();
        EXPECT_TRUE(ramped->ramped);
        EXPECT_FALSE(rampedPlan(*ramped, config).has_value()) << "a ramped plan is not ramped again";
        expectBoxesCoverOnce(layer, ramped->boxes);
        EXPECT_GT(ramped->boxes.size(), plan.boxes.size());
        // Each end is cut down to a quarter of the first box (at least 16 pixels or a block),
        // unless it is that small already or no aligned cut divides it.
        const uint32_t target = std::max<uint32_t>({16, align, plan.boxes.front().rows() / 4});
        const uint32_t front = plan.boxes.front().rows(), back = plan.boxes.back().rows();
        EXPECT_LE(ramped->boxes.front().rows(), front <= target ? front : std::max(target, 2 * align));
        EXPECT_LE(ramped->boxes.back().rows(), back <= target ? back : std::max(target, 2 * align));
        for (const MBox& b : ramped->boxes) {
          EXPECT_LE(b.rows(), plan.rowsPerTile);
          // A segment cut on the output-stationary array starts on a block of Rows pixels.
          if (b.noh == 1 && b.now < layer.output.width) {
            EXPECT_EQ(b.ow0 % align, 0u);
          }
        }
      }
    }
  }
}

TEST(CommandGenerator, AStrideTooWideIsBadDataAndLeavesTheProgramAsItWas) {
  const auto config = hw::HwConfig::load("weft8");
  const GemmLayer layer = convLayer(kShapes[1]);
  const auto ranked = rankTilings(layer, chunksOf(layer, config), placement(layer).input, config, 1);
  ASSERT_FALSE(ranked.empty());
  LayerPlacement where = placement(layer);
  where.output.pixelStride = 1u << 24;  // past the STORE's 24-bit field
  std::vector<PlannedCommand> program(3);
  const auto status = generateCommands(layer, ranked.front(), where, config, program);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, nn::ErrorStatus::BAD_DATA);
  EXPECT_NE(status.error().message.find("STORE"), std::string::npos) << status.error().message;
  EXPECT_EQ(program.size(), 3u);
}

TEST(PlannedCommand, MoreThanFourBufferUsesIsADriverBug) {
  BufferUses uses{{1, false}, {2, false}, {3, true}, {4, false}};
  EXPECT_EQ(uses.size(), 4u);
  EXPECT_THROW(uses.push_back({5, false}), std::logic_error);
  EXPECT_EQ(uses.size(), 4u);
}

}  // namespace
}  // namespace weft::accel
