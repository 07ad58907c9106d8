#include "Layout.h"

#include <utility>

namespace weft::accel {

LayoutPlan layoutOperations(const nn::Model& model, std::vector<std::optional<LoweredOperation>> ops,
                            std::map<uint32_t, nn::Error>* rejected) {
  LayoutPlan plan = planLayouts(model, std::move(ops), rejected);
  lowerFullyConnectedInputs(plan, rejected);
  lowerReshapeInputs(plan);
  return plan;
}

nn::Result<LayoutPlan> layoutModel(const nn::Model& model, LoweredModel lowered) {
  std::map<uint32_t, nn::Error> rejected;
  LayoutPlan plan = layoutOperations(model, std::move(lowered.operations), &rejected);
  if (!rejected.empty()) return rejected.begin()->second;
  return plan;
}

}  // namespace weft::accel
