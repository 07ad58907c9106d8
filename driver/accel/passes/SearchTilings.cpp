#include "SearchTilings.h"

#include <utility>

#include "../RuntimeOperands.h"
#include "../SearchKey.h"
#include "../TilingSearch.h"

namespace weft::accel {

nn::Result<ModelTilings> searchTilings(const LayoutPlan& plan, const CompileTarget& target,
                                       const TilingChoices* replay) {
  const size_t layerCount = plan.layers.size();
  ModelTilings t;
  t.views.resize(layerCount);
  t.chunks.resize(layerCount);
  t.plans.resize(layerCount);
  for (size_t l = 0; l < layerCount; ++l) {
    const GemmLayer* gemm = plan.layers[l].gemm();
    if (gemm == nullptr) continue;  // the vector unit's layers tile themselves
    const GemmLayer& layer = *gemm;
    t.views[l] = gemmViews(plan, layer, [](uint32_t) { return uint64_t{0}; });
    // The weights' loads as the program will issue them: a filter read in place loads its tiles
    // with other requests than the weight image (RuntimeOperands.h).
    t.views[l].weightSource = runtimeWeightSource(layer, target.config);
    t.chunks[l] = chunkK(layer, t.views[l].input.pixelStride, t.views[l].input.rowStride, target.config.rows());
  }
  t.choices.fingerprint = searchFingerprint(plan.layers, t.views, t.chunks, target);
  const bool replaying = replay != nullptr && replay->fingerprint == t.choices.fingerprint &&
                         replay->tilings.size() == layerCount;
  t.fromCache = replaying;
  for (size_t l = 0; l < layerCount; ++l) {
    const LoweredLayer& lo = plan.layers[l];
    NN_TRY(checkDeadline(target.options.deadline, lo.operationIndex()));
    const GemmLayer* gemm = lo.gemm();
    if (gemm == nullptr) {
      t.choices.tilings.push_back(0);
      continue;
    }
    const std::optional<uint32_t> named = replaying ? std::optional<uint32_t>(replay->tilings[l]) : std::nullopt;
    const GemmLayer* next = l + 1 < layerCount ? plan.layers[l + 1].gemm() : nullptr;
    const bool overlapsNext = next != nullptr && productsOverlap(*gemm, *next, target.config);
    auto choice = searchTiling(TilingProblem{*gemm, t.chunks[l], t.views[l], target.config, overlapsNext},
                               target.policy, target.options, named);
    if (!choice.ok()) return choice.error();
    if (replaying && choice.value().candidate != replay->tilings[l]) t.fromCache = false;  // named no candidate
    t.choices.tilings.push_back(choice.value().candidate);
    t.plans[l] = std::move(choice).value().plan;
  }
  return t;
}

}  // namespace weft::accel
