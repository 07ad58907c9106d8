// The compiler's passes over an operation that lowers to more than one layer, and a layer that
// asks for scratch DRAM: no operation family does either yet, so a test-only vector layer does.
// Layout, tiling, placement, emission and costing must give each layer its own placement, place
// the intermediate tensor between them once (the first layer writes where the second reads), and
// give the scratch DRAM to the layer that asked for it alone, apart from every other region.
#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ops/OperationReader.h"
#include "passes/CompilationState.h"
#include "weft/sim/backend.h"

namespace weft::accel::test {
namespace {

// What each test layer was given when it generated its commands.
struct Seen {
  std::vector<VectorPlacement> placements;
};

// A vector layer that makes no commands and records its placement.
class RecordingLayer final : public VectorLayer {
 public:
  RecordingLayer(std::shared_ptr<Seen> seen, uint64_t scratch) : seen_(std::move(seen)), scratch_(scratch) {}

  std::vector<std::vector<uint8_t>> constantImages(const hw::HwConfig&) const override { return {}; }
  uint64_t scratchBytes(const hw::HwConfig&) const override { return scratch_; }
  nn::Status generate(const VectorPlacement& where, const hw::HwConfig&, CommandSink&) const override {
    seen_->placements.push_back(where);
    return {};
  }
  uint64_t laneOps() const override { return outputs[0].shape.elements(); }
  std::string describe() const override { return "recording layer, scratch " + std::to_string(scratch_); }

 private:
  std::shared_ptr<Seen> seen_;
  uint64_t scratch_;
};

nn::Operand imageOperand(nn::Operand::LifeTime lifetime) {
  nn::Operand o;
  o.type = nn::OperandType::TENSOR_QUANT8_ASYMM;
  o.dimensions = {1, 4, 4, 16};
  o.scale = 0.5f;
  o.zeroPoint = 3;
  o.lifetime = lifetime;
  return o;
}

// One operation (its type does not matter: the lowering below is the test's), input 0 ->
// output 1.
nn::Model oneOperationModel() {
  nn::Model model;
  model.main.operands = {imageOperand(nn::Operand::LifeTime::SUBGRAPH_INPUT),
                         imageOperand(nn::Operand::LifeTime::SUBGRAPH_OUTPUT)};
  model.main.operations = {nn::Operation{nn::OperationType::RELU, {0}, {1}}};
  model.main.inputIndexes = {0};
  model.main.outputIndexes = {1};
  return model;
}

LoweredLayer recordingLayer(std::shared_ptr<Seen> seen, uint64_t scratch, uint32_t from, uint32_t to) {
  auto layer = std::make_shared<RecordingLayer>(std::move(seen), scratch);
  layer->operationIndex = 0;
  layer->type = nn::OperationType::RELU;
  const ImageShape shape{1, 4, 4, 16};
  layer->inputs = {{from, shape, DataLayout::kNHWC}};
  layer->outputs = {{to, shape, DataLayout::kNHWC}};
  LoweredLayer lo;
  lo.work = std::move(layer);
  lo.outputDims = {1, 4, 4, 16};
  return lo;
}

bool overlaps(uint64_t a, uint64_t aBytes, uint64_t b, uint64_t bBytes) { return a < b + bBytes && b < a + aBytes; }

TEST(LayerPasses, TwoLayersOfOneOperationMeetInAnIntermediateAndOnlyTheAskingLayerGetsScratch) {
  constexpr uint64_t kScratch = 5000;
  const nn::Model model = oneOperationModel();
  auto seen = std::make_shared<Seen>();
  const uint32_t middle = OperationReader(model, 0).intermediateOperand(0);
  ASSERT_GE(middle, model.main.operands.size());

  LoweredOperation op;
  op.layers.push_back(recordingLayer(seen, kScratch, 0, middle));
  op.layers.push_back(recordingLayer(seen, 0, middle, 1));
  op.intermediates.push_back({middle, imageOperand(nn::Operand::LifeTime::TEMPORARY_VARIABLE)});

  auto queue = DeviceQueue::create(sim::createBackend(sim::BackendKind::kApprox, hw::HwConfig::load("weft8")));
  ASSERT_TRUE(queue.ok()) << queue.error().message;
  DeviceQueue& q = *queue.value();
  CompilationState s(CompileTarget{q.config(), CompileOptions{}, TilingPolicy::forPreference(CompileOptions{}.preference),
                                   /*computesData=*/true});
  s.lowered.operations.emplace_back(std::move(op));
  ASSERT_TRUE(into(s.layout, layoutModel(model, std::move(s.lowered))).ok());
  ASSERT_EQ(s.layout.layers.size(), 2u);
  ASSERT_EQ(s.layout.tensors.count(middle), 1u);
  ASSERT_TRUE(into(s.tilings, searchTilings(s.layout, s.target, nullptr)).ok());
  {
    std::lock_guard<std::mutex> lock(q.mutex());
    auto placed = placeInDram(model, s.layout, s.tilings, q, s.target);
    ASSERT_TRUE(placed.ok()) << placed.error().message;
    s.dram = std::move(placed).value();
  }
  ASSERT_TRUE(into(s.emitted, emitProgram(s.layout, s.tilings, s.dram, s.target)).ok());
  s.operations = costOperations(s.layout, s.tilings, s.emitted, s.target.config);
  ASSERT_TRUE(into(s.scheduled, scheduleProgram(*s.emitted.program)).ok());

  // Each layer its own placement: the first writes the intermediate where the second reads it.
  ASSERT_EQ(seen->placements.size(), 2u);
  const uint64_t middleAddr = s.dram.tensors.at(middle).region->addr();
  EXPECT_EQ(seen->placements[0].outputs[0].origin, middleAddr);
  EXPECT_EQ(seen->placements[1].inputs[0].origin, middleAddr);
  EXPECT_EQ(seen->placements[0].inputs[0].origin, s.dram.tensors.at(0).region->addr());
  EXPECT_EQ(seen->placements[1].outputs[0].origin, s.dram.tensors.at(1).region->addr());
  EXPECT_EQ(s.emitted.producer.at(middle), 0u);
  EXPECT_EQ(s.emitted.firstReader.at(middle), 1u);

  // The scratch: the first layer's alone, apart from every tensor and constant region.
  const uint64_t scratch = seen->placements[0].scratch;
  EXPECT_NE(scratch, 0u);
  EXPECT_EQ(s.dram.layers[0].scratch, scratch);
  EXPECT_EQ(seen->placements[1].scratch, 0u);
  for (const auto& [operand, placed] : s.dram.tensors) {
    EXPECT_FALSE(overlaps(scratch, kScratch, placed.region->addr(), placed.region->bytes())) << "tensor " << operand;
  }
  size_t scratchRegions = 0;
  for (const SharedRegion& region : s.dram.constants) {
    if (region->addr() == scratch) {
      ++scratchRegions;
      EXPECT_GE(region->bytes(), kScratch);
    } else {
      EXPECT_FALSE(overlaps(scratch, kScratch, region->addr(), region->bytes()));
    }
  }
  EXPECT_EQ(scratchRegions, 1u);

  // Costed and profiled per layer, under the operation's index.
  ASSERT_EQ(s.operations.size(), 2u);
  EXPECT_EQ(s.operations[0].operationIndex, 0u);
  EXPECT_EQ(s.operations[1].operationIndex, 0u);
  EXPECT_EQ(s.operations[0].tiling, "recording layer, scratch 5000");
}

// The support check's layouts reject an operation whole: a layer of it that conflicts takes the
// other layers with it.
TEST(LayerPasses, AnOperationWhoseLayerConflictsIsDroppedWithAllItsLayers) {
  const nn::Model model = oneOperationModel();
  auto seen = std::make_shared<Seen>();
  const uint32_t middle = OperationReader(model, 0).intermediateOperand(0);
  LoweredOperation op;
  op.layers.push_back(recordingLayer(seen, 0, 0, middle));
  LoweredLayer nchw = recordingLayer(seen, 0, middle, 1);
  nchw.vector()->inputs[0].layout = DataLayout::kNCHW;  // the intermediate read in the other order
  op.layers.push_back(std::move(nchw));
  op.intermediates.push_back({middle, imageOperand(nn::Operand::LifeTime::TEMPORARY_VARIABLE)});
  std::vector<std::optional<LoweredOperation>> ops;
  ops.emplace_back(std::move(op));
  std::map<uint32_t, nn::Error> rejected;
  const LayoutPlan plan = layoutOperations(model, std::move(ops), &rejected);
  EXPECT_EQ(rejected.count(0), 1u);
  EXPECT_TRUE(plan.layers.empty());
}

}  // namespace
}  // namespace weft::accel::test
