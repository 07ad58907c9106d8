#include "ExecutionParameters.h"

#include <algorithm>
#include <set>

namespace weft::accel {
namespace {

// The shape parameters, by operation: input 1 of each.
bool hasShapeParameter(nn::OperationType t) {
  using T = nn::OperationType;
  return t == T::PAD || t == T::PAD_V2 || t == T::RESHAPE || t == T::MEAN;
}

// Stands for the operation until its values are known: tensors only, never generated.
class PendingLayer final : public VectorLayer {
 public:
  std::vector<std::vector<uint8_t>> constantImages(const hw::HwConfig&) const override { return {}; }
  nn::Status generate(const VectorPlacement&, const hw::HwConfig&, CommandSink&) const override {
    return NN_ERROR(BAD_DATA) << nn::toString(type) << " is compiled when its parameters are given";
  }
  uint64_t laneOps() const override { return 0; }
  std::string describe() const override { return "compiled at execution"; }
};

}  // namespace

bool isExecutionParameter(const OperationReader& r, uint32_t i) {
  return i == 1 && hasShapeParameter(r.op().type) && r.op().inputs.size() > 1 &&
         r.input(1).lifetime == nn::Operand::LifeTime::SUBGRAPH_INPUT;
}

LoweredOperation compiledAtExecution(const OperationReader& r, uint32_t index) {
  auto layer = std::make_shared<PendingLayer>();
  layer->operationIndex = index;
  layer->type = r.op().type;
  layer->inputs = {{r.op().inputs[0], ImageShape{}, DataLayout::kFlat}};
  layer->outputs = {{r.op().outputs[0], ImageShape{}, DataLayout::kFlat}};
  LoweredLayer lo;
  lo.work = std::move(layer);
  lo.outputDims = r.output(0).dimensions;
  LoweredOperation pending(std::move(lo));
  pending.pending = true;
  return pending;
}

std::vector<uint32_t> executionParameters(const nn::Model& model) {
  std::set<uint32_t> operands;
  for (const auto& op : model.main.operations) {
    if (!hasShapeParameter(op.type) || op.inputs.size() < 2 || op.inputs[1] >= model.main.operands.size()) continue;
    if (model.main.operands[op.inputs[1]].lifetime == nn::Operand::LifeTime::SUBGRAPH_INPUT) {
      operands.insert(op.inputs[1]);
    }
  }
  return {operands.begin(), operands.end()};
}

nn::Model withParameterValues(const nn::Model& model, const std::vector<uint32_t>& operands,
                              const std::vector<std::vector<uint8_t>>& values) {
  nn::Model m = model;
  for (size_t i = 0; i < operands.size(); ++i) {
    nn::Operand& o = m.main.operands[operands[i]];
    // Constant operand values are 4-byte aligned in NNAPI's storage; keep that.
    m.operandValues.resize((m.operandValues.size() + 3) / 4 * 4);
    o.lifetime = nn::Operand::LifeTime::CONSTANT_COPY;
    o.location = nn::DataLocation{};
    o.location.offset = static_cast<uint32_t>(m.operandValues.size());
    o.location.length = static_cast<uint32_t>(values[i].size());
    m.operandValues.insert(m.operandValues.end(), values[i].begin(), values[i].end());
  }
  return m;
}

}  // namespace weft::accel
