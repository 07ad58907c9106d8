#include "ValidationContext.h"

namespace weft::nn {

const uint8_t* constantData(const Model& model, const Operand& operand) {
  const DataLocation& loc = operand.location;
  const size_t end = size_t{loc.offset} + loc.length;
  switch (operand.lifetime) {
    case Operand::LifeTime::CONSTANT_COPY:
      if (end > model.operandValues.size()) return nullptr;
      return model.operandValues.data() + loc.offset;
    case Operand::LifeTime::CONSTANT_REFERENCE: {
      if (loc.poolIndex >= model.pools.size() || model.pools[loc.poolIndex] == nullptr) return nullptr;
      Memory& pool = *model.pools[loc.poolIndex];
      if (end > pool.size()) return nullptr;
      return pool.data() + loc.offset;
    }
    case Operand::LifeTime::POINTER:
      return static_cast<const uint8_t*>(loc.pointer);
    default:
      return nullptr;
  }
}

const Subgraph* referencedSubgraph(const Model& model, const Operand& operand) {
  if (operand.lifetime != Operand::LifeTime::SUBGRAPH || operand.type != OperandType::SUBGRAPH) return nullptr;
  const uint32_t index = operand.location.offset;
  return index < model.referenced.size() ? &model.referenced[index] : nullptr;
}

const void* ValidationContext::getConstantInputBuffer(uint32_t index) const {
  const Operand& operand = input(index);
  const uint8_t* data = constantData(model_, operand);
  // A constant shorter than its declared shape is no value to validate against.
  if (data == nullptr || operand.location.length < sizeOfData(operand.type, operand.dimensions)) return nullptr;
  return data;
}

OperandType extensionOperandTypeOf(const Model& model, std::string_view extension, uint16_t code) {
  uint32_t prefix = 0xFFFF;
  for (const ExtensionNameAndPrefix& entry : model.extensionNameToPrefix) {
    if (entry.name == extension) prefix = entry.prefix;
  }
  return static_cast<OperandType>((prefix << kExtensionTypeBits) | code);
}

OperandType ValidationContext::extensionOperandType(std::string_view extension, uint16_t code) const {
  return extensionOperandTypeOf(model_, extension, code);
}

const Subgraph* ValidationContext::getReferencedSubgraph(uint32_t index) const {
  return referencedSubgraph(model_, input(index));
}

}  // namespace weft::nn
