#include "AcceleratorCases.h"

#include <algorithm>
#include <vector>

namespace weft::test {

bool isAcceleratorCase(const TestModel& model) {
  using T = nn::OperationType;
  static const std::vector<T> kAccelerated = {
      T::CONV_2D, T::FULLY_CONNECTED, T::DEPTHWISE_CONV_2D, T::AVERAGE_POOL_2D, T::MAX_POOL_2D, T::MEAN, T::ADD,
      T::SUB,     T::MUL,             T::RELU,              T::RELU1,           T::RELU6,       T::LOGISTIC, T::TANH,
      T::SOFTMAX, T::PAD,             T::PAD_V2,            T::CONCATENATION,   T::RESHAPE};
  if (model.main.operations.empty() || !model.referenced.empty() || model.expectFailure) return false;
  for (T type : model.operationTypes()) {
    if (std::find(kAccelerated.begin(), kAccelerated.end(), type) == kAccelerated.end()) return false;
  }
  auto quant8 = [&](uint32_t operand) {
    const nn::OperandType t = model.main.operands[operand].type;
    return t == nn::OperandType::TENSOR_QUANT8_ASYMM || t == nn::OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  };
  for (const TestOperation& op : model.main.operations) {
    if (op.inputs.empty() || !quant8(op.inputs[0])) return false;
    for (uint32_t o : op.outputs) {
      if (!quant8(o)) return false;
    }
  }
  return true;
}

bool isAcceleratorFp16Case(const TestModel& model) {
  using T = nn::OperationType;
  if (model.main.operations.empty() || !model.referenced.empty() || model.expectFailure) return false;
  const auto& operands = model.main.operands;
  // TENSOR_FLOAT16, or TENSOR_FLOAT32 computed in float16 (a relaxed model).
  auto isHalf = [&](uint32_t o) {
    const nn::OperandType t = operands[o].type;
    return t == nn::OperandType::TENSOR_FLOAT16 || (t == nn::OperandType::TENSOR_FLOAT32 && model.isRelaxed);
  };
  auto constant = [&](uint32_t o) {
    const auto life = operands[o].lifetime;
    return life == nn::Operand::LifeTime::CONSTANT_COPY || life == nn::Operand::LifeTime::CONSTANT_REFERENCE;
  };
  for (const TestOperation& op : model.main.operations) {
    if (op.type != T::CONV_2D && op.type != T::FULLY_CONNECTED) return false;
    if (op.inputs.size() < 3 || !isHalf(op.inputs[0]) || !constant(op.inputs[1]) || !constant(op.inputs[2])) {
      return false;
    }
    for (uint32_t o : op.outputs) {
      if (!isHalf(o)) return false;
    }
  }
  return true;
}

}  // namespace weft::test
