#include "TestModel.h"

#include "weft/WeftExtension.h"

namespace weft::test {

std::string TestModel::operationName(nn::OperationType type) const {
  if (!nn::isExtension(type)) return nn::toString(type);
  const auto value = static_cast<int32_t>(type);
  const std::string* extension = nn::extensionNameOf(extensionNameToPrefix, nn::getExtensionPrefix(value));
  const uint16_t code = nn::getTypeWithinExtension(value);
  if (extension != nullptr && *extension == WEFT_EXTENSION_NAME) {
    switch (code) {
      case WEFT_MATMUL_INT32: return "WEFT_MATMUL_INT32";
      case WEFT_LAYER_NORM: return "WEFT_LAYER_NORM";
      case WEFT_GELU: return "WEFT_GELU";
      default: break;
    }
  }
  return (extension != nullptr ? *extension : "extension " + std::to_string(nn::getExtensionPrefix(value))) + ":" +
         std::to_string(code);
}

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
