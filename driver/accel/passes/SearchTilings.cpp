#include "SearchTilings.h"

#include <utility>

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
    if (plan.layers[l].isVector()) continue;
    const GemmLayer& layer = plan.layers[l].layer;
    t.views[l] = gemmViews(plan, layer, [](uint32_t) { return uint64_t{0}; });
    t.chunks[l] = chunkK(layer, t.views[l].input.pixelStride, t.views[l].input.rowStride, target.config.rows());
  }
  t.choices.fingerprint = searchFingerprint(plan.layers, t.views, t.chunks, target);
  const bool replaying = replay != nullptr && replay->fingerprint == t.choices.fingerprint &&
                         replay->tilings.size() == layerCount;
  t.fromCache = replaying;
  for (size_t l = 0; l < layerCount; ++l) {
    const LoweredOperation& lo = plan.layers[l];
    NN_TRY(checkDeadline(target.options.deadline, lo.operationIndex()));
    if (lo.isVector()) {
      t.choices.tilings.push_back(0);
      continue;
    }
    const std::optional<uint32_t> named = replaying ? std::optional<uint32_t>(replay->tilings[l]) : std::nullopt;
    auto choice = searchTiling(TilingProblem{lo.layer, t.chunks[l], t.views[l], target.config}, target.policy,
                               target.options, named);
    if (!choice.ok()) return choice.error();
    if (replaying && choice.value().candidate != replay->tilings[l]) t.fromCache = false;  // named no candidate
    t.choices.tilings.push_back(choice.value().candidate);
    t.plans[l] = std::move(choice).value().plan;
  }
  return t;
}

}  // namespace weft::accel
