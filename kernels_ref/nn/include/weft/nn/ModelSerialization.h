// The canonical model as bytes, and back: what a device keeps in a compilation cache file, and
// what the runtime fingerprints a model by. Two parts: the structure (subgraphs, operands,
// operations, extension prefixes) and the constants (operandValues, then each pool's bytes), so
// that each can live in a file of its own (a model cache and a data cache, as NN HAL has them).
//
// The encoding is little-endian and deterministic: equal models give equal bytes. Reading checks
// every length and index against what it read, so any input gives either a model whose operand
// locations lie inside its constants, or BAD_DATA; it never reads past the end.
#pragma once

#include <cstdint>
#include <vector>

#include "weft/nn/Result.h"
#include "weft/nn/Types.h"

namespace weft::nn {

struct SerializedModel {
  std::vector<uint8_t> structure;
  std::vector<uint8_t> constants;
};

// BAD_DATA for a model that holds POINTER operands (they point into the client's memory; finished
// and step models never do).
Result<SerializedModel> serializeModel(const Model& model);

// The pools of the model read back are host memories holding the bytes of `constants`.
Result<Model> deserializeModel(const std::vector<uint8_t>& structure, const std::vector<uint8_t>& constants);

}  // namespace weft::nn
