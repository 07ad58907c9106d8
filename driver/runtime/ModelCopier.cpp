#include "ModelCopier.h"

#include <cstring>
#include <memory>

namespace weft::runtime {

using LifeTime = nn::Operand::LifeTime;

namespace {

// A large constant's own copy: allocated as it is filled (no zeroing first: a GNMT layer's
// weights are 60 MB).
class ValueMemory final : public nn::Memory {
 public:
  ValueMemory(const uint8_t* bytes, size_t size) : bytes_(new uint8_t[size == 0 ? 1 : size]), size_(size) {
    if (size > 0) std::memcpy(bytes_.get(), bytes, size);
  }
  uint8_t* data() override { return bytes_.get(); }
  size_t size() const override { return size_; }

 private:
  std::unique_ptr<uint8_t[]> bytes_;
  size_t size_;
};

}  // namespace

uint32_t ModelCopier::appendValue(const uint8_t* bytes, size_t length) {
  // Each value starts on an 8-byte boundary so that kernels may read any element type in place.
  std::vector<uint8_t>& values = target_.operandValues;
  const size_t offset = (values.size() + 7) & ~size_t{7};
  values.resize(offset + length);
  if (length > 0) std::memcpy(values.data() + offset, bytes, length);
  return static_cast<uint32_t>(offset);
}

uint32_t ModelCopier::poolIndex(const nn::SharedMemory& memory) {
  auto [it, inserted] = pools_.try_emplace(memory.get(), static_cast<uint32_t>(target_.pools.size()));
  if (inserted) target_.pools.push_back(memory);
  return it->second;
}

nn::Operand ModelCopier::copyOperand(const nn::Operand& operand, const ValueSource& values,
                                     const std::function<uint32_t(uint32_t)>& subgraphIndex) {
  nn::Operand copy = operand;
  switch (operand.lifetime) {
    case LifeTime::CONSTANT_COPY:
      copy.location = {};
      copy.location.offset = appendValue(values.operandValues->data() + operand.location.offset, operand.location.length);
      copy.location.length = operand.location.length;
      break;
    case LifeTime::POINTER:
      // A large value (NNAPI copies only small ones at setOperandValue) is copied once, into a
      // pool of its own, as Android's ModelBuilder::finish copies large values into shared
      // memory: models cut from this one (per-device steps) then reference it instead of
      // copying it again, and no growing operandValues copies it on every reallocation.
      copy.lifetime = LifeTime::CONSTANT_REFERENCE;
      copy.location = {};
      copy.location.poolIndex = static_cast<uint32_t>(target_.pools.size());
      target_.pools.push_back(std::make_shared<ValueMemory>(static_cast<const uint8_t*>(operand.location.pointer),
                                                            operand.location.length));
      copy.location.length = operand.location.length;
      break;
    case LifeTime::CONSTANT_REFERENCE:
      copy.location.poolIndex = poolIndex((*values.pools)[operand.location.poolIndex]);
      break;
    case LifeTime::SUBGRAPH:
      copy.location = {};
      copy.location.offset = subgraphIndex(operand.location.offset);
      break;
    default:
      break;
  }
  return copy;
}

uint32_t ModelCopier::copySubgraph(const nn::Model& model, const nn::Subgraph& subgraph) {
  if (auto it = copiedSubgraphs_.find(&subgraph); it != copiedSubgraphs_.end()) return it->second;
  const auto index = static_cast<uint32_t>(target_.referenced.size());
  copiedSubgraphs_.emplace(&subgraph, index);
  target_.referenced.emplace_back();

  nn::Subgraph copy;
  copy.operations = subgraph.operations;
  copy.inputIndexes = subgraph.inputIndexes;
  copy.outputIndexes = subgraph.outputIndexes;
  copy.operands.reserve(subgraph.operands.size());
  const ValueSource values{&model.operandValues, &model.pools};
  auto nested = [&](uint32_t k) { return copySubgraph(model, model.referenced[k]); };
  for (const nn::Operand& operand : subgraph.operands) copy.operands.push_back(copyOperand(operand, values, nested));
  // Copied last: nested copies grow target_.referenced.
  target_.referenced[index] = std::move(copy);
  return index;
}

}  // namespace weft::runtime
