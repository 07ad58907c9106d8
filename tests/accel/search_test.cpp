// The tiling search on two threads (ModelCompiler's bestTiling): a layer with enough candidate
// work that a second thread takes every other candidate. Run under ThreadSanitizer in CI
// (.ci/run), where a result slot two workers share a memory word of is a data race.
#include <gtest/gtest.h>

#include "AccelTestUtil.h"

namespace weft::accel::test {
namespace {

TEST(TilingSearch, ALayerSearchedOnTwoThreadsMatchesTheReference) {
  std::mt19937 rng(11);
  // 28x28x64 -> 64, 3x3 on an 8x8 array: 72 K chunks x 8 column tiles a box, so the first round's
  // prefixes (up to 1024 GEMMs each, tens of candidates) pass the search's second-thread threshold.
  ConvCase c;
  c.height = c.width = 28;
  c.inChannels = c.outChannels = 64;
  c.implicitPadding = true;
  c.in = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.5f, 128};
  c.filter = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.01f, 120};
  c.out = {nn::OperandType::TENSOR_QUANT8_ASYMM, 2.0f, 100};
  const OpModel m = makeConvModel(c, rng);
  auto device = deviceOn(sim::createBackend(sim::BackendKind::kApprox, hw::HwConfig::load("weft8")));
  expectBitExactOnDevice(*device, m, c.describe());
}

}  // namespace
}  // namespace weft::accel::test
