#include "TestModel.h"

namespace weft::test {

std::set<nn::OperationType> TestModel::operationTypes() const {
  std::set<nn::OperationType> types;
  for (const TestOperation& op : main.operations) types.insert(op.type);
  for (const TestSubgraph& sg : referenced) {
    for (const TestOperation& op : sg.operations) types.insert(op.type);
  }
  return types;
}

bool TestModel::hasOperandOfType(nn::OperandType type) const {
  for (const TestOperand& o : main.operands) {
    if (o.type == type) return true;
  }
  for (const TestSubgraph& sg : referenced) {
    for (const TestOperand& o : sg.operands) {
      if (o.type == type) return true;
    }
  }
  return false;
}

bool TestModel::isInfiniteLoopTimeoutTest() const {
  return expectFailure && !main.operations.empty() && main.operations[0].type == nn::OperationType::WHILE;
}

size_t testElementSize(nn::OperandType type) {
  return type == nn::OperandType::SUBGRAPH ? sizeof(uint32_t) : nn::sizeOfElement(type);
}

}  // namespace weft::test
