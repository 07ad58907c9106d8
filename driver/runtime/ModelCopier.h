// Builds a self-contained nn::Model out of parts of others: copies operands with their constant
// values (into the target's operandValues or pools) and referenced subgraphs (IF/WHILE bodies,
// each copied once however often it is referenced). Used to flatten a model with the models it
// references, and to cut a compiled model into per-device step models.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "weft/nn/Types.h"

namespace weft::runtime {

// Where the constants of the source operands live.
struct ValueSource {
  const std::vector<uint8_t>* operandValues = nullptr;   // CONSTANT_COPY offsets
  const std::vector<nn::SharedMemory>* pools = nullptr;  // CONSTANT_REFERENCE pool indexes
};

class ModelCopier {
 public:
  explicit ModelCopier(nn::Model& target) : target_(target) {}

  // Copies `operand`: CONSTANT_COPY values become CONSTANT_COPY bytes of the target, a POINTER
  // value a CONSTANT_REFERENCE to a pool of its own, CONSTANT_REFERENCE keeps referencing the
  // same memory through the target's pools, SUBGRAPH
  // references are mapped by `subgraphIndex` (source reference -> target referenced index).
  nn::Operand copyOperand(const nn::Operand& operand, const ValueSource& values,
                          const std::function<uint32_t(uint32_t)>& subgraphIndex);

  // Copies `subgraph` of `model` (and everything it references) into target.referenced and
  // returns its index there. A subgraph already copied is not copied again.
  uint32_t copySubgraph(const nn::Model& model, const nn::Subgraph& subgraph);

 private:
  uint32_t appendValue(const uint8_t* bytes, size_t length);
  uint32_t poolIndex(const nn::SharedMemory& memory);

  nn::Model& target_;
  std::map<const nn::Subgraph*, uint32_t> copiedSubgraphs_;
  std::map<const nn::Memory*, uint32_t> pools_;
};

}  // namespace weft::runtime
