#include "Lower.h"

#include <functional>
#include <map>
#include <utility>

namespace weft::accel {
namespace {

// Operation indexes in an order where every operation follows the producers of its inputs.
nn::Result<std::vector<uint32_t>> dependencyOrder(const nn::Model& model) {
  const auto& ops = model.main.operations;
  std::map<uint32_t, uint32_t> producer;
  for (uint32_t i = 0; i < ops.size(); ++i)
    for (uint32_t o : ops[i].outputs) producer[o] = i;
  std::vector<uint32_t> order;
  std::vector<int> state(ops.size(), 0);  // 0 new, 1 visiting, 2 done
  std::function<nn::Status(uint32_t)> visit = [&](uint32_t i) -> nn::Status {
    if (state[i] == 2) return {};
    if (state[i] == 1) return NN_ERROR(BAD_DATA) << "the model's operations form a cycle";
    state[i] = 1;
    for (uint32_t in : ops[i].inputs) {
      auto it = producer.find(in);
      if (it != producer.end()) NN_TRY(visit(it->second));
    }
    state[i] = 2;
    order.push_back(i);
    return {};
  };
  for (uint32_t i = 0; i < ops.size(); ++i) NN_TRY(visit(i));
  return order;
}

}  // namespace

nn::Status datapathFits(const LoweredLayer& lo, const hw::HwConfig& config) {
  if (isFloat(lo.computeType()) && !config.fp16()) {
    return NN_ERROR(BAD_DATA) << nn::toString(lo.type()) << " in float16 (TENSOR_FLOAT16, or TENSOR_FLOAT32 relaxed) "
                              << "needs the fp16 datapath (Fp16 1, as in weft16fp); " << config.name() << " has none";
  }
  return {};
}

nn::Result<LoweredModel> lowerModel(const nn::Model& model, const CompileTarget& target) {
  auto order = dependencyOrder(model);
  if (!order.ok()) return order.error();
  if (model.main.operations.empty()) return NN_ERROR(BAD_DATA) << "the model has no operations";
  LoweredModel lowered;
  for (uint32_t i : order.value()) {
    // The timing backend builds no weight image, so an array layer takes no copy of its filter:
    // beside the client's values and the runtime's, it was a third copy of GNMT's 60 MB filter
    // at the compilation's peak.
    auto lo = lowerOperation(model, i, /*withValues=*/true, /*gemmFilterValues=*/target.computesData);
    if (!lo.ok()) return lo.error();
    for (const LoweredLayer& layer : lo.value().layers) NN_TRY(datapathFits(layer, target.config));
    lowered.operations.push_back(std::move(lo).value());
  }
  return lowered;
}

}  // namespace weft::accel
